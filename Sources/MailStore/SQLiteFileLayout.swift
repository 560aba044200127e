import GRDB

/// How a new database file of ours is laid out, and how often its write-ahead log is folded back.
///
/// Pages of 16 KB instead of SQLite's 4 KB: an import of Enron (44,715 emails) into 4 KB pages made
/// about 200,000 reads and as many writes of a page, each a system call, a tenth of its CPU time;
/// 16 KB pages take a quarter as many calls (import CPU 13.6–14.7 → 12.5–12.8 s, wall 7.6–8.3 →
/// 7.1 s on a 2-core host; keyword searches and one-shot searches as fast: docs/benchmarks.md). A
/// file keeps the page size it was made with: an existing 4 KB file stays as it is (the pragma does
/// nothing on a WAL file).
///
/// Checkpoint intervals are counts of pages, so they are given here in bytes and turned into pages
/// of the file at hand: a 16 KB file checkpoints after the same amount of log as a 4 KB one.
public enum SQLiteFileLayout {
    public static let pageSize = 16_384

    /// Sets the page size of a file not yet written; before WAL mode is set (GRDB's
    /// `prepareDatabase` runs first). Nothing on an existing file.
    public static func prepareNewFile(_ db: Database) throws {
        try db.execute(sql: "PRAGMA page_size = \(pageSize)")
    }

    /// `PRAGMA wal_autocheckpoint` for a log of `bytes`, in pages of this connection's main file.
    public static func setCheckpointInterval(_ db: Database, bytes: Int) throws {
        try db.execute(sql: "PRAGMA wal_autocheckpoint = \(try pages(db, bytes: bytes))")
    }

    /// `bytes` in pages of this connection's main file (at least 1).
    public static func pages(_ db: Database, bytes: Int) throws -> Int {
        pages(bytes: bytes, pageSize: try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4_096)
    }

    /// `bytes` in pages of `pageSize` bytes (at least 1).
    public static func pages(bytes: Int, pageSize: Int) -> Int {
        max(1, bytes / max(pageSize, 512))
    }
}
