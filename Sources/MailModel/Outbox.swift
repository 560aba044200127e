import Foundation

/// One server operation waiting in (or done by) the outbox.
public struct OutboxOperation: Sendable, Hashable {
    public enum Kind: String, Sendable {
        /// UID STORE ±FLAGS on one server message.
        case store
        /// UID MOVE (or COPY + \Deleted + EXPUNGE) of one server message to `targetPath`.
        case move
        /// \Deleted + UID EXPUNGE of one server message: a delete for good.
        case expunge
        /// Gmail (X-GM-EXT-1): UID STORE ±X-GM-LABELS on the message's copy in All Mail (archive:
        /// `\Inbox` removed; move: the target's label added, `\Inbox` removed).
        case labels
    }

    public var id: Int64
    public var accountId: Int64
    public var kind: Kind
    public var emailId: Int64?
    /// The source folder and the message's UID there, as they were when the action was taken.
    public var folderId: Int64
    public var mailbox: [UInt8]
    public var uidValidity: UInt32?
    public var uid: UInt32
    /// `store`: the flags to add and to remove (read, starred).
    public var add: MessageFlags
    public var remove: MessageFlags
    /// `move`: the destination.
    public var targetFolderId: Int64?
    public var targetPath: String?
    /// `labels`: Gmail's labels to add and to remove (`\Inbox`, `\Sent`… or a user label's name).
    public var addLabels: [String] = []
    public var removeLabels: [String] = []
    public var attempts: Int
    /// The message's Message-ID (nil when it has none of its own).
    public var messageId: String?
    /// A replay took it before and did not record its end (its process died): it may have been
    /// done on the server.
    public var started = false
    /// Set by a replay that found the message by its Message-ID (the folder's UIDVALIDITY changed,
    /// or its UID there was never known): `uid` is its UID now, not the one this client stored.
    public var relocated = false

    public init(id: Int64, accountId: Int64, kind: Kind, emailId: Int64? = nil, folderId: Int64, mailbox: [UInt8], uidValidity: UInt32? = nil, uid: UInt32, add: MessageFlags, remove: MessageFlags, targetFolderId: Int64? = nil, targetPath: String? = nil, addLabels: [String] = [], removeLabels: [String] = [], attempts: Int, messageId: String? = nil, started: Bool = false, relocated: Bool = false) {
        self.id = id
        self.accountId = accountId
        self.kind = kind
        self.emailId = emailId
        self.folderId = folderId
        self.mailbox = mailbox
        self.uidValidity = uidValidity
        self.uid = uid
        self.add = add
        self.remove = remove
        self.targetFolderId = targetFolderId
        self.targetPath = targetPath
        self.addLabels = addLabels
        self.removeLabels = removeLabels
        self.attempts = attempts
        self.messageId = messageId
        self.started = started
        self.relocated = relocated
    }
}

/// The outbox of one account, for the status.
public struct OutboxCounts: Sendable, Hashable, Codable {
    public var account: String
    public var pending: Int
    public var failed: Int
    public var conflicts: Int
    public var done: Int
    /// Operations a newer action on the same message made moot before they ran (star, then unstar).
    public var superseded: Int = 0
    public var oldestPending: Date?
    public var lastError: String?

    public init(account: String, pending: Int, failed: Int, conflicts: Int, done: Int, superseded: Int = 0, oldestPending: Date? = nil, lastError: String? = nil) {
        self.account = account
        self.pending = pending
        self.failed = failed
        self.conflicts = conflicts
        self.done = done
        self.superseded = superseded
        self.oldestPending = oldestPending
        self.lastError = lastError
    }
}

/// How a replayed operation ended.
public enum OutboxResult: Sendable {
    /// Flags stored: the server's flags for the UID are now `flags` (at `modSeq`, with CONDSTORE).
    case stored(flags: MessageFlags, modSeq: UInt64?)
    /// The server's flags changed since (CONDSTORE MODIFIED): they win; these are they (at `modSeq`).
    case conflict(serverFlags: MessageFlags?, modSeq: UInt64?)
    /// Moved (or already gone from the source): the new UID in the target when the server said it.
    case moved(targetUIDValidity: UInt32?, targetUID: UInt32?)
    /// Gone from the source and not in the target: another client moved or expunged it first.
    /// The server wins: the email leaves the target locally, and the next sync finds it where it
    /// is (`orphaned` says when it is nowhere this client knows of).
    case movedAway
    /// Expunged (or already gone).
    case expunged
    /// Gmail's labels stored.
    case labelled
    /// Nothing left to do on the server (the message is already where the action put it).
    case nothingToDo
    /// The server refused it; tried again up to `maxAttempts` times, then failed for good.
    case refused(String, maxAttempts: Int)
    /// It cannot be done (the folder's UIDVALIDITY changed): dropped, the next sync tells.
    case dropped(String)
}

extension OutboxOperation {
    /// A Message-ID an IMAP `SEARCH HEADER` can hold (printable ASCII, no quote), else nil.
    public static func searchable(messageId id: String?) -> String? {
        guard let id, !id.isEmpty, id.utf8.allSatisfy({ $0 > 32 && $0 < 127 && $0 != UInt8(ascii: "\"") }) else { return nil }
        return id
    }
}
