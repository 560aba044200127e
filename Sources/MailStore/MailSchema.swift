import Foundation
import GRDB
import MailModel

/// The schema of `mail.sqlite`, as GRDB migrations. Dates are stored as Unix seconds (REAL).
enum MailSchema {
    static func migrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-mail-store") { db in
            try db.execute(sql: """
                CREATE TABLE accounts (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE,
                    email TEXT,
                    displayName TEXT,
                    imapHost TEXT,
                    imapPort INTEGER,
                    lastSyncDate REAL,
                    isActive INTEGER NOT NULL DEFAULT 1,
                    createdAt REAL NOT NULL
                );
                CREATE TABLE folders (
                    id INTEGER PRIMARY KEY,
                    accountId INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    name TEXT NOT NULL,
                    path TEXT NOT NULL,
                    folderType TEXT NOT NULL,
                    lastSyncDate REAL,
                    UNIQUE (accountId, path)
                );
                CREATE TABLE threads (
                    id INTEGER PRIMARY KEY,
                    accountId INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    subject TEXT NOT NULL DEFAULT '',
                    latestDate REAL,
                    messageCount INTEGER NOT NULL DEFAULT 0,
                    unreadCount INTEGER NOT NULL DEFAULT 0,
                    isStarred INTEGER NOT NULL DEFAULT 0,
                    participants TEXT NOT NULL DEFAULT '',
                    snippet TEXT NOT NULL DEFAULT ''
                );
                CREATE INDEX threads_account_latest ON threads(accountId, latestDate);
                CREATE TABLE emails (
                    id INTEGER PRIMARY KEY,
                    accountId INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    threadId INTEGER REFERENCES threads(id) ON DELETE SET NULL,
                    messageId TEXT NOT NULL,
                    messageIdIsSynthetic INTEGER NOT NULL DEFAULT 0,
                    inReplyTo TEXT,
                    "references" TEXT NOT NULL DEFAULT '',
                    fromName TEXT,
                    fromEmail TEXT,
                    toAddresses TEXT NOT NULL DEFAULT '',
                    ccAddresses TEXT NOT NULL DEFAULT '',
                    bccAddresses TEXT NOT NULL DEFAULT '',
                    replyToAddresses TEXT NOT NULL DEFAULT '',
                    subject TEXT NOT NULL DEFAULT '',
                    normalizedSubject TEXT NOT NULL DEFAULT '',
                    bodyPlain TEXT NOT NULL DEFAULT '',
                    bodyHTML TEXT,
                    snippet TEXT NOT NULL DEFAULT '',
                    dateSent REAL,
                    dateReceived REAL,
                    sortDate REAL,
                    isRead INTEGER NOT NULL DEFAULT 0,
                    isStarred INTEGER NOT NULL DEFAULT 0,
                    isDraft INTEGER NOT NULL DEFAULT 0,
                    category TEXT NOT NULL DEFAULT 'uncategorized',
                    sizeBytes INTEGER NOT NULL DEFAULT 0,
                    hasAttachment INTEGER NOT NULL DEFAULT 0,
                    sourceRef TEXT,
                    defects TEXT,
                    UNIQUE (accountId, messageId)
                );
                CREATE INDEX emails_thread ON emails(threadId);
                CREATE INDEX emails_account_date ON emails(accountId, sortDate);
                CREATE INDEX emails_subject ON emails(accountId, normalizedSubject, sortDate);
                CREATE INDEX emails_from ON emails(fromEmail);
                CREATE TABLE email_folders (
                    emailId INTEGER NOT NULL REFERENCES emails(id) ON DELETE CASCADE,
                    folderId INTEGER NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
                    PRIMARY KEY (emailId, folderId)
                ) WITHOUT ROWID;
                CREATE INDEX email_folders_folder ON email_folders(folderId, emailId);
                CREATE TABLE attachments (
                    id INTEGER PRIMARY KEY,
                    emailId INTEGER NOT NULL REFERENCES emails(id) ON DELETE CASCADE,
                    filename TEXT,
                    mimeType TEXT NOT NULL,
                    sizeBytes INTEGER NOT NULL,
                    contentId TEXT,
                    isInline INTEGER NOT NULL DEFAULT 0
                );
                CREATE INDEX attachments_email ON attachments(emailId);
                CREATE TABLE contacts (
                    accountId INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    email TEXT NOT NULL,
                    displayName TEXT,
                    lastSeen REAL,
                    frequency INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (accountId, email)
                ) WITHOUT ROWID;
                CREATE TABLE message_ids (
                    accountId INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    messageId TEXT NOT NULL,
                    threadId INTEGER NOT NULL,
                    PRIMARY KEY (accountId, messageId)
                ) WITHOUT ROWID;
                CREATE INDEX message_ids_thread ON message_ids(threadId);
                """)
        }
        migrator.registerMigration("v2-recent-searches") { db in
            try db.execute(sql: """
                CREATE TABLE recent_searches (
                    normalized TEXT PRIMARY KEY,
                    query TEXT NOT NULL,
                    searchedAt REAL NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX contacts_frequency ON contacts(frequency DESC);
                """)
        }
        migrator.registerMigration("v3-embeddings") { db in
            // L2-normalised float32 vectors (384 × 4 = 1536 bytes), deleted with their email.
            try db.execute(sql: """
                CREATE TABLE embeddings (
                    emailId INTEGER PRIMARY KEY REFERENCES emails(id) ON DELETE CASCADE,
                    model TEXT NOT NULL,
                    vector BLOB NOT NULL
                );
                """)
        }
        migrator.registerMigration("v4-filter-indexes") { db in
            // Filters-only searches (E-03) list matches newest first: let them walk an index in date
            // order and stop at the limit instead of sorting the table.
            try db.execute(sql: """
                CREATE INDEX emails_date ON emails(sortDate);
                CREATE INDEX emails_category_date ON emails(category, sortDate);
                CREATE INDEX emails_read_date ON emails(isRead, sortDate);
                CREATE INDEX emails_attachment_date ON emails(hasAttachment, sortDate);
                """)
        }
        migrator.registerMigration("v5-sender-index") { db in
            try db.execute(sql: "CREATE INDEX emails_from_lower ON emails(lower(fromEmail))")
        }
        migrator.registerMigration("v6-rethread") { db in
            // Threads of earlier versions could join unrelated conversations (addresses from prose
            // In-Reply-To as graph links, subject tags stripped by the fallback): thread again.
            try Rethreader.rethreadAll(db: db)
        }
        migrator.registerMigration("v7-email-directory") { db in
            // What a search needs of every email — its conversation, date and flags — in one narrow
            // covering index, read in one scan into memory (the search's `EmailDirectory`); it
            // replaces the index on threadId alone, which its first column serves the same way.
            // A counter, bumped by triggers on every change to those columns (no writer can forget,
            // whichever process), says when the in-memory copy must be read again.
            try db.execute(sql: """
                DROP INDEX emails_thread;
                CREATE INDEX emails_directory ON emails(threadId, sortDate, isRead, isStarred, hasAttachment, category);
                CREATE TABLE email_directory_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
                INSERT INTO email_directory_version (id, version) VALUES (1, 1);
                CREATE TRIGGER emails_directory_insert AFTER INSERT ON emails
                    BEGIN UPDATE email_directory_version SET version = version + 1 WHERE id = 1; END;
                CREATE TRIGGER emails_directory_delete AFTER DELETE ON emails
                    BEGIN UPDATE email_directory_version SET version = version + 1 WHERE id = 1; END;
                CREATE TRIGGER emails_directory_update
                    AFTER UPDATE OF threadId, sortDate, isRead, isStarred, hasAttachment, category ON emails
                    BEGIN UPDATE email_directory_version SET version = version + 1 WHERE id = 1; END;
                """)
        }
        migrator.registerMigration("v-sender-name") { db in
            // The sender filter matches the email's own From name by substring: it scans this
            // index (names and rowids of the mail that has a name) instead of the emails table,
            // whose rows hold the bodies. Queries must say `fromName IS NOT NULL` to use it.
            try db.execute(sql: "CREATE INDEX emails_from_name ON emails(fromName) WHERE fromName IS NOT NULL")
        }
        migrator.registerMigration("v-imap-sync") { db in
            // IMAP accounts (how to reach the server; never a password), each synced folder's UID
            // state (spec 001 §5.2.1), and which server message (folder, UID) is which email: one
            // email may sit in several folders, each with its own UID.
            try db.execute(sql: """
                CREATE TABLE imap_accounts (
                    accountId INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
                    host TEXT NOT NULL,
                    port INTEGER NOT NULL,
                    security TEXT NOT NULL,
                    username TEXT NOT NULL,
                    passwordCommand TEXT,
                    passwordEnvironment TEXT,
                    oauthTokenCommand TEXT,
                    caFile TEXT,
                    syncWindowDays INTEGER
                );
                CREATE TABLE imap_folders (
                    folderId INTEGER PRIMARY KEY REFERENCES folders(id) ON DELETE CASCADE,
                    mailbox BLOB NOT NULL,
                    uidValidity INTEGER,
                    uidNext INTEGER,
                    highestModSeq INTEGER,
                    lastSyncDate REAL
                );
                CREATE TABLE imap_messages (
                    folderId INTEGER NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
                    uid INTEGER NOT NULL,
                    emailId INTEGER NOT NULL REFERENCES emails(id) ON DELETE CASCADE,
                    flags INTEGER NOT NULL DEFAULT 0,
                    gmailMessageId INTEGER,
                    gmailThreadId INTEGER,
                    PRIMARY KEY (folderId, uid)
                ) WITHOUT ROWID;
                CREATE INDEX imap_messages_email ON imap_messages(emailId);
                CREATE INDEX imap_messages_gmail ON imap_messages(gmailMessageId) WHERE gmailMessageId IS NOT NULL;
                """)
        }
        migrator.registerMigration("v-categories") { db in
            try CategoryTable.create(db)
        }
        migrator.registerMigration("v-smtp-accounts") { db in
            // Where an IMAP account sends mail (additive: accounts added before have none).
            try db.execute(sql: """
                ALTER TABLE imap_accounts ADD COLUMN smtpHost TEXT;
                ALTER TABLE imap_accounts ADD COLUMN smtpPort INTEGER;
                ALTER TABLE imap_accounts ADD COLUMN smtpSecurity TEXT;
                """)
        }
        migrator.registerMigration("v-outbox") { db in
            try MailStore.createOutbox(db)
        }
        migrator.registerMigration("v-drafts") { db in
            try MailStore.createDrafts(db)
        }
        migrator.registerMigration("v-outbox-gmail-labels") { db in
            try MailStore.addOutboxLabels(db)
        }
        migrator.registerMigration("v-thread-summaries") { db in
            try ThreadSummaryTable.create(db)
        }
        migrator.registerMigration("v-outbox-email") { db in
            // An action looks up what still waits for its email (superseded by it); a sync pass,
            // which of its emails have nothing waiting. An operation carries its message's
            // Message-ID, which finds the message where its UID is not known.
            try db.execute(sql: """
                CREATE INDEX outbox_email_state ON outbox(emailId, state);
                ALTER TABLE outbox ADD COLUMN messageId TEXT;
                """)
        }
        migrator.registerMigration("v-attachment-text") { db in
            try AttachmentTextTable.create(db)
        }
        migrator.registerMigration("v-attachment-passages") { db in
            try AttachmentPassageTable.create(db)
        }
        migrator.registerMigration("v-account-settings") { db in
            // Accounts added from the page keep their password in the secret store (never here: this
            // says only that it is there); one account may be the default sender.
            try db.execute(sql: """
                ALTER TABLE imap_accounts ADD COLUMN passwordStored INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE accounts ADD COLUMN isDefaultSender INTEGER NOT NULL DEFAULT 0;
                """)
        }
        migrator.registerMigration("v-account-oauth") { db in
            // An account that signs in with OAuth 2.0: its provider's endpoints and client id, as JSON
            // (OAuthSettings). Its tokens are in the secret store, never here.
            try db.execute(sql: "ALTER TABLE imap_accounts ADD COLUMN oauth TEXT")
        }
        return migrator
    }
}

extension MailStore {
    /// The identifiers of every migration of mail.sqlite this version knows, in order (a mail
    /// database that has them all is current): `MailSchema.migrator().migrations`, written out so
    /// that a one-shot search does not build the migrator (a test checks that the two agree).
    public static let migrationIdentifiers = [
        "v1-mail-store", "v2-recent-searches", "v3-embeddings", "v4-filter-indexes", "v5-sender-index", "v6-rethread",
        "v7-email-directory", "v-sender-name", "v-imap-sync", "v-categories", "v-smtp-accounts", "v-outbox", "v-drafts",
        "v-outbox-gmail-labels", "v-thread-summaries", "v-outbox-email", "v-attachment-text",
        "v-attachment-passages", "v-account-settings", "v-account-oauth",
    ]
}

/// The indexes of `emails` that nothing an import does reads — dates, flags, senders — which a
/// first import builds once at its end instead of inserting every message into each of them
/// (`MailStore.deferIndexesWhileEmpty`). Each is exactly as its migration made it (a test
/// compares them with `sqlite_master`); a migration that drops or changes one must allow for it
/// to be missing (an import killed meanwhile leaves it so until the store is next opened).
enum DeferredIndexes {
    static let all: [(name: String, sql: String)] = [
        ("emails_account_date", "CREATE INDEX emails_account_date ON emails(accountId, sortDate)"),
        ("emails_from", "CREATE INDEX emails_from ON emails(fromEmail)"),
        ("emails_date", "CREATE INDEX emails_date ON emails(sortDate)"),
        ("emails_category_date", "CREATE INDEX emails_category_date ON emails(category, sortDate)"),
        ("emails_read_date", "CREATE INDEX emails_read_date ON emails(isRead, sortDate)"),
        ("emails_attachment_date", "CREATE INDEX emails_attachment_date ON emails(hasAttachment, sortDate)"),
        ("emails_from_lower", "CREATE INDEX emails_from_lower ON emails(lower(fromEmail))"),
        ("emails_from_name", "CREATE INDEX emails_from_name ON emails(fromName) WHERE fromName IS NOT NULL"),
    ]

    /// Those missing from the database.
    static func missing(_ db: Database) throws -> [(name: String, sql: String)] {
        let present = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'emails'"))
        return all.filter { !present.contains($0.name) }
    }
}

extension MailStore {
    /// Held by an import from the moment it drops the deferred indexes until it has built them:
    /// an advisory lock (`flock`) on `mail.sqlite.indexing` beside the mail, which the system
    /// releases with the process, however it ends. While another holds it, opening a store leaves
    /// the indexes to the import instead of building them under it.
    public final class DeferredIndexLease: Sendable {
        private let descriptor: Int32

        /// The lease, or nil when another holds it (or the file cannot be opened: then nobody builds
        /// or drops anything for now, which is safe either way).
        static func take(_ directory: DataDirectory) -> DeferredIndexLease? {
            let path = directory.mailDatabaseURL.path + ".indexing"
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else { return nil }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                close(fd)
                return nil
            }
            return DeferredIndexLease(descriptor: fd)
        }

        private init(descriptor: Int32) { self.descriptor = descriptor }
        deinit { close(descriptor) }  // releases the lock
    }

    /// When the store holds no email and no other import holds the lease, drops the indexes no
    /// import step reads (`DeferredIndexes`) and returns the lease: the import that follows builds
    /// them once it has stored its mail (`buildDeferredIndexes`), then lets it go — a sort of each
    /// instead of a B-tree insert per message and index (Enron: ~1 s of the mail writer's CPU, the
    /// import's critical path, for ~0.5 s at the end). Meanwhile filters and sender searches scan
    /// the table. Returns nil, and changes nothing, when there is mail.
    public func deferIndexesWhileEmpty() throws -> DeferredIndexLease? {
        guard let lease = DeferredIndexLease.take(directory) else { return nil }
        let dropped = try database.write { db in
            guard try !Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM emails)")! else { return false }
            for index in DeferredIndexes.all {
                try db.execute(sql: "DROP INDEX IF EXISTS \(index.name)")
            }
            return true
        }
        return dropped ? lease : nil
    }

    /// Builds whichever of the deferred indexes are missing (none: nothing is written). An import
    /// calls it when its mail is stored.
    public func buildDeferredIndexes() throws {
        guard try !database.read(DeferredIndexes.missing).isEmpty else { return }
        try database.write { db in
            for index in try DeferredIndexes.missing(db) { try db.execute(sql: index.sql) }
        }
    }

    /// Opening a store: builds the deferred indexes an import left missing when it was killed
    /// (no one holds the lease), not those an import running now will build.
    func buildDeferredIndexesLeftMissing() throws {
        guard try !database.read(DeferredIndexes.missing).isEmpty, let lease = DeferredIndexLease.take(directory) else { return }
        try withExtendedLifetime(lease) { try buildDeferredIndexes() }
    }
}
