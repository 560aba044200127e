import Foundation
import GRDB
import MailModel

extension MessageFlags {
    /// As stored in `imap_messages.flags`.
    var bits: Int { (isRead ? 1 : 0) | (isStarred ? 2 : 0) | (isDraft ? 4 : 0) }

    init(bits: Int) {
        self.init(isRead: bits & 1 != 0, isStarred: bits & 2 != 0, isDraft: bits & 4 != 0)
    }
}

extension MailStore {
    // MARK: Accounts

    /// Creates an IMAP account; fails when an account of that name exists already.
    public func addIMAPAccount(named name: String, email: String?, displayName: String? = nil,
                               settings: IMAPAccountSettings) throws -> Account {
        try database.write { db in
            if try Row.fetchOne(db, sql: "SELECT id FROM accounts WHERE name = ?", arguments: [name]) != nil {
                throw MailStoreError.accountExists(name: name)
            }
            try db.execute(
                sql: "INSERT INTO accounts (name, email, displayName, imapHost, imapPort, createdAt) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [name, email, displayName, settings.host, settings.port, Date().timeIntervalSince1970])
            let id = db.lastInsertedRowID
            try db.execute(sql: """
                INSERT INTO imap_accounts (accountId, host, port, security, username, passwordCommand, passwordEnvironment,
                    oauthTokenCommand, caFile, syncWindowDays, smtpHost, smtpPort, smtpSecurity, passwordStored, oauth)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [id, settings.host, settings.port, settings.security, settings.username,
                                 settings.passwordCommand, settings.passwordEnvironment, settings.oauthTokenCommand,
                                 settings.caFile, settings.syncWindowDays, settings.smtpHost, settings.smtpPort,
                                 settings.smtpSecurity, settings.passwordStored, Self.oauthJSON(settings.oauth)])
            return Self.account(from: try Row.fetchOne(db, sql: "SELECT * FROM accounts WHERE id = ?", arguments: [id])!)
        }
    }

    /// Changes an IMAP account's settings, address and display name (the name stays). A wider sync
    /// window forgets each folder's UIDNEXT and HIGHESTMODSEQ: a folder where nothing moved since its
    /// last sync must still be read again, for the mail the window now takes in.
    public func updateIMAPAccount(id: Int64, email: String?, displayName: String?, settings: IMAPAccountSettings) throws {
        try database.write { db in
            let before = try Row.fetchOne(db, sql: "SELECT syncWindowDays FROM imap_accounts WHERE accountId = ?", arguments: [id])
            if let before, let old: Int = before["syncWindowDays"], settings.syncWindowDays.map({ $0 > old }) ?? true {
                try db.execute(sql: """
                    UPDATE imap_folders SET uidNext = NULL, highestModSeq = NULL
                    WHERE folderId IN (SELECT id FROM folders WHERE accountId = ?)
                    """, arguments: [id])
            }
            try db.execute(sql: "UPDATE accounts SET email = ?, displayName = ?, imapHost = ?, imapPort = ? WHERE id = ?",
                           arguments: [email, displayName, settings.host, settings.port, id])
            try db.execute(sql: """
                UPDATE imap_accounts SET host = ?, port = ?, security = ?, username = ?, passwordCommand = ?,
                    passwordEnvironment = ?, oauthTokenCommand = ?, caFile = ?, syncWindowDays = ?, smtpHost = ?,
                    smtpPort = ?, smtpSecurity = ?, passwordStored = ?, oauth = ?
                WHERE accountId = ?
                """, arguments: [settings.host, settings.port, settings.security, settings.username, settings.passwordCommand,
                                 settings.passwordEnvironment, settings.oauthTokenCommand, settings.caFile, settings.syncWindowDays,
                                 settings.smtpHost, settings.smtpPort, settings.smtpSecurity, settings.passwordStored,
                                 Self.oauthJSON(settings.oauth), id])
            guard db.changesCount == 1 else { throw MailStoreError.notFound("no IMAP account with id \(id)") }
        }
    }

    static func oauthJSON(_ oauth: OAuthSettings?) -> String? {
        guard let oauth, let data = try? JSONEncoder().encode(oauth) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    static func oauth(fromJSON text: String?) -> OAuthSettings? {
        guard let text else { return nil }
        return try? JSONDecoder().decode(OAuthSettings.self, from: Data(text.utf8))
    }

    /// Makes one account the default sender (nil: none).
    public func setDefaultSender(accountId: Int64?) throws {
        try database.write { db in
            try db.execute(sql: "UPDATE accounts SET isDefaultSender = (id IS ?)", arguments: [accountId])
        }
    }

    /// Every account that syncs from an IMAP server, with its settings, in id order.
    public func imapAccounts() throws -> [(account: Account, settings: IMAPAccountSettings)] {
        try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT a.*, i.host AS iHost, i.port AS iPort, i.security, i.username, i.passwordCommand,
                    i.passwordEnvironment, i.oauthTokenCommand, i.caFile, i.syncWindowDays, i.smtpHost, i.smtpPort,
                    i.smtpSecurity, i.passwordStored, i.oauth
                FROM accounts a JOIN imap_accounts i ON i.accountId = a.id ORDER BY a.id
                """).map { row in
                (Self.account(from: row),
                 IMAPAccountSettings(host: row["iHost"], port: row["iPort"], security: row["security"],
                                     username: row["username"], passwordCommand: row["passwordCommand"],
                                     passwordEnvironment: row["passwordEnvironment"],
                                     oauthTokenCommand: row["oauthTokenCommand"], passwordStored: row["passwordStored"],
                                     oauth: Self.oauth(fromJSON: row["oauth"]),
                                     caFile: row["caFile"],
                                     syncWindowDays: row["syncWindowDays"], smtpHost: row["smtpHost"],
                                     smtpPort: row["smtpPort"], smtpSecurity: row["smtpSecurity"]))
            }
        }
    }

    /// Records the end of a whole account sync.
    public func setLastSyncDate(accountId: Int64, _ date: Date) throws {
        try database.write { db in
            try db.execute(sql: "UPDATE accounts SET lastSyncDate = ? WHERE id = ?",
                           arguments: [date.timeIntervalSince1970, accountId])
        }
    }

    /// Threads mail again as if it had arrived in date order (one transaction): after `emailIds`
    /// were stored out of that order, the conversations they are in and those of the account's
    /// mail that the subject fallback could have joined them to (the same normalised subject
    /// within 30 days, spec 001 §5.2.4) are threaded again; nil: the whole account.
    public func rethreadInDateOrder(accountId: Int64, after emailIds: [Int64]?) throws {
        try database.write { db in
            guard let emailIds else {
                return try Rethreader.rethread(accountId: accountId, inDateOrder: true, db: db)
            }
            var threads = Set<Int64>()
            let own = try db.cachedStatement(sql: "SELECT threadId, normalizedSubject, sortDate FROM emails WHERE id = ?")
            let mates = try db.cachedStatement(sql: """
                SELECT DISTINCT threadId FROM emails WHERE accountId = ? AND normalizedSubject = ?
                AND sortDate BETWEEN ? AND ? AND threadId IS NOT NULL
                """)
            for id in emailIds {
                guard let row = try Row.fetchOne(own, arguments: [id]) else { continue }
                if let thread: Int64 = row["threadId"] { threads.insert(thread) }
                let subject: String = row["normalizedSubject"]
                guard !subject.isEmpty, let date: Double = row["sortDate"] else { continue }
                let window = Threader.subjectWindow
                threads.formUnion(try Int64.fetchAll(mates, arguments: [accountId, subject, date - window, date + window]))
            }
            try Rethreader.rethread(accountId: accountId, inDateOrder: true, only: threads, db: db)
        }
    }

    /// The date of the account's newest email (Unix seconds), nil when it has none.
    public func newestDate(accountId: Int64) throws -> Double? {
        try database.read { db in
            try Double.fetchOne(db, sql: "SELECT MAX(sortDate) FROM emails WHERE accountId = ?", arguments: [accountId])
        }
    }

    /// How many emails an account has.
    public func emailCount(accountId: Int64) throws -> Int {
        try database.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM emails WHERE accountId = ?", arguments: [accountId]) ?? 0
        }
    }

    // MARK: Folders

    /// The id of the account's folder at `path`, created when missing; its type is updated when
    /// the server now says otherwise (a folder that gained a SPECIAL-USE flag).
    public func ensureFolder(accountId: Int64, path: String, name: String, type: FolderType) throws -> Int64 {
        try database.write { db in
            if let row = try Row.fetchOne(db, sql: "SELECT id, folderType FROM folders WHERE accountId = ? AND path = ?",
                                          arguments: [accountId, path]) {
                let id: Int64 = row["id"]
                if (row["folderType"] as String) != type.rawValue {
                    try db.execute(sql: "UPDATE folders SET folderType = ? WHERE id = ?", arguments: [type.rawValue, id])
                }
                return id
            }
            try db.execute(sql: "INSERT INTO folders (accountId, name, path, folderType) VALUES (?, ?, ?, ?)",
                           arguments: [accountId, name, path, type.rawValue])
            return db.lastInsertedRowID
        }
    }

    /// The sync state of every folder of the account that was ever synced from the server.
    public func imapFolderStates(accountId: Int64) throws -> [IMAPFolderState] {
        try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT i.*, f.path FROM imap_folders i JOIN folders f ON f.id = i.folderId
                WHERE f.accountId = ? ORDER BY f.path
                """, arguments: [accountId]).map { row in
                IMAPFolderState(
                    folderId: row["folderId"], path: row["path"], mailbox: [UInt8]((row["mailbox"] as Data?) ?? Data()),
                    uidValidity: (row["uidValidity"] as Int64?).map { UInt32(truncatingIfNeeded: $0) },
                    uidNext: (row["uidNext"] as Int64?).map { UInt32(truncatingIfNeeded: $0) },
                    highestModSeq: (row["highestModSeq"] as Int64?).map { UInt64(bitPattern: $0) },
                    lastSyncDate: (row["lastSyncDate"] as Double?).map(Date.init(timeIntervalSince1970:)))
            }
        }
    }

    /// Saves a folder's sync state (insert or replace).
    public func saveIMAPFolderState(_ state: IMAPFolderState) throws {
        try database.write { db in
            try db.execute(sql: """
                INSERT INTO imap_folders (folderId, mailbox, uidValidity, uidNext, highestModSeq, lastSyncDate)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (folderId) DO UPDATE SET mailbox = excluded.mailbox, uidValidity = excluded.uidValidity,
                    uidNext = excluded.uidNext, highestModSeq = excluded.highestModSeq, lastSyncDate = excluded.lastSyncDate
                """, arguments: [state.folderId, Data(state.mailbox), state.uidValidity.map { Int64($0) },
                                 state.uidNext.map { Int64($0) }, state.highestModSeq.map { Int64(bitPattern: $0) },
                                 state.lastSyncDate?.timeIntervalSince1970])
            // The folder's MODSEQ now covers what this client moved into it.
            try db.execute(sql: "UPDATE imap_messages SET modSeq = NULL WHERE folderId = ? AND modSeq = 0", arguments: [state.folderId])
        }
    }

    // MARK: Messages

    /// The folder's known server messages by UID.
    public func imapMessages(folderId: Int64) throws -> [UInt32: IMAPMessageLink] {
        try database.read { db in
            var map: [UInt32: IMAPMessageLink] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT uid, emailId, flags FROM imap_messages WHERE folderId = ?",
                                           arguments: [folderId])
            while let row = try rows.next() {
                let uid = UInt32(truncatingIfNeeded: row["uid"] as Int64)
                map[uid] = IMAPMessageLink(uid: uid, emailId: row["emailId"], flags: MessageFlags(bits: row["flags"]))
            }
            return map
        }
    }

    /// Records the flags the server now has for these UIDs of the folder.
    public func updateIMAPFlags(folderId: Int64, _ flags: [UInt32: MessageFlags]) throws {
        guard !flags.isEmpty else { return }
        try database.write { db in
            let update = try db.cachedStatement(sql: "UPDATE imap_messages SET flags = ? WHERE folderId = ? AND uid = ?")
            for (uid, f) in flags { try update.execute(arguments: [f.bits, folderId, Int64(uid)]) }
        }
    }

    /// Records that these server messages are these emails, and links each email to the folder.
    public func recordIMAPMessages(folderId: Int64, _ links: [IMAPMessageLink]) throws {
        guard !links.isEmpty else { return }
        try database.write { db in
            let insert = try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO imap_messages (folderId, uid, emailId, flags, gmailMessageId, gmailThreadId)
                VALUES (?, ?, ?, ?, ?, ?)
                """)
            let link = try db.cachedStatement(sql: "INSERT OR IGNORE INTO email_folders (emailId, folderId) VALUES (?, ?)")
            for l in links {
                try insert.execute(arguments: [folderId, Int64(l.uid), l.emailId, l.flags.bits, l.gmailMessageId.map { Int64(bitPattern: $0) },
                                               l.gmailThreadId.map { Int64(bitPattern: $0) }])
                try link.execute(arguments: [l.emailId, folderId])
            }
        }
    }

    /// Forgets server messages that are gone from the folder: their emails lose the folder link
    /// unless another UID of the folder is the same email. Returns the emails left in no folder at
    /// all, which the caller deletes (with their index rows).
    public func forgetIMAPMessages(folderId: Int64, uids: [UInt32]) throws -> [Int64] {
        guard !uids.isEmpty else { return [] }
        return try database.write { db in
            var affected = Set<Int64>()
            let find = try db.cachedStatement(sql: "SELECT emailId FROM imap_messages WHERE folderId = ? AND uid = ?")
            let delete = try db.cachedStatement(sql: "DELETE FROM imap_messages WHERE folderId = ? AND uid = ?")
            for uid in uids {
                if let emailId = try Int64.fetchOne(find, arguments: [folderId, Int64(uid)]) { affected.insert(emailId) }
                try delete.execute(arguments: [folderId, Int64(uid)])
            }
            return try Self.unlink(emailIds: affected, fromFolder: folderId, db: db)
        }
    }

    /// After the folder's UIDs were all matched again (a UIDVALIDITY change): emails still linked
    /// to the folder that no server message of it maps to lose the link. Returns the emails left
    /// in no folder at all.
    public func pruneUnmappedFolderLinks(folderId: Int64) throws -> [Int64] {
        try database.write { db in
            let stale = try Int64.fetchAll(db, sql: """
                SELECT ef.emailId FROM email_folders ef WHERE ef.folderId = ?
                AND NOT EXISTS (SELECT 1 FROM imap_messages m WHERE m.folderId = ef.folderId AND m.emailId = ef.emailId)
                """, arguments: [folderId])
            return try Self.unlink(emailIds: Set(stale), fromFolder: folderId, db: db)
        }
    }

    /// Forgets every UID of the folder (its UIDVALIDITY changed: the old UIDs mean nothing now)
    /// but keeps the emails' folder links until the folder is matched again.
    public func forgetAllIMAPMessages(folderId: Int64) throws {
        try database.write { db in
            try db.execute(sql: "DELETE FROM imap_messages WHERE folderId = ?", arguments: [folderId])
            try db.execute(sql: "UPDATE imap_folders SET uidNext = NULL, highestModSeq = NULL WHERE folderId = ?",
                           arguments: [folderId])
        }
    }

    /// Deletes a folder the server no longer has. Returns the emails left in no folder at all.
    public func deleteIMAPFolder(folderId: Int64) throws -> [Int64] {
        try database.write { db in
            let linked = try Int64.fetchAll(db, sql: "SELECT emailId FROM email_folders WHERE folderId = ?", arguments: [folderId])
            try db.execute(sql: "DELETE FROM imap_messages WHERE folderId = ?", arguments: [folderId])
            let orphans = try Self.unlink(emailIds: Set(linked), fromFolder: folderId, db: db)
            try db.execute(sql: "DELETE FROM folders WHERE id = ?", arguments: [folderId])
            return orphans
        }
    }

    private static func unlink(emailIds: Set<Int64>, fromFolder folderId: Int64, db: Database) throws -> [Int64] {
        var orphans: [Int64] = []
        let stillMapped = try db.cachedStatement(sql: "SELECT 1 FROM imap_messages WHERE folderId = ? AND emailId = ? LIMIT 1")
        let unlink = try db.cachedStatement(sql: "DELETE FROM email_folders WHERE emailId = ? AND folderId = ?")
        let anyLink = try db.cachedStatement(sql: "SELECT 1 FROM email_folders WHERE emailId = ? LIMIT 1")
        for emailId in emailIds.sorted() {
            if try Bool.fetchOne(stillMapped, arguments: [folderId, emailId]) != nil { continue }
            try unlink.execute(arguments: [emailId, folderId])
            if try Bool.fetchOne(anyLink, arguments: [emailId]) == nil { orphans.append(emailId) }
        }
        return orphans
    }

    /// Gmail: the email's folder links become the folders of its labels, beside those of the
    /// folders synced from the server (whose links follow their UIDs). Returns whether a link changed.
    public func replaceLabelLinks(accountId: Int64, emailId: Int64, labels: [FolderSpec]) throws -> Bool {
        try database.write { db in
            let synced = Set(try Int64.fetchAll(db, sql: """
                SELECT i.folderId FROM imap_folders i JOIN folders f ON f.id = i.folderId WHERE f.accountId = ?
                """, arguments: [accountId]))
            var desired = Set<Int64>()
            for spec in labels {
                let id: Int64
                if let existing = try Int64.fetchOne(db, sql: "SELECT id FROM folders WHERE accountId = ? AND path = ?",
                                                     arguments: [accountId, spec.path]) {
                    id = existing
                } else {
                    try db.execute(sql: "INSERT INTO folders (accountId, name, path, folderType) VALUES (?, ?, ?, ?)",
                                   arguments: [accountId, spec.name, spec.path, spec.type.rawValue])
                    id = db.lastInsertedRowID
                }
                if !synced.contains(id) { desired.insert(id) }
            }
            let current = Set(try Int64.fetchAll(db, sql: "SELECT folderId FROM email_folders WHERE emailId = ?",
                                                 arguments: [emailId])).subtracting(synced)
            for id in current.subtracting(desired) {
                try db.execute(sql: "DELETE FROM email_folders WHERE emailId = ? AND folderId = ?", arguments: [emailId, id])
            }
            for id in desired.subtracting(current) {
                try db.execute(sql: "INSERT OR IGNORE INTO email_folders (emailId, folderId) VALUES (?, ?)", arguments: [emailId, id])
            }
            return current != desired
        }
    }

    /// The account's emails with these Message-IDs (already stored, in another folder or before a
    /// UIDVALIDITY change): Message-ID → email id.
    public func emailIds(accountId: Int64, messageIds: [String]) throws -> [String: Int64] {
        guard !messageIds.isEmpty else { return [:] }
        return try database.read { db in
            let find = try db.cachedStatement(sql: "SELECT id FROM emails WHERE accountId = ? AND messageId = ?")
            var found: [String: Int64] = [:]
            for id in Set(messageIds) {
                if let emailId = try Int64.fetchOne(find, arguments: [accountId, id]) { found[id] = emailId }
            }
            return found
        }
    }

    /// The Message-ID an email carries on the server (nil when the message has none and the stored
    /// one was made up on import, or when the id has a character a search cannot hold).
    public func serverMessageId(emailId: Int64) throws -> String? {
        try database.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT messageId, messageIdIsSynthetic FROM emails WHERE id = ?", arguments: [emailId]),
                  !(row["messageIdIsSynthetic"] as Bool) else { return nil }
            return OutboxOperation.searchable(messageId: row["messageId"])
        }
    }

    /// Gives each email of the account whose server copies agree on read and starred those flags,
    /// but a flag whose change by the user still waits in the outbox. Returns how many changed.
    public func takeServerFlags(accountId: Int64) throws -> Int {
        // Read first (~150 ms on 45K emails), the writer taken only when something differs; each
        // update applies only if the email is still as read.
        let rows = try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT e.id, MIN(m.flags & 3) AS server, e.isRead | (e.isStarred << 1) AS here,
                    (SELECT COALESCE(MAX((o.addFlags | o.removeFlags) & 1), 0) | COALESCE(MAX((o.addFlags | o.removeFlags) & 2), 0)
                     FROM outbox o WHERE o.emailId = e.id AND o.kind = 'store' AND o.state IN ('pending', 'running')) AS waiting
                FROM emails e JOIN imap_messages m ON m.emailId = e.id
                WHERE e.accountId = ?
                GROUP BY e.id
                HAVING MIN(m.flags & 3) = MAX(m.flags & 3) AND MIN(m.flags & 3) != (e.isRead | (e.isStarred << 1))
                """, arguments: [accountId])
        }
        guard !rows.isEmpty else { return 0 }
        return try database.write { db in
            var threads = Set<Int64>()
            var changed = 0
            for row in rows {
                let server: Int = row["server"], here: Int = row["here"], waiting: Int = row["waiting"]
                let flags = (server & ~waiting & 3) | (here & waiting & 3)
                guard flags != here else { continue }
                try db.execute(sql: "UPDATE emails SET isRead = ?, isStarred = ? WHERE id = ? AND (isRead | (isStarred << 1)) = ?",
                               arguments: [flags & 1 != 0, flags & 2 != 0, row["id"] as Int64, here])
                guard db.changesCount > 0 else { continue }
                changed += 1
                if let thread = try Int64.fetchOne(db, sql: "SELECT threadId FROM emails WHERE id = ?", arguments: [row["id"] as Int64]) {
                    threads.insert(thread)
                }
            }
            try ThreadMetadata.recompute(threadIds: threads, db: db)
            return changed
        }
    }

    /// The account's email that Gmail knows by this X-GM-MSGID (the same message under another label).
    public func emailIds(accountId: Int64, gmailMessageIds: [UInt64]) throws -> [UInt64: Int64] {
        guard !gmailMessageIds.isEmpty else { return [:] }
        return try database.read { db in
            let find = try db.cachedStatement(sql: """
                SELECT m.emailId FROM imap_messages m JOIN folders f ON f.id = m.folderId
                WHERE f.accountId = ? AND m.gmailMessageId = ? LIMIT 1
                """)
            var found: [UInt64: Int64] = [:]
            for id in Set(gmailMessageIds) {
                if let emailId = try Int64.fetchOne(find, arguments: [accountId, Int64(bitPattern: id)]) { found[id] = emailId }
            }
            return found
        }
    }

    /// Sets read, starred and draft where they differ (the server is authoritative, spec 001
    /// §5.2.3); the threads' unread counts follow. Returns how many emails changed.
    @discardableResult
    public func updateFlags(_ flags: [Int64: MessageFlags]) throws -> Int {
        guard !flags.isEmpty else { return 0 }
        return try database.write { db in
            let update = try db.cachedStatement(sql: """
                UPDATE emails SET isRead = ?, isStarred = ?, isDraft = ?
                WHERE id = ? AND (isRead != ? OR isStarred != ? OR isDraft != ?)
                """)
            let threadOf = try db.cachedStatement(sql: "SELECT threadId FROM emails WHERE id = ?")
            // A flag the user changed here whose change waits in the outbox stays as the user set it:
            // the replay writes it (or, if the server changed it first, records the server's).
            let waiting = try db.cachedStatement(sql: """
                SELECT addFlags | removeFlags FROM outbox WHERE emailId = ? AND kind = 'store' AND state IN ('pending', 'running')
                """)
            let current = try db.cachedStatement(sql: "SELECT isRead, isStarred FROM emails WHERE id = ?")
            var threads = Set<Int64>()
            var changed = 0
            for (emailId, server) in flags {
                var f = server
                let bits = try Int.fetchAll(waiting, arguments: [emailId]).reduce(0, |)
                if bits & 3 != 0, let row = try Row.fetchOne(current, arguments: [emailId]) {
                    if bits & 1 != 0 { f.isRead = row["isRead"] }
                    if bits & 2 != 0 { f.isStarred = row["isStarred"] }
                }
                try update.execute(arguments: [f.isRead, f.isStarred, f.isDraft, emailId, f.isRead, f.isStarred, f.isDraft])
                guard db.changesCount > 0 else { continue }
                changed += 1
                if let thread = try Int64.fetchOne(threadOf, arguments: [emailId]) { threads.insert(thread) }
            }
            try ThreadMetadata.recompute(threadIds: threads, db: db)
            return changed
        }
    }

    /// The source references (file paths) of these emails, for removing files the store wrote.
    public func sourceRefs(emailIds: [Int64]) throws -> [Int64: String] {
        guard !emailIds.isEmpty else { return [:] }
        return try database.read { db in
            let find = try db.cachedStatement(sql: "SELECT sourceRef FROM emails WHERE id = ?")
            var refs: [Int64: String] = [:]
            for id in emailIds {
                if let ref = try String.fetchOne(find, arguments: [id]) { refs[id] = ref }
            }
            return refs
        }
    }
}
