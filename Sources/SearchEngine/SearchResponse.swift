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
    /// True when the keyword ranker hit its candidate limit, so more conversations may match.
    public var conversationCountIsLowerBound: Bool
    public var results: [SearchResult]
    public var semantic: SemanticReport
    public var tookMs: Double
}
