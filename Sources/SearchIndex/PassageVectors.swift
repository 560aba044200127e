import Foundation
import MailStore

/// The vectors of attachments' passages (`attachment_passages`), beside the emails' own: a
/// `VectorSearchEngine` keyed by passage id, and which email, attachment and range each passage is.
/// Semantic search scores an email by its own vector and by its attachments' passages, and says
/// which passage matched.
public final class PassageVectors: @unchecked Sendable {
    public let vectors: VectorSearchEngine
    private let lock = NSLock()
    private var owners: [Int64: PassageOwner] = [:]

    public init(dimension: Int = 384) {
        vectors = VectorSearchEngine(dimension: dimension)
    }

    public var count: Int { vectors.count }

    /// Loads every stored passage vector of `model`, replacing what was loaded.
    public func load(from store: MailStore, model: String) throws {
        var loaded: [Int64: PassageOwner] = [:]
        try vectors.load { _, body in
            try store.forEachPassageBytes(model: model) { id, owner, bytes in
                loaded[id] = owner
                try body(id, bytes)
            }
        }
        lock.withLock { owners = loaded }
    }

    /// Adds passages just stored (`MailStore.savePassages`).
    public func upsert(_ items: [(id: Int64, owner: PassageOwner, vector: [Float])]) {
        lock.withLock { for item in items { owners[item.id] = item.owner } }
        vectors.upsert(items.map { (emailId: $0.id, vector: $0.vector) })
    }

    /// Forgets the passages of these emails (deleted).
    public func remove(emailIds: [Int64]) {
        let gone = EmailIdSet(emailIds)
        let ids = lock.withLock {
            let ids = owners.filter { gone.contains($0.value.emailId) }.map(\.key)
            for id in ids { owners[id] = nil }
            return ids
        }
        vectors.remove(ids)
    }

    /// The best passage of each email among the `k` passages most similar to `query`, restricted
    /// to the emails of `candidates` (all when nil); best first.
    public func search(_ query: [Float], k: Int, candidates: EmailIdSet?) -> [(owner: PassageOwner, score: Float)] {
        guard vectors.count > 0 else { return [] }
        let (table, passageCandidates) = lock.withLock { () -> ([Int64: PassageOwner], EmailIdSet?) in
            guard let candidates else { return (owners, nil) }
            return (owners, EmailIdSet(owners.lazy.filter { candidates.contains($0.value.emailId) }.map(\.key)))
        }
        if let passageCandidates, passageCandidates.isEmpty { return [] }
        var seen: Set<Int64> = []
        var out: [(owner: PassageOwner, score: Float)] = []
        for hit in vectors.search(query, k: k, candidates: passageCandidates) {
            guard let owner = table[hit.emailId], seen.insert(owner.emailId).inserted else { continue }
            out.append((owner, hit.score))
        }
        return out
    }
}
