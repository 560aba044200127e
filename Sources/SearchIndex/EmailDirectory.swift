import Foundation
import GRDB
import GRDBSQLite
import MailModel

/// What a search needs to know of every email — its conversation, date and flags — held in memory,
/// so that a search can group and count all of its matches and apply date and flag filters without
/// a lookup in `mail.sqlite` per email. It is read in one scan of the `emails_directory` index and
/// read again whenever `mail.email_directory_version` (bumped by triggers on every insert, delete
/// and change of those columns, by any process) differs from the version it holds.
public final class EmailDirectory: @unchecked Sendable {
    /// One consistent copy, indexed by email id.
    public struct Snapshot: Sendable {
        public let version: Int64
        /// `threads[id]`: the conversation of email `id`; 0 when there is no such email, `-id` for
        /// an email without a thread (a conversation of its own).
        let threads: [Int64]
        /// `dates[id]`: the sort date (Unix seconds), NaN when unknown.
        let dates: [Double]
        /// `flags[id]`: read, starred, has an attachment, and the category (`Flags`).
        let flags: [UInt16]
        /// One more than the largest thread id.
        public let threadIdLimit: Int

        struct Flags {
            static let read: UInt16 = 1, starred: UInt16 = 2, attachment: UInt16 = 4
            static let categoryShift: UInt16 = 8
            static func category(_ c: AICategory) -> UInt16 {
                UInt16(AICategory.allCases.firstIndex(of: c) ?? 0) + 1
            }
        }

        /// Every email id in the directory.
        public var emailIds: some Sequence<Int64> {
            threads.indices.lazy.filter { self.threads[$0] != 0 }.map { Int64($0) }
        }

        /// The conversation of `emailId` (`-emailId` when it has no thread), nil for an unknown email.
        @inline(__always)
        public func thread(of emailId: Int64) -> Int64? {
            guard emailId > 0, emailId < threads.count else { return nil }
            let t = threads[Int(emailId)]
            return t == 0 ? nil : t
        }

        /// Whether the snapshot holds every email's date and flags, not only its thread
        /// (`OneShotIndex` reads only the threads: a search without filters needs no more).
        public var hasDatesAndFlags: Bool { dates.count == threads.count }

        /// The sort date of `emailId` (Unix seconds), nil when unknown (or not in the snapshot).
        public func date(of emailId: Int64) -> Double? {
            guard thread(of: emailId) != nil, hasDatesAndFlags else { return nil }
            let d = dates[Int(emailId)]
            return d.isNaN ? nil : d
        }

        /// Counts the distinct conversations of the emails of `hits` and `emailIds` together (unknown
        /// ids are not counted). Not generic, so that a one-shot process does not instantiate the
        /// generic version's metadata at run time.
        public func conversationCount(ofHits hits: [KeywordHit], and emailIds: [Int64]) -> Int {
            var counter = ConversationCounter(threadIdLimit: threadIdLimit)
            for hit in hits { counter.add(thread(of: hit.emailId)) }
            for id in emailIds { counter.add(thread(of: id)) }
            return counter.count
        }

        /// Counts the distinct conversations of `emailIds` (unknown ids are not counted).
        public func conversationCount<S: Sequence<Int64>>(of emailIds: S) -> Int {
            var counter = ConversationCounter(threadIdLimit: threadIdLimit)
            for id in emailIds { counter.add(thread(of: id)) }
            return counter.count
        }

        /// Distinct conversations, one bit each (a thread id below 0 is an email's own).
        private struct ConversationCounter {
            var seen: [UInt64]
            var count = 0
            init(threadIdLimit: Int) { seen = [UInt64](repeating: 0, count: (threadIdLimit + 63) / 64) }
            @inline(__always)
            mutating func add(_ thread: Int64?) {
                guard let t = thread else { return }
                if t < 0 { count += 1; return }
                let bit: UInt64 = 1 << UInt64(t & 63)
                if seen[Int(t >> 6)] & bit == 0 {
                    seen[Int(t >> 6)] |= bit
                    count += 1
                }
            }
        }

        /// Whether `emailId` passes the date and flag filters of `filters` (the others are not looked at).
        /// Needs `hasDatesAndFlags` unless `test` is empty.
        @inline(__always)
        func passes(_ emailId: Int64, _ test: DirectoryFilter) -> Bool {
            guard emailId > 0, emailId < threads.count, threads[Int(emailId)] != 0 else { return false }
            if test.isEmpty { return true }
            precondition(hasDatesAndFlags, "a directory of threads alone cannot filter by date or flag")
            let i = Int(emailId)
            if test.hasDates {
                let d = dates[i]
                if d.isNaN || d < test.start || d >= test.end { return false }
            }
            return flags[i] & test.mask == test.expected
        }
    }

    /// The date and flag filters of a search, as a test on a snapshot's columns.
    struct DirectoryFilter {
        var hasDates = false
        var start = -Double.infinity, end = Double.infinity
        var mask: UInt16 = 0, expected: UInt16 = 0

        /// No date or flag filter: every email of the directory passes.
        init() {}

        /// Takes the date and flag filters out of `filters` (leaving the rest for SQL).
        init(taking filters: inout SearchFilters) {
            if let range = filters.dateRange {
                hasDates = true
                if let s = range.start { start = s.timeIntervalSince1970 }
                if let e = range.end { end = e.timeIntervalSince1970 }
                filters.dateRange = nil
            }
            func flag(_ value: Bool?, _ bit: UInt16) {
                guard let value else { return }
                mask |= bit
                if value { expected |= bit }
            }
            flag(filters.isRead, Snapshot.Flags.read); filters.isRead = nil
            flag(filters.isStarred, Snapshot.Flags.starred); filters.isStarred = nil
            flag(filters.hasAttachment, Snapshot.Flags.attachment); filters.hasAttachment = nil
            if let category = filters.category {
                mask |= 0xFF << Snapshot.Flags.categoryShift
                expected |= Snapshot.Flags.category(category) << Snapshot.Flags.categoryShift
                filters.category = nil
            }
        }

        var isEmpty: Bool { !hasDates && mask == 0 }
    }

    private let lock = NSLock()
    private var cached: Snapshot?

    public init() {}

    /// The version of the emails' threads, dates and flags in `db`'s transaction: it changes with
    /// every insert, delete, and change of those columns, whichever process made it.
    public static func version(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT version FROM mail.email_directory_version WHERE id = 1")) ?? -1
    }

    /// The current directory, read in `db`'s transaction (where mail.sqlite is attached as `mail`):
    /// from memory when current, else from the copy kept in `search.sqlite` (`directory_cache`)
    /// when that belongs to the same mail version, else by a scan of the mail (and then that copy
    /// is due: `pendingCopy`).
    public func snapshot(_ db: Database) throws -> Snapshot {
        let version = try Self.version(db)
        if let cached = lock.withLock({ cached }), cached.version == version { return cached }
        let maxId = Int(try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM mail.emails") ?? 0)
        if let stored = try Self.storedCopy(db, version: version, maxId: maxId) {
            lock.withLock { cached = stored }
            return stored
        }
        let snapshot = try Self.scan(db, version: version, maxId: maxId)
        lock.withLock {
            cached = snapshot
            pending = snapshot
        }
        return snapshot
    }

    private var pending: Snapshot?

    /// A snapshot read from the mail that `search.sqlite` does not hold yet (taken once).
    func takePendingCopy() -> Snapshot? {
        lock.withLock {
            defer { pending = nil }
            return pending
        }
    }

    /// Keeps `snapshot` in `search.sqlite` for the next process (a one-shot search then reads
    /// 18 bytes an email instead of scanning the mail).
    static func storeCopy(_ snapshot: Snapshot, db: Database) throws {
        var data = Data(capacity: snapshot.threads.count * 18)
        snapshot.threads.withUnsafeBytes { data.append(contentsOf: $0) }
        snapshot.dates.withUnsafeBytes { data.append(contentsOf: $0) }
        snapshot.flags.withUnsafeBytes { data.append(contentsOf: $0) }
        try db.execute(sql: """
            INSERT OR REPLACE INTO directory_cache (id, version, maxId, threadIdLimit, data) VALUES (1, ?, ?, ?, ?)
            """, arguments: [snapshot.version, snapshot.threads.count - 1, snapshot.threadIdLimit, data])
    }

    private static func storedCopy(_ db: Database, version: Int64, maxId: Int) throws -> Snapshot? {
        var snapshot: Snapshot?
        try RawStatementScan.forEachRow(db, sql: """
            SELECT threadIdLimit, data FROM directory_cache WHERE id = 1 AND version = ? AND maxId = ?
            """, text: nil, integers: [version, Int64(maxId)]) { row in
            // The blob is read in place (SQLite's own buffer) into the three arrays: no copy of it
            // as `Data` and no zeroing of arrays about to be overwritten (18 bytes an email).
            let count = maxId + 1
            guard sqlite3_column_type(row, 1) == SQLITE_BLOB, let blob = sqlite3_column_blob(row, 1),
                  Int(sqlite3_column_bytes(row, 1)) == count * 18 else { return }
            snapshot = Self.snapshot(version: version, maxId: maxId, threadIdLimit: Int(sqlite3_column_int64(row, 0)),
                                     threadsOnly: false) { buffer, offset in
                buffer.copyMemory(from: UnsafeRawBufferPointer(start: blob + offset, count: buffer.count))
                return true
            }
        }
        return snapshot
    }

    /// The snapshot of `maxId` emails whose columns `read(buffer, offset)` copies from the stored
    /// blob (`storeCopy`'s layout) into each buffer — the threads alone when `threadsOnly` (then
    /// `hasDatesAndFlags` is false); nil when a read fails.
    static func snapshot(version: Int64, maxId: Int, threadIdLimit: Int, threadsOnly: Bool,
                         read: (UnsafeMutableRawBufferPointer, Int) -> Bool) -> Snapshot? {
        let count = maxId + 1
        var ok = true
        func column<T>(_ type: T.Type, at offset: Int) -> [T] {
            if threadsOnly && offset > 0 { return [] }
            return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
                if ok, read(UnsafeMutableRawBufferPointer(buffer), offset) {
                    initialized = count
                } else {
                    ok = false
                    initialized = 0
                }
            }
        }
        let threads = column(Int64.self, at: 0), dates = column(Double.self, at: count * 8)
        let flags = column(UInt16.self, at: count * 16)
        guard ok else { return nil }
        return Snapshot(version: version, threads: threads, dates: dates, flags: flags, threadIdLimit: threadIdLimit)
    }

    private static func scan(_ db: Database, version: Int64, maxId: Int) throws -> Snapshot {
        var threads = [Int64](repeating: 0, count: maxId + 1)
        var dates = [Double](repeating: .nan, count: maxId + 1)
        var flags = [UInt16](repeating: 0, count: maxId + 1)
        let categoryNames = AICategory.allCases.map { (Array($0.rawValue.utf8CString), Snapshot.Flags.category($0)) }
        var limit: Int64 = 0
        try RawStatementScan.forEachRow(db, sql: """
            SELECT id, threadId, sortDate, isRead, isStarred, hasAttachment, category
            FROM mail.emails INDEXED BY emails_directory
            """, text: nil) { row in
            let id = Int(sqlite3_column_int64(row, 0))
            guard id > 0, id <= maxId else { return }
            if sqlite3_column_type(row, 1) == SQLITE_NULL {
                threads[id] = -Int64(id)
            } else {
                let t = sqlite3_column_int64(row, 1)
                threads[id] = t
                limit = max(limit, t)
            }
            if sqlite3_column_type(row, 2) != SQLITE_NULL { dates[id] = sqlite3_column_double(row, 2) }
            var f: UInt16 = 0
            if sqlite3_column_int(row, 3) != 0 { f |= Snapshot.Flags.read }
            if sqlite3_column_int(row, 4) != 0 { f |= Snapshot.Flags.starred }
            if sqlite3_column_int(row, 5) != 0 { f |= Snapshot.Flags.attachment }
            if let text = sqlite3_column_text(row, 6) {
                // Compared in place: making a String per email would cost more than the rest of the load.
                let name = UnsafeRawPointer(text).assumingMemoryBound(to: CChar.self)
                for (bytes, code) in categoryNames where strcmp(name, bytes) == 0 {
                    f |= code << Snapshot.Flags.categoryShift
                    break
                }
            }
            flags[id] = f
        }
        return Snapshot(version: version, threads: threads, dates: dates, flags: flags, threadIdLimit: Int(limit) + 1)
    }
}
