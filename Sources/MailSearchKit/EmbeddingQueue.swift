import Embedding
import Foundation
internal import MailStore
import SearchEngine
internal import SearchIndex

/// Where background embedding stands (FR-SEARCH-08, NFR-SEARCH-04).
public struct EmbeddingProgress: Sendable, Codable, Hashable {
    public enum State: String, Sendable, Codable {
        /// Every email has an embedding, or nothing has asked for a pass yet.
        case idle
        /// Embedding new mail, newest first; searches meanwhile rank by keyword and what is embedded.
        case running
        /// No model installed: nothing to embed with.
        case modelMissing
        /// The last pass stopped on an error (`lastError`); the next `wake` tries again.
        case failed
    }

    public var state: State
    /// Emails embedded by the current (or last) pass, and how many it had to do.
    public var done: Int
    public var total: Int
    public var docsPerSecond: Double?
    /// Seconds left in the current pass, estimated from its rate so far.
    public var etaSeconds: Double?
    public var lastError: String?
    /// Whether new mail is embedded in the background by this process (`serve
    /// --no-background-embedding` turns it off: `mailsearch index embed` embeds then).
    public var background = true
}

/// Embeds emails that have no embedding yet, newest first, on a thread of its own, while searches
/// go on. Each batch is one transaction and then reaches the in-memory vectors, so a kill at any
/// moment loses only the batch in flight, and a restart carries on without repeating a stored one.
final class EmbeddingQueue: @unchecked Sendable {
    private let store: MailStore
    private let vectors: VectorSearchEngine
    private let passages: PassageVectors
    private let makeEmbedders: @Sendable () throws -> [any Embedder]?
    private let batchSize: Int
    private let modelName: String
    private let didCommit: @Sendable (Int) -> Void
    private let condition = NSCondition()
    private var worker: WakeableWorker!
    private var current = EmbeddingProgress(state: .idle, done: 0, total: 0)

    /// - Parameters:
    ///   - makeEmbedders: the encoders to embed with (loaded on the first pass), nil without a model.
    ///   - didCommit: called after each stored batch with its size.
    init(store: MailStore, vectors: VectorSearchEngine, passages: PassageVectors, batchSize: Int, modelName: String,
         makeEmbedders: @escaping @Sendable () throws -> [any Embedder]?, didCommit: @escaping @Sendable (Int) -> Void) {
        self.store = store
        self.vectors = vectors
        self.passages = passages
        self.batchSize = max(1, batchSize)
        self.modelName = modelName
        self.makeEmbedders = makeEmbedders
        self.didCommit = didCommit
        worker = WakeableWorker(name: "mailsearch.embedding") { [weak self] in self?.backgroundPass() }
    }

    var progress: EmbeddingProgress { condition.withLock { current } }

    /// Asks for a pass over the mail that has no embedding (after an import or a sync batch).
    func wake() { worker.wake() }

    /// Stops after the batch in flight (stored, so nothing is lost) and waits for the thread to end.
    func stop() { worker.stop() }

    /// Waits until no pass is wanted or running (for tests and one-shot commands).
    func waitUntilIdle() { worker.waitUntilIdle() }

    /// Embeds now, on the calling thread, up to `limit` emails (all when nil), calling
    /// `progress(done, total)` after each stored batch; the foreground `index embed`. Returns how
    /// many were embedded. Throws `ServiceError` when no model is installed.
    func runNow(limit: Int?, progress: @escaping (Int, Int) -> Void) throws -> Int {
        guard let embedders = try loadedEmbedders() else {
            throw ServiceError(.unavailable, "no embedding model installed", hint: "install the model")
        }
        return try pass(embedders, limit: limit, progress: progress)
    }

    /// Embeds now, on the calling thread, the passages of attachments' text that have none
    /// (`EmbeddingIndexer.runPassages`), with `progress(done, total)` in attachments; returns how
    /// many attachments were embedded. Throws `ServiceError` when no model is installed.
    func runPassagesNow(progress: @escaping (Int, Int) -> Void) throws -> Int {
        guard let embedders = try loadedEmbedders() else {
            throw ServiceError(.unavailable, "no embedding model installed", hint: "install the model")
        }
        return try passagePass(embedders, progress: progress)
    }

    /// The passages of attachments' text that have none, embedded and stored round by round; each
    /// stored round changes what searches find, so cached answers go (`didCommit`).
    private func passagePass(_ embedders: [any Embedder], progress: @escaping (Int, Int) -> Void) throws -> Int {
        let indexer = EmbeddingIndexer(store: store, embedders: embedders, modelName: modelName, batchSize: batchSize)
        return try indexer.runPassages(passages: passages, progress: { [didCommit] done, total in
            if done > 0 { didCommit(0) }
            progress(done, total)
        }, shouldStop: { worker.isStopping })
    }

    private var embedders: [any Embedder]?

    private func loadedEmbedders() throws -> [any Embedder]? {
        if let embedders = condition.withLock({ embedders }) { return embedders }
        let made = try makeEmbedders()
        condition.withLock { embedders = made }
        return made
    }

    private func backgroundPass() {
        update { $0.state = .running }
        do {
            guard let embedders = try loadedEmbedders() else {
                update { $0 = EmbeddingProgress(state: .modelMissing, done: 0, total: 0) }
                return
            }
            _ = try pass(embedders, limit: nil) { _, _ in }
            // Then the attachments' passages: mail itself is searchable by meaning first.
            if !worker.isStopping { _ = try passagePass(embedders) { _, _ in } }
        } catch {
            update {
                $0.state = .failed
                $0.lastError = "\(error)"
                $0.etaSeconds = nil
            }
        }
    }

    private func pass(_ embedders: [any Embedder], limit: Int?, progress: (Int, Int) -> Void) throws -> Int {
        let started = Date()
        let indexer = EmbeddingIndexer(store: store, embedders: embedders, modelName: modelName, batchSize: batchSize)
        var stored = 0
        let done = try indexer.run(limit: limit, vectors: vectors, progress: { done, total in
            if done == 0 {
                // The pass starts: a fresh progress record.
                update { $0 = EmbeddingProgress(state: total > 0 ? .running : .idle, done: 0, total: total) }
            } else {
                didCommit(done - stored)
                stored = done
                let seconds = Date().timeIntervalSince(started)
                update {
                    $0.done = done
                    $0.total = total
                    $0.docsPerSecond = seconds > 0 ? Double(done) / seconds : nil
                    let left = Double(max(0, total - done))
                    $0.etaSeconds = $0.docsPerSecond.map { left / max($0, 0.001) }
                }
            }
            progress(done, total)
        }, shouldStop: { worker.isStopping })
        update {
            $0.state = .idle
            $0.total = done
            $0.etaSeconds = nil
        }
        return done
    }

    private func update(_ body: (inout EmbeddingProgress) -> Void) {
        condition.withLock {
            body(&current)
            condition.broadcast()
        }
    }
}
