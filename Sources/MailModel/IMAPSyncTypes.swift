import Foundation

/// What the sync engine knows of one server folder (spec 001 §5.2.1: per-folder UID state).
public struct IMAPFolderState: Sendable, Hashable {
    public var folderId: Int64
    /// The folder's path as stored (`Sent`, `Archive/2024`).
    public var path: String
    /// The server's name for it, as sent on the wire (modified UTF-7).
    public var mailbox: [UInt8]
    public var uidValidity: UInt32?
    /// UIDNEXT when the folder was last synced to the end; nil until a sync of it completes.
    public var uidNext: UInt32?
    /// HIGHESTMODSEQ at the start of the last complete sync (CONDSTORE), else nil.
    public var highestModSeq: UInt64?
    public var lastSyncDate: Date?

    public init(folderId: Int64, path: String, mailbox: [UInt8], uidValidity: UInt32?, uidNext: UInt32?,
                highestModSeq: UInt64?, lastSyncDate: Date?) {
        self.folderId = folderId
        self.path = path
        self.mailbox = mailbox
        self.uidValidity = uidValidity
        self.uidNext = uidNext
        self.highestModSeq = highestModSeq
        self.lastSyncDate = lastSyncDate
    }
}

/// One server message known locally: its UID in a folder, the email it is, and the flags the
/// server had for it when last seen (a change of them is what changes the email's flags: two
/// copies of one email in two folders may disagree without the email flapping between them).
public struct IMAPMessageLink: Sendable, Hashable {
    public var uid: UInt32
    public var emailId: Int64
    public var flags: MessageFlags
    public var gmailMessageId: UInt64?
    public var gmailThreadId: UInt64?

    public init(uid: UInt32, emailId: Int64, flags: MessageFlags, gmailMessageId: UInt64? = nil, gmailThreadId: UInt64? = nil) {
        self.uid = uid
        self.emailId = emailId
        self.flags = flags
        self.gmailMessageId = gmailMessageId
        self.gmailThreadId = gmailThreadId
    }
}

/// Read, starred and draft as the server has them.
public struct MessageFlags: Sendable, Hashable {
    public var isRead: Bool
    public var isStarred: Bool
    public var isDraft: Bool

    public init(isRead: Bool, isStarred: Bool, isDraft: Bool) {
        self.isRead = isRead
        self.isStarred = isStarred
        self.isDraft = isDraft
    }
}
