import MailStore
import SearchIndex

/// One semantic match: an email and the cosine similarity of its embedding to the query's.
public struct SemanticHit: Sendable, Hashable {
    public var emailId: Int64
    public var similarity: Double
    /// The passage of one of the email's attachments that matched, when it was more similar than
    /// the email's own text.
    public var passage: PassageOwner?

    public init(emailId: Int64, similarity: Double, passage: PassageOwner? = nil) {
        self.emailId = emailId
        self.similarity = similarity
        self.passage = passage
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

    /// Whether the model has `word` as a whole word of its vocabulary (`Embedder.knowsWord`).
    func knowsWord(_ word: String) -> Bool
}

/// The semantic matches of a query, and its near misses (`SemanticRanker.rankWithNearMisses`).
public struct SemanticRanking: Sendable, Hashable {
    public var matches: [SemanticHit]
    /// Best first, all below the last of `matches`.
    public var nearMisses: [SemanticHit]
    /// How many of the best keyword matches of any of the query's words a near miss must be among
    /// (`SemanticRelevance.agreementKeywordDepth`); nil without near misses.
    public var keywordDepth: Int?
    /// How many of the query's words a near miss's keyword agreement needs
    /// (`SemanticRelevance.agreementWords`).
    public var agreementWords: Int
    /// The floor the matches cleared (nil with a fixed floor or without near misses), and how far
    /// below it a near miss agreeing on a single word of a longer query counts
    /// (`SemanticRelevance.singleWordAgreementDepth`).
    public var floor: Double?
    public var singleWordAgreementDepth: Double
    /// With filters: whether the text's best match over the whole mailbox clears the floor. When it
    /// does not, the matches count only if the mail has one of the text's words (`SearchEmailsUseCase`):
    /// a filter does not make nonsense mean something.
    public var clearsFloorWithoutFilters = true
    /// `SemanticRelevance.relatedSpan`: how far below the best match a semantic match without the
    /// query's words still counts when other mail has them all.
    public var relatedSpan: Double
    /// Searches without filters: the hits below the floor that count when no email holds every word
    /// of the query, because it reads as a sentence and its best hit clears its sentence floor
    /// (`SemanticRelevance.sentenceThreshold`); best first.
    public var sentenceMatches: [SemanticHit] = []

    public init(matches: [SemanticHit], nearMisses: [SemanticHit] = [], keywordDepth: Int? = nil,
                agreementWords: Int = 1, floor: Double? = nil, singleWordAgreementDepth: Double = .infinity,
                relatedSpan: Double = .infinity) {
        self.matches = matches
        self.nearMisses = nearMisses
        self.keywordDepth = nearMisses.isEmpty ? nil : keywordDepth
        self.agreementWords = agreementWords
        self.floor = floor
        self.singleWordAgreementDepth = singleWordAgreementDepth
        self.relatedSpan = relatedSpan
    }
}

extension SemanticRanker {
    public func knowsWord(_ word: String) -> Bool { true }

    /// A ranker without near misses.
    public func rankWithNearMisses(text: String, candidates: EmailIdSet?, limit: Int) async throws -> SemanticRanking {
        SemanticRanking(matches: try await rank(text: text, candidates: candidates, limit: limit))
    }
}
