import CRanking
import Foundation
import GRDB

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
        let maxId = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM email_fts_docsize") ?? 0
        return Int(max(0, maxId)) + 1 + 4_096
    }
}
