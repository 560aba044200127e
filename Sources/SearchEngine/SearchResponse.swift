import Foundation
import MailModel

/// Whether the semantic path ran for a search, and why not when it did not.
public struct SemanticReport: Sendable, Codable, Hashable {
    public var ran: Bool
    /// Why it did not run (nil when it ran). Each front end words it for itself.
    public var reason: SemanticSkipReason?
    /// How many emails were similar enough to the query to count as semantic matches (when it ran).
    public var matches: Int?
    /// What went wrong, when `reason` is `.failed`.
    public var error: String?
    public init(ran: Bool, reason: SemanticSkipReason? = nil, matches: Int? = nil, error: String? = nil) {
        self.ran = ran
        self.reason = reason
        self.matches = matches
        self.error = error
    }
}

/// Why the semantic half of a search did not run; the keyword half ran regardless (E-04).
public enum SemanticSkipReason: String, Sendable, Codable, Hashable, CaseIterable {
    /// The embedding model is not installed.
    case modelNotInstalled
    /// The model is there, but no email has an embedding yet.
    case noEmbeddings
    /// The caller asked for keyword results only.
    case keywordOnlyRequested
    /// One or two characters: a prefix match only.
    case queryTooShort
    /// Filters without text: nothing to compare.
    case filtersOnly
    /// None of the query's words is a word the model or the mailbox knows (keyboard mash,
    /// invented words; `QueryWords`): nothing to be similar to.
    case notWords
    /// Nothing to search for.
    case emptyQuery
    /// The ranker failed (`SemanticReport.error` says how).
    case failed
}

/// The answer to one search: conversations, best first.
public struct SearchResponse: Sendable, Codable {
    public var query: SearchQuery
    /// Number of conversations with a match ("15 conversations"): every conversation holding an
    /// email that matches by keyword (all words, filters and scope) or semantically (above the
    /// similarity floor), or, without text, that passes the filters. Exact, never capped.
    public var conversationCount: Int
    /// Of those, the conversations holding an email that matched by keyword (every word, or, for
    /// filters alone, passing the filters): what "contains these words" counts. The rest
    /// (`conversationCount − matchedConversations`) are related by meaning only, and come after them.
    public var matchedConversations: Int
    /// Number of emails that matched by keyword.
    public var keywordMatches: Int
    public var results: [SearchResult]
    public var semantic: SemanticReport
    public var tookMs: Double
}
