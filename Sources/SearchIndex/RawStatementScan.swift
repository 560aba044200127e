import CRanking
import Foundation
import GRDB
import GRDBSQLite

/// Whole-result scans that read columns straight from SQLite, for the few queries that return
/// every match of a search (tens of thousands of rows, where GRDB's `Row` would cost more than
/// the query), and the `ms_email_in(rowid, set)` SQL function that tests a row against an
/// `EmailIdSet` bound as a pointer (SQLite's pointer-passing interface), so that FTS5 computes
/// BM25 only for the matches that pass the filters.
enum RawStatementScan {
    /// The pointer type name `ms_email_in` accepts; static, as SQLite requires.
    private static let pointerType: StaticString = "mailsearch.EmailIdSet"

    private static var pointerTypeName: UnsafePointer<CChar> {
        UnsafeRawPointer(pointerType.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    /// The pointer type name `ms_bm25` accepts for its row lengths (MS_DOC_LENGTHS_TYPE in CRanking.h).
    private static let lengthsType: StaticString = "mailsearch.DocLengths"

    /// What `ms_email_in` reads: the words of an `EmailIdSet`.
    private struct Bits {
        var words: UnsafePointer<UInt64>?
        var count: Int
    }

    /// Registers `ms_email_in(rowid, set)` on a connection.
    static func registerFunctions(_ db: Database) throws {
        let code = registerFunctions(db.sqliteConnection!)
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "cannot register ms_email_in")
        }
    }

    /// Registers `ms_email_in(rowid, set)` on a connection; SQLite's result code.
    static func registerFunctions(_ connection: OpaquePointer) -> Int32 {
        sqlite3_create_function_v2(
            connection, "ms_email_in", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
            { context, _, argv in
                guard let argv, let raw = sqlite3_value_pointer(argv[1], RawStatementScan.pointerTypeName) else {
                    sqlite3_result_int(context, 0)
                    return
                }
                let bits = raw.assumingMemoryBound(to: Bits.self).pointee
                let id = sqlite3_value_int64(argv[0])
                let word = Int(id >> 6)
                let member = id >= 0 && word < bits.count && bits.words![word] & (1 << UInt64(id & 63)) != 0
                sqlite3_result_int(context, member ? 1 : 0)
            }, nil, nil, nil)
    }

    /// Binds `set` to parameter `index` of `handle` as the pointer `ms_email_in` reads, for the
    /// duration of `body`.
    static func binding<T>(_ set: EmailIdSet, to handle: OpaquePointer, at index: Int32, _ body: () throws -> T) rethrows -> T {
        try set.words.withUnsafeBufferPointer { words in
            var bits = Bits(words: words.baseAddress, count: words.count)
            return try withUnsafeMutablePointer(to: &bits) { pointer in
                sqlite3_bind_pointer(handle, index, pointer, pointerTypeName, nil)
                return try body()
            }
        }
    }

    /// Runs `sql` with `arguments` (bound by GRDB) and calls `row` for every result row.
    static func forEachRow(_ db: Database, sql: String, arguments: StatementArguments,
                           row: (OpaquePointer) throws -> Void) throws {
        let statement = try db.cachedStatement(sql: sql)
        try statement.setArguments(arguments)
        defer { sqlite3_reset(statement.sqliteStatement) }
        try step(statement.sqliteStatement, db: db, sql: sql, row: row)
    }

    /// Runs `sql` with its parameters bound in order: `text` (when given), then `integers`, then
    /// `lengths`, `deferred` and `set` as pointers (each when given); calls `row` for every result row.
    static func forEachRow(_ db: Database, sql: String, text: String?, integers: [Int64] = [],
                           lengths: DocumentLengths? = nil, deferred: UnsafeMutablePointer<ms_bm25_deferred>? = nil,
                           set: EmailIdSet? = nil, row: (OpaquePointer) throws -> Void) throws {
        let statement = try db.cachedStatement(sql: sql)
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        var index: Int32 = 1
        if let text {
            let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
            sqlite3_bind_text(handle, index, text, -1, transient)
            index += 1
        }
        for value in integers {
            sqlite3_bind_int64(handle, index, value)
            index += 1
        }
        if let lengths {
            // The table outlives the statement: `lengths` is held until this call returns.
            let type = UnsafeRawPointer(lengthsType.utf8Start).assumingMemoryBound(to: CChar.self)
            sqlite3_bind_pointer(handle, index, lengths.table, type, nil)
            index += 1
        }
        if let deferred {
            sqlite3_bind_pointer(handle, index, deferred, MS_BM25_DEFERRED_TYPE, nil)
            index += 1
        }
        guard let set else { return try step(handle, db: db, sql: sql, row: row) }
        try binding(set, to: handle, at: index) { try step(handle, db: db, sql: sql, row: row) }
    }

    private static func step(_ handle: OpaquePointer, db: Database, sql: String, row: (OpaquePointer) throws -> Void) throws {
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code),
                                    message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
            }
            try row(handle)
        }
    }
}
