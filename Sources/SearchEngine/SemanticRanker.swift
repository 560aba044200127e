/// The semantic half of the hybrid search (FR-SEARCH-07): ranks emails by similarity to a text.
/// The keyword-only engine runs without one (E-04).
public protocol SemanticRanker: Sendable {
    /// Why semantic search cannot run right now (no model, no embeddings yet), or nil when it can.
    var unavailableReason: String? { get }

    /// Email ids most similar to `text`, best first, at most `limit`, restricted to `candidates` when given.
    func rank(text: String, candidates: Set<Int64>?, limit: Int) async throws -> [Int64]
}
