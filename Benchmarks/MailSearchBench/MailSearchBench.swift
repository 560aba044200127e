import DemoCorpus
import Embedding
import Foundation
import GRDB
import MailImport
import MailModel
import MailStore
import SearchEngine
import SearchIndex

/// `mailsearch-bench`: the performance numbers of the project, printed with corpus sizes.
///
///     mailsearch-bench import PATH          import throughput (msgs/s), with and without indexing
///     mailsearch-bench search [SIZES…]      parse / FTS5 / end-to-end keyword search p50/p95 on
///                                           synthetic corpora (default 10000 50000 100000) and Enron
///     mailsearch-bench latency DIR…         search latency on existing data directories
///     mailsearch-bench recall [MBOX]        AC-S-06 Recall@20: keyword-only, semantic-only, hybrid
///     mailsearch-bench embed                query embedding p50/p95, indexing docs/s, GEMM peak
///     mailsearch-bench vector [SIZES…]      top-50 vector scan p50/p95 (default 50000 500000)
///     mailsearch-bench hybrid               end-to-end hybrid search p50/p95 at 50K (needs `search 50000` first)
@main
struct MailSearchBench {
    static let workRoot = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("bench-data")

    static func main() async throws {
        var args = Array(CommandLine.arguments.dropFirst())
        let command = args.isEmpty ? "all" : args.removeFirst()
        try FileManager.default.createDirectory(at: workRoot, withIntermediateDirectories: true)
        switch command {
        case "import":
            let path = args.first ?? "corpora/enron-inbox/maildir"
            try importBenchmark(path: path, label: "enron")
        case "search":
            let sizes = args.compactMap(Int.init)
            try await searchBenchmarks(sizes: sizes.isEmpty ? [10_000, 50_000, 100_000] : sizes, enron: true)
        case "latency":
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let now = Date()
            for dir in args {
                try await searchLatency(dataDir: URL(fileURLWithPath: dir), label: (dir as NSString).lastPathComponent,
                                        parser: SearchQueryParser(calendar: calendar, now: { now }))
            }
        case "embed":
            try embedBenchmark()
        case "recall":
            try RecallEvaluation.run(mbox: args.first ?? "corpora/usrp-users.mbox", workRoot: workRoot,
                                           modelDirectory: try modelDirectory())
        case "vector":
            let sizes = args.compactMap(Int.init)
            vectorBenchmark(sizes: sizes.isEmpty ? [50_000, 500_000] : sizes)
        case "hybrid":
            try await hybridBenchmark(size: args.compactMap(Int.init).first ?? 50_000)
        case "all":
            try importBenchmark(path: "corpora/enron-inbox/maildir", label: "enron")
            try await searchBenchmarks(sizes: [10_000, 50_000, 100_000], enron: true)
        default:
            print("usage: mailsearch-bench [import PATH | search [SIZES…] | latency DIR… | recall [MBOX] | embed | vector [SIZES…] | hybrid [SIZE] | all]")
        }
    }

    // MARK: Semantic

    static let semanticQueries = [
        "financial planning meeting", "quarterly budget review", "when is the deployment",
        "problems with the radio receiver overflow", "travel plans for the conference next month",
        "invoice for last month's services", "hiring a new engineer", "security audit findings",
    ]

    static func modelDirectory() throws -> URL {
        let status = ModelStore().status()
        guard status.isInstalled else {
            throw BenchError("no model at \(status.directory): run scripts/install-model.sh first")
        }
        return URL(fileURLWithPath: status.directory)
    }

    /// Real email texts: the 240 emails of the shared reference set (subject + body).
    static func referenceTexts() throws -> [String] {
        let path = "../shared/reference/embeddings.jsonl"
        guard let data = FileManager.default.contents(atPath: path) else { throw BenchError("\(path) not found") }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["text"] as? String
        }.filter { $0.count > 200 }
    }

    static func embedBenchmark() throws {
        let documents = try referenceTexts()
        try EmbeddingBenchmark.run(modelDirectory: try modelDirectory(), documents: documents, queries: semanticQueries)
        // Indexing as `mailsearch index embed` runs it: one encoder per core, one BLAS thread each.
        let workers = ProcessInfo.processInfo.activeProcessorCount
        BLAS.setThreadCount(1)
        let embedders: [any Embedder] = try (0..<workers).map { _ in try MiniLMEmbedder(modelDirectory: try modelDirectory()) }
        var best = 0.0
        for _ in 0..<2 {
            let ms = try measure {
                for start in stride(from: 0, to: documents.count, by: 64 * workers) {
                    _ = try EmbeddingIndexer.embedInParallel(Array(documents[start..<min(documents.count, start + 64 * workers)]), embedders: embedders)
                }
            }
            best = max(best, Double(documents.count) / (ms / 1000))
        }
        report(String(format: "indexing with %d encoders × 1 BLAS thread (as `index embed` runs): %.1f docs/s (%d docs)", workers, best, documents.count))
    }

    static func randomUnitVectors(_ n: Int, dimension: Int = 384, seed: UInt64 = 1) -> [[Float]] {
        var state = seed
        func next() -> Float {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Float(Int64(bitPattern: z ^ (z >> 31)) % 10_000) / 10_000
        }
        return (0..<n).map { _ in
            let v = (0..<dimension).map { _ in next() }
            let norm = v.reduce(0) { $0 + $1 * $1 }.squareRoot()
            return v.map { $0 / norm }
        }
    }

    static func vectorBenchmark(sizes: [Int]) {
        for n in sizes {
            let engine = VectorSearchEngine()
            let vectors = randomUnitVectors(n)
            engine.upsert(vectors.enumerated().map { (emailId: Int64($0), vector: $1) })
            let queries = randomUnitVectors(50, seed: 99)
            var full = Samples(), masked = Samples()
            let mask = Set((0..<n).filter { $0 % 10 == 0 }.map(Int64.init))
            for _ in 0..<4 { for q in queries { full.add(measure { _ = engine.search(q, k: 50) }) } }
            for q in queries { masked.add(measure { _ = engine.search(q, k: 50, candidates: mask) }) }
            report("vector top-50 over \(n) embeddings: \(full.summary())   with a 10 % filter mask: \(masked.summary())")
        }
    }

    /// End-to-end hybrid search over the synthetic corpus of `size`: the real model embeds each
    /// query; the corpus' vectors are random unit vectors (the scan costs the same whatever they hold).
    static func hybridBenchmark(size: Int) async throws {
        let dir = workRoot.appendingPathComponent("import-synthetic-\(size)-indexed")
        guard FileManager.default.fileExists(atPath: dir.appendingPathComponent("mail.sqlite").path) else {
            throw BenchError("no synthetic \(size) corpus in \(dir.path): run `mailsearch-bench search \(size)` first")
        }
        let store = try MailStore(directory: DataDirectory(url: dir))
        let index = try SearchIndexManager(store: store)
        let ids = try await store.database.read { try Int64.fetchAll($0, sql: "SELECT id FROM emails") }
        let vectors = VectorSearchEngine()
        vectors.upsert(zip(ids, randomUnitVectors(ids.count)).map { (emailId: $0, vector: $1) })
        let embedder = try MiniLMEmbedder(modelDirectory: try modelDirectory())
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let now = Date()
        let useCase = SearchEmailsUseCase(index: index, parser: SearchQueryParser(calendar: calendar, now: { now }),
                                          semantic: VectorSemanticRanker(embedder: embedder, vectors: vectors))
        for q in semanticQueries { _ = try await useCase.search(q) }
        var samples = Samples()
        var ran = 0
        for _ in 0..<10 {
            for q in semanticQueries + ["budget from john", "deployment schedule"] {
                var response: SearchResponse?
                samples.add(try await measureAsync { response = try await useCase.search(q) })
                if response?.semantic.ran == true { ran += 1 }
            }
        }
        if ProcessInfo.processInfo.environment["BENCH_VERBOSE"] != nil {
            for q in semanticQueries + ["budget from john", "deployment schedule"] {
                var one = Samples()
                for _ in 0..<5 { one.add(try await measureAsync { _ = try await useCase.search(q) }) }
                report(String(format: "  %-45@ p50 %7.2f ms", q as NSString, one.percentile(50)))
            }
        }
        report("end-to-end hybrid search over \(ids.count) emails (query embedding + FTS5 + vector scan + RRF + grouping): \(samples.summary()); semantic ran in \(ran)/\(samples.values.count)")
    }

    // MARK: Import

    /// Imports `path` into a fresh data directory, end to end (read, parse, store, thread, index).
    @discardableResult
    static func importBenchmark(path: String, label: String, indexing: [Bool] = [false, true]) throws -> URL? {
        guard FileManager.default.fileExists(atPath: path) else {
            report("import \(label): skipped, \(path) not found (make corpora)")
            return nil
        }
        var last: URL?
        for withIndex in indexing {
            let dir = workRoot.appendingPathComponent("import-\(label)-\(withIndex ? "indexed" : "plain")")
            try? FileManager.default.removeItem(at: dir)
            let store = try MailStore(directory: DataDirectory(url: dir))
            let index = withIndex ? try SearchIndexManager(store: store) : nil
            let pipeline = ImportPipeline(store: store, accountName: label, observer: index)
            let summary = try pipeline.run(path: path)
            let total = summary.imported + summary.duplicates + summary.failed
            report(String(format: "import %@ %@: %d messages (%d new, %d duplicates, %d failed) in %.2f s = %.0f msgs/s",
                          label, withIndex ? "with FTS5 indexing" : "store only", total, summary.imported,
                          summary.duplicates, summary.failed, summary.seconds, Double(total) / summary.seconds))
            last = dir
        }
        return last
    }

    // MARK: Search

    static let queries = [
        "budget", "quarterly budget review", "deployment schedule", "project alpha launch", "invoice",
        "meeting notes", "offsite", "security audit", "proj", "customer escalation", "travel itinerary",
        "design review feedback", "hiring", "the", "gas", "power",
    ]

    static let filteredQueries = [
        "budget from john", "invoice with attachments", "meeting last month", "unread updates",
        "deployment schedule from sarah", "in:inbox offsite", "project after:2024-01-01", "report in sent",
    ]

    static func searchBenchmarks(sizes: [Int], enron: Bool) async throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let now = Date()
        let parser = SearchQueryParser(calendar: calendar, now: { now })

        // Query parsing does not depend on the corpus.
        var parse = Samples()
        let all = queries + filteredQueries + ["budget report from sarah last week with attachments",
                                               "unread promotions from john", "from:john is:unread after:2024-03-01 \"deployment schedule\""]
        for _ in 0..<200 { for q in all { parse.add(measure { _ = parser.parse(q) }) } }
        report("query parsing (\(all.count) queries × 200): \(parse.summary(unit: "µs", scale: 1000))")

        for size in sizes {
            let mbox = workRoot.appendingPathComponent("synthetic-\(size).mbox")
            if !FileManager.default.fileExists(atPath: mbox.path) {
                var config = DemoCorpusConfiguration()
                config.messageCount = size
                config.seed = 7
                _ = try DemoCorpusGenerator(configuration: config).writeMbox(to: mbox)
            }
            guard let dir = try importBenchmark(path: mbox.path, label: "synthetic-\(size)", indexing: [true]) else { continue }
            try await searchLatency(dataDir: dir, label: "synthetic \(size)", parser: parser)
        }
        if enron {
            let dir = workRoot.appendingPathComponent("import-enron-indexed")
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("mail.sqlite").path) {
                try await searchLatency(dataDir: dir, label: "enron", parser: parser)
            } else if let made = try importBenchmark(path: "corpora/enron-inbox/maildir", label: "enron", indexing: [true]) {
                try await searchLatency(dataDir: made, label: "enron", parser: parser)
            }
        }
    }

    static func searchLatency(dataDir: URL, label: String, parser: SearchQueryParser) async throws {
        let store = try MailStore(directory: DataDirectory(url: dataDir))
        let index = try SearchIndexManager(store: store)
        let emails = try store.statistics().emails
        let useCase = SearchEmailsUseCase(index: index, parser: parser)
        let status = try index.status()

        // Warm up the page cache.
        for q in queries { _ = try await useCase.search(q) }

        var fts = Samples()
        for _ in 0..<20 {
            for q in queries {
                guard let match = FTS5QueryBuilder.matchExpression(for: q) else { continue }
                let filter = EmailFilterSQL(filters: SearchFilters(), scope: .allMail)
                fts.add(try measure { _ = try index.keywordSearch(match: match, filter: filter, limit: 50) })
            }
        }
        var endToEnd = Samples()
        var filtered = Samples()
        for _ in 0..<20 {
            for q in queries { endToEnd.add(try await measureAsync { _ = try await useCase.search(q) }) }
            for q in filteredQueries { filtered.add(try await measureAsync { _ = try await useCase.search(q) }) }
        }
        if ProcessInfo.processInfo.environment["BENCH_VERBOSE"] != nil {
            for q in queries + filteredQueries {
                var one = Samples()
                var ftsOne = Samples()
                for _ in 0..<5 {
                    one.add(try await measureAsync { _ = try await useCase.search(q) })
                    if let match = FTS5QueryBuilder.matchExpression(for: parser.parse(q).text) {
                        let filter = EmailFilterSQL(filters: SearchFilters(), scope: .allMail)
                        ftsOne.add(try measure { _ = try index.keywordSearch(match: match, filter: filter, limit: 50) })
                    }
                }
                report(String(format: "  %-34@ e2e p50 %7.2f ms   fts p50 %7.2f ms", q as NSString, one.percentile(50), ftsOne.percentile(50)))
            }
        }
        report("[\(label): \(emails) emails, search.sqlite \(status.bytes / 1_048_576) MB, mail.sqlite \(MailStore.fileSize(store.directory.mailDatabaseURL) / 1_048_576) MB]")
        report("  FTS5 query (top 50, BM25):                 \(fts.summary())")
        report("  end-to-end keyword search (text only):     \(endToEnd.summary())")
        report("  end-to-end keyword search (with filters):  \(filtered.summary())")
        var combined = endToEnd
        combined.values += filtered.values
        report("  end-to-end keyword search (all):           \(combined.summary())")
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}
