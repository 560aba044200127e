import Foundation
import GRDB
import MailModel

/// The user's mail: `mail.sqlite`, opened as a GRDB `DatabasePool` in WAL mode so that
/// reads never wait for an import. Nothing here may lose the user's data: writes are
/// transactional and a database that cannot be opened is reported, never replaced.
public final class MailStore: Sendable {
    public let directory: DataDirectory
    /// The pool (or, for a one-shot command, a single connection). Writes go through `write`,
    /// reads through `read` (GRDB serialises writers).
    public let database: any DatabaseWriter

    /// Opens (creating when missing) the store in `directory`, migrating it to the current schema.
    /// A `readOnly` store never writes mail.sqlite, not even SQLite's bookkeeping: commands that
    /// only read leave the file byte-identical. `singleConnection`: one connection for reads and
    /// writes (a GRDB `DatabaseQueue`) instead of a pool's writer and readers, for a process that
    /// runs one command and leaves: each connection costs an open and a read of the schema.
    public init(directory: DataDirectory, readOnly: Bool = false, singleConnection: Bool = false) throws {
        self.directory = directory
        if readOnly {
            guard FileManager.default.fileExists(atPath: directory.mailDatabaseURL.path) else {
                throw MailStoreError.noMail(path: directory.url.path)
            }
        } else {
            try directory.create()
        }
        var config = Configuration()
        config.readonly = readOnly
        config.foreignKeysEnabled = true
        config.busyMode = .timeout(30)
        config.prepareDatabase { db in
            // WAL + NORMAL: a killed process never loses a committed transaction. A new file gets
            // 16 KB pages (SQLiteFileLayout), set before GRDB puts it in WAL mode.
            if !readOnly {
                try SQLiteFileLayout.prepareNewFile(db)
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
            }
            // The writer: a 64 MB page cache keeps the indexes of a large import in memory (the
            // default 2 MB thrashes), and fewer, larger checkpoints cut write amplification.
            // Readers (a pool keeps up to five): 8 MB each. No memory mapping: a process counts
            // the mapped pages of every connection apart; the kernel's file cache serves them all.
            try db.execute(sql: "PRAGMA cache_size = \(db.configuration.readonly ? -8192 : -65536)")
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            if !readOnly { try SQLiteFileLayout.setCheckpointInterval(db, bytes: MailStore.checkpointBytes) }
        }
        let path = directory.mailDatabaseURL.path
        do {
            // A new file is made by a pool, which puts it in WAL mode for the processes to come.
            if singleConnection && FileManager.default.fileExists(atPath: path) {
                database = try DatabaseQueue(path: path, configuration: config)
            } else {
                database = try DatabasePool(path: path, configuration: config)
            }
            // Migrate only when needed: a read-only command must leave mail.sqlite byte-identical.
            let migrator = MailSchema.migrator()
            if try !database.read(migrator.hasCompletedMigrations) {
                guard !readOnly else {
                    throw MailStoreError.cannotOpen(path: path, reason: "its schema is older than this version; run `mailsearch import` or `mailsearch search` (without --no-history) once to upgrade it")
                }
                try migrator.migrate(database)
            }
            // An import killed before its end leaves the indexes it deferred missing.
            if !readOnly { try buildDeferredIndexesLeftMissing() }
        } catch let error as DatabaseError {
            throw MailStoreError.cannotOpen(path: path, reason: error.message ?? "\(error.resultCode)")
        }
    }

    // MARK: Accounts and folders

    /// The account with this name, created when missing.
    public func account(named name: String, email: String? = nil) throws -> Account {
        try database.write { db in
            if let row = try Row.fetchOne(db, sql: "SELECT * FROM accounts WHERE name = ?", arguments: [name]) {
                return Self.account(from: row)
            }
            try db.execute(
                sql: "INSERT INTO accounts (name, email, createdAt) VALUES (?, ?, ?)",
                arguments: [name, email, Date().timeIntervalSince1970])
            let row = try Row.fetchOne(db, sql: "SELECT * FROM accounts WHERE id = ?", arguments: [db.lastInsertedRowID])!
            return Self.account(from: row)
        }
    }

    public func accounts() throws -> [Account] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM accounts ORDER BY id").map(Self.account(from:))
        }
    }

    public func findAccount(named name: String) throws -> Account? {
        try database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM accounts WHERE name = ?", arguments: [name]).map(Self.account(from:))
        }
    }

    /// Folders with their message and unread counts, optionally of one account.
    public func folders(accountId: Int64? = nil) throws -> [Folder] {
        try database.read { db in
            let sql = """
                SELECT f.*, COUNT(e.id) AS total, COALESCE(SUM(e.isRead = 0), 0) AS unread
                FROM folders f
                LEFT JOIN email_folders ef ON ef.folderId = f.id
                LEFT JOIN emails e ON e.id = ef.emailId
                \(accountId == nil ? "" : "WHERE f.accountId = ?")
                GROUP BY f.id ORDER BY f.accountId, f.path
                """
            let args: StatementArguments = accountId.map { [$0] } ?? []
            return try Row.fetchAll(db, sql: sql, arguments: args).map { row in
                Folder(
                    id: row["id"], accountId: row["accountId"], name: row["name"], path: row["path"],
                    folderType: FolderType(rawValue: row["folderType"]) ?? .custom,
                    totalCount: row["total"], unreadCount: row["unread"],
                    lastSyncDate: (row["lastSyncDate"] as Double?).map(Date.init(timeIntervalSince1970:)))
            }
        }
    }

    // MARK: Ingest

    /// SQLite folds the write-ahead log into mail.sqlite once it holds this much (32 MB; in pages of
    /// the file, `SQLiteFileLayout`).
    public static let checkpointBytes = 32 << 20
    /// The same while an import writes (256 MB): the writer does each checkpoint itself and waits
    /// for its syncs (7.9 s of a 24 s Enron import on a 2-core host), and a page the
    /// import rewrites in every batch (an index's) is copied once a checkpoint, not once every few.
    public static let importCheckpointBytes = 256 << 20

    /// Checkpoints every `bytes` of write-ahead log from now on (this process's writer):
    /// an import raises it and sets it back (`checkpointBytes`) when it ends, however it ends; a
    /// process killed meanwhile leaves nothing behind (each connection sets it when it opens).
    public func setCheckpointInterval(bytes: Int) throws {
        try database.writeWithoutTransaction { try SQLiteFileLayout.setCheckpointInterval($0, bytes: bytes) }
    }

    /// Adds a batch of emails of one account in a single transaction: deduplicates by
    /// (account, Message-ID), links folders, threads the new mail (spec 001 §5.2.4),
    /// records attachments and contacts. Emails already present only gain folder links.
    public func ingest(_ batch: [IncomingEmail], accountId: Int64) throws -> IngestResult {
        try database.write { db in
            var writer = IngestWriter(db: db, accountId: accountId)
            for item in batch { try writer.add(item) }
            try writer.finish()
            return writer.result
        }
    }

    // MARK: Deletion

    /// Deletes one email; its thread's metadata is recomputed (the thread goes when empty).
    public func deleteEmail(id: Int64) throws {
        try database.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT threadId FROM emails WHERE id = ?", arguments: [id]) else { return }
            let threadId: Int64? = row["threadId"]
            try db.execute(sql: "DELETE FROM emails WHERE id = ?", arguments: [id])
            guard let threadId else { return }
            try ThreadMetadata.recompute(threadIds: [threadId], db: db)
        }
    }

    /// Deletes an account and all of its local data (emails, folders, threads, contacts).
    /// Returns the ids of the deleted emails. The WAL, which still holds the account's pages as they
    /// were, is then checkpointed and emptied (best effort: a reader that holds on past the busy
    /// timeout leaves it for SQLite's own checkpoints).
    @discardableResult
    public func deleteAccount(id: Int64) throws -> [Int64] {
        let ids = try database.write { db in
            let ids = try Int64.fetchAll(db, sql: "SELECT id FROM emails WHERE accountId = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM accounts WHERE id = ?", arguments: [id])
            return ids
        }
        _ = try? database.writeWithoutTransaction { try $0.checkpoint(.truncate) }
        return ids
    }

    // MARK: Reads

    /// An attachment by id: its email, its position among that email's attachments (the order
    /// the MIME walk found them in), and its metadata.
    public func attachment(id: Int64) throws -> (emailId: Int64, position: Int, attachment: Attachment)? {
        try database.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM attachments WHERE id = ?", arguments: [id]) else { return nil }
            let emailId: Int64 = row["emailId"]
            let position = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM attachments WHERE emailId = ? AND id < ?",
                                            arguments: [emailId, id]) ?? 0
            return (emailId, position, Attachment(id: id, filename: row["filename"], mimeType: row["mimeType"],
                                                  sizeBytes: row["sizeBytes"], contentId: row["contentId"],
                                                  isInline: row["isInline"]))
        }
    }

    public func email(id: Int64) throws -> StoredEmail? {
        try database.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM emails WHERE id = ?", arguments: [id]) else { return nil }
            return try Self.storedEmail(from: row, db: db)
        }
    }

    /// A thread with its messages, oldest first.
    public func thread(id: Int64) throws -> (thread: MailThread, emails: [StoredEmail])? {
        try database.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM threads WHERE id = ?", arguments: [id]) else { return nil }
            let emails = try Row.fetchAll(
                db, sql: "SELECT * FROM emails WHERE threadId = ? ORDER BY sortDate IS NULL, sortDate, id", arguments: [id]
            ).map { try Self.storedEmail(from: $0, db: db) }
            return (Self.thread(from: row), emails)
        }
    }

    /// The threads with these ids, in the order given (an id with no thread is left out).
    public func threads(ids: [Int64]) throws -> [MailThread] {
        guard !ids.isEmpty else { return [] }
        let rows = try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM threads WHERE id IN (\(ids.map { _ in "?" }.joined(separator: ",")))",
                             arguments: StatementArguments(ids))
        }
        var byId: [Int64: MailThread] = [:]
        for row in rows {
            let thread = Self.thread(from: row)
            byId[thread.id] = thread
        }
        return ids.compactMap { byId[$0] }
    }

    /// Calls `body` for every email in id order with its folder paths; for export.
    public func forEachEmail(_ body: (Email, [String]) throws -> Void) throws {
        try database.read { db in
            let folderRows = try Row.fetchAll(db, sql: """
                SELECT ef.emailId, f.path FROM email_folders ef JOIN folders f ON f.id = ef.folderId
                ORDER BY ef.emailId, f.path
                """)
            var folders: [Int64: [String]] = [:]
            for r in folderRows { folders[r["emailId"], default: []].append(r["path"]) }
            let cursor = try Row.fetchCursor(db, sql: "SELECT * FROM emails ORDER BY id")
            while let row = try cursor.next() {
                let email = Self.email(from: row)
                try body(email, folders[email.id] ?? [])
            }
        }
    }

    public func statistics() throws -> StoreStatistics {
        let counts = try database.read { db in
            try Row.fetchOne(db, sql: """
                SELECT (SELECT COUNT(*) FROM accounts) AS accounts,
                       (SELECT COUNT(*) FROM folders) AS folders,
                       (SELECT COUNT(*) FROM emails) AS emails,
                       (SELECT COUNT(*) FROM threads) AS threads,
                       (SELECT COUNT(*) FROM contacts) AS contacts,
                       (SELECT COUNT(*) FROM email_folders) AS folderLinks,
                       (SELECT COUNT(*) FROM attachments) AS attachments,
                       (SELECT COUNT(*) FROM emails WHERE hasAttachment) AS withAttachments,
                       (SELECT COUNT(*) FROM emails WHERE isRead = 0) AS unread,
                       (SELECT COUNT(*) FROM emails WHERE dateSent IS NOT NULL) AS withDate,
                       (SELECT MIN(sortDate) FROM emails) AS oldest,
                       (SELECT MAX(sortDate) FROM emails) AS newest
                """)!
        }
        return StoreStatistics(
            accounts: counts["accounts"], folders: counts["folders"], emails: counts["emails"],
            threads: counts["threads"], contacts: counts["contacts"], folderLinks: counts["folderLinks"],
            attachments: counts["attachments"], emailsWithAttachments: counts["withAttachments"],
            unread: counts["unread"], emailsWithDate: counts["withDate"],
            oldest: (counts["oldest"] as Double?).map(Date.init(timeIntervalSince1970:)),
            newest: (counts["newest"] as Double?).map(Date.init(timeIntervalSince1970:)),
            mailDatabaseBytes: Self.fileSize(directory.mailDatabaseURL),
            searchDatabaseBytes: Self.fileSize(directory.searchDatabaseURL))
    }

    /// Size of a SQLite database with its WAL and shared-memory files.
    public static func fileSize(_ url: URL) -> Int64 {
        var total: Int64 = 0
        for suffix in ["", "-wal", "-shm"] {
            let attrs = try? FileManager.default.attributesOfItem(atPath: url.path + suffix)
            total += (attrs?[.size] as? NSNumber)?.int64Value ?? 0
        }
        return total
    }

    // MARK: Row mapping

    static func account(from row: Row) -> Account {
        Account(
            id: row["id"], name: row["name"], email: row["email"], displayName: row["displayName"],
            imapHost: row["imapHost"], imapPort: row["imapPort"],
            lastSyncDate: (row["lastSyncDate"] as Double?).map(Date.init(timeIntervalSince1970:)),
            isActive: row["isActive"], createdAt: Date(timeIntervalSince1970: row["createdAt"]),
            isDefaultSender: (row["isDefaultSender"] as Bool?) ?? false)
    }

    static func thread(from row: Row) -> MailThread {
        MailThread(
            id: row["id"], accountId: row["accountId"], subject: row["subject"],
            latestDate: (row["latestDate"] as Double?).map(Date.init(timeIntervalSince1970:)),
            messageCount: row["messageCount"], unreadCount: row["unreadCount"], isStarred: row["isStarred"],
            participants: AddressListCodec.decode(row["participants"]), snippet: row["snippet"])
    }

    static func email(from row: Row) -> Email {
        let fromEmail: String? = row["fromEmail"]
        let refs: String = row["references"]
        return Email(
            id: row["id"], accountId: row["accountId"], threadId: row["threadId"], messageId: row["messageId"],
            messageIdIsSynthetic: row["messageIdIsSynthetic"], inReplyTo: row["inReplyTo"],
            references: refs.split(separator: " ").map(String.init),
            from: fromEmail.map { Address(name: row["fromName"], email: $0) },
            to: AddressListCodec.decode(row["toAddresses"]), cc: AddressListCodec.decode(row["ccAddresses"]),
            bcc: AddressListCodec.decode(row["bccAddresses"]), replyTo: AddressListCodec.decode(row["replyToAddresses"]),
            subject: row["subject"], bodyPlain: row["bodyPlain"], bodyHTML: row["bodyHTML"], snippet: row["snippet"],
            dateSent: (row["dateSent"] as Double?).map(Date.init(timeIntervalSince1970:)),
            dateReceived: (row["dateReceived"] as Double?).map(Date.init(timeIntervalSince1970:)),
            isRead: row["isRead"], isStarred: row["isStarred"], isDraft: row["isDraft"],
            category: AICategory(rawValue: row["category"]) ?? .uncategorized,
            sizeBytes: row["sizeBytes"], hasAttachment: row["hasAttachment"])
    }

    static func storedEmail(from row: Row, db: Database) throws -> StoredEmail {
        var email = email(from: row)
        email.attachments = try Row.fetchAll(
            db, sql: "SELECT * FROM attachments WHERE emailId = ? ORDER BY id", arguments: [email.id]
        ).map { Attachment(id: $0["id"], filename: $0["filename"], mimeType: $0["mimeType"], sizeBytes: $0["sizeBytes"],
                           contentId: $0["contentId"], isInline: $0["isInline"]) }
        let folders = try String.fetchAll(db, sql: """
            SELECT f.path FROM email_folders ef JOIN folders f ON f.id = ef.folderId WHERE ef.emailId = ? ORDER BY f.path
            """, arguments: [email.id])
        let defects: String? = row["defects"]
        return StoredEmail(email: email, folders: folders, sourceRef: row["sourceRef"],
                           defects: defects.map { $0.split(separator: "\n").map(String.init) } ?? [])
    }
}

/// An email as read back from the store, with where it sits and where it came from.
public struct StoredEmail: Sendable, Hashable {
    public var email: Email
    /// Folder paths, sorted.
    public var folders: [String]
    /// Where the message was imported from (file path, `mbox-path@offset`, IMAP UID).
    public var sourceRef: String?
    /// Parser defects recorded at import.
    public var defects: [String]
}

/// Errors of the mail store, with what to do about them.
public enum MailStoreError: Error, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    case noMail(path: String)
    case accountExists(name: String)
    case notFound(String)
    /// The record is not in a state that allows the change (a draft already in the send queue).
    case conflict(String)
    /// Over a size limit.
    case tooLarge(String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            return "cannot open the mail store at \(path): \(reason). The file was left untouched; " +
                "check the path and its permissions, or point --data-dir at another directory."
        case .noMail(let path):
            return "no mail in \(path) yet: import some with `mailsearch import PATH`, or point --data-dir at your data directory."
        case .accountExists(let name):
            return "an account named \"\(name)\" exists already: choose another name, or remove that account first"
        case .notFound(let message), .conflict(let message), .tooLarge(let message):
            return message
        }
    }
}
