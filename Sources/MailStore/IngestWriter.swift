import Foundation
import GRDB
import MailModel
import MailParsing

/// Writes one batch inside a write transaction. Statements are cached by GRDB, so a
/// batch costs a handful of prepared-statement executions per email.
struct IngestWriter {
    let db: Database
    let accountId: Int64
    private(set) var result = IngestResult()
    private var folderIds: [String: Int64] = [:]
    private var threader: Threader
    /// The batch's contacts, written once each when the batch finishes (`flushContacts`).
    private var contacts: [String: PendingContact] = [:]
    private var contactOrder: [String] = []

    /// One address's occurrences in the batch: how many messages, the last name given, the latest date.
    private struct PendingContact {
        var count = 0
        var name: String?
        var lastSeen: Double?

        /// One more message naming the address: a name replaces the one before (as the upsert's
        /// COALESCE does), the latest date stays.
        mutating func add(name: String?, lastSeen: Double?) {
            count += 1
            if let name { self.name = name }
            if let lastSeen { self.lastSeen = max(self.lastSeen ?? lastSeen, lastSeen) }
        }
    }

    init(db: Database, accountId: Int64) {
        self.db = db
        self.accountId = accountId
        self.threader = Threader(db: db, accountId: accountId)
    }

    mutating func add(_ item: IncomingEmail) throws {
        var email = item.email
        let existing = try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT id FROM emails WHERE accountId = ? AND messageId = ?"),
            arguments: [accountId, email.messageId])
        if let existing {
            // Same message seen again (another folder, a label, a re-import): only links are added.
            try linkFolders(emailId: existing, item.folders)
            result.duplicates += 1
            return
        }
        let normalizedSubject = SubjectNormalizer.normalize(email.subject)
        let threadId = try threader.assign(Threader.Message(email, normalizedSubject: normalizedSubject))
        email.threadId = threadId
        email.accountId = accountId
        let sortDate = email.date?.timeIntervalSince1970
        try db.cachedStatement(sql: """
            INSERT INTO emails (accountId, threadId, messageId, messageIdIsSynthetic, inReplyTo, "references",
                fromName, fromEmail, toAddresses, ccAddresses, bccAddresses, replyToAddresses, subject,
                normalizedSubject, bodyPlain, bodyHTML, snippet, dateSent, dateReceived, sortDate, isRead,
                isStarred, isDraft, category, sizeBytes, hasAttachment, sourceRef, defects)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [
                accountId, threadId, email.messageId, email.messageIdIsSynthetic, email.inReplyTo,
                email.references.joined(separator: " "), email.from?.name, email.from?.email,
                AddressListCodec.encode(email.to), AddressListCodec.encode(email.cc),
                AddressListCodec.encode(email.bcc), AddressListCodec.encode(email.replyTo), email.subject,
                normalizedSubject, email.bodyPlain, email.bodyHTML, email.snippet,
                email.dateSent?.timeIntervalSince1970, email.dateReceived?.timeIntervalSince1970, sortDate,
                email.isRead, email.isStarred, email.isDraft, email.category.rawValue, email.sizeBytes,
                email.hasAttachment, item.sourceRef, item.defects.isEmpty ? nil : item.defects.joined(separator: "\n"),
            ])
        email.id = db.lastInsertedRowID
        if item.categorySignals != nil || item.provisionalDecision != nil {
            // The row itself is made by a trigger (every email waits for its category, `method` NULL);
            // a provisional decision is its reason and confidence with no `decidedAt`.
            let provisional = item.provisionalDecision
            try db.cachedStatement(sql: "UPDATE email_categories SET signals = ?, reason = ?, confidence = ? WHERE emailId = ?")
                .execute(arguments: [item.categorySignals?.rawValue, provisional?.reason, provisional?.confidence, email.id])
        }
        try linkFolders(emailId: email.id, item.folders)
        for attachment in email.attachments {
            try db.cachedStatement(sql: """
                INSERT INTO attachments (emailId, filename, mimeType, sizeBytes, contentId, isInline)
                VALUES (?, ?, ?, ?, ?, ?)
                """).execute(arguments: [email.id, attachment.filename, attachment.mimeType, attachment.sizeBytes,
                                         attachment.contentId, attachment.isInline])
        }
        recordContacts(of: email)
        result.inserted.append(email)
    }

    mutating func finish() throws {
        try flushContacts()
        result.touchedThreads = threader.dirty
        result.mergedThreads = threader.merged
        // A thread this batch made, that none was merged into and that one of its emails joined,
        // holds that email alone.
        var joined: [Int64: Int] = [:]
        for email in result.inserted { joined[email.threadId ?? 0, default: 0] += 1 }
        var alone: [Int64: Email] = [:]
        for email in result.inserted {
            guard let t = email.threadId, joined[t] == 1, threader.created.contains(t), !threader.mergeTargets.contains(t),
                  threader.dirty.contains(t) else { continue }
            alone[t] = email
        }
        try ThreadMetadata.recompute(threadIds: threader.dirty, db: db, alone: alone)
    }

    private mutating func linkFolders(emailId: Int64, _ folders: [FolderSpec]) throws {
        for folder in folders {
            let folderId = try folderId(for: folder)
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO email_folders (emailId, folderId) VALUES (?, ?)")
                .execute(arguments: [emailId, folderId])
        }
    }

    private mutating func folderId(for folder: FolderSpec) throws -> Int64 {
        if let id = folderIds[folder.path] { return id }
        let id: Int64
        if let existing = try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT id FROM folders WHERE accountId = ? AND path = ?"),
            arguments: [accountId, folder.path]) {
            id = existing
        } else {
            try db.cachedStatement(sql: "INSERT INTO folders (accountId, name, path, folderType) VALUES (?, ?, ?, ?)")
                .execute(arguments: [accountId, folder.name, folder.path, folder.type.rawValue])
            id = db.lastInsertedRowID
        }
        folderIds[folder.path] = id
        return id
    }

    /// Contacts come from From, To and Cc (spec 001 §5.5.4): frequency counts messages.
    /// They are counted in memory for the batch and written once per address by `flushContacts`:
    /// the same rows as one upsert per message (frequency the sum, the last name given, the latest
    /// date), with a fraction of the writes (Enron: a batch names the same people again and again,
    /// and every frequency change moves the row in `contacts_frequency`). The threader sees the
    /// batch's contacts as it would have seen them stored (`Threader.batchContacts`).
    private mutating func recordContacts(of email: Email) {
        var seen = Set<String>()
        let lastSeen = email.date?.timeIntervalSince1970
        for address in [email.from].compactMap({ $0 }) + email.to + email.cc {
            let key = address.email.lowercased()
            guard !key.isEmpty, seen.insert(key).inserted else { continue }
            let name = address.name?.isEmpty == false ? address.name : nil
            if contacts[key] == nil {
                contactOrder.append(key)
                threader.batchContacts.insert(key)
            }
            contacts[key, default: PendingContact()].add(name: name, lastSeen: lastSeen)
        }
    }

    private mutating func flushContacts() throws {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO contacts (accountId, email, displayName, lastSeen, frequency) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (accountId, email) DO UPDATE SET
                frequency = frequency + excluded.frequency,
                displayName = COALESCE(excluded.displayName, displayName),
                lastSeen = MAX(COALESCE(lastSeen, excluded.lastSeen), COALESCE(excluded.lastSeen, lastSeen))
            """)
        for key in contactOrder {
            guard let contact = contacts[key] else { continue }
            try statement.execute(arguments: [accountId, key, contact.name, contact.lastSeen, contact.count])
        }
        contacts.removeAll()
        contactOrder.removeAll()
        threader.batchContacts.removeAll()
    }
}
