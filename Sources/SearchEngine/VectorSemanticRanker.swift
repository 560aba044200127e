import Embedding
import Foundation
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
    /// A fixed cosine floor instead of the per-query decision, or nil (the default).
    public let minimumSimilarity: Double?
    /// The per-query decision used when there is no fixed floor.
    public let relevance: SemanticRelevance
    /// - Parameters:
    ///   - embedder: the model, or nil when it is not installed.
    public init(embedder: (any Embedder)?, vectors: VectorSearchEngine, minimumSimilarity: Double? = nil,
                relevance: SemanticRelevance = .calibrated) {
        self.embedder = embedder
        self.vectors = vectors
        self.minimumSimilarity = minimumSimilarity
        self.relevance = relevance
    }

    public var unavailableReason: SemanticSkipReason? {
        if embedder == nil { return .modelNotInstalled }
        if vectors.count == 0 { return .noEmbeddings }
        return nil
    }

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
        guard let query = try embedder.embed([text]).first else { return SemanticRanking(matches: []) }
        let hits = vectors.search(query, k: limit, candidates: candidates)
        var floor: Double
        if let minimumSimilarity {
            floor = minimumSimilarity
        } else {
            floor = relevance.floor(deviation: Double(vectors.background(query).deviation),
                                    knownWordShare: embedder.knownWordShare(text))
            if candidates != nil, let bestFiltered = hits.first {
                // Filters narrow the mail: the text must still mean something in the mailbox (its
                // best match anywhere clears the floor), and then the filtered mail's nearest count
                // further down — the filter already says much of what the user wants —, though not
                // far below the best of them (a sender's unrelated mail stays out).
                guard let best = vectors.search(query, k: 1).first, Double(best.score) >= floor else {
                    return SemanticRanking(matches: [])
                }
                floor = min(floor, max(floor - relevance.filteredDepth, Double(bestFiltered.score) - relevance.filteredSpan))
            }
        }
        let all = hits.map { SemanticHit(emailId: $0.emailId, similarity: Double($0.score)) }
        let matches = all.filter { $0.similarity >= floor }
        guard minimumSimilarity == nil, candidates == nil else { return SemanticRanking(matches: matches) }
        let nearMisses = all.filter { $0.similarity < floor && $0.similarity >= floor - relevance.agreementDepth }
        return SemanticRanking(matches: matches, nearMisses: nearMisses, keywordDepth: relevance.agreementKeywordDepth)
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
    /// many were embedded.
    @discardableResult
    public func run(limit: Int? = nil, vectors: VectorSearchEngine? = nil,
                    progress: (Int, Int) -> Void = { _, _ in }, shouldStop: () -> Bool = { false }) throws -> Int {
        let pending = try store.emailsWithoutEmbeddingCount(model: modelName)
        let total = min(pending, limit ?? pending)
        var done = 0
        progress(0, total)
        while !shouldStop(), limit.map({ done < $0 }) ?? true {
            let size = min(batchSize * embedders.count, limit.map { $0 - done } ?? Int.max)
            let work = try store.emailsWithoutEmbedding(limit: size, model: modelName, clean: cleanText)
            guard !work.isEmpty else { break }
            let embedded = try Self.embedInParallel(work.map(\.text), embedders: embedders)
            let items = zip(work, embedded).map { (emailId: $0.emailId, vector: $1) }
            try store.saveEmbeddings(items, model: modelName)
            vectors?.upsert(items)
            done += work.count
            progress(done, max(total, done))
        }
        return done
    }

    /// Splits `texts` into one contiguous slice per embedder and encodes the slices concurrently.
    public static func embedInParallel(_ texts: [String], embedders: [any Embedder]) throws -> [[Float]] {
        guard embedders.count > 1, texts.count > 1 else { return try embedders[0].embed(texts) }
        let parts = min(embedders.count, texts.count)
        let size = (texts.count + parts - 1) / parts
        let results = ParallelResults(count: parts)
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let slice = Array(texts[min(texts.count, part * size)..<min(texts.count, (part + 1) * size)])
            results.set(part, Result { try embedders[part].embed(slice) })
        }
        return try results.values.flatMap { try $0.get() }
    }
}

/// Collects one result per parallel part.
private final class ParallelResults: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Result<[[Float]], Error>]
    init(count: Int) { stored = Array(repeating: .success([]), count: count) }
    func set(_ i: Int, _ r: Result<[[Float]], Error>) { lock.withLock { stored[i] = r } }
    var values: [Result<[[Float]], Error>] { lock.withLock { stored } }
}
