import Embedding
import Foundation
import MailParsing
import MailStore
import SearchIndex

/// The semantic ranker of the hybrid search: embeds the query with the on-device model and
/// scans the in-memory vector matrix (FR-SEARCH-07). Without a model, or before any email has
/// an embedding, it says why and the search runs keyword-only (E-04).
///
/// Nearest neighbours always exist, however unrelated: only emails similar enough to the query
/// count as matches. By default that is decided per query and per mailbox (`SemanticRelevance`);
/// a fixed cosine floor (`minimumSimilarity`, `--min-similarity`) replaces it when given.
public final class VectorSemanticRanker: SemanticRanker, @unchecked Sendable {
    public let embedder: (any Embedder)?
    public let vectors: VectorSearchEngine
    /// The vectors of attachments' passages: an email scores the best of its own and theirs.
    public let passages: PassageVectors?
    /// A fixed cosine floor instead of the per-query decision, or nil (the default).
    public let minimumSimilarity: Double?
    /// The per-query decision used when there is no fixed floor.
    public let relevance: SemanticRelevance
    /// The vectors of words the sentence floor's word bag embedded, kept across searches: a word's
    /// vector does not depend on the query, and a search as you type sends the same words again.
    let wordVectors = SearchCache<[Float]>(capacity: 4096, timeToLive: .infinity, normalizesKeys: false)
    /// - Parameters:
    ///   - embedder: the model, or nil when it is not installed.
    public init(embedder: (any Embedder)?, vectors: VectorSearchEngine, passages: PassageVectors? = nil,
                minimumSimilarity: Double? = nil, relevance: SemanticRelevance = .calibrated) {
        self.embedder = embedder
        self.vectors = vectors
        self.passages = passages
        self.minimumSimilarity = minimumSimilarity
        self.relevance = relevance
    }

    public var unavailableReason: SemanticSkipReason? {
        if embedder == nil { return .modelNotInstalled }
        if vectors.count == 0 { return .noEmbeddings }
        return nil
    }

    public func knowsWord(_ word: String) -> Bool { embedder?.knowsWord(word) ?? true }

    public func rank(text: String, candidates: EmailIdSet?, limit: Int) async throws -> [SemanticHit] {
        try rankNow(text: text, candidates: candidates, limit: limit)
    }

    public func rankWithNearMisses(text: String, candidates: EmailIdSet?, limit: Int) async throws -> SemanticRanking {
        try rankNowWithNearMisses(text: text, candidates: candidates, limit: limit)
    }

    /// `rank`, on the calling thread (for callers that run it on a thread pool of their own).
    public func rankNow(text: String, candidates: EmailIdSet?, limit: Int) throws -> [SemanticHit] {
        try rankNowWithNearMisses(text: text, candidates: candidates, limit: limit).matches
    }

    /// `rankWithNearMisses`, on the calling thread.
    public func rankNowWithNearMisses(text: String, candidates: EmailIdSet?, limit: Int) throws -> SemanticRanking {
        guard let embedder else { return SemanticRanking(matches: []) }
        if let candidates, candidates.isEmpty { return SemanticRanking(matches: []) }
        guard let query = try embedder.embedQueries([text]).first else { return SemanticRanking(matches: []) }
        let hits = search(query, k: limit, candidates: candidates)
        var floor: Double
        var clearsFloorUnfiltered = true
        var deviation = 0.0, known = 1.0
        if let minimumSimilarity {
            floor = minimumSimilarity
        } else {
            deviation = Double(vectors.background(query).deviation)
            known = embedder.knownWordShare(text)
            floor = relevance.floor(deviation: deviation, knownWordShare: known)
            if candidates != nil, let bestFiltered = hits.first {
                // Filters narrow the mail: the text must still mean something in the mailbox (its
                // best match anywhere clears the floor, or — the caller checks — the mail has one of
                // its words), and then the filtered mail's nearest count further down — the filter
                // already says much of what the user wants —, though not far below the best of them
                // (a sender's unrelated mail stays out).
                let best = search(query, k: 1, candidates: nil).first
                clearsFloorUnfiltered = best.map { $0.similarity >= floor } ?? false
                floor = min(floor, max(floor - relevance.filteredDepth, bestFiltered.similarity - relevance.filteredSpan))
            }
        }
        let all = hits
        let matches = all.filter { $0.similarity >= floor }
        guard minimumSimilarity == nil else { return SemanticRanking(matches: matches) }
        guard candidates == nil else {
            var ranking = SemanticRanking(matches: matches, relatedSpan: relevance.relatedSpan)
            ranking.clearsFloorWithoutFilters = clearsFloorUnfiltered
            return ranking
        }
        let nearMisses = all.filter { $0.similarity < floor && $0.similarity >= floor - relevance.agreementDepth }
        var ranking = SemanticRanking(matches: matches, nearMisses: nearMisses, keywordDepth: relevance.agreementKeywordDepth,
                                      agreementWords: relevance.agreementWords, floor: floor,
                                      singleWordAgreementDepth: relevance.singleWordAgreementDepth,
                                      relatedSpan: relevance.relatedSpan)
        ranking.sentenceMatches = try sentenceMatches(text: text, query: query, hits: all, floor: floor, deviation: deviation,
                                                      knownWordShare: known, embedder: embedder)
        return ranking
    }

    /// The hits below `floor` that clear the query's sentence floor (`SemanticRelevance.sentenceThreshold`)
    /// or lie within `sentenceSpan` below it, when its best hit clears it: they count when no email
    /// holds every word of the query (`SearchEmailsUseCase`). Empty for a query of fewer words. The
    /// words are embedded only when the best hit could clear the lowest sentence floor there is (a
    /// bag of 0).
    func sentenceMatches(text: String, query: [Float], hits: [SemanticHit], floor: Double, deviation: Double,
                         knownWordShare known: Double, embedder: any Embedder) throws -> [SemanticHit] {
        guard relevance.sentenceThreshold != nil, let best = hits.first else { return [] }
        let words = FTS5QueryBuilder.contentWords(for: text)
        guard words.count >= relevance.sentenceMinimumWords,
              let lowest = relevance.sentenceFloor(deviation: deviation, knownWordShare: known, bag: 0),
              best.similarity >= lowest else { return [] }
        let bag = SemanticRelevance.wordBag(query: query, words: try embedWords(Array(words.prefix(SemanticRelevance.maximumBagWords)),
                                                                                embedder: embedder))
        guard let sentenceFloor = relevance.sentenceFloor(deviation: deviation, knownWordShare: known, bag: bag),
              best.similarity >= sentenceFloor else { return [] }
        return hits.filter { $0.similarity < floor && $0.similarity >= sentenceFloor - relevance.sentenceSpan }
    }

    /// Each word embedded alone (as a query), from `wordVectors` when it was embedded before.
    func embedWords(_ words: [String], embedder: any Embedder) throws -> [[Float]] {
        var vectors = words.map { wordVectors.value(for: $0, generation: 0) }
        let missing = vectors.indices.filter { vectors[$0] == nil }
        if !missing.isEmpty {
            for (i, vector) in zip(missing, try embedder.embedQueries(missing.map { words[$0] })) {
                vectors[i] = vector
                wordVectors.insert(vector, for: words[i], generation: 0)
            }
        }
        return vectors.compactMap { $0 }
    }

    /// The `k` emails most similar to `query` among `candidates`, each scored by the best of its
    /// own vector and its attachments' passages (the passage kept when it won), best first.
    func search(_ query: [Float], k: Int, candidates: EmailIdSet?) -> [SemanticHit] {
        var hits = vectors.search(query, k: k, candidates: candidates).map {
            SemanticHit(emailId: $0.emailId, similarity: Double($0.score))
        }
        guard let passages, passages.count > 0 else { return hits }
        var position: [Int64: Int] = [:]
        for (i, hit) in hits.enumerated() { position[hit.emailId] = i }
        for found in passages.search(query, k: k, candidates: candidates) {
            let hit = SemanticHit(emailId: found.owner.emailId, similarity: Double(found.score), passage: found.owner)
            if let i = position[hit.emailId] {
                if hit.similarity > hits[i].similarity { hits[i] = hit }
            } else {
                position[hit.emailId] = hits.count
                hits.append(hit)
            }
        }
        hits.sort { $0.similarity > $1.similarity || ($0.similarity == $1.similarity && $0.emailId < $1.emailId) }
        return Array(hits.prefix(k))
    }
}

/// Embeds emails that have no embedding yet, newest first, in batches (FR-SEARCH-08). Each batch
/// is committed, so an interrupted run loses nothing and a restart repeats nothing.
///
/// With several embedders (one per core, each on one BLAS thread) a batch is split between them and
/// encoded in parallel: for 256-token texts that beats threading inside the encoder's small GEMMs.
public struct EmbeddingIndexer: Sendable {
    public let store: MailStore
    public let embedders: [any Embedder]
    public let modelName: String
    public let batchSize: Int
    /// Whether the embedded text is the email's own words (`EmbeddingText`) or its body's start as it is.
    public let cleanText: Bool

    public init(store: MailStore, embedder: any Embedder, modelName: String = EmbeddingModel.default.name, batchSize: Int = 64,
                cleanText: Bool = true) {
        self.init(store: store, embedders: [embedder], modelName: modelName, batchSize: batchSize, cleanText: cleanText)
    }

    public init(store: MailStore, embedders: [any Embedder], modelName: String = EmbeddingModel.default.name, batchSize: Int = 64,
                cleanText: Bool = true) {
        precondition(!embedders.isEmpty, "EmbeddingIndexer needs at least one embedder")
        self.store = store
        self.embedders = embedders
        self.modelName = modelName
        self.batchSize = batchSize
        self.cleanText = cleanText
    }

    /// Embeds up to `limit` emails (without a limit, until none is left: mail that arrives during
    /// the run joins it), calling `progress(done, total)` after each stored batch; `vectors` (when
    /// given) is updated as batches commit. `shouldStop` is asked before each batch. Returns how
    /// many were embedded. `timings` (when given) adds up where the time went.
    ///
    /// The order is read once (newest first); each batch then reads its own emails by id, after any
    /// mail added since the run began (newest first too). A last look in the table itself catches
    /// what neither saw (a vector deleted meanwhile, say), so the run ends only when no email is
    /// left without a vector.
    @discardableResult
    public func run(limit: Int? = nil, vectors: VectorSearchEngine? = nil, timings: EmbeddingTimings? = nil,
                    progress: (Int, Int) -> Void = { _, _ in }, shouldStop: () -> Bool = { false }) throws -> Int {
        var clock = ContinuousClock.now
        func lap(_ add: (EmbeddingTimings, Double) -> Void) {
            let now = ContinuousClock.now
            if let timings { add(timings, (now - clock).seconds) }
            clock = now
        }
        let (order, largestId) = try store.emailIdsWithoutEmbedding(model: modelName)
        lap { $0.fetch += $1 }
        let total = min(order.count, limit ?? order.count)
        var position = 0
        var done = 0
        var recent: [String: [Float]] = [:]
        progress(0, total)
        while !shouldStop(), limit.map({ done < $0 }) ?? true {
            let size = min(batchSize * embedders.count, limit.map { $0 - done } ?? Int.max)
            var work = try store.emailsWithoutEmbedding(limit: size, model: modelName, clean: cleanText, idAbove: largestId)
            while work.count < size, position < order.count {
                let ids = order[position..<min(order.count, position + size - work.count)]
                position += ids.count
                work += try store.emailsWithoutEmbedding(ids: ids, model: modelName, clean: cleanText)
            }
            if work.isEmpty {
                work = try store.emailsWithoutEmbedding(limit: size, model: modelName, clean: cleanText)
            }
            lap { $0.fetch += $1 }
            guard !work.isEmpty else { break }
            let embedded = try Self.embedDistinct(work.map(\.text), recent: &recent, embedders: embedders, timings: timings)
            lap { $0.embed += $1 }
            let items = zip(work, embedded).map { (emailId: $0.emailId, vector: $1) }
            try store.saveEmbeddings(items, model: modelName)
            vectors?.upsert(items)
            lap { $0.save += $1 }
            done += work.count
            progress(done, max(total, done))
        }
        return done
    }

    /// Embeds the passages of the text read from attachments (`AttachmentPassages`) that have none
    /// for this model yet, a few attachments at a time, each attachment's passages stored together;
    /// `passages` (when given) is updated as they commit. `progress(done, total)` counts attachments.
    /// Returns how many attachments were embedded.
    @discardableResult
    public func runPassages(passages: PassageVectors? = nil, attachmentsPerRound: Int = 8,
                            progress: (Int, Int) -> Void = { _, _ in }, shouldStop: () -> Bool = { false }) throws -> Int {
        let total = try store.attachmentsWithoutPassagesCount(model: modelName)
        var afterId: Int64 = 0
        var done = 0
        progress(0, total)
        while !shouldStop() {
            let work = try store.attachmentsWithoutPassages(model: modelName, afterId: afterId, limit: max(1, attachmentsPerRound))
            guard let last = work.last else { break }
            afterId = last.attachmentId
            var owners: [PassageOwner] = []
            var texts: [String] = []
            var truncated: Set<Int64> = []
            for item in work {
                let (ranges, cut) = AttachmentPassages.ranges(of: item.text)
                if cut { truncated.insert(item.attachmentId) }
                for (i, range) in ranges.enumerated() {
                    owners.append(PassageOwner(emailId: item.emailId, attachmentId: item.attachmentId, passage: i,
                                               start: range.start, length: range.length))
                    texts.append(AttachmentPassages.embeddingText(
                        filename: item.filename, passage: AttachmentPassages.text(of: range, in: item.text)))
                }
            }
            var embedded: [[Float]] = []
            var recent: [String: [Float]] = [:]
            let step = batchSize * embedders.count
            for start in stride(from: 0, to: texts.count, by: step) {
                embedded += try Self.embedDistinct(Array(texts[start..<min(texts.count, start + step)]), recent: &recent,
                                                   embedders: embedders)
            }
            let saved = try store.savePassages(Array(zip(owners, embedded).map { (owner: $0, vector: $1) }), model: modelName,
                                               truncated: truncated)
            passages?.upsert(saved)
            done += work.count
            progress(done, max(total, done))
        }
        return done
    }

    /// The vectors of `texts`, each distinct text encoded once: a text the batch repeats, or that the
    /// batch before held (`recent`, replaced by this batch's texts), takes the vector already made.
    /// The encoder gives a text the same vector whatever else is in its batch (it works on each
    /// sequence alone), so only the time changes. Copies are common in real mailboxes: Enron keeps
    /// 8,628 of its 44,715 emails in several folders under different Message-IDs, nearly always
    /// within a batch of each other in the newest-first order, as copies of one message share its date.
    public static func embedDistinct(_ texts: [String], recent: inout [String: [Float]], embedders: [any Embedder],
                                     timings: EmbeddingTimings? = nil) throws -> [[Float]] {
        var first: [String: Int] = [:]
        var distinct: [String] = []
        for text in texts where recent[text] == nil && first[text] == nil {
            first[text] = distinct.count
            distinct.append(text)
        }
        let encoded = distinct.isEmpty ? [] : try embedInParallel(distinct, embedders: embedders, timings: timings)
        timings?.addTexts(texts.count, encoded: distinct.count)
        let vectors = texts.map { text in first[text].map { encoded[$0] } ?? recent[text]! }
        recent = Dictionary(zip(texts, vectors), uniquingKeysWith: { first, _ in first })
        return vectors
    }

    /// Splits `texts` into one part per embedder, of about the same work each, and encodes the parts
    /// concurrently. The work of a text is estimated from its length: about four characters a
    /// token, at most 256 tokens, each costing the same in the linear layers plus its share of
    /// attention (which grows with the length). Parts of equal work keep every core busy until the
    /// batch ends; parts of equal count left one idle while the other finished the longer texts.
    public static func embedInParallel(_ texts: [String], embedders: [any Embedder], timings: EmbeddingTimings? = nil)
        throws -> [[Float]] {
        guard embedders.count > 1, texts.count > 1 else { return try embedders[0].embed(texts) }
        let parts = balancedParts(texts.map { estimatedWork(utf8Count: $0.utf8.count) }, count: min(embedders.count, texts.count))
        let results = ParallelResults(count: parts.count)
        let started = ContinuousClock.now
        DispatchQueue.concurrentPerform(iterations: parts.count) { part in
            let result = Result { try embedders[part].embed(parts[part].map { texts[$0] }) }
            results.set(part, result, busy: (ContinuousClock.now - started).seconds)
        }
        timings?.addParts(results.busy)
        var vectors = [[Float]](repeating: [], count: texts.count)
        for (part, indices) in parts.enumerated() {
            for (index, vector) in zip(indices, try results.values[part].get()) { vectors[index] = vector }
        }
        return vectors
    }

    /// The estimated work of encoding a text of `utf8Count` bytes (see `embedInParallel`).
    public static func estimatedWork(utf8Count: Int) -> Int {
        let tokens = min(256, 2 + utf8Count / 4)
        // Per token: 4h² + 2h·i multiply-adds in the linear layers (h 384, i 1536), and 2h per
        // earlier token of the text in attention: 2304 + tokens, in units of 2h.
        return tokens * (2304 + tokens)
    }

    /// Indices of `work` dealt into `count` parts of nearly equal total: the largest first, each to
    /// the lightest part so far; each part keeps its indices in ascending order.
    public static func balancedParts(_ work: [Int], count: Int) -> [[Int]] {
        var parts = [[Int]](repeating: [], count: count)
        var totals = [Int](repeating: 0, count: count)
        for index in work.indices.sorted(by: { work[$0] > work[$1] || (work[$0] == work[$1] && $0 < $1) }) {
            let lightest = totals.indices.min { totals[$0] < totals[$1] }!
            parts[lightest].append(index)
            totals[lightest] += work[index]
        }
        return parts.map { $0.sorted() }
    }
}

/// Where an embedding run's time went (seconds): reading the emails and composing their texts,
/// encoding, storing the vectors; and, of the encoding, how long each core's part took (the
/// difference to the batch's time is a core waiting for the other).
public final class EmbeddingTimings: @unchecked Sendable {
    private let lock = NSLock()
    public var fetch = 0.0
    public var embed = 0.0
    public var save = 0.0
    /// Texts asked for, and of them those encoded (the rest repeated a text already encoded).
    public private(set) var texts = 0
    public private(set) var encoded = 0
    /// Sum over batches of each part's encoding time.
    public private(set) var partBusy = 0.0
    /// Sum over batches of the slowest part's time, times the number of parts.
    public private(set) var partCapacity = 0.0

    public init() {}

    func addTexts(_ count: Int, encoded distinct: Int) {
        lock.withLock {
            texts += count
            encoded += distinct
        }
    }

    func addParts(_ seconds: [Double]) {
        lock.withLock {
            partBusy += seconds.reduce(0, +)
            partCapacity += (seconds.max() ?? 0) * Double(seconds.count)
        }
    }
}

extension Duration {
    fileprivate var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}

/// Collects one result per parallel part.
private final class ParallelResults: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Result<[[Float]], Error>]
    private var seconds: [Double]
    init(count: Int) {
        stored = Array(repeating: .success([]), count: count)
        seconds = Array(repeating: 0, count: count)
    }
    func set(_ i: Int, _ r: Result<[[Float]], Error>, busy: Double) {
        lock.withLock {
            stored[i] = r
            seconds[i] = busy
        }
    }
    var values: [Result<[[Float]], Error>] { lock.withLock { stored } }
    var busy: [Double] { lock.withLock { seconds } }
}
