import GRDB
import GRDBSQLite
import XCTest

/// SQLite's memory statistics are off in every process that links the index (CRanking's
/// `ms_sqlite_setup`, run when the program is loaded): with them on, every allocation SQLite makes
/// takes one process-wide mutex, on which an import's two writer threads queued.
final class SQLiteSetupTests: XCTestCase {
    func testMemoryStatisticsAreOff() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t(x TEXT)")
            for i in 0..<1_000 { try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [String(repeating: "x", count: i)]) }
        }
        // Counted only with the statistics on: a connection and a thousand rows allocate well
        // over zero bytes.
        XCTAssertEqual(sqlite3_memory_used(), 0, "SQLite counts its allocations (SQLITE_CONFIG_MEMSTATUS is on)")
        XCTAssertEqual(sqlite3_memory_highwater(0), 0)
    }
}
