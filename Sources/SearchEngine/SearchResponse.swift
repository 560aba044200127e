import Foundation
import MailModel

/// Whether the semantic path ran for a search, and why not when it did not.
public struct SemanticReport: Sendable, Codable, Hashable {
    public var ran: Bool
    public var reason: String?
    public init(ran: Bool, reason: String? = nil) {
        self.ran = ran
        self.reason = reason
    }
}

/// The answer to one search: conversations, best first.
public struct SearchResponse: Sendable, Codable {
    public var query: SearchQuery
    /// Number of conversations among the matches considered ("15 conversations").
    public var conversationCount: Int
    /// True when more conversations may match than were counted: the keyword ranker hit its
    /// candidate limit, or the text matched so much mail that only the most recent matches were ranked.
    public var conversationCountIsLowerBound: Bool
    public var results: [SearchResult]
    public var semantic: SemanticReport
    public var tookMs: Double
}
