import SearchIndex

/// One semantic match: an email and the cosine similarity of its embedding to the query's.
public struct SemanticHit: Sendable, Hashable {
    public var emailId: Int64
    public var similarity: Double

    public init(emailId: Int64, similarity: Double) {
        self.emailId = emailId
        self.similarity = similarity
    }
}

/// The semantic half of the hybrid search (FR-SEARCH-07): ranks emails by similarity to a text.
/// The keyword-only engine runs without one (E-04).
public protocol SemanticRanker: Sendable {
    /// Why semantic search cannot run right now (no model, no embeddings yet), or nil when it can.
    var unavailableReason: SemanticSkipReason? { get }

    /// The emails most similar to `text`, best first, at most `limit`, restricted to `candidates`
    /// when given, and only those similar enough to count as a match (the ranker's similarity
    /// floor): a text like nothing in the mailbox gets an empty list.
    func rank(text: String, candidates: EmailIdSet?, limit: Int) async throws -> [SemanticHit]
}
