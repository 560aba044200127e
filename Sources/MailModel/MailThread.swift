import Foundation

/// A conversation: the connected component of the Message-ID graph (spec 001 §5.2.4),
/// with the metadata of step 5.
public struct MailThread: Hashable, Sendable, Codable, Identifiable {
    public var id: Int64
    public var accountId: Int64
    /// Subject of the root (earliest) message.
    public var subject: String
    public var latestDate: Date?
    public var messageCount: Int
    public var unreadCount: Int
    public var isStarred: Bool
    /// Deduplicated From addresses of the thread's messages, in order of first appearance.
    public var participants: [Address]
    /// First ~100 characters of the latest message's body.
    public var snippet: String

    public init(
        id: Int64, accountId: Int64, subject: String, latestDate: Date?, messageCount: Int,
        unreadCount: Int, isStarred: Bool, participants: [Address], snippet: String
    ) {
        self.id = id; self.accountId = accountId; self.subject = subject; self.latestDate = latestDate
        self.messageCount = messageCount; self.unreadCount = unreadCount; self.isStarred = isStarred
        self.participants = participants; self.snippet = snippet
    }
}
