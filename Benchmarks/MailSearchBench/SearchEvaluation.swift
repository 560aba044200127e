import Embedding
import Foundation
import GRDB
import MailImport
import MailModel
import MailParsing
import MailStore
import SearchEngine
import SearchIndex

/// The evaluation of the search that ships (issue 8, AC-S-06): every query goes through
/// `SearchEmailsUseCase` — query parser, filters, rankers, fusion, conversation grouping — three
/// times (`.keyword`, `.semantic`, `.hybrid`), over an evaluation copy of real mail whose labels do
/// not come from MailSearch. `scripts/eval/build_eval_sets.py` (`make eval`) writes each set: a
/// `mail.mbox` in which no subject can be found, `labels.jsonl` (query, kind, relevant Message-IDs)
/// and `manifest.json`. Here the copy is imported with `ImportPipeline` into a scratch data
/// directory keyed by the copy's SHA-256 (kept between runs, with its embeddings), embedded with
/// `EmbeddingIndexer`, and searched.
///
/// A query succeeds at rank r when the r-th conversation returned holds a relevant message: any
/// message of that conversation, as the user sees it (the table also gives the strict figure, where
/// the conversation's representative message itself must be relevant). Success@20 and MRR@20 are
/// over the first page of 20 conversations. Nonsense queries must return nothing.
enum SearchEvaluation {
    struct Label: Decodable {
        var id: String
        var kind: String
        var query: String
        var relevant: [String]
    }

    struct Manifest: Decodable {
        var corpus: String
        var mbox_sha256: String
    }

    /// The rows of each kind: the three modes, plus the semantic ranker with no floor at all
    /// (every nearest neighbour counts), the reference a relevance decision is judged against.
    enum Ranking: String, CaseIterable {
        case keyword, semantic, hybrid, semanticNoFloor = "semantic, no floor"
        var mode: SearchMode { self == .semanticNoFloor ? .semantic : SearchMode(rawValue: rawValue)! }
    }
    static let modes = Ranking.allCases
    static let pageSize = 20

    /// Per kind and mode: success count and reciprocal ranks (conversation and strict).
    struct Tally {
        var queries = 0
        var success = 0, strictSuccess = 0
        var reciprocal = 0.0, strictReciprocal = 0.0
        var results = 0, zeroResults = 0, maxResults = 0, conversations = 0
        var filtersParsed = 0, semanticRan = 0

        mutating func add(_ o: Tally) {
            queries += o.queries; success += o.success; strictSuccess += o.strictSuccess
            reciprocal += o.reciprocal; strictReciprocal += o.strictReciprocal
            results += o.results; zeroResults += o.zeroResults; maxResults = max(maxResults, o.maxResults)
            conversations += o.conversations; filtersParsed += o.filtersParsed; semanticRan += o.semanticRan
        }
    }

    static func run(sets: [String], workRoot: URL, modelDirectory: URL) async throws {
        for set in sets {
            try await evaluate(set: URL(fileURLWithPath: set), workRoot: workRoot, modelDirectory: modelDirectory)
        }
    }

    /// A fixed semantic floor under evaluation (`EVAL_MIN_SIMILARITY`), else nil: the shipped
    /// per-query decision (`SemanticRelevance.calibrated`).
    static var minimumSimilarity: Double? {
        ProcessInfo.processInfo.environment["EVAL_MIN_SIMILARITY"].flatMap(Double.init)
    }
    static var floorDescription: String {
        minimumSimilarity.map { "fixed semantic floor \($0)" } ?? "per-query semantic floor \(relevance)"
    }

    /// The model under evaluation (`MAILSEARCH_MODEL`, else the default) and its shipped relevance decision.
    static var model: EmbeddingModel { (try? MailSearchBench.model()) ?? .default }
    static var relevance: SemanticRelevance { model.relevance }

    /// The documents' token limit under evaluation: `EVAL_MAX_TOKENS`, else what ships for the model.
    static var documentTokens: Int {
        ProcessInfo.processInfo.environment["EVAL_MAX_TOKENS"].flatMap(Int.init) ?? model.documentTokenLimit
    }
    /// `EVAL_RAW_TEXT=1`: embed the body's start as it is instead of the email's own words (`EmbeddingText`).
    static var rawText: Bool { ProcessInfo.processInfo.environment["EVAL_RAW_TEXT"] == "1" }
    /// The scratch data directory's suffix for a non-default embedding input (embeddings differ),
    /// or document kernels forced by `MAILSEARCH_KERNELS` (`-kint8-avx2`: the vectors differ too), or
    /// int8 matrices kept in float32 (`MAILSEARCH_INT8_FLOAT_LAYERS`, `-fqkv`), and for int8 kernels
    /// the matrices on 13 bits (`MAILSEARCH_INT8_WIDE_LAYERS`, by default `-wqkv`).
    static var embeddingVariant: String {
        let kernels = ProcessInfo.processInfo.environment["MAILSEARCH_KERNELS"] ?? ""
        let wide = MiniLMEmbedder.int8WideLayers
        return (model == .default ? "" : "-\(model.name)")
            + (documentTokens == model.documentTokenLimit ? "" : "-t\(documentTokens)") + (rawText ? "" : "-clean")
            + (kernels.isEmpty ? "" : "-k\(kernels)")
            + (ProcessInfo.processInfo.environment["MAILSEARCH_INT8_FLOAT_LAYERS"].map { $0.isEmpty ? "" : "-f\($0)" } ?? "")
            + (kernels.hasPrefix("int8") && !wide.isEmpty ? "-w\(wide)" : "")
    }

    /// Kinds of queries whose answer is nothing: nonsense (the bar: no result), and incoherent
    /// everyday words (reported for information).
    static func isExpectedEmpty(_ kind: String) -> Bool {
        kind.hasPrefix("nonsense") || kind == "incoherent"
    }

    static func evaluate(set: URL, workRoot: URL, modelDirectory: URL) async throws {
        let manifestURL = set.appendingPathComponent("manifest.json")
        guard let manifestData = FileManager.default.contents(atPath: manifestURL.path) else {
            throw BenchError("\(manifestURL.path) not found: run `make eval` (scripts/eval/build_eval_sets.py) first")
        }
        let manifest = try JSONDecoder().decode(Manifest.self, from: manifestData)
        let labelsText = try String(contentsOf: set.appendingPathComponent("labels.jsonl"), encoding: .utf8)
        let labels = try labelsText.split(separator: "\n").map { try JSONDecoder().decode(Label.self, from: Data($0.utf8)) }
        let mbox = set.appendingPathComponent("mail.mbox").path

        // Import (once per version of the copy) and embed what has no embedding yet.
        let dir = workRoot.appendingPathComponent("eval-\(manifest.corpus)-\(manifest.mbox_sha256.prefix(12))\(embeddingVariant)")
        let store = try MailStore(directory: DataDirectory(url: dir))
        let index = try SearchIndexManager(store: store)
        let imported = dir.appendingPathComponent("imported")
        if !FileManager.default.fileExists(atPath: imported.path) {
            let summary = try ImportPipeline(store: store, accountName: "eval", observer: index).run(path: mbox)
            FileHandle.standardError.write(Data("imported \(summary.imported) messages (\(summary.duplicates) duplicates, \(summary.failed) failed) into \(dir.path)\n".utf8))
            try Data().write(to: imported)
        }
        let pending = try store.emailsWithoutEmbeddingCount(model: model.name)
        if pending > 0 {
            let workers = ProcessInfo.processInfo.activeProcessorCount
            if workers > 1 { BLAS.setThreadCount(1) }
            let embedders: [any Embedder] = try (0..<workers).map { _ in
                try MiniLMEmbedder(modelDirectory: modelDirectory, model: model, maxSequenceLength: documentTokens)
            }
            let start = Date()
            try EmbeddingIndexer(store: store, embedders: embedders, modelName: model.name, cleanText: !rawText).run { done, total in
                FileHandle.standardError.write(Data(String(format: "\rembedding %d/%d (%.1f docs/s)", done, total,
                                                           Double(done) / max(0.001, Date().timeIntervalSince(start))).utf8))
            }
            FileHandle.standardError.write(Data("\n".utf8))
        }

        let vectors = VectorSearchEngine()
        try vectors.load(from: store, model: model.name)
        let embedder = try MiniLMEmbedder(modelDirectory: modelDirectory, model: model)
        let rows = try await store.database.read { db in
            try Row.fetchAll(db, sql: "SELECT id, messageId, threadId, sortDate FROM emails")
        }
        var emailOf: [String: Int64] = [:]
        var threadOf: [Int64: Int64] = [:]
        var members: [Int64: [Int64]] = [:]
        var latest = 0.0
        for r in rows {
            let id: Int64 = r["id"]
            emailOf[r["messageId"]] = id
            let thread: Int64 = r["threadId"] ?? -id
            threadOf[id] = thread
            members[thread, default: []].append(id)
            latest = max(latest, r["sortDate"] ?? 0)
        }
        // Date words resolve against a fixed "now": the day after the newest message.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let now = Date(timeIntervalSince1970: latest + 86_400)
        let parser = SearchQueryParser(calendar: calendar, now: { now })
        let useCase = SearchEmailsUseCase(index: index, parser: parser,
                                          semantic: VectorSemanticRanker(embedder: embedder, vectors: vectors,
                                                                         minimumSimilarity: minimumSimilarity, relevance: relevance))

        let noFloor = SearchEmailsUseCase(index: index, parser: parser,
                                          semantic: VectorSemanticRanker(embedder: embedder, vectors: vectors, minimumSimilarity: -1))
        var tallies: [String: [Ranking: Tally]] = [:]
        var kinds: [String] = []
        var unlabelled = 0
        var topSimilarity: [String: [Float]] = [:], relevantSimilarity: [String: [Float]] = [:]
        var details: [String] = []
        let verbose = ProcessInfo.processInfo.environment["BENCH_VERBOSE"] != nil
        let started = Date()
        for label in labels {
            // Nonsense must find nothing; "incoherent" queries (everyday words the mailbox has, never
            // together in one email) are counted the same way, apart, for information.
            let expectsNothing = isExpectedEmpty(label.kind)
            let isNonsense = label.kind.hasPrefix("nonsense")
            let relevant = Set(label.relevant.compactMap { emailOf[$0] })
            if !expectsNothing && relevant.isEmpty { unlabelled += 1; continue }
            if tallies[label.kind] == nil { kinds.append(label.kind) }
            var line: [String] = []
            var parsedText = ""
            for mode in modes {
                let response = try await (mode == .semanticNoFloor ? noFloor : useCase).search(label.query, limit: pageSize, mode: mode.mode)
                parsedText = response.query.text
                var t = Tally()
                t.queries = 1
                t.results = response.results.count
                t.zeroResults = response.results.isEmpty ? 1 : 0
                t.maxResults = response.results.count
                t.conversations = response.conversationCount
                t.filtersParsed = response.query.filters.isEmpty && response.query.scope == .allMail ? 0 : 1
                t.semanticRan = response.semantic.ran ? 1 : 0
                var rank: Int?, strictRank: Int?
                for (i, result) in response.results.enumerated() {
                    let conversation = threadOf[result.emailId].flatMap { members[$0] } ?? [result.emailId]
                    if rank == nil, conversation.contains(where: relevant.contains) { rank = i + 1 }
                    if strictRank == nil, relevant.contains(result.emailId) { strictRank = i + 1 }
                }
                if let rank { t.success = 1; t.reciprocal = 1 / Double(rank) }
                if let strictRank { t.strictSuccess = 1; t.strictReciprocal = 1 / Double(strictRank) }
                tallies[label.kind, default: [:]][mode, default: Tally()].add(t)
                line.append("\(mode.rawValue)=\(expectsNothing ? "\(response.results.count) results" : rank.map(String.init) ?? "-")")
            }
            // Calibration of a semantic similarity floor: cosine of the best hit overall and of the best
            // relevant message, for the text the semantic ranker receives.
            let text = parsedText.trimmingCharacters(in: .whitespaces)
            if text.count > 2, label.kind == "topic" || label.kind == "short" || isNonsense {
                let q = try embedder.embedQueries([text])[0]
                let group = isNonsense ? "nonsense" : label.kind
                if let top = vectors.search(q, k: 1, exact: true).first?.score { topSimilarity[group, default: []].append(top) }
                if !isNonsense, let best = vectors.search(q, k: 1, candidates: relevant, exact: true).first?.score {
                    relevantSimilarity[group, default: []].append(best)
                }
            }
            details.append("\(label.id)\t\(label.query)\t\(line.joined(separator: " "))")
            if verbose { report("  \(label.id) \(label.query): \(line.joined(separator: " "))") }
        }
        try await writeFeatures(labels: labels, corpus: manifest.corpus, emailOf: emailOf, threadOf: threadOf, members: members,
                          parser: parser, embedder: embedder, vectors: vectors, useCase: useCase, noFloor: noFloor,
                          to: workRoot.appendingPathComponent("eval-\(manifest.corpus)\(model == .default ? "" : "-" + model.name)-features.jsonl"))
        let seconds = Date().timeIntervalSince(started)
        try details.joined(separator: "\n").write(to: workRoot.appendingPathComponent("eval-\(manifest.corpus)-queries.tsv"),
                                                 atomically: true, encoding: .utf8)

        let threads = Set(threadOf.values).count
        report("")
        report("== \(manifest.corpus) (\(floorDescription), documents cut at \(documentTokens) tokens, \(rawText ? "body as it is" : "own words (EmbeddingText)")): \(rows.count) emails, \(threads) conversations, \(vectors.count) embeddings; " +
               "\(labels.count - unlabelled) queries (\(unlabelled) skipped: no relevant message imported); " +
               String(format: "%.0f s for %d searches", seconds, (labels.count - unlabelled) * modes.count))
        report("Success@20 and MRR@20 of the first relevant conversation (strict: the result's own message relevant)")
        report("| kind | n | mode | Success@20 | MRR@20 | strict S@20 | strict MRR | filters parsed | semantic ran |")
        report("|---|---|---|---|---|---|---|---|---|")
        let relevanceKinds = kinds.filter { !isExpectedEmpty($0) }
        var groups = relevanceKinds.map { ($0, [$0]) }
        if relevanceKinds.filter({ $0.hasPrefix("from") }).count > 1 {
            groups.append(("from (all)", relevanceKinds.filter { $0.hasPrefix("from") }))
        }
        groups.append(("overall", relevanceKinds))
        for (name, members) in groups {
            for mode in modes {
                var t = Tally()
                for kind in members { if let one = tallies[kind]?[mode] { t.add(one) } }
                guard t.queries > 0 else { continue }
                let n = Double(t.queries)
                report(String(format: "| %@ | %d | %@ | %.3f | %.3f | %.3f | %.3f | %d | %d |", name, t.queries, mode.rawValue,
                              Double(t.success) / n, t.reciprocal / n, Double(t.strictSuccess) / n, t.strictReciprocal / n,
                              t.filtersParsed, t.semanticRan))
            }
        }
        report("Nonsense queries (must return 0 results in every mode): results on the first page of 20")
        report("| kind | n | mode | queries with 0 results | mean results | max results | mean conversations found |")
        report("|---|---|---|---|---|---|---|")
        let nonsenseKinds = kinds.filter { $0.hasPrefix("nonsense") }
        let informational = kinds.filter { isExpectedEmpty($0) && !$0.hasPrefix("nonsense") }
        for (name, members) in nonsenseKinds.map({ ($0, [$0]) }) + [("nonsense (all)", nonsenseKinds)]
            + informational.map({ ("\($0) (not nonsense; informational)", [$0]) }) {
            for mode in modes {
                var t = Tally()
                for kind in members { if let one = tallies[kind]?[mode] { t.add(one) } }
                guard t.queries > 0 else { continue }
                let n = Double(t.queries)
                report(String(format: "| %@ | %d | %@ | %d | %.1f | %d | %.1f |", name, t.queries, mode.rawValue,
                              t.zeroResults, Double(t.results) / n, t.maxResults, Double(t.conversations) / n))
            }
        }
        reportCalibration(top: topSimilarity, relevant: relevantSimilarity)
    }

    /// For calibrating a relevance decision offline (`scripts/eval/calibrate_semantic.py`): per
    /// query (topic, short, paraphrase, nonsense), the text the semantic ranker gets, the keyword
    /// match count, the query's background on this mailbox (mean and deviation of its similarity
    /// to every stored vector) and its 100 nearest emails (exact scan) with their conversation and
    /// whether they are relevant.
    ///
    /// A query with filters (`from:` kinds) gets, instead of the nearest emails overall, the first
    /// 100 conversations of a semantic search with no floor restricted to its filters (`filtered`),
    /// and `top1`, its best similarity over the whole mailbox. Each hit's `o` is its rank among the
    /// 1,000 best BM25 matches of any of the query's words (`FTS5QueryBuilder.anyWordExpression`;
    /// 1,000,000 when it is not among them): the keyword index's say on near misses.
    static func writeFeatures(labels: [Label], corpus: String, emailOf: [String: Int64], threadOf: [Int64: Int64],
                              members: [Int64: [Int64]], parser: SearchQueryParser, embedder: MiniLMEmbedder,
                              vectors: VectorSearchEngine, useCase: SearchEmailsUseCase, noFloor: SearchEmailsUseCase,
                              to url: URL) async throws {
        var lines: [String] = []
        for label in labels {
            let expectsNothing = isExpectedEmpty(label.kind)
            guard expectsNothing || ["topic", "short", "paraphrase"].contains(label.kind) || label.kind.hasPrefix("from") else { continue }
            let relevant = Set(label.relevant.compactMap { emailOf[$0] })
            if !expectsNothing && relevant.isEmpty { continue }
            let parsed = parser.parse(label.query)
            let text = FTS5QueryBuilder.query(for: parsed.text).semanticText.trimmingCharacters(in: .whitespaces)
            guard text.count > 2 else { continue }
            let keyword = try await useCase.search(parsed, limit: 1, mode: .keyword).keywordMatches
            let q = try embedder.embedQueries([text])[0]
            let background = vectors.background(q, sampleSize: Int.max)
            let sampled = vectors.background(q)
            // Ranks among the best BM25 matches of mail holding 1 (`o`) and 2 (`o2`) of the query's words.
            func agreementRanks(_ words: Int) async throws -> [Int64: Int] {
                guard let expression = FTS5QueryBuilder.agreementExpression(for: text, minimumWords: words) else { return [:] }
                let ranking = KeywordRanking(hits: try await useCase.index.keywordMatches(match: expression, candidates: nil))
                var out: [Int64: Int] = [:]
                for (rank, hit) in ranking.top(1000).enumerated() { out[hit.emailId] = rank }
                return out
            }
            // The mail holding each of the query's words (the first `maximumAgreementWords`, as agreement
            // looks at): `wc` of a hit is how many of them it holds.
            var mailboxWords = 0
            var holders: [Set<Int64>] = []
            for (i, word) in FTS5QueryBuilder.contentWords(for: text).enumerated() {
                let quoted = "\"" + word.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                let matches = try await useCase.index.keywordMatches(match: quoted, candidates: nil)
                if !matches.isEmpty { mailboxWords += 1 }
                if i < FTS5QueryBuilder.maximumAgreementWords { holders.append(Set(matches.map(\.emailId))) }
            }
            func wordCount(_ id: Int64) -> Int { holders.reduce(0) { $0 + ($1.contains(id) ? 1 : 0) } }
            let anyWordRank = try await agreementRanks(1)
            let twoWordRank = try await agreementRanks(2)
            var hits = vectors.search(q, k: 100, exact: true).map { hit -> [String: Any] in
                ["e": hit.emailId, "s": Double(hit.score), "t": threadOf[hit.emailId] ?? -hit.emailId,
                 "r": relevant.contains(hit.emailId) ? 1 : 0, "o": anyWordRank[hit.emailId] ?? 1_000_000,
                 "o2": twoWordRank[hit.emailId] ?? 1_000_000, "wc": wordCount(hit.emailId)]
            }
            // The keyword ranking itself (every word, as searched), its best 200: for simulating the fusion.
            var keywordHits: [[String: Any]] = []
            if let match = FTS5QueryBuilder.query(for: parsed.text).match, parsed.filters.isEmpty {
                let ranking = KeywordRanking(hits: try await useCase.index.keywordMatches(match: match, candidates: nil))
                keywordHits = ranking.top(200).map { hit in
                    ["e": hit.emailId, "t": threadOf[hit.emailId] ?? -hit.emailId, "r": relevant.contains(hit.emailId) ? 1 : 0]
                }
            }
            var notWords = false
            if let semantic = useCase.semantic { notWords = try await useCase.isNotWords(text, semantic: semantic) }
            let top1 = (hits.first?["s"] as? Double) ?? 0
            // Filtered as searched: a sender read from prose that nobody is becomes text.
            let response = try await noFloor.search(parsed, limit: 100, mode: .semantic)
            let filtered = !response.query.filters.isEmpty || response.query.scope != .allMail
            if filtered {
                hits = response.results.map { result -> [String: Any] in
                    let conversation = threadOf[result.emailId].flatMap { members[$0] } ?? [result.emailId]
                    return ["e": result.emailId, "s": result.why.semantic?.similarity ?? 0, "t": result.threadId,
                            "r": conversation.contains(where: relevant.contains) ? 1 : 0,
                            "o": anyWordRank[result.emailId] ?? 1_000_000, "o2": twoWordRank[result.emailId] ?? 1_000_000,
                            "wc": wordCount(result.emailId)]
                }
            }
            let object: [String: Any] = [
                "filtered": filtered, "top1": top1,
                "corpus": corpus, "id": label.id, "kind": label.kind, "query": label.query, "text": text,
                "tokens": embedder.tokenize(text).count - 2, "keyword": keyword, "known": embedder.knownWordShare(text),
                "mean": Double(background.mean), "sd": Double(background.deviation),
                "sampleMean": Double(sampled.mean), "sampleSd": Double(sampled.deviation),
                "relevantCount": relevant.count, "hits": hits, "keywordHits": keywordHits, "notWords": notWords,
                "mailboxWords": mailboxWords, "contentWords": FTS5QueryBuilder.contentWords(for: text).count,
                // How much the query reads as a heap of its words (`SemanticRelevance.wordBag`; the
                // words embedded as the ranker embeds them, as queries).
                "bag": SemanticRelevance.wordBag(query: q, words: try embedder.embedQueries(
                    Array(FTS5QueryBuilder.contentWords(for: text).prefix(SemanticRelevance.maximumBagWords)))),
            ]
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            lines.append(String(decoding: data, as: UTF8.self))
        }
        try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
        report("features of \(lines.count) queries written to \(url.path)")
    }

    /// Percentiles of the cosine similarities, and what floors would keep or drop.
    static func reportCalibration(top: [String: [Float]], relevant: [String: [Float]]) {
        let percentiles: [Double] = [0, 5, 10, 25, 50, 75, 90, 95, 100]
        func row(_ name: String, _ values: [Float]) -> String {
            let sorted = values.sorted()
            let cells = percentiles.map { p -> String in
                guard !sorted.isEmpty else { return "–" }
                let i = Int((p / 100 * Double(sorted.count - 1)).rounded())
                return String(format: "%.3f", sorted[i])
            }
            return "| \(name) | \(values.count) | " + cells.joined(separator: " | ") + " |"
        }
        report("Semantic similarity calibration (cosine, exact scan over every embedding, text as the semantic ranker gets it)")
        report("| similarity | n | min | p5 | p10 | p25 | p50 | p75 | p90 | p95 | max |")
        report("|---|---|---|---|---|---|---|---|---|---|---|")
        for kind in ["topic", "short"] {
            if let v = top[kind] { report(row("\(kind): top hit", v)) }
            if let v = relevant[kind] { report(row("\(kind): best relevant message", v)) }
        }
        if let v = top["nonsense"] { report(row("nonsense: top hit", v)) }
        report("A floor f keeps a topic query's best relevant message when its similarity ≥ f, and lets a nonsense query through when its top hit ≥ f:")
        report("| floor | topic: best relevant kept | short: best relevant kept | nonsense: any result |")
        report("|---|---|---|---|")
        func share(_ values: [Float]?, _ floor: Float) -> String {
            guard let values, !values.isEmpty else { return "–" }
            return String(format: "%.1f %%", 100 * Double(values.filter { $0 >= floor }.count) / Double(values.count))
        }
        for step in 2...13 {
            let floor = Float(step) * 0.05
            report(String(format: "| %.2f | %@ | %@ | %@ |", floor, share(relevant["topic"], floor), share(relevant["short"], floor),
                          share(top["nonsense"], floor)))
        }
    }
}
