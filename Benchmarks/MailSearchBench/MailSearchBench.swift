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
///     mailsearch-bench latency DIR…         search latency on existing data directories (Enron: the real-mail mix)
///     mailsearch-bench phases DIR [Q…]      where a keyword search spends its time, per query
///     mailsearch-bench eval [SET…]          the shipped search (SearchEmailsUseCase) in keyword, semantic
///                                           and hybrid mode on labelled real mail: Success@20, MRR@20,
///                                           nonsense result counts, similarity calibration; SETs are
///                                           folders written by scripts/eval/build_eval_sets.py (`make eval`),
///                                           default eval-data/usrp eval-data/enron
///     mailsearch-bench embed                query embedding p50/p95, indexing docs/s on real mail, share of the sgemm peak
///     mailsearch-bench query-embed          query embedding p50/p95 only
///     mailsearch-bench insights summaries|pairs   thread summaries' key-fact recall and latency, reply
///                                           suggestions' latency; (message, reply) pairs of an mbox (InsightsBenchmark)
///     mailsearch-bench embed-mailbox DIR    time to semantic: a whole imported mailbox embedded as `index embed`
///                                           does it (docs/s, minutes to 100 % and to the last 30 days, share
///                                           of the sgemm peak, fidelity); `make bench-embed-mailbox`
///     mailsearch-bench tokens DIR OUT       the token ids embed-mailbox embeds (TokenDump), for the ONNX
///                                           Runtime peer of `make bench-embed-mailbox`
///     mailsearch-bench vector [SIZES…]      top-50 vector scan p50/p95 and int8 recall on random
///                                           unit vectors (default 50000 500000)
///     mailsearch-bench vector-real DIR…     the same on the embeddings stored in data directories
///     mailsearch-bench hybrid [SIZE|DIR]    end-to-end hybrid search p50/p95 at 50K (needs `search 50000`
///                                           first), or over a data directory with stored embeddings
@main
struct MailSearchBench {
    static let workRoot = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("bench-data")

    static func main() async {
        do {
            try await run()
        } catch {
            FileHandle.standardError.write(Data("mailsearch-bench: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run() async throws {
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
        case "phases":
            try await keywordPhases(dataDir: URL(fileURLWithPath: args.first ?? "bench-data/import-enron-indexed"),
                                    queries: Array(args.dropFirst()))
        case "embed":
            try embedBenchmark()
        case "insights":
            try InsightsBenchmark.run(args, modelDirectory: try modelDirectory())
        case "query-embed":
            try EmbeddingBenchmark.queryOnly(modelDirectory: try modelDirectory(), queries: semanticQueries)
        case "eval":
            try await SearchEvaluation.run(sets: args.isEmpty ? ["eval-data/usrp", "eval-data/enron"] : args,
                                           workRoot: workRoot, modelDirectory: try modelDirectory())
        case "vector":
            let sizes = args.compactMap(Int.init)
            vectorBenchmark(sizes: sizes.isEmpty ? [50_000, 500_000] : sizes)
        case "vector-real":
            try realVectorBenchmark(dataDirectories: args)
        case "agreement":
            try await agreementBenchmark(dataDir: URL(fileURLWithPath: args.first ?? "bench-data/import-enron-indexed"),
                                         questions: args.count > 1 ? args[1] : "scripts/eval/paraphrase/enron.jsonl")
        case "embed-mailbox":
            guard let path = args.first else { throw BenchError("usage: mailsearch-bench embed-mailbox DIR") }
            let reference = ProcessInfo.processInfo.environment["MAILSEARCH_REFERENCE_DIR"] ?? "../shared/reference"
            try EmbedMailboxBenchmark.run(directory: URL(fileURLWithPath: path), model: try model(),
                                          modelDirectory: try modelDirectory(),
                                          referenceDirectory: URL(fileURLWithPath: reference))
        case "tokens":
            guard args.count == 2 else { throw BenchError("usage: mailsearch-bench tokens DIR OUT.jsonl") }
            try TokenDump.run(directory: URL(fileURLWithPath: args[0]), output: URL(fileURLWithPath: args[1]),
                              model: try model(), modelDirectory: try modelDirectory())
        case "hybrid":
            if let path = args.first, Int(path) == nil {
                try await hybridBenchmark(directory: URL(fileURLWithPath: path), realVectors: true)
            } else {
                let size = args.compactMap(Int.init).first ?? 50_000
                try await hybridBenchmark(directory: workRoot.appendingPathComponent("import-synthetic-\(size)-indexed"),
                                          realVectors: false, size: size)
            }
        case "all":
            try importBenchmark(path: "corpora/enron-inbox/maildir", label: "enron")
            try await searchBenchmarks(sizes: [10_000, 50_000, 100_000], enron: true)
        default:
            print("usage: mailsearch-bench [import PATH | search [SIZES…] | latency DIR… | eval [SET…] | embed | query-embed | embed-mailbox DIR | tokens DIR OUT | agreement [DIR [QUESTIONS]] | vector [SIZES…] | vector-real DIR… | hybrid [SIZE|DIR] | all]")
        }
    }

    // MARK: Semantic

    static let semanticQueries = [
        "financial planning meeting", "quarterly budget review", "when is the deployment",
        "problems with the radio receiver overflow", "travel plans for the conference next month",
        "invoice for last month's services", "hiring a new engineer", "security audit findings",
    ]

    /// The model under test: `MAILSEARCH_MODEL`, else the default.
    static func model() throws -> EmbeddingModel {
        do { return try EmbeddingModel.selected() } catch { throw BenchError("\(error)") }
    }

    static func modelDirectory() throws -> URL {
        let status = ModelStore(model: try model()).status()
        guard status.isInstalled else {
            throw BenchError("no model at \(status.directory): run scripts/install-model.sh first")
        }
        return URL(fileURLWithPath: status.directory)
    }

    /// Query latency, then indexing throughput on real mail against the sgemm peak (EmbeddingBenchmark).
    static func embedBenchmark() throws {
        try EmbeddingBenchmark.run(modelDirectory: try modelDirectory(), queries: semanticQueries)
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
            measureVectorSearch(engine, ids: (0..<n).map(Int64.init), queries: randomUnitVectors(50, seed: 99),
                                label: "\(n) random unit vectors")
        }
    }

    /// The vector scan over real embeddings: those stored in each data directory (`index embed`),
    /// queried with the benchmark's semantic queries (embedded by the model, when installed) and
    /// with 100 of the stored vectors themselves.
    static func realVectorBenchmark(dataDirectories: [String]) throws {
        for path in dataDirectories {
            let store = try MailStore(directory: DataDirectory(url: URL(fileURLWithPath: path)), readOnly: true)
            let engine = VectorSearchEngine()
            var rowCount = 0
            let readMs = try measure { try store.forEachEmbeddingBytes(model: nil) { _, _ in rowCount += 1 } }
            report(String(format: "reading %d embeddings alone: %.1f ms", rowCount, readMs))
            let loadMs = try measure { try engine.load(from: store, model: nil) }
            report(String(format: "loading %d embeddings from %@/mail.sqlite (float32 matrix + int8 copy): %.1f ms",
                          engine.count, path, loadMs))
            var stored: [(Int64, [Float])] = []
            try store.forEachEmbeddingBytes(model: nil) { id, bytes in
                guard bytes.count == 384 * 4 else { return }
                stored.append((id, Array(bytes.bindMemory(to: Float.self))))
            }
            guard !stored.isEmpty else { throw BenchError("\(path) holds no embeddings: run `mailsearch index embed` there first") }
            var queries = stride(from: 0, to: stored.count, by: max(1, stored.count / 100)).prefix(100).map { stored[$0].1 }
            if let directory = try? modelDirectory(), let embedder = try? MiniLMEmbedder(modelDirectory: directory, model: try model()) {
                queries += try embedder.embedQueries(semanticQueries)
            }
            measureVectorSearch(engine, ids: stored.map(\.0), queries: queries,
                                label: "\(stored.count) real embeddings of \((path as NSString).lastPathComponent)")
        }
    }

    /// Prints top-50 latency of the default scan (int8 + exact re-scoring from
    /// `quantizedScanThreshold` vectors on), of the exact float32 scan, and under a 10 % filter
    /// mask, and the top-50 recall of the default scan against the exact one.
    static func measureVectorSearch(_ engine: VectorSearchEngine, ids: [Int64], queries: [[Float]], label: String) {
        var full = Samples(), exact = Samples(), masked = Samples()
        let mask = Set(ids.enumerated().filter { $0.offset % 10 == 0 }.map(\.element))
        for _ in 0..<4 { for q in queries { full.add(measure { _ = engine.search(q, k: 50) }) } }
        for _ in 0..<2 { for q in queries { exact.add(measure { _ = engine.search(q, k: 50, exact: true) }) } }
        for q in queries { masked.add(measure { _ = engine.search(q, k: 50, candidates: mask) }) }
        // Recall by identity, and counting ties: a result whose (exact) score equals the 50th
        // exact score is as good an answer as the one it displaced (duplicate emails embed alike).
        var recalls: [Double] = [], tieAware: [Double] = []
        for q in queries {
            let exactTop = engine.search(q, k: 50, exact: true)
            let truth = Set(exactTop.map(\.emailId))
            let threshold = (exactTop.last?.score ?? 0) - 1e-6
            let results = engine.search(q, k: 50)
            recalls.append(Double(results.filter { truth.contains($0.emailId) }.count) / Double(max(1, truth.count)))
            tieAware.append(Double(results.filter { $0.score >= threshold }.count) / Double(max(1, truth.count)))
        }
        let quantized = ids.count >= engine.quantizedScanThreshold
        let route = quantized ? "int8 scan + exact re-scoring of the best \(VectorSearchEngine.rescoreCount(k: 50))" : "exact float32 scan"
        report("vector top-50 over \(label) (\(ids.count) vectors, \(queries.count) queries):")
        report("  \(route): \(full.summary())")
        report("  exact float32 scan: \(exact.summary())")
        report("  with a 10 % filter mask: \(masked.summary())")
        report(String(format: "  top-50 recall against the exact scan: mean %.4f, worst query %.2f; counting ties at the 50th score: mean %.4f, worst %.2f",
                      recalls.reduce(0, +) / Double(max(1, recalls.count)), recalls.min() ?? 0,
                      tieAware.reduce(0, +) / Double(max(1, tieAware.count)), tieAware.min() ?? 0))
    }

    /// End-to-end hybrid search: the real model embeds each query. Over the synthetic corpus of
    /// `size`, the vectors are random unit vectors (the scan costs the same whatever they hold);
    /// over a data directory given by path, the embeddings `index embed` stored there.
    static func hybridBenchmark(directory dir: URL, realVectors: Bool, size: Int? = nil) async throws {
        guard FileManager.default.fileExists(atPath: dir.appendingPathComponent("mail.sqlite").path) else {
            if let size { throw BenchError("no synthetic \(size) corpus in \(dir.path): run `mailsearch-bench search \(size)` first") }
            throw BenchError("no mail.sqlite in \(dir.path)")
        }
        let store = try MailStore(directory: DataDirectory(url: dir))
        let index = try SearchIndexManager(store: store)
        let ids = try await store.database.read { try Int64.fetchAll($0, sql: "SELECT id FROM emails") }
        let vectors = VectorSearchEngine()
        if realVectors {
            try vectors.load(from: store, model: nil)
            guard vectors.count > 0 else { throw BenchError("\(dir.path) holds no embeddings: run `mailsearch index embed` there first") }
        } else {
            vectors.upsert(zip(ids, randomUnitVectors(ids.count)).map { (emailId: $0, vector: $1) })
        }
        let embedder = try MiniLMEmbedder(modelDirectory: try modelDirectory(), model: try model())
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let now = Date()
        let useCase = SearchEmailsUseCase(index: index, parser: SearchQueryParser(calendar: calendar, now: { now }),
                                          semantic: VectorSemanticRanker(embedder: embedder, vectors: vectors))
        let keywordOnly = SearchEmailsUseCase(index: index, parser: SearchQueryParser(calendar: calendar, now: { now }),
                                              semantic: nil)
        // The same search without the sentence floor, timed in the same run (what it costs).
        var noSentenceFloor = SemanticRelevance.calibrated
        noSentenceFloor.sentenceThreshold = nil
        let withoutSentenceFloor = SearchEmailsUseCase(
            index: index, parser: SearchQueryParser(calendar: calendar, now: { now }),
            semantic: VectorSemanticRanker(embedder: embedder, vectors: vectors, relevance: noSentenceFloor))
        // On real mail: the keyword mix (common, rare, filtered, phrase, prefix) plus natural-language queries.
        var mix = realVectors ? realQueries.flatMap(\.queries) + semanticQueries
                              : semanticQueries + ["budget from john", "deployment schedule"]
        if let path = ProcessInfo.processInfo.environment["BENCH_HYBRID_QUERIES"] {
            // More queries, one a line, or the "query" of each line of a labels.jsonl (scripts/eval/paraphrase/).
            for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") where !line.isEmpty {
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                mix.append((object?["query"] as? String) ?? String(line))
            }
        }
        let parser = SearchQueryParser(calendar: calendar, now: { now })
        func isLong(_ q: String) -> Bool {
            FTS5QueryBuilder.contentWords(for: parser.parse(q).text).count >= SemanticRelevance.calibrated.sentenceMinimumWords
        }
        for q in mix { _ = try await withoutSentenceFloor.search(q) }
        // Each query of 4+ content words once with the sentence floor before any other: its words not yet
        // embedded (unless an earlier query had them), as the first time a user asks.
        var firstTime = Samples()
        for q in mix where isLong(q) { firstTime.add(try await measureAsync { _ = try await useCase.search(q) }) }
        for q in mix { _ = try await useCase.search(q) }
        var samples = Samples(), withoutSamples = Samples(), long = Samples(), longWithout = Samples()
        var ran = 0
        for _ in 0..<10 {
            for q in mix {
                var response: SearchResponse?
                let ms = try await measureAsync { response = try await useCase.search(q) }
                samples.add(ms)
                if response?.semantic.ran == true { ran += 1 }
                let without = try await measureAsync { _ = try await withoutSentenceFloor.search(q) }
                withoutSamples.add(without)
                if isLong(q) {
                    long.add(ms)
                    longWithout.add(without)
                }
            }
        }
        if ProcessInfo.processInfo.environment["BENCH_VERBOSE"] != nil {
            for q in mix {
                var one = Samples(), keyword = Samples()
                for _ in 0..<5 { one.add(try await measureAsync { _ = try await useCase.search(q) }) }
                for _ in 0..<5 { keyword.add(try await measureAsync { _ = try await keywordOnly.search(q) }) }
                report(String(format: "  %-45@ p50 %7.2f ms (keyword-only %.2f ms)", q as NSString, one.percentile(50), keyword.percentile(50)))
                let parsed = SearchQueryParser(calendar: calendar, now: { now }).parse(q)
                let filter = EmailFilterSQL(filters: parsed.filters, scope: parsed.scope)
                var ids: Set<Int64>? = nil
                let sqlMs = try await measureAsync {
                    if !filter.isEmpty {
                        ids = try await index.read { db in Set(try Int64.fetchAll(db, sql: "SELECT e.id FROM mail.emails e WHERE \(filter.condition)", arguments: filter.arguments)) }
                    }
                }
                var vector: [Float] = []
                let embedMs = try measure { vector = try embedder.embedQueries([parsed.text])[0] }
                let scanMs = measure { _ = vectors.search(vector, k: 50, candidates: ids.map { EmailIdSet($0) }) }
                // A query of four content words or more also embeds its words (the sentence floor's word bag).
                let words = Array(FTS5QueryBuilder.contentWords(for: parsed.text).prefix(SemanticRelevance.maximumBagWords))
                let wordsMs = words.count >= SemanticRelevance.calibrated.sentenceMinimumWords
                    ? try measure { _ = try embedder.embedQueries(words) } : 0
                report(String(format: "      text %@: filter ids %.2f ms (%d), embed %.2f ms, its %d words %.2f ms, scan %.2f ms",
                              parsed.text, sqlMs, ids?.count ?? -1, embedMs, words.count, wordsMs, scanMs))
            }
        }
        let corpus = realVectors ? "\(dir.lastPathComponent), \(vectors.count) stored embeddings" : "synthetic, random vectors"
        report("end-to-end hybrid search over \(ids.count) emails (\(corpus); query embedding + FTS5 + vector scan + RRF + grouping): \(samples.summary()); semantic ran in \(ran)/\(samples.values.count)")
        report("  the same without the sentence floor (queries of 4+ content words do not embed their words), interleaved: \(withoutSamples.summary())")
        report("  queries of 4+ content words alone: with the sentence floor \(long.summary()) (its words' vectors kept from before); "
               + "without \(longWithout.summary()); with, the first time each was asked \(firstTime.summary())")
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
                                               "unread promotions from john", "from:john is:unread after:2024-03-01 \"deployment schedule\"",
                                               "(budget OR forecast) report -draft", "from:john OR from:mary -in:trash",
                                               "-(in:spam is:unread) {q3 q4} -\"old plan\""]
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

    /// The query mix on real mail (Enron), by kind: what the keyword bars are judged on.
    static let realQueries: [(kind: String, queries: [String])] = [
        ("common", ["meeting", "gas prices california", "power", "energy trading", "conference call", "enron"]),
        ("rare", ["dabhol", "blackberry", "ferc order 888", "pg&e bankruptcy", "weather derivatives", "ebs"]),
        ("filtered", ["gas from john", "meeting before:2001-07-01", "contract from:kay", "power after:2001-06-01",
                      "california in:inbox", "schedule from:jeff.dasovich"]),
        ("phrase", ["\"conference call\"", "\"natural gas\"", "\"please review\"", "\"risk management\" policy"]),
        ("prefix", ["deriv", "negotiat", "californ", "deployment sc", "regul"]),
    ]

    /// Where the time of a keyword search goes: filter candidates, FTS5 matches with BM25, the
    /// conversation map, sorting and fusion, and the whole search (p50 of 20 runs each).
    /// What the semantic agreement rule adds to a hybrid search that has near misses: the ranking of
    /// the matches of any of the question's words (`FTS5QueryBuilder.anyWordExpression`, ms_bm25 over
    /// every match, the best 100 picked by `KeywordRanking`), for each question of a paraphrase set.
    static func agreementBenchmark(dataDir: URL, questions: String) async throws {
        let store = try MailStore(directory: DataDirectory(url: dataDir))
        let index = try SearchIndexManager(store: store)
        let texts = try String(contentsOfFile: questions, encoding: .utf8).split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["query"] as? String
        }
        var samples = Samples()
        var matches: [Int] = []
        for _ in 0..<5 {
            for text in texts {
                guard let anyWord = FTS5QueryBuilder.anyWordExpression(for: text) else { continue }
                samples.add(try await measureAsync {
                    let hits = try await index.keywordMatches(match: anyWord, candidates: nil)
                    matches.append(hits.count)
                    _ = KeywordRanking(hits: hits).top(100)
                })
            }
        }
        let emails = try await store.database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM emails") ?? 0 }
        matches.sort()
        report("agreement ranking over \(emails) emails, \(texts.count) questions × 5: \(samples.summary()); matches of any word p50 \(matches[matches.count / 2]), max \(matches.last ?? 0)")
    }

    static func keywordPhases(dataDir: URL, queries: [String]) async throws {
        // A data directory made by an import, never a mail folder (opening one would create a store in it).
        guard FileManager.default.fileExists(atPath: dataDir.appendingPathComponent("mail.sqlite").path) else {
            throw BenchError("phases: \(dataDir.path) has no mail.sqlite: give a data directory (make bench-import makes bench-data/import-enron-indexed)")
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let now = Date()
        let parser = SearchQueryParser(calendar: calendar, now: { now })
        let store = try MailStore(directory: DataDirectory(url: dataDir))
        let index = try SearchIndexManager(store: store)
        let useCase = SearchEmailsUseCase(index: index, parser: parser)
        if let runs = ProcessInfo.processInfo.environment["BENCH_SEARCH_ONLY"].flatMap(Int.init) {
            // Only whole searches, `runs` per query: a clean loop to profile.
            for q in queries.isEmpty ? realQueries.flatMap(\.queries) : queries {
                var whole = Samples()
                for _ in 0..<runs { whole.add(try await measureAsync { _ = try await useCase.search(q, mode: .keyword) }) }
                report(String(format: "  %-30@ whole p50 %6.2f ms  p95 %6.2f ms", q as NSString, whole.percentile(50), whole.percentile(95)))
            }
            return
        }
        for q in queries.isEmpty ? realQueries.flatMap(\.queries) : queries {
            let parsed = parser.parse(q)
            guard let match = FTS5QueryBuilder.matchExpression(for: parsed.text) else { continue }
            var cand = Samples(), fts = Samples(), snap = Samples(), sort = Samples(), whole = Samples(), light = Samples()
            var n = 0, c = 0
            for _ in 0..<20 {
                var candidates: EmailIdSet?
                cand.add(try measure {
                    candidates = try index.read { db in
                        try SearchIndexManager.candidates(filters: parsed.filters, scope: parsed.scope,
                                                          directory: try index.directory.snapshot(db),
                                                          senders: index.senders, db: db)
                    }
                })
                var hits: [KeywordHit] = []
                fts.add(try await measureAsync { hits = try await index.keywordMatches(match: match, candidates: candidates) })
                snap.add(try measure { _ = try index.read { try EmailDirectory().snapshot($0) } })
                sort.add(measure { _ = RRFMerger().merge(keyword: KeywordRanking(hits: hits).top(200), semantic: []) })
                var response: SearchResponse?
                whole.add(try await measureAsync { response = try await useCase.search(parsed, mode: .keyword) })
                let ids = response?.results.map(\.emailId) ?? []
                let bodies = try await index.read { db in
                    try String.fetchAll(db, sql: "SELECT substr(bodyPlain, 1, 4000) FROM mail.emails WHERE id IN (\(ids.map(String.init).joined(separator: ",")))")
                }
                light.add(measure {
                    let h = MatchHighlighter(queryText: parsed.text)
                    for b in bodies { _ = h.snippet(of: b) }
                })
                n = hits.count
                c = candidates?.count ?? -1
            }
            report(String(format: "  %-30@ candidates %6.2f ms (%6d)  fts %6.2f ms (%6d)  directory load %5.2f  top-200+fuse %5.2f  highlight %5.2f  whole %6.2f ms",
                          q as NSString, cand.percentile(50), c, fts.percentile(50), n, snap.percentile(50),
                          sort.percentile(50), light.percentile(50), whole.percentile(50)))
        }
    }

    static func searchLatency(dataDir: URL, label: String, parser: SearchQueryParser) async throws {
        let real = label.lowercased().contains("enron")
        let mix = real ? realQueries : [("text", queries), ("filtered", filteredQueries)]
        let store = try MailStore(directory: DataDirectory(url: dataDir))
        let index = try SearchIndexManager(store: store)
        let emails = try store.statistics().emails
        let useCase = SearchEmailsUseCase(index: index, parser: parser)
        let status = try index.status()
        let all = mix.flatMap(\.queries)

        // Warm up the page cache.
        for q in all { _ = try await useCase.search(q) }

        report("[\(label): \(emails) emails, search.sqlite \(status.bytes / 1_048_576) MB, mail.sqlite \(MailStore.fileSize(store.directory.mailDatabaseURL) / 1_048_576) MB; \(all.count) queries × 20 runs, keyword-only]")
        var allRaw = Samples(), allEndToEnd = Samples()
        let verbose = ProcessInfo.processInfo.environment["BENCH_VERBOSE"] != nil
        for (kind, list) in mix {
            var raw = Samples(), endToEnd = Samples()
            for q in list {
                var rawOne = Samples(), one = Samples()
                let match = FTS5QueryBuilder.matchExpression(for: parser.parse(q).text)
                var response: SearchResponse?
                for _ in 0..<20 {
                    if let match { rawOne.add(try measure { _ = try index.rawKeywordTop(match: match, limit: 50) }) }
                    one.add(try await measureAsync { response = try await useCase.search(q) })
                }
                raw.values += rawOne.values
                endToEnd.values += one.values
                if verbose {
                    report(String(format: "  %-32@ e2e p50 %6.2f ms  raw FTS5 top-50 p50 %6.2f ms  %6d matches, %5d conversations",
                                  q as NSString, one.percentile(50), rawOne.percentile(50),
                                  response?.keywordMatches ?? 0, response?.conversationCount ?? 0))
                }
            }
            allRaw.values += raw.values
            allEndToEnd.values += endToEnd.values
            report("  " + kind.padding(toLength: 9, withPad: " ", startingAt: 0)
                   + " end to end \(endToEnd.summary()) | raw FTS5 BM25 top-50 \(raw.summary())")
        }
        report("  all       end to end \(allEndToEnd.summary()) | raw FTS5 BM25 top-50 \(allRaw.summary())"
               + String(format: " | p95 ratio %.2f", allEndToEnd.percentile(95) / allRaw.percentile(95)))
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}
