import Foundation
import GRDB
import GRDBSQLite

/// Which conversation every email belongs to, held in memory so that a search can group all of
/// its matches into conversations and count them exactly without a lookup in `mail.sqlite` per
/// match. It reloads whenever `mail.thread_version` (bumped by triggers on every insert, delete
/// and re-threading of an email, by any process) differs from the version it holds.
public final class ThreadDirectory: @unchecked Sendable {
    /// One consistent copy of the assignment.
    public struct Snapshot: Sendable {
        public let version: Int64
        /// `threads[id]`: the thread of email `id`; 0 when there is no such email, and `-id` for an
        /// email without a thread (it is a conversation of its own).
        let threads: [Int64]
        /// One more than the largest thread id.
        public let threadIdLimit: Int

        /// The conversation of `emailId` (`-emailId` when it has no thread), nil for an unknown email.
        @inline(__always)
        public func thread(of emailId: Int64) -> Int64? {
            guard emailId > 0, emailId < threads.count else { return nil }
            let t = threads[Int(emailId)]
            return t == 0 ? nil : t
        }

        /// Counts the distinct conversations of `emailIds` (unknown ids are not counted).
        public func conversationCount<S: Sequence<Int64>>(of emailIds: S) -> Int {
            var seen = [UInt64](repeating: 0, count: (threadIdLimit + 63) / 64)
            var count = 0
            for id in emailIds {
                guard let t = thread(of: id) else { continue }
                if t < 0 { count += 1; continue }
                let bit: UInt64 = 1 << UInt64(t & 63)
                if seen[Int(t >> 6)] & bit == 0 {
                    seen[Int(t >> 6)] |= bit
                    count += 1
                }
            }
            return count
        }
    }

    private let lock = NSLock()
    private var cached: Snapshot?

    public init() {}

    /// The current assignment, read in `db`'s transaction (where mail.sqlite is attached as `mail`).
    public func snapshot(_ db: Database) throws -> Snapshot {
        let version = try Int64.fetchOne(db, sql: "SELECT version FROM mail.thread_version WHERE id = 1") ?? -1
        if let cached = lock.withLock({ cached }), cached.version == version { return cached }
        let maxId = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM mail.emails") ?? 0
        var threads = [Int64](repeating: 0, count: Int(maxId) + 1)
        var limit: Int64 = 0
        try RawStatementScan.forEachRow(db, sql: "SELECT id, threadId FROM mail.emails", text: nil) { row in
            let id = sqlite3_column_int64(row, 0)
            guard id > 0, id <= maxId else { return }
            if sqlite3_column_type(row, 1) == SQLITE_NULL {
                threads[Int(id)] = -id
            } else {
                let t = sqlite3_column_int64(row, 1)
                threads[Int(id)] = t
                limit = max(limit, t)
            }
        }
        let snapshot = Snapshot(version: version, threads: threads, threadIdLimit: Int(limit) + 1)
        lock.withLock { cached = snapshot }
        return snapshot
    }
}
