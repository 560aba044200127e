import CRanking
import Foundation
import GRDB
import GRDBSQLite

/// Every indexed email's length in tokens, in memory, for `ms_bm25` (FTS5's BM25 formula with
/// the row length read from here rather than from `email_fts_docsize`, one B-tree lookup per
/// ranked row otherwise). Slots fill as rows are ranked. A table belongs to one version of the
/// index (`index_meta.fts_version`, bumped by every write of `FTS5Manager`), so a length is
/// never stale: when the index changes, the next search starts a new table.
final class DocumentLengths: @unchecked Sendable {
    let version: Int64
    /// Shared with the C ranker; its slots are read and written atomically there.
    let table: UnsafeMutablePointer<ms_doc_lengths>

    init(version: Int64, capacity: Int) {
        self.version = version
        let slots = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity)
        slots.initialize(repeating: 0, count: capacity)
        table = .allocate(capacity: 1)
        table.initialize(to: ms_doc_lengths(slots: slots, count: Int64(capacity)))
    }

    deinit {
        table.pointee.slots.deallocate()
        table.deallocate()
    }

    /// A table whose first `storedBytes / 4` slots `read` fills (with the stored lengths, in
    /// memory order), the rest 0; nil when `read` fails.
    init?(version: Int64, storedBytes: Int, capacity: Int, read: (UnsafeMutableRawBufferPointer) -> Bool) {
        let stored = storedBytes / MemoryLayout<UInt32>.stride
        let count = max(capacity, stored)
        let slots = UnsafeMutablePointer<UInt32>.allocate(capacity: count)
        guard read(UnsafeMutableRawBufferPointer(start: slots, count: stored * MemoryLayout<UInt32>.stride)) else {
            slots.deallocate()
            return nil
        }
        (slots + stored).initialize(repeating: 0, count: count - stored)
        self.version = version
        table = .allocate(capacity: 1)
        table.initialize(to: ms_doc_lengths(slots: slots, count: Int64(count)))
    }

    /// The copy of every row's length kept in `length_cache` for this index version, as a full
    /// table; nil when the copy is missing or of another version.
    static func storedCopy(_ db: Database, version: Int64, capacity: Int) throws -> DocumentLengths? {
        // Read in place (SQLite's buffer), not copied into a `Data` first.
        var table: DocumentLengths?
        try RawStatementScan.forEachRow(db, sql: "SELECT data FROM length_cache WHERE id = 1 AND version = ?",
                                        text: nil, integers: [version]) { row in
            guard sqlite3_column_type(row, 0) != SQLITE_NULL else { return }
            let blob = sqlite3_column_blob(row, 0)
            let bytes = blob == nil ? 0 : Int(sqlite3_column_bytes(row, 0))
            table = DocumentLengths(version: version, storedBytes: bytes, capacity: capacity) { slots in
                if let blob, slots.count > 0 { slots.copyMemory(from: UnsafeRawBufferPointer(start: blob, count: slots.count)) }
                return true
            }
        }
        return table
    }

    /// Writes the copy for the index as `db`'s write transaction sees it: every row of
    /// `email_fts_docsize` (its column sizes but the attachments', summed, as `ms_bm25` reads them), stored as
    /// length + 1 by rowid (0: no such row). One scan, once per index version, so that a
    /// one-shot search ranks from memory instead of looking up each match's length.
    static func storeCopy(_ db: Database) throws {
        let version = try Self.version(db)
        if try Int64.fetchOne(db, sql: "SELECT version FROM length_cache WHERE id = 1") == version { return }
        var slots = [UInt32](repeating: 0, count: try rowidLimit(db))
        try RawStatementScan.forEachRow(db, sql: "SELECT id, sz FROM email_fts_docsize", text: nil) { row in
            let id = Int(sqlite3_column_int64(row, 0))
            guard id >= 0, id < slots.count, let blob = sqlite3_column_blob(row, 1) else { return }
            let bytes = UnsafeRawBufferPointer(start: blob, count: Int(sqlite3_column_bytes(row, 1)))
            slots[id] = UInt32(clamping: rowLength(bytes) + 1)
        }
        let data = slots.withUnsafeBytes { Data($0) }
        try db.execute(sql: "INSERT OR REPLACE INTO length_cache (id, version, data) VALUES (1, ?, ?)",
                       arguments: [version, data])
    }

    /// The row length `ms_bm25` reads: the sum of the SQLite varints in `bytes` (FTS5's encoding
    /// of a row's column sizes) but the last MS_BM25_UNCOUNTED_COLUMNS (the attachments).
    static func rowLength(_ bytes: UnsafeRawBufferPointer) -> Int {
        var sizes: [Int] = []
        sizes.reserveCapacity(8)
        forEachVarint(bytes) { sizes.append($0) }
        return sizes.dropLast(Int(MS_BM25_UNCOUNTED_COLUMNS)).reduce(0, +)
    }

    /// The sum of the SQLite varints in `bytes` (FTS5's encoding of a row's column sizes).
    static func sumOfVarints(_ bytes: UnsafeRawBufferPointer) -> Int {
        var total = 0
        forEachVarint(bytes) { total += $0 }
        return total
    }

    private static func forEachVarint(_ bytes: UnsafeRawBufferPointer, _ body: (Int) -> Void) {
        var i = 0
        while i < bytes.count {
            var value = 0
            var n = 0
            while i < bytes.count {
                let b = bytes[i]
                i += 1
                n += 1
                if n == 9 {
                    value = (value << 8) | Int(b)
                    break
                }
                value = (value << 7) | Int(b & 0x7F)
                if b & 0x80 == 0 { break }
            }
            body(value)
        }
    }

    /// The index version as of `db`'s transaction.
    static func version(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT value FROM index_meta WHERE key = 'fts_version'")) ?? 0
    }

    /// Marks the index changed; every FTS5 write calls it in its transaction.
    static func bumpVersion(_ db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO index_meta (key, value) VALUES ('fts_version', 1)
            ON CONFLICT (key) DO UPDATE SET value = value + 1
            """).execute()
    }

    /// Room for every rowid of the index as of `db`, and some to grow into.
    static func capacity(_ db: Database) throws -> Int {
        try rowidLimit(db) + 4_096
    }

    /// One more than the largest rowid of the index.
    static func rowidLimit(_ db: Database) throws -> Int {
        let maxId = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM email_fts_docsize") ?? 0
        return Int(max(0, maxId)) + 1
    }
}
