import Foundation
import GRDB

/// `thread_summaries`: each conversation's stored summary per backend ("extractive", or a local
/// model's), as the JSON its writer encoded, with the email ids it was computed from. Triggers
/// delete a thread's rows when an email joins it, leaves it or moves to another thread, so a row
/// that is there is a summary of the thread as it is now.
enum ThreadSummaryTable {
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE thread_summaries (
                threadId INTEGER NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
                backend TEXT NOT NULL,
                emailIds TEXT NOT NULL,
                summary TEXT NOT NULL,
                computedAt REAL NOT NULL,
                PRIMARY KEY (threadId, backend)
            ) WITHOUT ROWID;
            CREATE TRIGGER thread_summaries_email_added AFTER INSERT ON emails WHEN new.threadId IS NOT NULL
                BEGIN DELETE FROM thread_summaries WHERE threadId = new.threadId; END;
            CREATE TRIGGER thread_summaries_email_removed AFTER DELETE ON emails WHEN old.threadId IS NOT NULL
                BEGIN DELETE FROM thread_summaries WHERE threadId = old.threadId; END;
            CREATE TRIGGER thread_summaries_email_moved AFTER UPDATE OF threadId ON emails
                WHEN old.threadId IS NOT new.threadId
                BEGIN DELETE FROM thread_summaries WHERE threadId IN (old.threadId, new.threadId); END;
            """)
    }
}

/// A stored summary: the JSON its writer encoded, and the thread's emails when it was computed.
public struct StoredThreadSummary: Sendable, Hashable {
    public var threadId: Int64
    public var backend: String
    /// Ascending.
    public var emailIds: [Int64]
    public var json: Data
    public var computedAt: Date
}

/// How many conversations have a stored summary, of those long enough to get one.
public struct ThreadSummaryCounts: Sendable, Hashable, Codable {
    public var eligible: Int
    public var stored: Int

    public init(eligible: Int, stored: Int) {
        self.eligible = eligible
        self.stored = stored
    }
}

extension MailStore {
    /// The stored summary of a thread by a backend, if its emails are still `emailIds` (ascending);
    /// nil when there is none or it was computed from other emails.
    public func storedThreadSummary(threadId: Int64, backend: String, emailIds: [Int64]) throws -> StoredThreadSummary? {
        try database.read { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT emailIds, summary, computedAt FROM thread_summaries WHERE threadId = ? AND backend = ?
                """, arguments: [threadId, backend]) else { return nil }
            let ids = Self.decodeIds(row["emailIds"])
            guard ids == emailIds else { return nil }
            return StoredThreadSummary(threadId: threadId, backend: backend, emailIds: ids, json: Data((row["summary"] as String).utf8),
                                       computedAt: Date(timeIntervalSince1970: row["computedAt"]))
        }
    }

    /// Stores a summary of a thread computed from `emailIds`, unless the thread's emails changed
    /// meanwhile (then nothing is stored: the summary would describe another conversation).
    /// Returns whether it was stored.
    @discardableResult
    public func storeThreadSummary(threadId: Int64, backend: String, emailIds: [Int64], json: Data, at date: Date = Date()) throws -> Bool {
        try database.write { db in
            let now = try Int64.fetchAll(db, sql: "SELECT id FROM emails WHERE threadId = ? ORDER BY id", arguments: [threadId])
            guard now == emailIds.sorted() else { return false }
            try db.execute(sql: """
                INSERT OR REPLACE INTO thread_summaries (threadId, backend, emailIds, summary, computedAt) VALUES (?, ?, ?, ?, ?)
                """, arguments: [threadId, backend, Self.encodeIds(now), String(decoding: json, as: UTF8.self), date.timeIntervalSince1970])
            return true
        }
    }

    /// Threads of at least `minimumMessages` messages without a stored summary by `backend`,
    /// newest first, at most `limit`.
    public func threadsWithoutSummary(backend: String, minimumMessages: Int, limit: Int) throws -> [Int64] {
        try database.read { db in
            try Int64.fetchAll(db, sql: """
                SELECT t.id FROM threads t
                WHERE t.messageCount >= ? AND NOT EXISTS
                    (SELECT 1 FROM thread_summaries s WHERE s.threadId = t.id AND s.backend = ?)
                ORDER BY t.latestDate IS NULL, t.latestDate DESC, t.id DESC LIMIT ?
                """, arguments: [minimumMessages, backend, limit])
        }
    }

    public func threadSummaryCounts(backend: String, minimumMessages: Int) throws -> ThreadSummaryCounts {
        try database.read { db in
            let eligible = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM threads WHERE messageCount >= ?", arguments: [minimumMessages]) ?? 0
            let stored = try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM thread_summaries s JOIN threads t ON t.id = s.threadId
                WHERE s.backend = ? AND t.messageCount >= ?
                """, arguments: [backend, minimumMessages]) ?? 0
            return ThreadSummaryCounts(eligible: eligible, stored: stored)
        }
    }

    /// Forgets every stored summary of a backend (the embedding model changed, say).
    public func deleteThreadSummaries(backend: String) throws {
        try database.write { db in try db.execute(sql: "DELETE FROM thread_summaries WHERE backend = ?", arguments: [backend]) }
    }

    static func encodeIds(_ ids: [Int64]) -> String { ids.map(String.init).joined(separator: ",") }

    static func decodeIds(_ text: String) -> [Int64] { text.split(separator: ",").compactMap { Int64($0) } }
}
