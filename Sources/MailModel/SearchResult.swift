import Foundation

/// Which ranker found a result (spec §6.4).
public enum MatchSource: String, Sendable, Codable {
    case keyword, semantic, both, filter
}

/// A highlighted span inside a result's subject or snippet, in UTF-16 offsets
/// (what JavaScript and NSString use), half-open.
public struct HighlightRange: Hashable, Sendable, Codable {
    public enum Field: String, Sendable, Codable { case subject, snippet }
    public var field: Field
    public var start: Int
    public var length: Int

    public init(field: Field, start: Int, length: Int) {
        self.field = field; self.start = start; self.length = length
    }
}

/// One conversation in a result list: the thread, represented by its best-ranked message.
public struct SearchResult: Hashable, Sendable, Codable, Identifiable {
    public var id: Int64 { threadId }
    public var threadId: Int64
    public var emailId: Int64
    public var subject: String
    public var senderName: String
    public var senderEmail: String
    public var date: Date?
    /// Body snippet with match context.
    public var snippet: String
    public var highlights: [HighlightRange]
    public var hasAttachment: Bool
    /// The fusion score (RRF) of the best message; higher is better.
    public var score: Double
    public var matchSource: MatchSource
    public var accountId: Int64
    /// How many messages of the thread matched.
    public var matchedMessages: Int

    public init(
        threadId: Int64, emailId: Int64, subject: String, senderName: String, senderEmail: String,
        date: Date?, snippet: String, highlights: [HighlightRange], hasAttachment: Bool, score: Double,
        matchSource: MatchSource, accountId: Int64, matchedMessages: Int = 1
    ) {
        self.threadId = threadId; self.emailId = emailId; self.subject = subject
        self.senderName = senderName; self.senderEmail = senderEmail; self.date = date
        self.snippet = snippet; self.highlights = highlights; self.hasAttachment = hasAttachment
        self.score = score; self.matchSource = matchSource; self.accountId = accountId
        self.matchedMessages = matchedMessages
    }
}
