import Foundation
import GRDB
import MailModel

extension MailStore {
    static func createDrafts(_ db: Database) throws {
        // Drafts and the send queue are one table: a row is a draft until sent (state), so that an
        // undo gives back the same draft, and a message is sent with the Message-ID it was queued with.
        try db.execute(sql: """
            CREATE TABLE drafts (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                accountId INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                state TEXT NOT NULL DEFAULT 'draft',
                kind TEXT NOT NULL DEFAULT 'new',
                parentEmailId INTEGER,
                fromAddress TEXT NOT NULL,
                toList TEXT NOT NULL DEFAULT '[]',
                ccList TEXT NOT NULL DEFAULT '[]',
                bccList TEXT NOT NULL DEFAULT '[]',
                subject TEXT NOT NULL DEFAULT '',
                body TEXT NOT NULL DEFAULT '',
                messageId TEXT NOT NULL,
                inReplyTo TEXT,
                refs TEXT NOT NULL DEFAULT '[]',
                createdAt REAL NOT NULL,
                updatedAt REAL NOT NULL,
                version INTEGER NOT NULL DEFAULT 1,
                sendAfter REAL,
                attempts INTEGER NOT NULL DEFAULT 0,
                lastError TEXT,
                sentAt REAL,
                sendReply TEXT,
                refused TEXT NOT NULL DEFAULT '[]',
                sentCopy TEXT,
                draftMailbox BLOB,
                draftUidValidity INTEGER,
                draftUid INTEGER,
                draftCopyVersion INTEGER
            );
            CREATE INDEX drafts_state ON drafts(state, sendAfter);
            CREATE TABLE draft_attachments (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                draftId INTEGER NOT NULL REFERENCES drafts(id) ON DELETE CASCADE,
                filename TEXT NOT NULL,
                mimeType TEXT NOT NULL,
                size INTEGER NOT NULL,
                content BLOB NOT NULL,
                fromEmailId INTEGER
            );
            CREATE INDEX draft_attachments_draft ON draft_attachments(draftId);
            """)
    }

    // MARK: Reading

    public func draft(id: Int64) throws -> Draft? {
        try database.read { db in try Self.draft(id: id, db: db) }
    }

    /// Drafts (state `draft`) or the send queue and its history (every other state), newest first.
    public func drafts(states: Set<DraftState>, limit: Int = 200) throws -> [Draft] {
        try database.read { db in
            let names = states.map(\.rawValue).sorted()
            let rows = try Row.fetchAll(db, sql: """
                SELECT * FROM drafts WHERE state IN (\(names.map { _ in "?" }.joined(separator: ","))) ORDER BY updatedAt DESC, id DESC LIMIT ?
                """, arguments: StatementArguments(names.map { $0 as any DatabaseValueConvertible } + [limit]))
            return try rows.map { try Self.draft(row: $0, db: db) }
        }
    }

    static func draft(id: Int64, db: Database) throws -> Draft? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM drafts WHERE id = ?", arguments: [id]) else { return nil }
        return try draft(row: row, db: db)
    }

    private static func draft(row: Row, db: Database) throws -> Draft {
        func list(_ column: String) -> [String] {
            let text: String = row[column] ?? "[]"
            return (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
        }
        let id: Int64 = row["id"]
        let attachments = try Row.fetchAll(db, sql: """
            SELECT id, filename, mimeType, size, fromEmailId FROM draft_attachments WHERE draftId = ? ORDER BY id
            """, arguments: [id]).map {
            DraftAttachmentInfo(id: $0["id"], filename: $0["filename"], mimeType: $0["mimeType"], size: $0["size"], fromEmailId: $0["fromEmailId"])
        }
        return Draft(
            id: id, accountId: row["accountId"], state: DraftState(rawValue: row["state"]) ?? .failed, kind: row["kind"],
            parentEmailId: row["parentEmailId"], from: row["fromAddress"], to: list("toList"), cc: list("ccList"),
            bcc: list("bccList"), subject: row["subject"], body: row["body"], messageId: row["messageId"],
            inReplyTo: row["inReplyTo"], references: list("refs"),
            createdAt: Date(timeIntervalSince1970: row["createdAt"]), updatedAt: Date(timeIntervalSince1970: row["updatedAt"]),
            version: row["version"], sendAfter: (row["sendAfter"] as Double?).map(Date.init(timeIntervalSince1970:)),
            attempts: row["attempts"], lastError: row["lastError"],
            sentAt: (row["sentAt"] as Double?).map(Date.init(timeIntervalSince1970:)), sendReply: row["sendReply"],
            refused: list("refused"), sentCopy: row["sentCopy"],
            draftMailbox: (row["draftMailbox"] as Data?).map { [UInt8]($0) },
            draftUidValidity: (row["draftUidValidity"] as Int64?).map { UInt32(truncatingIfNeeded: $0) },
            draftUid: (row["draftUid"] as Int64?).map { UInt32(truncatingIfNeeded: $0) },
            draftCopyVersion: row["draftCopyVersion"], attachments: attachments)
    }

    private static func json(_ list: [String]) -> String {
        String(decoding: (try? JSONEncoder().encode(list)) ?? Data("[]".utf8), as: UTF8.self)
    }

    // MARK: Writing drafts

    /// A new draft; returns its id.
    public func createDraft(accountId: Int64, kind: String, parentEmailId: Int64?, content: DraftContent, messageId: String,
                            inReplyTo: String?, references: [String], now: Date = Date()) throws -> Int64 {
        try database.write { db in
            try db.execute(sql: """
                INSERT INTO drafts (accountId, kind, parentEmailId, fromAddress, toList, ccList, bccList, subject, body,
                    messageId, inReplyTo, refs, createdAt, updatedAt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [accountId, kind, parentEmailId, content.from, Self.json(content.to), Self.json(content.cc),
                                 Self.json(content.bcc), content.subject, content.body, messageId, inReplyTo,
                                 Self.json(references), now.timeIntervalSince1970, now.timeIntervalSince1970])
            return db.lastInsertedRowID
        }
    }

    /// Replaces a draft's content (and its account). Only a draft (state `draft`) can change:
    /// anything else throws `conflict`.
    public func updateDraft(id: Int64, accountId: Int64, content: DraftContent, now: Date = Date()) throws {
        try database.write { db in
            try Self.requireDraftState(id: id, db: db)
            try db.execute(sql: """
                UPDATE drafts SET accountId = ?, fromAddress = ?, toList = ?, ccList = ?, bccList = ?, subject = ?, body = ?,
                    updatedAt = ?, version = version + 1 WHERE id = ?
                """, arguments: [accountId, content.from, Self.json(content.to), Self.json(content.cc), Self.json(content.bcc),
                                 content.subject, content.body, now.timeIntervalSince1970, id])
        }
    }

    private static func requireDraftState(id: Int64, db: Database) throws {
        guard let state = try String.fetchOne(db, sql: "SELECT state FROM drafts WHERE id = ?", arguments: [id]) else {
            throw MailStoreError.notFound("no draft with id \(id)")
        }
        guard state == DraftState.draft.rawValue else {
            throw MailStoreError.conflict("draft \(id) is \(state == "sent" ? "sent" : "in the send queue (\(state))") and can no longer change")
        }
    }

    /// Adds an attachment to a draft; returns its id. Refused past `maximumTotal` bytes of attachments.
    public func addDraftAttachment(draftId: Int64, filename: String, mimeType: String, content: [UInt8], fromEmailId: Int64? = nil,
                                   maximumTotal: Int, now: Date = Date()) throws -> Int64 {
        try database.write { db in
            try Self.requireDraftState(id: draftId, db: db)
            let total = try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(size), 0) FROM draft_attachments WHERE draftId = ?",
                                         arguments: [draftId]) ?? 0
            guard total + content.count <= maximumTotal else {
                throw MailStoreError.tooLarge("the attachments would be \(total + content.count) bytes; a message may carry at most \(maximumTotal)")
            }
            try db.execute(sql: """
                INSERT INTO draft_attachments (draftId, filename, mimeType, size, content, fromEmailId) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [draftId, filename, mimeType, content.count, Data(content), fromEmailId])
            let id = db.lastInsertedRowID
            try db.execute(sql: "UPDATE drafts SET updatedAt = ?, version = version + 1 WHERE id = ?", arguments: [now.timeIntervalSince1970, draftId])
            return id
        }
    }

    public func removeDraftAttachment(draftId: Int64, attachmentId: Int64, now: Date = Date()) throws {
        try database.write { db in
            try Self.requireDraftState(id: draftId, db: db)
            try db.execute(sql: "DELETE FROM draft_attachments WHERE id = ? AND draftId = ?", arguments: [attachmentId, draftId])
            guard db.changesCount > 0 else { throw MailStoreError.notFound("draft \(draftId) has no attachment \(attachmentId)") }
            try db.execute(sql: "UPDATE drafts SET updatedAt = ?, version = version + 1 WHERE id = ?", arguments: [now.timeIntervalSince1970, draftId])
        }
    }

    /// Every attachment of a draft with its bytes, in the order added.
    public func draftAttachmentContents(draftId: Int64) throws -> [(info: DraftAttachmentInfo, content: [UInt8])] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM draft_attachments WHERE draftId = ? ORDER BY id", arguments: [draftId]).map {
                (DraftAttachmentInfo(id: $0["id"], filename: $0["filename"], mimeType: $0["mimeType"], size: $0["size"],
                                     fromEmailId: $0["fromEmailId"]),
                 [UInt8](($0["content"] as Data?) ?? Data()))
            }
        }
    }

    /// Deletes a draft, or a sent or failed message's record (not one in the send queue). A draft
    /// with a copy in the Drafts folder stays as `deleted` until the sender removed that copy.
    @discardableResult
    public func deleteDraft(id: Int64) throws -> Draft {
        try database.write { db in
            guard let draft = try Self.draft(id: id, db: db) else { throw MailStoreError.notFound("no draft with id \(id)") }
            guard [.draft, .sent, .failed].contains(draft.state) else {
                throw MailStoreError.conflict("draft \(id) is in the send queue (\(draft.state.rawValue)): undo the send first")
            }
            if draft.draftUid != nil {
                // The server copy must go too: the row stays, marked, until the sender removed it.
                try db.execute(sql: "UPDATE drafts SET state = 'deleted' WHERE id = ?", arguments: [id])
                try db.execute(sql: "DELETE FROM draft_attachments WHERE draftId = ?", arguments: [id])
            } else {
                try db.execute(sql: "DELETE FROM drafts WHERE id = ?", arguments: [id])
            }
            return draft
        }
    }

    // MARK: The send queue

    /// Queues a draft: state `queued`, not sent before `sendAfter` (the undo window's end).
    public func queueDraft(id: Int64, sendAfter: Date, now: Date = Date()) throws {
        try database.write { db in
            try Self.requireDraftState(id: id, db: db)
            try db.execute(sql: """
                UPDATE drafts SET state = 'queued', sendAfter = ?, attempts = 0, lastError = NULL, updatedAt = ? WHERE id = ?
                """, arguments: [sendAfter.timeIntervalSince1970, now.timeIntervalSince1970, id])
        }
    }

    /// Undo: a message not yet handed to the sender (`queued`, or `waiting` for another attempt)
    /// becomes a draft again. Throws `conflict` once sending began or ended.
    public func unqueueDraft(id: Int64, now: Date = Date()) throws {
        try database.write { db in
            guard let state = try String.fetchOne(db, sql: "SELECT state FROM drafts WHERE id = ? AND state != 'deleted'", arguments: [id]) else {
                throw MailStoreError.notFound("nothing queued with id \(id)")
            }
            guard state == DraftState.queued.rawValue || state == DraftState.waiting.rawValue else {
                throw MailStoreError.conflict(state == "draft" ? "message \(id) is not queued (it is a draft)"
                                              : "too late to undo: message \(id) is \(state == "sent" ? "sent" : state)")
            }
            try db.execute(sql: "UPDATE drafts SET state = 'draft', sendAfter = NULL, updatedAt = ?, version = version + 1 WHERE id = ?",
                           arguments: [now.timeIntervalSince1970, id])
        }
    }

    /// After a restart: messages cut off in the undo window go back to the drafts (spec 001
    /// §5.5.2: not sent automatically), while one queued with no undo window (0: disabled) is
    /// sent, as it would have been a moment later; a send cut off before its data's final dot is tried again
    /// (the server discards an unfinished transaction); one cut off after it is never sent again
    /// (the server may have accepted it) and is marked failed, saying so. Returns the ids per outcome.
    public func recoverSendQueue(now: Date = Date()) throws -> (drafted: [Int64], retried: [Int64], uncertain: [Int64]) {
        try database.write { db in
            let inWindow = "state = 'queued' AND sendAfter > updatedAt"
            let drafted = try Int64.fetchAll(db, sql: "SELECT id FROM drafts WHERE \(inWindow)")
            try db.execute(sql: """
                UPDATE drafts SET state = 'draft', sendAfter = NULL, version = version + 1,
                    lastError = 'not sent: the program stopped during the undo window; send it again' WHERE \(inWindow)
                """)
            let retried = try Int64.fetchAll(db, sql: "SELECT id FROM drafts WHERE state = 'sending'")
            try db.execute(sql: "UPDATE drafts SET state = 'waiting', sendAfter = ? WHERE state = 'sending'", arguments: [now.timeIntervalSince1970])
            let uncertain = try Int64.fetchAll(db, sql: "SELECT id FROM drafts WHERE state = 'handedOver'")
            try db.execute(sql: """
                UPDATE drafts SET state = 'failed', lastError = 'the program stopped after the message was handed to the server, before its answer: it may have been sent, so it is not sent again; check the recipient or the Sent folder, and send it again from a copy if it did not arrive'
                WHERE state = 'handedOver'
                """)
            return (drafted, retried, uncertain)
        }
    }

    /// Claims the next message due (queued past its undo window, or waiting past its retry time):
    /// `sending`, in one transaction, so that an undo and the sender never both win.
    /// `retryNow`: a message waiting for another attempt is due whatever its retry time (the user
    /// asked to send now), except those in `tried`; one in its undo window still waits.
    /// `retryAccounts`: the same for the messages of these accounts only (their server just took one).
    public func claimDueMessage(now: Date = Date(), retryNow: Bool = false, retryAccounts: Set<Int64> = [],
                                tried: Set<Int64> = []) throws -> Draft? {
        try database.write { db in
            let skip = tried.isEmpty ? "" : "AND id NOT IN (\(tried.sorted().map(String.init).joined(separator: ",")))"
            let accounts = retryAccounts.isEmpty ? "" : "OR (state = 'waiting' AND accountId IN (\(retryAccounts.sorted().map(String.init).joined(separator: ","))))"
            guard let id = try Int64.fetchOne(db, sql: """
                SELECT id FROM drafts WHERE state IN ('queued', 'waiting') AND (sendAfter <= ? OR (? AND state = 'waiting') \(accounts)) \(skip)
                ORDER BY sendAfter, id LIMIT 1
                """, arguments: [now.timeIntervalSince1970, retryNow]) else { return nil }
            try db.execute(sql: "UPDATE drafts SET state = 'sending', attempts = attempts + 1 WHERE id = ?", arguments: [id])
            return try Self.draft(id: id, db: db)
        }
    }

    /// Claims one queued or waiting message whatever its time (sending now, from the CLI).
    public func claimMessage(id: Int64) throws -> Draft? {
        try database.write { db in
            try db.execute(sql: "UPDATE drafts SET state = 'sending', attempts = attempts + 1 WHERE id = ? AND state IN ('queued', 'waiting')",
                           arguments: [id])
            return db.changesCount > 0 ? try Self.draft(id: id, db: db) : nil
        }
    }

    /// The earliest time a queued or waiting message is due, for the sender's sleep.
    public func nextDueTime() throws -> Date? {
        try database.read { db in
            try Double.fetchOne(db, sql: "SELECT MIN(sendAfter) FROM drafts WHERE state IN ('queued', 'waiting')")
                .map(Date.init(timeIntervalSince1970:))
        }
    }

    /// The data's final dot is about to be written: from now on a crash leaves the message
    /// `handedOver`, which is never sent again.
    public func markHandedOver(id: Int64) throws {
        try database.write { db in
            try db.execute(sql: "UPDATE drafts SET state = 'handedOver' WHERE id = ? AND state = 'sending'", arguments: [id])
        }
    }

    /// The server accepted the message (250 after DATA): `sent`, committed at once.
    public func markSent(id: Int64, reply: String, refused: [String], sentCopy: String, now: Date = Date()) throws {
        try database.write { db in
            try db.execute(sql: """
                UPDATE drafts SET state = 'sent', sentAt = ?, sendReply = ?, refused = ?, sentCopy = ?, lastError = NULL, updatedAt = ?
                WHERE id = ?
                """, arguments: [now.timeIntervalSince1970, reply, Self.json(refused), sentCopy, now.timeIntervalSince1970, id])
        }
    }

    /// Not sent: `retryAt` (a temporary failure: offline, a 4xx) puts it back in the queue, nil
    /// marks it failed (a permanent refusal: the user must change something).
    public func markNotSent(id: Int64, error: String, retryAt: Date?, now: Date = Date()) throws {
        try database.write { db in
            try db.execute(sql: """
                UPDATE drafts SET state = ?, sendAfter = ?, lastError = ?, updatedAt = ? WHERE id = ? AND state IN ('sending', 'handedOver')
                """, arguments: [retryAt == nil ? "failed" : "waiting", retryAt?.timeIntervalSince1970, error, now.timeIntervalSince1970, id])
        }
    }

    /// Back to the drafts, with the reason (a failed message the user wants to edit).
    public func reopenDraft(id: Int64, now: Date = Date()) throws {
        try database.write { db in
            try db.execute(sql: "UPDATE drafts SET state = 'draft', sendAfter = NULL, updatedAt = ?, version = version + 1 WHERE id = ? AND state = 'failed'",
                           arguments: [now.timeIntervalSince1970, id])
            guard db.changesCount > 0 else { throw MailStoreError.conflict("message \(id) has not failed: only a failed message goes back to the drafts") }
        }
    }

    public func setSentCopy(id: Int64, _ value: String, error: String? = nil) throws {
        try database.write { db in
            try db.execute(sql: "UPDATE drafts SET sentCopy = ?, lastError = COALESCE(?, lastError) WHERE id = ?", arguments: [value, error, id])
        }
    }

    /// Sent messages whose copy in Sent is still to be made.
    public func pendingSentCopies() throws -> [Draft] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM drafts WHERE state = 'sent' AND sentCopy = 'pending' ORDER BY id")
                .map { try Self.draft(row: $0, db: db) }
        }
    }

    // MARK: The Drafts folder's copies

    /// Drafts whose server copy is missing or older than the draft, and copies to remove (the draft
    /// was sent or deleted): the sender's work for the Drafts folder.
    public func draftCopiesToSync() throws -> (upload: [Draft], remove: [Draft]) {
        try database.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT * FROM drafts WHERE (state = 'draft' AND (draftCopyVersion IS NULL OR draftCopyVersion != version))
                    OR (state IN ('sent', 'deleted') AND draftUid IS NOT NULL) ORDER BY id
                """)
            let all = try rows.map { try Self.draft(row: $0, db: db) }
            return (all.filter { $0.state == .draft }, all.filter { $0.state != .draft })
        }
    }

    /// The copy of `version` is at (mailbox, UIDVALIDITY, UID) now (nil UID: the server did not
    /// say, the next upload replaces it by Message-ID).
    /// Returns false when the draft is gone (deleted while its copy was on its way): the caller
    /// removes the copy it just made.
    @discardableResult
    public func recordDraftCopy(id: Int64, version: Int, mailbox: [UInt8], uidValidity: UInt32?, uid: UInt32?) throws -> Bool {
        try database.write { db in
            try db.execute(sql: """
                UPDATE drafts SET draftMailbox = ?, draftUidValidity = ?, draftUid = ?, draftCopyVersion = ? WHERE id = ?
                """, arguments: [Data(mailbox), uidValidity.map { Int64($0) }, uid.map { Int64($0) }, version, id])
            return db.changesCount > 0
        }
    }

    /// The server copy is gone: forgets it (and a deleted draft's row with it).
    public func forgetDraftCopy(id: Int64) throws {
        try database.write { db in
            try db.execute(sql: "DELETE FROM drafts WHERE id = ? AND state = 'deleted'", arguments: [id])
            try db.execute(sql: "UPDATE drafts SET draftMailbox = NULL, draftUidValidity = NULL, draftUid = NULL WHERE id = ?", arguments: [id])
        }
    }

    /// The send queue in numbers, for the status.
    public func sendQueueCounts() throws -> (queued: Int, waiting: Int, failed: Int, sent: Int, drafts: Int, lastError: String?) {
        try database.read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT SUM(state IN ('queued', 'sending', 'handedOver')) AS queued, SUM(state = 'waiting') AS waiting,
                    SUM(state = 'failed') AS failed, SUM(state = 'sent') AS sent, SUM(state = 'draft') AS drafts,
                    (SELECT lastError FROM drafts WHERE state IN ('waiting', 'failed') ORDER BY updatedAt DESC LIMIT 1) AS lastError
                FROM drafts
                """)
            return (row?["queued"] ?? 0, row?["waiting"] ?? 0, row?["failed"] ?? 0, row?["sent"] ?? 0, row?["drafts"] ?? 0, row?["lastError"])
        }
    }
}
