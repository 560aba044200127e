import Foundation
import GRDB
import MailModel

/// What a user does to mail (spec 001, "act on mail"): flags, archive, move, delete.
public enum MailboxAction: Sendable, Hashable {
    case markRead, markUnread, star, unstar
    /// Out of the Inbox, into the account's archive folder.
    case archive
    /// Out of every other folder, into the account's folder of this path (or name).
    case move(to: String)
    /// Into the account's Trash; mail that is only in the Trash is deleted for good.
    case delete

    /// The action's name on the command line and in the API.
    public var name: String {
        switch self {
        case .markRead: "read"
        case .markUnread: "unread"
        case .star: "star"
        case .unstar: "unstar"
        case .archive: "archive"
        case .move: "move"
        case .delete: "delete"
        }
    }
}

/// What an action changed locally, and how many server operations it queued.
public struct MailboxActionOutcome: Sendable, Hashable {
    /// The emails the action was asked for.
    public var emailIds: [Int64] = []
    /// The emails whose flags or folders changed.
    public var changed: [Int64] = []
    /// Emails deleted for good (they were in the Trash only): the caller removes them from the
    /// indexes (`MailSearchService.delete`).
    public var deletedForGood: [Int64] = []
    /// The folders mail went to (archive, move, delete), one per account.
    public var folders: [String] = []
    /// Server operations queued in the outbox.
    public var queued = 0
}

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
}

/// The outbox of one account, for the status.
public struct OutboxCounts: Sendable, Hashable, Codable {
    public var account: String
    public var pending: Int
    public var failed: Int
    public var conflicts: Int
    public var done: Int
    public var oldestPending: Date?
    public var lastError: String?
}

extension MailStore {
    static func createOutbox(_ db: Database) throws {
        // Server operations of mailbox actions, replayed in id order per account; a row is
        // marked done in the transaction that records its result.
        try db.execute(sql: """
            CREATE TABLE outbox (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                accountId INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                kind TEXT NOT NULL,
                emailId INTEGER,
                folderId INTEGER NOT NULL,
                mailbox BLOB NOT NULL,
                uidValidity INTEGER,
                uid INTEGER NOT NULL,
                addFlags INTEGER NOT NULL DEFAULT 0,
                removeFlags INTEGER NOT NULL DEFAULT 0,
                targetFolderId INTEGER,
                targetPath TEXT,
                state TEXT NOT NULL DEFAULT 'pending',
                attempts INTEGER NOT NULL DEFAULT 0,
                lastError TEXT,
                createdAt REAL NOT NULL,
                doneAt REAL
            );
            CREATE INDEX outbox_account_state ON outbox(accountId, state, id);
            ALTER TABLE imap_messages ADD COLUMN modSeq INTEGER;
            """)
    }

    static func addOutboxLabels(_ db: Database) throws {
        // Gmail's label changes (kind 'labels'): the labels to add and to remove, one a line.
        try db.execute(sql: """
            ALTER TABLE outbox ADD COLUMN addLabels TEXT;
            ALTER TABLE outbox ADD COLUMN removeLabels TEXT;
            """)
    }

    // MARK: Local changes

    /// Applies an action to emails in mail.sqlite (flags, folder links, the threads' counts) and,
    /// for mail of IMAP accounts, queues the server operations, all in one transaction.
    /// Emails that are only in the Trash are not deleted here (see `deletedForGood`).
    public func perform(_ action: MailboxAction, emailIds: [Int64], now: Date = Date()) throws -> MailboxActionOutcome {
        try database.write { db in
            var outcome = MailboxActionOutcome(emailIds: emailIds)
            var threads = Set<Int64>()
            var folders = Set<String>()
            let emailRow = try db.cachedStatement(sql: "SELECT accountId, threadId, isRead, isStarred FROM emails WHERE id = ?")
            for emailId in emailIds {
                guard let row = try Row.fetchOne(emailRow, arguments: [emailId]) else {
                    throw MailStoreError.notFound("no email with id \(emailId)")
                }
                let accountId: Int64 = row["accountId"]
                let copies = try Self.serverCopies(emailId: emailId, db: db)
                var changed = false
                switch action {
                case .markRead, .markUnread, .star, .unstar:
                    let read = action == .markRead ? true : action == .markUnread ? false : nil
                    let starred = action == .star ? true : action == .unstar ? false : nil
                    if let read, (row["isRead"] as Bool) != read {
                        try db.execute(sql: "UPDATE emails SET isRead = ? WHERE id = ?", arguments: [read, emailId])
                        changed = true
                    }
                    if let starred, (row["isStarred"] as Bool) != starred {
                        try db.execute(sql: "UPDATE emails SET isStarred = ? WHERE id = ?", arguments: [starred, emailId])
                        changed = true
                    }
                    let bit = read != nil ? 1 : 2
                    let on = read ?? starred!
                    for copy in copies where (copy.flags & bit != 0) != on {
                        try Self.enqueue(db, kind: .store, accountId: accountId, emailId: emailId, copy: copy,
                                         add: on ? bit : 0, remove: on ? 0 : bit, now: now)
                        outcome.queued += 1
                    }
                case .archive, .move, .delete:
                    let linked = try Row.fetchAll(db, sql: """
                        SELECT f.id, f.path, f.folderType FROM email_folders ef JOIN folders f ON f.id = ef.folderId
                        WHERE ef.emailId = ?
                        """, arguments: [emailId]).map { (id: $0["id"] as Int64, path: $0["path"] as String, type: $0["folderType"] as String) }
                    if action == .delete, !linked.isEmpty, linked.allSatisfy({ $0.type == FolderType.trash.rawValue }) {
                        // Deleting from the Trash deletes for good.
                        for copy in copies {
                            try Self.enqueue(db, kind: .expunge, accountId: accountId, emailId: emailId, copy: copy, now: now)
                            outcome.queued += 1
                        }
                        outcome.deletedForGood.append(emailId)
                        outcome.changed.append(emailId)
                        continue
                    }
                    let target = try Self.targetFolder(action, accountId: accountId, db: db)
                    if let allMail = try Self.gmailLabelCarrier(copies, target: target.id, db: db) {
                        // Gmail: the message stays where it is (All Mail); its labels change.
                        let change = try Self.gmailLabelChange(action, target: target, linked: linked, allMailFolder: allMail.folderId, db: db)
                        if action == .archive, change.leave.isEmpty { continue }
                        folders.insert(target.path)
                        for source in change.leave {
                            try db.execute(sql: "DELETE FROM email_folders WHERE emailId = ? AND folderId = ?", arguments: [emailId, source])
                        }
                        try db.execute(sql: "INSERT OR IGNORE INTO email_folders (emailId, folderId) VALUES (?, ?)", arguments: [emailId, target.id])
                        changed = changed || !change.leave.isEmpty || !linked.contains { $0.id == target.id }
                        if !change.add.isEmpty || !change.remove.isEmpty {
                            try Self.enqueue(db, kind: .labels, accountId: accountId, emailId: emailId, copy: allMail,
                                             labels: (change.add, change.remove), now: now)
                            outcome.queued += 1
                        }
                        if changed {
                            outcome.changed.append(emailId)
                            if let thread: Int64 = row["threadId"] { threads.insert(thread) }
                        }
                        continue
                    }
                    let sources = linked.filter { folder in
                        folder.id != target.id && (action != .archive || folder.type == FolderType.inbox.rawValue)
                    }
                    // Archiving mail that is not in the Inbox does nothing.
                    if action == .archive, sources.isEmpty { continue }
                    folders.insert(target.path)
                    for source in sources {
                        try db.execute(sql: "DELETE FROM email_folders WHERE emailId = ? AND folderId = ?", arguments: [emailId, source.id])
                    }
                    try db.execute(sql: "INSERT OR IGNORE INTO email_folders (emailId, folderId) VALUES (?, ?)", arguments: [emailId, target.id])
                    changed = changed || !sources.isEmpty || !linked.contains { $0.id == target.id }
                    // The server copies in the source folders, and those still on their way from a
                    // folder the mail has left locally (a move queued before: this one follows it).
                    let sourceIds = Set(sources.map(\.id))
                    let linkedIds = Set(linked.map(\.id))
                    for copy in copies where sourceIds.contains(copy.folderId) || (!linkedIds.contains(copy.folderId) && copy.folderId != target.id) {
                        try Self.enqueue(db, kind: .move, accountId: accountId, emailId: emailId, copy: copy,
                                         target: (target.id, target.path), now: now)
                        outcome.queued += 1
                    }
                }
                if changed {
                    outcome.changed.append(emailId)
                    if let thread: Int64 = row["threadId"] { threads.insert(thread) }
                }
            }
            try ThreadMetadata.recompute(threadIds: threads, db: db)
            outcome.folders = folders.sorted()
            return outcome
        }
    }

    struct ServerCopy {
        var folderId: Int64
        var mailbox: [UInt8]
        var uidValidity: Int64?
        var uid: Int64
        var flags: Int
        /// Gmail's X-GM-MSGID: the copy is on a Gmail server (X-GM-EXT-1).
        var gmailMessageId: Int64?
        var folderType: String
    }

    /// Where the server holds the email: each synced folder's UID of it.
    static func serverCopies(emailId: Int64, db: Database) throws -> [ServerCopy] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT m.folderId, m.uid, m.flags, m.gmailMessageId, i.mailbox, i.uidValidity, f.folderType FROM imap_messages m
            JOIN imap_folders i ON i.folderId = m.folderId JOIN folders f ON f.id = m.folderId
            WHERE m.emailId = ? ORDER BY m.folderId, m.uid
            """), arguments: [emailId]).map {
            ServerCopy(folderId: $0["folderId"], mailbox: [UInt8](($0["mailbox"] as Data?) ?? Data()),
                       uidValidity: $0["uidValidity"], uid: $0["uid"], flags: $0["flags"],
                       gmailMessageId: $0["gmailMessageId"], folderType: $0["folderType"])
        }
    }

    /// On Gmail, where folders other than All Mail, Spam and Trash are labels: the email's copy
    /// in All Mail, which carries its labels, when the action changes labels only — its target is
    /// All Mail itself or a folder that is a label (INBOX, a user's label), not Spam or Trash,
    /// which are real moves. Nil for every other server.
    static func gmailLabelCarrier(_ copies: [ServerCopy], target: Int64, db: Database) throws -> ServerCopy? {
        guard let allMail = copies.first(where: { $0.gmailMessageId != nil && $0.folderType == FolderType.archive.rawValue }) else {
            return nil
        }
        if target == allMail.folderId { return allMail }
        let targetSynced = try Bool.fetchOne(db, sql: "SELECT 1 FROM imap_folders WHERE folderId = ?", arguments: [target]) ?? false
        return targetSynced ? nil : allMail
    }

    /// A Gmail archive or move as label changes: which local folder links go, and the labels to
    /// add and remove. Archive (or a move to All Mail): out of the Inbox, `\Inbox` removed. A
    /// move to INBOX: `\Inbox` added. A move to another label: that label added, out of the
    /// Inbox (`\Inbox` removed); the email's other labels stay, as in Gmail.
    static func gmailLabelChange(_ action: MailboxAction, target: (id: Int64, path: String),
                                 linked: [(id: Int64, path: String, type: String)], allMailFolder: Int64,
                                 db: Database) throws -> (leave: [Int64], add: [String], remove: [String]) {
        let inboxes = linked.filter { $0.type == FolderType.inbox.rawValue && $0.id != target.id }.map(\.id)
        let removeInbox = inboxes.isEmpty ? [] : ["\\Inbox"]
        if target.id == allMailFolder { return (inboxes, [], removeInbox) }
        let type = try String.fetchOne(db, sql: "SELECT folderType FROM folders WHERE id = ?", arguments: [target.id])
        let label: String = switch FolderType(rawValue: type ?? "") {
        case .inbox?: "\\Inbox"
        case .sent?: "\\Sent"
        case .drafts?: "\\Draft"
        case .starred?: "\\Starred"
        default: target.path
        }
        if label == "\\Inbox" { return ([], linked.contains { $0.id == target.id } ? [] : [label], []) }
        return (inboxes, [label], removeInbox)
    }

    /// The folder an action moves mail to, created locally when the account has none: archive →
    /// the folder with the \Archive role (an "Archive" first, else any, Gmail's All Mail too),
    /// else a new "Archive"; delete → the \Trash folder, else a new "Trash"; move → the account's
    /// folder of that path or name (which must exist).
    static func targetFolder(_ action: MailboxAction, accountId: Int64, db: Database) throws -> (id: Int64, path: String) {
        func role(_ type: FolderType, preferring name: String) throws -> (id: Int64, path: String)? {
            try Row.fetchOne(db, sql: """
                SELECT id, path FROM folders WHERE accountId = ? AND folderType = ?
                ORDER BY EXISTS (SELECT 1 FROM imap_folders i WHERE i.folderId = folders.id) DESC, path = ? DESC, id LIMIT 1
                """, arguments: [accountId, type.rawValue, name]).map { ($0["id"], $0["path"]) }
        }
        func create(_ path: String, _ type: FolderType) throws -> (id: Int64, path: String) {
            try db.execute(sql: "INSERT INTO folders (accountId, name, path, folderType) VALUES (?, ?, ?, ?)",
                           arguments: [accountId, path, path, type.rawValue])
            return (db.lastInsertedRowID, path)
        }
        switch action {
        case .archive:
            return try role(.archive, preferring: "Archive") ?? create("Archive", .archive)
        case .delete:
            return try role(.trash, preferring: "Trash") ?? create("Trash", .trash)
        case .move(let name):
            if let row = try Row.fetchOne(db, sql: """
                SELECT id, path FROM folders WHERE accountId = ? AND (path = ? OR name = ? OR (folderType = 'inbox' AND upper(?) = 'INBOX'))
                ORDER BY path = ? DESC, id LIMIT 1
                """, arguments: [accountId, name, name, name, name]) {
                return (row["id"], row["path"])
            }
            throw MailStoreError.notFound("the account has no folder \"\(name)\"")
        default:
            preconditionFailure("not a folder action")
        }
    }

    private static func enqueue(_ db: Database, kind: OutboxOperation.Kind, accountId: Int64, emailId: Int64, copy: ServerCopy,
                                add: Int = 0, remove: Int = 0, target: (id: Int64, path: String)? = nil,
                                labels: (add: [String], remove: [String])? = nil, now: Date) throws {
        try db.execute(sql: """
            INSERT INTO outbox (accountId, kind, emailId, folderId, mailbox, uidValidity, uid, addFlags, removeFlags,
                targetFolderId, targetPath, addLabels, removeLabels, createdAt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [accountId, kind.rawValue, emailId, copy.folderId, Data(copy.mailbox), copy.uidValidity, copy.uid,
                             add, remove, target?.id, target?.path, labels.map { $0.add.joined(separator: "\n") },
                             labels.map { $0.remove.joined(separator: "\n") }, now.timeIntervalSince1970])
    }

    private static func labelList(_ text: String?) -> [String] {
        (text ?? "").split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    // MARK: The outbox

    /// The account's operations still to do, in the order they were queued.
    public func pendingOutbox(accountId: Int64) throws -> [OutboxOperation] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM outbox WHERE accountId = ? AND state = 'pending' ORDER BY id",
                             arguments: [accountId]).map { row in
                OutboxOperation(
                    id: row["id"], accountId: row["accountId"], kind: OutboxOperation.Kind(rawValue: row["kind"]) ?? .store,
                    emailId: row["emailId"], folderId: row["folderId"], mailbox: [UInt8]((row["mailbox"] as Data?) ?? Data()),
                    uidValidity: (row["uidValidity"] as Int64?).map { UInt32(truncatingIfNeeded: $0) },
                    uid: UInt32(truncatingIfNeeded: row["uid"] as Int64),
                    add: MessageFlags(bits: row["addFlags"]), remove: MessageFlags(bits: row["removeFlags"]),
                    targetFolderId: row["targetFolderId"], targetPath: row["targetPath"],
                    addLabels: Self.labelList(row["addLabels"]), removeLabels: Self.labelList(row["removeLabels"]),
                    attempts: row["attempts"])
            }
        }
    }

    /// Whether the account has operations waiting.
    public func hasPendingOutbox(accountId: Int64) throws -> Bool {
        try database.read { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM outbox WHERE accountId = ? AND state = 'pending' LIMIT 1",
                              arguments: [accountId]) ?? false
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

    /// Records an operation's result and marks it done, in one transaction, so that a replay
    /// after a crash never applies it twice. Returns whether local mail changed (a conflict).
    @discardableResult
    public func finishOutbox(_ op: OutboxOperation, _ result: OutboxResult, now: Date = Date()) throws -> Bool {
        try database.write { db in
            // Another runner finished it first: nothing to record.
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM outbox WHERE id = ? AND state = 'pending'", arguments: [op.id]) != nil else {
                return false
            }
            var state = "done"
            var error: String?
            var localChanged = false
            switch result {
            case .stored(let flags, let modSeq):
                try db.execute(sql: "UPDATE imap_messages SET flags = ?, modSeq = COALESCE(?, modSeq) WHERE folderId = ? AND uid = ?",
                               arguments: [flags.bits, modSeq.map { Int64(bitPattern: $0) }, op.folderId, Int64(op.uid)])
            case .conflict(let serverFlags, let modSeq):
                state = "conflict"
                if let serverFlags {
                    try db.execute(sql: "UPDATE imap_messages SET flags = ?, modSeq = COALESCE(?, modSeq) WHERE folderId = ? AND uid = ?",
                                   arguments: [serverFlags.bits, modSeq.map { Int64(bitPattern: $0) }, op.folderId, Int64(op.uid)])
                    if let emailId = op.emailId {
                        try db.execute(sql: "UPDATE emails SET isRead = ?, isStarred = ? WHERE id = ? AND (isRead != ? OR isStarred != ?)",
                                       arguments: [serverFlags.isRead, serverFlags.isStarred, emailId, serverFlags.isRead, serverFlags.isStarred])
                        if db.changesCount > 0 {
                            localChanged = true
                            let threads = try Int64.fetchAll(db, sql: "SELECT threadId FROM emails WHERE id = ? AND threadId IS NOT NULL",
                                                             arguments: [emailId])
                            try ThreadMetadata.recompute(threadIds: Set(threads), db: db)
                        }
                    }
                }
            case .moved(let validity, let uid):
                let flags = try Int.fetchOne(db, sql: "SELECT flags FROM imap_messages WHERE folderId = ? AND uid = ?",
                                             arguments: [op.folderId, Int64(op.uid)])
                try db.execute(sql: "DELETE FROM imap_messages WHERE folderId = ? AND uid = ?", arguments: [op.folderId, Int64(op.uid)])
                // The copy in the target is known at once (no fetch of it by the next sync) when
                // the target is a synced folder of the same UIDVALIDITY and the email is still here.
                if let validity, let uid, let target = op.targetFolderId, let emailId = op.emailId,
                   try Int64.fetchOne(db, sql: "SELECT uidValidity FROM imap_folders WHERE folderId = ?", arguments: [target]) == Int64(validity),
                   try Bool.fetchOne(db, sql: "SELECT 1 FROM emails WHERE id = ?", arguments: [emailId]) != nil {
                    try db.execute(sql: "INSERT OR REPLACE INTO imap_messages (folderId, uid, emailId, flags) VALUES (?, ?, ?, ?)",
                                   arguments: [target, Int64(uid), emailId, flags ?? 0])
                }
            case .expunged:
                try db.execute(sql: "DELETE FROM imap_messages WHERE folderId = ? AND uid = ?", arguments: [op.folderId, Int64(op.uid)])
            case .nothingToDo, .labelled:
                break
            case .refused(let message, let maxAttempts):
                error = message
                state = op.attempts + 1 >= maxAttempts ? "failed" : "pending"
            case .dropped(let message):
                error = message
                state = "failed"
            }
            try db.execute(sql: """
                UPDATE outbox SET state = ?, attempts = attempts + 1, lastError = ?, doneAt = ? WHERE id = ?
                """, arguments: [state, error, state == "pending" ? nil : now.timeIntervalSince1970, op.id])
            return localChanged
        }
    }

    /// Forgets finished operations (done, overruled, failed) older than `date`: the outbox keeps a
    /// month of history for the status, not every action ever taken.
    public func pruneOutbox(before date: Date) throws {
        try database.write { db in
            try db.execute(sql: "DELETE FROM outbox WHERE state != 'pending' AND doneAt < ?", arguments: [date.timeIntervalSince1970])
        }
    }

    /// Every IMAP account's outbox, for the status.
    public func outboxCounts() throws -> [OutboxCounts] {
        try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT a.name,
                    SUM(o.state = 'pending') AS pending, SUM(o.state = 'failed') AS failed,
                    SUM(o.state = 'conflict') AS conflicts, SUM(o.state = 'done') AS done,
                    MIN(CASE WHEN o.state = 'pending' THEN o.createdAt END) AS oldest,
                    (SELECT lastError FROM outbox l WHERE l.accountId = a.id AND l.lastError IS NOT NULL ORDER BY l.id DESC LIMIT 1) AS lastError
                FROM outbox o JOIN accounts a ON a.id = o.accountId GROUP BY a.id ORDER BY a.id
                """).map { row in
                OutboxCounts(account: row["name"], pending: row["pending"] ?? 0, failed: row["failed"] ?? 0,
                             conflicts: row["conflicts"] ?? 0, done: row["done"] ?? 0,
                             oldestPending: (row["oldest"] as Double?).map(Date.init(timeIntervalSince1970:)),
                             lastError: row["lastError"])
            }
        }
    }

    /// The highest MODSEQ known for a server message: the folder's at its last sync, or the one
    /// the server gave for this client's own last change of it, whichever is higher.
    public func knownModSeq(folderId: Int64, uid: UInt32) throws -> UInt64? {
        try database.read { db in
            let folder = try Int64.fetchOne(db, sql: "SELECT highestModSeq FROM imap_folders WHERE folderId = ?", arguments: [folderId])
            let own = try Int64.fetchOne(db, sql: "SELECT modSeq FROM imap_messages WHERE folderId = ? AND uid = ?",
                                         arguments: [folderId, Int64(uid)])
            let values = [folder, own].compactMap { $0 }.map { UInt64(bitPattern: $0) }
            return values.max()
        }
    }

    /// The flags last seen on the server for a UID.
    public func imapFlags(folderId: Int64, uid: UInt32) throws -> MessageFlags? {
        try database.read { db in
            try Int.fetchOne(db, sql: "SELECT flags FROM imap_messages WHERE folderId = ? AND uid = ?",
                             arguments: [folderId, Int64(uid)]).map(MessageFlags.init(bits:))
        }
    }

    /// Where an operation queued behind a move of the same message must go now: when its
    /// (folder, UID) is no longer known (the earlier move was written and recorded, or the email
    /// was deleted), the email's current server copy — the target's UID that COPYUID gave —, else
    /// nil (the message is nowhere this client knows of on the server).
    public func retarget(_ op: OutboxOperation) throws -> OutboxOperation? {
        try database.read { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM imap_messages WHERE folderId = ? AND uid = ?",
                                 arguments: [op.folderId, Int64(op.uid)]) != nil { return op }
            guard let emailId = op.emailId, let copy = try Self.serverCopies(emailId: emailId, db: db).first else { return nil }
            var moved = op
            moved.folderId = copy.folderId
            moved.mailbox = copy.mailbox
            moved.uidValidity = copy.uidValidity.map { UInt32(truncatingIfNeeded: $0) }
            moved.uid = UInt32(truncatingIfNeeded: copy.uid)
            return moved
        }
    }

    /// The server's name of a synced folder (nil for a folder never synced).
    public func imapMailbox(folderId: Int64) throws -> [UInt8]? {
        try database.read { db in
            try Data.fetchOne(db, sql: "SELECT mailbox FROM imap_folders WHERE folderId = ?", arguments: [folderId]).map { [UInt8]($0) }
        }
    }
}
