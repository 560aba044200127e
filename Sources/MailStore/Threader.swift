import Foundation
import GRDB
import MailModel
import MailParsing

/// Incremental threading, spec 001 §5.2.4.
///
/// Threads are the connected components of the Message-ID graph. The table `message_ids`
/// maps every Message-ID seen so far (a message's own, and every id it references) to a
/// thread. A new message joins the thread of any id it shares; when its ids belong to
/// several threads, those threads are merged into the oldest (smallest id), so a late
/// message that links two conversations joins them, whatever the arrival order.
///
/// The graph is built from Message-IDs only. The parser already drops prose In-Reply-To values
/// (`Message from miguel@example.com of 10 Jul 1997`); an id that is an email address of the
/// message itself (From, To, Cc, Reply-To) or of a contact of the account is not a Message-ID
/// either, whatever brackets it came in (`Message from Miguel <miguel@example.com> of …`,
/// `miguel@example.com's message of …` in stores written before the parser dropped prose): it
/// would link every reply to that person into one thread, so it is ignored.
///
/// Messages with no referenced Message-ID (neither References nor In-Reply-To, once the above
/// are ignored) fall back to the subject: the thread of the message in the same account with
/// the same normalised subject (`SubjectNormalizer`, compared exactly) whose date is nearest,
/// within 30 days; ties go to the message stored first. Subject matches never merge two threads,
/// so two messages more than 30 days apart are never joined by subject alone.
struct Threader {
    static let subjectWindow: TimeInterval = 30 * 24 * 3600

    /// What threading needs of one message.
    struct Message {
        var messageId: String
        /// In-Reply-To, then References, as stored.
        var referencedIds: [String]
        /// The message's own addresses (From, To, Cc, Reply-To), any case.
        var addresses: [String]
        /// Unix seconds (the email's `sortDate`).
        var date: Double?
        var normalizedSubject: String

        init(_ email: Email, normalizedSubject: String) {
            messageId = email.messageId
            referencedIds = (email.inReplyTo.map { [$0] } ?? []) + email.references
            addresses = ([email.from].compactMap { $0 } + email.to + email.cc + email.replyTo).map(\.email)
            date = email.date?.timeIntervalSince1970
            self.normalizedSubject = normalizedSubject
        }

        init(messageId: String, referencedIds: [String], addresses: [String], date: Double?, normalizedSubject: String) {
            self.messageId = messageId
            self.referencedIds = referencedIds
            self.addresses = addresses
            self.date = date
            self.normalizedSubject = normalizedSubject
        }
    }

    let db: Database
    let accountId: Int64
    private(set) var dirty: Set<Int64> = []
    private(set) var merged: Set<Int64> = []
    /// Threads this threader made, and those that others were merged into.
    private(set) var created: Set<Int64> = []
    private(set) var mergeTargets: Set<Int64> = []
    /// Contacts of the ingest batch not written yet (lowercased addresses): they count as the
    /// account's contacts, as they would once stored.
    var batchContacts: Set<String> = []

    init(db: Database, accountId: Int64) {
        self.db = db
        self.accountId = accountId
    }

    /// The thread of `message`, creating, joining or merging threads as needed. A new thread
    /// takes the id `newThreadId` when given (re-threading keeps the ids of threads that stay).
    mutating func assign(_ message: Message, newThreadId: Int64? = nil) throws -> Int64 {
        let own = Set(message.addresses.map { $0.lowercased() })
        var unique: [String] = [message.messageId]
        var seen: Set<String> = [message.messageId]
        for id in message.referencedIds where !id.isEmpty && seen.insert(id).inserted {
            if try isAddress(id, own: own) { continue }
            unique.append(id)
        }

        var found = Set<Int64>()
        for id in unique {
            if let t = try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT threadId FROM message_ids WHERE accountId = ? AND messageId = ?"),
                arguments: [accountId, id]) {
                found.insert(t)
            }
        }

        let threadId: Int64
        if let target = found.min() {
            threadId = target
            for other in found where other != target { try merge(other, into: target) }
        } else if unique.count == 1, let bySubject = try subjectMatch(message) {
            threadId = bySubject
        } else if let newThreadId {
            try db.cachedStatement(sql: "INSERT INTO threads (id, accountId) VALUES (?, ?)").execute(arguments: [newThreadId, accountId])
            threadId = newThreadId
            created.insert(threadId)
        } else {
            try db.cachedStatement(sql: "INSERT INTO threads (accountId) VALUES (?)").execute(arguments: [accountId])
            threadId = db.lastInsertedRowID
            created.insert(threadId)
        }
        for id in unique {
            try db.cachedStatement(sql: """
                INSERT INTO message_ids (accountId, messageId, threadId) VALUES (?, ?, ?)
                ON CONFLICT (accountId, messageId) DO UPDATE SET threadId = excluded.threadId
                """).execute(arguments: [accountId, id, threadId])
        }
        dirty.insert(threadId)
        return threadId
    }

    /// True when `id` is an email address of the message or a contact of the account rather than
    /// a Message-ID (compared without case, a trailing `'s` and surrounding punctuation).
    private func isAddress(_ id: String, own: Set<String>) throws -> Bool {
        guard id.contains("@") else { return false }
        let edge: Set<Character> = ["\"", "'", "(", ")", "[", "]", ".", ",", ";", ":"]
        func trimmed(_ s: Substring) -> Substring {
            var s = s
            while let c = s.first, edge.contains(c) { s.removeFirst() }
            while let c = s.last, edge.contains(c) { s.removeLast() }
            return s
        }
        var key = trimmed(Substring(id.lowercased()))
        for suffix in ["'s", "\u{2019}s"] where key.hasSuffix(suffix) { key = trimmed(key.dropLast(suffix.count)) }
        let address = String(key)
        if own.contains(address) || batchContacts.contains(address) { return true }
        return try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT 1 FROM contacts WHERE accountId = ? AND email = ?"),
            arguments: [accountId, address]) ?? false
    }

    private func subjectMatch(_ message: Message) throws -> Int64? {
        guard !message.normalizedSubject.isEmpty, let date = message.date else { return nil }
        return try Int64.fetchOne(
            db.cachedStatement(sql: """
                SELECT threadId FROM emails
                WHERE accountId = ? AND normalizedSubject = ? AND sortDate BETWEEN ? AND ? AND threadId IS NOT NULL
                ORDER BY ABS(sortDate - ?), id LIMIT 1
                """),
            arguments: [accountId, message.normalizedSubject, date - Self.subjectWindow, date + Self.subjectWindow, date])
    }

    private mutating func merge(_ source: Int64, into target: Int64) throws {
        try db.cachedStatement(sql: "UPDATE emails SET threadId = ? WHERE threadId = ?").execute(arguments: [target, source])
        try db.cachedStatement(sql: "UPDATE message_ids SET threadId = ? WHERE threadId = ?").execute(arguments: [target, source])
        try db.cachedStatement(sql: "DELETE FROM threads WHERE id = ?").execute(arguments: [source])
        dirty.remove(source)
        merged.insert(source)
        dirty.insert(target)
        mergeTargets.insert(target)
    }
}

/// Thread metadata, spec 001 §5.2.4 step 5.
enum ThreadMetadata {
    /// - Parameter alone: threads known to hold one email, that email (as stored): their
    ///   metadata is its own, without reading it back (most threads of an import).
    static func recompute(threadIds: Set<Int64>, db: Database, alone: [Int64: Email] = [:]) throws {
        for threadId in threadIds.sorted() {
            if let email = alone[threadId] {
                // What the query below reads of a thread of one email, from the email itself.
                try store(threadId, subject: email.subject, latestDate: email.date?.timeIntervalSince1970, count: 1,
                          unread: email.isRead ? 0 : 1, starred: email.isStarred, participants: email.from.map { [$0] } ?? [],
                          snippet: email.snippet, db: db)
                continue
            }
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT subject, fromName, fromEmail, snippet, sortDate, isRead, isStarred FROM emails
                    WHERE threadId = ? ORDER BY sortDate IS NULL, sortDate, id
                    """),
                arguments: [threadId])
            if rows.isEmpty {
                // The thread's last email is gone: so are the Message-IDs that led to it, or a message
                // with one of them (the same email fetched again from another folder) would join a
                // thread that no longer exists.
                try db.cachedStatement(sql: "DELETE FROM message_ids WHERE threadId = ?").execute(arguments: [threadId])
                try db.cachedStatement(sql: "DELETE FROM threads WHERE id = ?").execute(arguments: [threadId])
                continue
            }
            var participants: [Address] = []
            var seen = Set<String>()
            var unread = 0
            var starred = false
            var latest: Double?
            var latestSnippet = ""
            for row in rows {
                if let email: String = row["fromEmail"], seen.insert(email.lowercased()).inserted {
                    participants.append(Address(name: row["fromName"], email: email))
                }
                if !(row["isRead"] as Bool) { unread += 1 }
                if row["isStarred"] as Bool { starred = true }
                if let d: Double = row["sortDate"], latest.map({ d >= $0 }) ?? true {
                    latest = d
                    latestSnippet = row["snippet"]
                }
            }
            if latest == nil { latestSnippet = rows.last?["snippet"] ?? "" }
            try store(threadId, subject: rows[0]["subject"], latestDate: latest, count: rows.count, unread: unread,
                      starred: starred, participants: participants, snippet: latestSnippet, db: db)
        }
    }

    private static func store(_ threadId: Int64, subject: String, latestDate: Double?, count: Int, unread: Int, starred: Bool,
                              participants: [Address], snippet: String, db: Database) throws {
        try db.cachedStatement(sql: """
            UPDATE threads SET subject = ?, latestDate = ?, messageCount = ?, unreadCount = ?, isStarred = ?,
                participants = ?, snippet = ? WHERE id = ?
            """).execute(arguments: [
                subject, latestDate, count, unread, starred, AddressListCodec.encode(participants), snippet, threadId,
            ])
    }
}
