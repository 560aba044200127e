/// A `* STATUS` response: `* STATUS "INBOX" (MESSAGES 231 UIDNEXT 44292 UIDVALIDITY 1 UNSEEN 2)`.
/// Items the server did not send are nil.
public struct IMAPMailboxStatus: Hashable, Sendable {
    public var mailbox: IMAPMailboxName
    public var messages: UInt32?
    public var recent: UInt32?
    public var uidNext: UInt32?
    public var uidValidity: UInt32?
    public var unseen: UInt32?
    public var highestModSeq: UInt64?
    /// `SIZE` (RFC 8438): the mailbox's total size in bytes.
    public var size: UInt64?
    /// Other numeric items, by upper-cased name.
    public var other: [String: UInt64]

    public init(mailbox: IMAPMailboxName, messages: UInt32? = nil, recent: UInt32? = nil, uidNext: UInt32? = nil,
                uidValidity: UInt32? = nil, unseen: UInt32? = nil, highestModSeq: UInt64? = nil, size: UInt64? = nil,
                other: [String: UInt64] = [:]) {
        self.mailbox = mailbox
        self.messages = messages
        self.recent = recent
        self.uidNext = uidNext
        self.uidValidity = uidValidity
        self.unseen = unseen
        self.highestModSeq = highestModSeq
        self.size = size
        self.other = other
    }
}
