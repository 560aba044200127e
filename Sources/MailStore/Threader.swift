import Foundation
import GRDB
import MailModel

/// Incremental threading, spec 001 §5.2.4.
///
/// Threads are the connected components of the Message-ID graph. The table `message_ids`
/// maps every Message-ID seen so far (a message's own, and every id it references) to a
/// thread. A new message joins the thread of any id it shares; when its ids belong to
/// several threads, those threads are merged into the oldest (smallest id), so a late
/// message that links two conversations joins them, whatever the arrival order.
///
/// Messages with neither References nor In-Reply-To fall back to the subject: the thread
/// of the message in the same account with the same normalised subject whose date is
/// nearest, within 30 days. Subject matches never merge two threads, so two messages
/// more than 30 days apart are never joined by subject alone.
struct Threader {
    static let subjectWindow: TimeInterval = 30 * 24 * 3600

    let db: Database
    let accountId: Int64
    private(set) var dirty: Set<Int64> = []
    private(set) var merged: Set<Int64> = []

    init(db: Database, accountId: Int64) {
        self.db = db
        self.accountId = accountId
    }

    mutating func assign(_ email: Email, normalizedSubject: String) throws -> Int64 {
        var ids: [String] = [email.messageId]
        if let parent = email.inReplyTo, !parent.isEmpty { ids.append(parent) }
        ids.append(contentsOf: email.references)
        var unique: [String] = []
        var seen = Set<String>()
        for id in ids where !id.isEmpty && seen.insert(id).inserted { unique.append(id) }

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
        } else if let bySubject = try subjectMatch(email, normalizedSubject: normalizedSubject) {
            threadId = bySubject
        } else {
            try db.cachedStatement(sql: "INSERT INTO threads (accountId) VALUES (?)").execute(arguments: [accountId])
            threadId = db.lastInsertedRowID
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

    private func subjectMatch(_ email: Email, normalizedSubject: String) throws -> Int64? {
        guard email.references.isEmpty, email.inReplyTo?.isEmpty ?? true, !normalizedSubject.isEmpty,
              let date = email.date?.timeIntervalSince1970 else { return nil }
        return try Int64.fetchOne(
            db.cachedStatement(sql: """
                SELECT threadId FROM emails
                WHERE accountId = ? AND normalizedSubject = ? AND sortDate BETWEEN ? AND ? AND threadId IS NOT NULL
                ORDER BY ABS(sortDate - ?), id LIMIT 1
                """),
            arguments: [accountId, normalizedSubject, date - Self.subjectWindow, date + Self.subjectWindow, date])
    }

    private mutating func merge(_ source: Int64, into target: Int64) throws {
        try db.cachedStatement(sql: "UPDATE emails SET threadId = ? WHERE threadId = ?").execute(arguments: [target, source])
        try db.cachedStatement(sql: "UPDATE message_ids SET threadId = ? WHERE threadId = ?").execute(arguments: [target, source])
        try db.cachedStatement(sql: "DELETE FROM threads WHERE id = ?").execute(arguments: [source])
        dirty.remove(source)
        merged.insert(source)
        dirty.insert(target)
    }
}

/// Thread metadata, spec 001 §5.2.4 step 5.
enum ThreadMetadata {
    static func recompute(threadIds: Set<Int64>, db: Database) throws {
        for threadId in threadIds.sorted() {
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT subject, fromName, fromEmail, snippet, sortDate, isRead, isStarred FROM emails
                    WHERE threadId = ? ORDER BY sortDate IS NULL, sortDate, id
                    """),
                arguments: [threadId])
            if rows.isEmpty {
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
            try db.cachedStatement(sql: """
                UPDATE threads SET subject = ?, latestDate = ?, messageCount = ?, unreadCount = ?, isStarred = ?,
                    participants = ?, snippet = ? WHERE id = ?
                """).execute(arguments: [
                    rows[0]["subject"] as String, latest, rows.count, unread, starred,
                    AddressListCodec.encode(participants), latestSnippet, threadId,
                ])
        }
    }
}
