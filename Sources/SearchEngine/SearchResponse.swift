import Foundation
import MailModel

/// Whether the semantic path ran for a search, and why not when it did not.
public struct SemanticReport: Sendable, Codable, Hashable {
    public var ran: Bool
    public var reason: String?
    /// How many emails were similar enough to the query to count as semantic matches (when it ran).
    public var matches: Int?
    public init(ran: Bool, reason: String? = nil, matches: Int? = nil) {
        self.ran = ran
        self.reason = reason
        self.matches = matches
    }
}

/// The answer to one search: conversations, best first.
public struct SearchResponse: Sendable, Codable {
    public var query: SearchQuery
    /// Number of conversations with a match ("15 conversations"): every conversation holding an
    /// email that matches by keyword (all words, filters and scope) or semantically (above the
    /// similarity floor), or, without text, that passes the filters. Exact, never capped.
    public var conversationCount: Int
    /// Number of emails that matched by keyword.
    public var keywordMatches: Int
    public var results: [SearchResult]
    public var semantic: SemanticReport
    public var tookMs: Double
}
