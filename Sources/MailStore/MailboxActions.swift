import Foundation
import GRDB
import MailModel

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
                // Where the server has it; when no UID of it is known (moved by this client into a
                // folder whose UIDs were not learnt), the folder the last move took it to, UID 0:
                // the replay finds it there by its Message-ID.
                var copies = try Self.serverCopies(emailId: emailId, db: db)
                if copies.isEmpty, let moved = try Self.lastMoveTarget(emailId: emailId, before: nil, db: db) { copies = [moved] }
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
                    // The outbox holds intent (see "Last action wins" above): a change of this flag
                    // still waiting is superseded, and the server copies are compared with what the
                    // server last had. A change already on its way may have reached the server: then
                    // this choice is written whatever the copy's flags were.
                    let inFlight = try Self.supersedeWaiting(db, emailId: emailId, kinds: [.store], bit: bit)
                    // A copy found by its Message-ID only (UID 0) has no flags seen: the change is
                    // written when it changed the email here.
                    let before = bit == 1 ? (row["isRead"] as Bool) : (row["isStarred"] as Bool)
                    for copy in copies where inFlight || (copy.uid == 0 ? before != on : (copy.flags & bit != 0) != on) {
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
                        // Deleting from the Trash deletes for good. What still waits for the email is
                        // moot (a move not taken yet must not take it anywhere now).
                        _ = try Self.supersedeWaiting(db, emailId: emailId, kinds: [.move, .store, .labels], bit: nil)
                        for copy in copies {
                            try Self.enqueue(db, kind: .expunge, accountId: accountId, emailId: emailId, copy: copy, now: now)
                            outcome.queued += 1
                        }
                        // A move of it on its way (its process died after the command, say) may have
                        // taken it to the Trash already: it is looked for there by its Message-ID.
                        for target in try Row.fetchAll(db, sql: """
                            SELECT DISTINCT o.targetFolderId, i.mailbox FROM outbox o JOIN imap_folders i ON i.folderId = o.targetFolderId
                            WHERE o.emailId = ? AND o.kind = 'move' AND o.state = 'running'
                            """, arguments: [emailId]) {
                            let copy = ServerCopy(folderId: target["targetFolderId"], mailbox: [UInt8]((target["mailbox"] as Data?) ?? Data()),
                                                  uidValidity: nil, uid: 0, flags: 0, gmailMessageId: nil, folderType: "")
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
                    // Intent: the server copies follow the email's folders as they are now. A move
                    // still waiting is superseded (archive, then back to the Inbox before it ran:
                    // nothing to do), so each copy is where the server last had it; a copy in a
                    // folder the email is no longer in goes to the target. A move already on its
                    // way may have taken the copy elsewhere: then every copy is sent to the target
                    // (the replay finds where it went; already there is nothing to do).
                    let inFlight = try Self.supersedeWaiting(db, emailId: emailId, kinds: [.move], bit: nil)
                    let linkedNow = Set(linked.map(\.id)).subtracting(sources.map(\.id)).union([target.id])
                    for copy in copies where inFlight || !linkedNow.contains(copy.folderId) {
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

    /// The synced folder the email's last move (done, before operation `before`) took it to, as a
    /// copy of UID 0 (to be found there by its Message-ID); nil for an email gone here.
    static func lastMoveTarget(emailId: Int64, before: Int64?, db: Database) throws -> ServerCopy? {
        guard try Bool.fetchOne(db, sql: "SELECT 1 FROM emails WHERE id = ?", arguments: [emailId]) != nil,
              let row = try Row.fetchOne(db, sql: """
                SELECT o.targetFolderId, i.mailbox, f.folderType FROM outbox o JOIN imap_folders i ON i.folderId = o.targetFolderId
                JOIN folders f ON f.id = o.targetFolderId
                WHERE o.emailId = ? AND o.kind = 'move' AND o.state = 'done' AND o.id < ? ORDER BY o.id DESC LIMIT 1
                """, arguments: [emailId, before ?? Int64.max]) else { return nil }
        return ServerCopy(folderId: row["targetFolderId"], mailbox: [UInt8]((row["mailbox"] as Data?) ?? Data()), uidValidity: nil,
                          uid: 0, flags: 0, gmailMessageId: nil, folderType: row["folderType"])
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
        // The message's Message-ID goes with the operation: it finds the message where its UID is
        // not known, after the email itself is gone here too (a delete for good).
        try db.execute(sql: """
            INSERT INTO outbox (accountId, kind, emailId, folderId, mailbox, uidValidity, uid, addFlags, removeFlags,
                targetFolderId, targetPath, addLabels, removeLabels, createdAt, messageId)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT messageId FROM emails WHERE id = ? AND messageIdIsSynthetic = 0))
            """, arguments: [accountId, kind.rawValue, emailId, copy.folderId, Data(copy.mailbox), copy.uidValidity, copy.uid,
                             add, remove, target?.id, target?.path, labels.map { $0.add.joined(separator: "\n") },
                             labels.map { $0.remove.joined(separator: "\n") }, now.timeIntervalSince1970, emailId])
    }

    /// Marks the email's operations of these kinds that wait and have not started (for `store`,
    /// those changing `bit`) as superseded by a newer action, and says whether one has started
    /// (`running`: its command may have reached the server).
    private static func supersedeWaiting(_ db: Database, emailId: Int64, kinds: [OutboxOperation.Kind], bit: Int?) throws -> Bool {
        let kindList = kinds.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        let bits = bit.map { "AND ((addFlags | removeFlags) & \($0)) != 0" } ?? ""
        try db.execute(sql: """
            UPDATE outbox SET state = 'superseded', doneAt = createdAt
            WHERE emailId = ? AND state = 'pending' AND kind IN (\(kindList)) \(bits)
            """, arguments: [emailId])
        return try Bool.fetchOne(db, sql: """
            SELECT 1 FROM outbox WHERE emailId = ? AND state = 'running' AND kind IN (\(kindList)) \(bits) LIMIT 1
            """, arguments: [emailId]) ?? false
    }

    private static func labelList(_ text: String?) -> [String] {
        (text ?? "").split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    // MARK: The outbox

    /// The account's operations still to do, in the order they were queued: those waiting, and
    /// those a replay started and did not finish (its process died): they are done again.
    public func pendingOutbox(accountId: Int64) throws -> [OutboxOperation] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM outbox WHERE accountId = ? AND state IN ('pending', 'running') ORDER BY id",
                             arguments: [accountId]).map { row in
                OutboxOperation(
                    id: row["id"], accountId: row["accountId"], kind: OutboxOperation.Kind(rawValue: row["kind"]) ?? .store,
                    emailId: row["emailId"], folderId: row["folderId"], mailbox: [UInt8]((row["mailbox"] as Data?) ?? Data()),
                    uidValidity: (row["uidValidity"] as Int64?).map { UInt32(truncatingIfNeeded: $0) },
                    uid: UInt32(truncatingIfNeeded: row["uid"] as Int64),
                    add: MessageFlags(bits: row["addFlags"]), remove: MessageFlags(bits: row["removeFlags"]),
                    targetFolderId: row["targetFolderId"], targetPath: row["targetPath"],
                    addLabels: Self.labelList(row["addLabels"]), removeLabels: Self.labelList(row["removeLabels"]),
                    attempts: row["attempts"], messageId: row["messageId"], started: (row["state"] as String) == "running")
            }
        }
    }

    /// Whether the account has operations waiting.
    public func hasPendingOutbox(accountId: Int64) throws -> Bool {
        try database.read { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM outbox WHERE accountId = ? AND state IN ('pending', 'running') LIMIT 1",
                              arguments: [accountId]) ?? false
        }
    }

    /// Takes an operation for a replay, just before its command goes to the server: false when a
    /// newer action superseded it meanwhile (then it must not be sent). From here on an action on
    /// the same message counts it as maybe done (`supersedeWaiting`).
    public func claimOutbox(_ op: OutboxOperation) throws -> Bool {
        try database.write { db in
            try db.execute(sql: "UPDATE outbox SET state = 'running' WHERE id = ? AND state IN ('pending', 'running')", arguments: [op.id])
            return db.changesCount > 0
        }
    }


    /// Records an operation's result and marks it done, in one transaction, so that a replay
    /// after a crash never applies it twice. Returns whether local mail changed (a conflict).
    @discardableResult
    public func finishOutbox(_ op: OutboxOperation, _ result: OutboxResult, now: Date = Date()) throws -> Bool {
        try database.write { db in
            // Another runner finished it first, or a newer action superseded it before it started:
            // nothing to record.
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM outbox WHERE id = ? AND state IN ('pending', 'running')",
                                    arguments: [op.id]) != nil else {
                return false
            }
            // The server copy the result is about: by its UID, or, for a message found by its
            // Message-ID in a folder whose UIDs changed, by its email (its row still has the old UID).
            let copy: (column: String, value: Int64?) = op.relocated ? ("emailId", op.emailId) : ("uid", Int64(op.uid))
            var state = "done"
            var error: String?
            var localChanged = false
            switch result {
            case .stored(let flags, let modSeq):
                try db.execute(sql: "UPDATE imap_messages SET flags = ?, modSeq = COALESCE(?, modSeq) WHERE folderId = ? AND \(copy.column) = ?",
                               arguments: [flags.bits, modSeq.map { Int64(bitPattern: $0) }, op.folderId, copy.value])
                // The server now has the user's latest choice for this flag (a change waiting
                // behind it would have superseded it): the email shows the same, whatever a sync
                // between the action and now brought.
                if let emailId = op.emailId {
                    var sets: [String] = []
                    if op.add.isRead || op.remove.isRead { sets.append("isRead = \(op.add.isRead ? 1 : 0)") }
                    if op.add.isStarred || op.remove.isStarred { sets.append("isStarred = \(op.add.isStarred ? 1 : 0)") }
                    if !sets.isEmpty {
                        try db.execute(sql: "UPDATE emails SET \(sets.joined(separator: ", ")) WHERE id = ? AND NOT (\(sets.joined(separator: " AND ")))",
                                       arguments: [emailId])
                        if db.changesCount > 0 {
                            localChanged = true
                            try Self.recomputeThread(ofEmail: emailId, db: db)
                        }
                    }
                }
            case .conflict(let serverFlags, let modSeq):
                state = "conflict"
                // The server changed this flag since the user's action was taken: it wins over every
                // action on it taken before the client saw that change, a newer one waiting too.
                if let emailId = op.emailId {
                    let bits = (op.add.bits | op.remove.bits) & 3
                    try db.execute(sql: """
                        UPDATE outbox SET state = 'conflict', doneAt = ?, lastError = 'overruled: the server changed the flag first'
                        WHERE emailId = ? AND id > ? AND state = 'pending' AND kind = 'store' AND ((addFlags | removeFlags) & ?) != 0
                        """, arguments: [now.timeIntervalSince1970, emailId, op.id, bits])
                }
                if let serverFlags {
                    try db.execute(sql: "UPDATE imap_messages SET flags = ?, modSeq = COALESCE(?, modSeq) WHERE folderId = ? AND \(copy.column) = ?",
                                   arguments: [serverFlags.bits, modSeq.map { Int64(bitPattern: $0) }, op.folderId, copy.value])
                    if let emailId = op.emailId {
                        try db.execute(sql: "UPDATE emails SET isRead = ?, isStarred = ? WHERE id = ? AND (isRead != ? OR isStarred != ?)",
                                       arguments: [serverFlags.isRead, serverFlags.isStarred, emailId, serverFlags.isRead, serverFlags.isStarred])
                        if db.changesCount > 0 {
                            localChanged = true
                            try Self.recomputeThread(ofEmail: emailId, db: db)
                        }
                    }
                }
            case .moved(let validity, let uid):
                let flags = try Int.fetchOne(db, sql: "SELECT flags FROM imap_messages WHERE folderId = ? AND \(copy.column) = ?",
                                             arguments: [op.folderId, copy.value])
                try db.execute(sql: "DELETE FROM imap_messages WHERE folderId = ? AND \(copy.column) = ?", arguments: [op.folderId, copy.value])
                // The copy in the target is known at once (no fetch of it by the next sync) when
                // the target is a synced folder of the same UIDVALIDITY and the email is still here.
                if let validity, let uid, let target = op.targetFolderId, let emailId = op.emailId,
                   try Int64.fetchOne(db, sql: "SELECT uidValidity FROM imap_folders WHERE folderId = ?", arguments: [target]) == Int64(validity),
                   try Bool.fetchOne(db, sql: "SELECT 1 FROM emails WHERE id = ?", arguments: [emailId]) != nil {
                    // MODSEQ 0: moved here by this client, its MODSEQ unknown until the folder's next sync
                    // (`movedHereSinceSync`).
                    try db.execute(sql: "INSERT OR REPLACE INTO imap_messages (folderId, uid, emailId, flags, modSeq) VALUES (?, ?, ?, ?, 0)",
                                   arguments: [target, Int64(uid), emailId, flags ?? 0])
                }
            case .movedAway:
                try db.execute(sql: "DELETE FROM imap_messages WHERE folderId = ? AND \(copy.column) = ?", arguments: [op.folderId, copy.value])
                if let emailId = op.emailId, let target = op.targetFolderId,
                   try Bool.fetchOne(db, sql: "SELECT 1 FROM imap_messages WHERE emailId = ? AND folderId = ?", arguments: [emailId, target]) == nil {
                    try db.execute(sql: "DELETE FROM email_folders WHERE emailId = ? AND folderId = ?", arguments: [emailId, target])
                    if db.changesCount > 0 {
                        localChanged = true
                        try Self.recomputeThread(ofEmail: emailId, db: db)
                    }
                }
            case .expunged:
                try db.execute(sql: "DELETE FROM imap_messages WHERE folderId = ? AND \(copy.column) = ?", arguments: [op.folderId, copy.value])
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

    private static func recomputeThread(ofEmail emailId: Int64, db: Database) throws {
        let threads = try Int64.fetchAll(db, sql: "SELECT threadId FROM emails WHERE id = ? AND threadId IS NOT NULL", arguments: [emailId])
        try ThreadMetadata.recompute(threadIds: Set(threads), db: db)
    }

    /// Whether an email of an IMAP account is in no folder this client knows of on the server and
    /// no operation of it waits: another client moved or expunged it, and the next sync brings it
    /// back from wherever it is, or nothing does.
    public func orphaned(emailId: Int64) throws -> Bool {
        try database.read { db in
            try Bool.fetchOne(db, sql: """
                SELECT 1 FROM emails e WHERE e.id = ?
                AND NOT EXISTS (SELECT 1 FROM imap_messages m WHERE m.emailId = e.id)
                AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.emailId = e.id AND o.state IN ('pending', 'running'))
                """, arguments: [emailId]) ?? false
        }
    }

    /// The largest email id of an account (nil: none).
    public func largestEmailId(accountId: Int64) throws -> Int64? {
        try database.read { db in try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM emails WHERE accountId = ?", arguments: [accountId]) }
    }

    /// Removes the account's links (of emails with ids up to `upTo`) to synced folders that hold no
    /// server copy of the email, for emails with no operation waiting in the outbox. Returns how
    /// many links went.
    public func dropLinksWithoutServerCopy(accountId: Int64, upTo: Int64) throws -> Int {
        try database.write { db in
            let links = try Row.fetchAll(db, sql: """
                SELECT ef.emailId, ef.folderId FROM email_folders ef JOIN emails e ON e.id = ef.emailId
                JOIN imap_folders i ON i.folderId = ef.folderId
                WHERE e.accountId = ? AND e.id <= ?
                AND NOT EXISTS (SELECT 1 FROM imap_messages m WHERE m.emailId = ef.emailId AND m.folderId = ef.folderId)
                AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.emailId = ef.emailId AND o.state IN ('pending', 'running'))
                """, arguments: [accountId, upTo])
            var emails = Set<Int64>()
            for link in links {
                try db.execute(sql: "DELETE FROM email_folders WHERE emailId = ? AND folderId = ?",
                               arguments: [link["emailId"] as Int64, link["folderId"] as Int64])
                emails.insert(link["emailId"])
            }
            let threads = try emails.compactMap { try Int64.fetchOne(db, sql: "SELECT threadId FROM emails WHERE id = ?", arguments: [$0]) }
            try ThreadMetadata.recompute(threadIds: Set(threads), db: db)
            return links.count
        }
    }

    /// The account's emails (of ids up to `upTo`) in no folder this client knows of on the server,
    /// with no operation of theirs waiting in the outbox.
    public func emailsWithoutServerCopy(accountId: Int64, upTo: Int64) throws -> [Int64] {
        try database.read { db in
            try Int64.fetchAll(db, sql: """
                SELECT e.id FROM emails e WHERE e.accountId = ? AND e.id <= ?
                AND NOT EXISTS (SELECT 1 FROM imap_messages m WHERE m.emailId = e.id)
                AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.emailId = e.id AND o.state IN ('pending', 'running'))
                """, arguments: [accountId, upTo])
        }
    }

    /// Forgets finished operations (done, overruled, failed) older than `date`: the outbox keeps a
    /// month of history for the status, not every action ever taken.
    public func pruneOutbox(before date: Date) throws {
        try database.write { db in
            try db.execute(sql: "DELETE FROM outbox WHERE state NOT IN ('pending', 'running') AND doneAt < ?", arguments: [date.timeIntervalSince1970])
        }
    }

    /// Every IMAP account's outbox, for the status.
    public func outboxCounts() throws -> [OutboxCounts] {
        try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT a.name,
                    SUM(o.state IN ('pending', 'running')) AS pending, SUM(o.state = 'failed') AS failed,
                    SUM(o.state = 'conflict') AS conflicts, SUM(o.state = 'done') AS done,
                    SUM(o.state = 'superseded') AS superseded,
                    MIN(CASE WHEN o.state IN ('pending', 'running') THEN o.createdAt END) AS oldest,
                    (SELECT lastError FROM outbox l WHERE l.accountId = a.id AND l.lastError IS NOT NULL ORDER BY l.id DESC LIMIT 1) AS lastError
                FROM outbox o JOIN accounts a ON a.id = o.accountId GROUP BY a.id ORDER BY a.id
                """).map { row in
                OutboxCounts(account: row["name"], pending: row["pending"] ?? 0, failed: row["failed"] ?? 0,
                             conflicts: row["conflicts"] ?? 0, done: row["done"] ?? 0, superseded: row["superseded"] ?? 0,
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

    /// Whether this client moved the message to this folder after the folder's last sync: the
    /// MODSEQ known for it (the folder's) is older than the message there.
    public func movedHereSinceSync(folderId: Int64, uid: UInt32) throws -> Bool {
        try database.read { db in
            try Int64.fetchOne(db, sql: "SELECT modSeq FROM imap_messages WHERE folderId = ? AND uid = ?", arguments: [folderId, Int64(uid)]) == 0
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
    /// was deleted), the email's current server copy — the target's UID that COPYUID gave —; when
    /// the email has none (the target's UIDs were not known: no COPYUID, or the target's
    /// UIDVALIDITY changed), the folder the last move took it to, with UID 0: the replay finds it
    /// there by its Message-ID. Nil when the message is nowhere this client knows of on the server.
    public func retarget(_ op: OutboxOperation) throws -> OutboxOperation? {
        try database.read { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM imap_messages WHERE folderId = ? AND uid = ?",
                                 arguments: [op.folderId, Int64(op.uid)]) != nil { return op }
            guard let emailId = op.emailId else { return nil }
            guard let copy = try Self.serverCopies(emailId: emailId, db: db).first
                ?? Self.lastMoveTarget(emailId: emailId, before: op.id, db: db) else { return nil }
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
