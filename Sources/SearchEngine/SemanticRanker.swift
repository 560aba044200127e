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

    /// `rank`'s matches, and apart from them the nearest emails just below the floor (within
    /// `SemanticRelevance.agreementDepth`, among the `limit` nearest, searches without filters):
    /// those count only when the keyword index agrees (`SearchEmailsUseCase`).
    func rankWithNearMisses(text: String, candidates: EmailIdSet?, limit: Int) async throws -> SemanticRanking
}

/// The semantic matches of a query, and its near misses (`SemanticRanker.rankWithNearMisses`).
public struct SemanticRanking: Sendable, Hashable {
    public var matches: [SemanticHit]
    /// Best first, all below the last of `matches`.
    public var nearMisses: [SemanticHit]
    /// How many of the best keyword matches of any of the query's words a near miss must be among
    /// (`SemanticRelevance.agreementKeywordDepth`); nil without near misses.
    public var keywordDepth: Int?

    public init(matches: [SemanticHit], nearMisses: [SemanticHit] = [], keywordDepth: Int? = nil) {
        self.matches = matches
        self.nearMisses = nearMisses
        self.keywordDepth = nearMisses.isEmpty ? nil : keywordDepth
    }
}

extension SemanticRanker {
    /// A ranker without near misses.
    public func rankWithNearMisses(text: String, candidates: EmailIdSet?, limit: Int) async throws -> SemanticRanking {
        SemanticRanking(matches: try await rank(text: text, candidates: candidates, limit: limit))
    }
}
