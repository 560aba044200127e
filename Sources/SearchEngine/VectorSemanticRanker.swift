import Embedding
import Foundation
import MailStore
import SearchIndex

/// The semantic ranker of the hybrid search: embeds the query with the on-device model and
/// scans the in-memory vector matrix (FR-SEARCH-07). Without a model, or before any email has
/// an embedding, it says why and the search runs keyword-only (E-04).
///
/// Nearest neighbours always exist, however unrelated: only emails whose cosine similarity to the
/// query reaches `minimumSimilarity` count as matches. The default was calibrated on labelled real
/// mail (`make eval`; README, "Semantic similarity floor").
public final class VectorSemanticRanker: SemanticRanker, @unchecked Sendable {
    /// The default similarity floor of all-MiniLM-L6-v2 on email (see the type's comment).
    public static let defaultMinimumSimilarity = 0.45

    public let embedder: (any Embedder)?
    public let vectors: VectorSearchEngine
    /// Emails less similar than this to the query are not semantic matches. Default: `defaultMinimumSimilarity`.
    public let minimumSimilarity: Double
    /// - Parameters:
    ///   - embedder: the model, or nil when it is not installed.
    public init(embedder: (any Embedder)?, vectors: VectorSearchEngine,
                minimumSimilarity: Double = VectorSemanticRanker.defaultMinimumSimilarity) {
        self.embedder = embedder
        self.vectors = vectors
        self.minimumSimilarity = minimumSimilarity
    }

    public var unavailableReason: SemanticSkipReason? {
        if embedder == nil { return .modelNotInstalled }
        if vectors.count == 0 { return .noEmbeddings }
        return nil
    }

    public func rank(text: String, candidates: EmailIdSet?, limit: Int) async throws -> [SemanticHit] {
        try rankNow(text: text, candidates: candidates, limit: limit)
    }

    /// `rank`, on the calling thread (for callers that run it on a thread pool of their own).
    public func rankNow(text: String, candidates: EmailIdSet?, limit: Int) throws -> [SemanticHit] {
        guard let embedder else { return [] }
        if let candidates, candidates.isEmpty { return [] }
        guard let query = try embedder.embed([text]).first else { return [] }
        return vectors.search(query, k: limit, candidates: candidates)
            .filter { Double($0.score) >= minimumSimilarity }
            .map { SemanticHit(emailId: $0.emailId, similarity: Double($0.score)) }
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

    public init(store: MailStore, embedder: any Embedder, modelName: String = "all-MiniLM-L6-v2", batchSize: Int = 64) {
        self.init(store: store, embedders: [embedder], modelName: modelName, batchSize: batchSize)
    }

    public init(store: MailStore, embedders: [any Embedder], modelName: String = "all-MiniLM-L6-v2", batchSize: Int = 64) {
        precondition(!embedders.isEmpty, "EmbeddingIndexer needs at least one embedder")
        self.store = store
        self.embedders = embedders
        self.modelName = modelName
        self.batchSize = batchSize
    }

    /// Embeds up to `limit` emails (without a limit, until none is left: mail that arrives during
    /// the run joins it), calling `progress(done, total)` after each stored batch; `vectors` (when
    /// given) is updated as batches commit. `shouldStop` is asked before each batch. Returns how
    /// many were embedded.
    @discardableResult
    public func run(limit: Int? = nil, vectors: VectorSearchEngine? = nil,
                    progress: (Int, Int) -> Void = { _, _ in }, shouldStop: () -> Bool = { false }) throws -> Int {
        let pending = try store.emailsWithoutEmbeddingCount()
        let total = min(pending, limit ?? pending)
        var done = 0
        progress(0, total)
        while !shouldStop(), limit.map({ done < $0 }) ?? true {
            let size = min(batchSize * embedders.count, limit.map { $0 - done } ?? Int.max)
            let work = try store.emailsWithoutEmbedding(limit: size)
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
