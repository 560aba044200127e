import CRanking
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import GRDBSQLite
import MailModel
import MailStore

/// The index as a one-shot keyword search reads it: one SQLite connection opened with the C API
/// (no GRDB set-up, no pool, no threads), `search.sqlite` memory-mapped with `mail.sqlite` attached
/// read-only, in one read transaction, and the row lengths and email directory taken from the
/// copies an earlier process left in `search.sqlite`.
///
/// It only reads. `open` returns nil whenever the regular path would have work to do first — a
/// missing or outdated index, an index not yet checked against this version of the mail, a mail
/// schema this version would migrate, a stale or missing copy of the row lengths or the directory
/// — and whenever anything fails: the caller then runs the regular search, which does that work
/// (and leaves fresh copies for the next process) and reports errors in its own words. So a search
/// through here sees exactly the data, ranks exactly the rows and counts exactly the matches the
/// regular path would.
public final class OneShotIndex {
    let db: OpaquePointer
    /// The email directory of the mail as this read transaction sees it: each email's thread
    /// (no dates or flags: a search without filters needs no more).
    public let directory: EmailDirectory.Snapshot
    let lengths: DocumentLengths

    /// Opens the index of the data directory at `path`, or returns nil (see the type's comment).
    /// - Parameter migrations: the identifiers of every migration of mail.sqlite this version knows.
    public static func open(dataDirectory path: String, migrations: [String]) -> OneShotIndex? {
        let searchPath = path + "/search.sqlite"
        let mailPath = path + "/mail.sqlite"
        // Both files must exist: the regular path creates or rebuilds what is missing.
        guard access(searchPath, R_OK | W_OK) == 0, access(mailPath, R_OK) == 0 else { return nil }
        var handle: OpaquePointer?
        // One thread uses the connection: no mutex.
        guard sqlite3_open_v2(searchPath, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
              let db = handle else {
            sqlite3_close(handle)
            return nil
        }
        // From here on the connection is left open on every path, as the regular one-shot path
        // leaves its own: the process ends right after the search.
        sqlite3_busy_timeout(db, 30_000)
        // Both files memory-mapped: a one-shot process reads a page in place rather than into a
        // page cache of its own (unlike SearchDatabase, which maps only the index: a long-running
        // process would count every mapped page of the mail it ever read).
        guard execute(db, "PRAGMA main.mmap_size = \(SearchDatabase.mapSize)"),
              execute(db, "ATTACH DATABASE '\(escaped(SearchDatabase.readOnlyURI(mailPath)))' AS mail"),
              execute(db, "PRAGMA mail.mmap_size = \(SearchDatabase.mapSize)"),
              // Mapped pages bypass the page cache; a small one is enough for the rest, and SQLite
              // lays out (touches) a cache's first pages in one go.
              execute(db, "PRAGMA main.cache_size = 16"), execute(db, "PRAGMA mail.cache_size = 16"),
              ms_register_fts5(db) == SQLITE_OK, RawStatementScan.registerFunctions(db) == SQLITE_OK,
              execute(db, "BEGIN") else { return nil }
        // What the regular path checks and reads first, in one statement (a table missing from
        // either file fails it): the schema as SearchDatabase checks it (every table, the FTS5
        // table with its prefix index and tokenizer); a current mail schema (MailStore would otherwise migrate
        // it, or refuse a read-only open); SearchIndexManager's reconcile check (the index was last
        // found complete at this mail version); the index version the row lengths belong to, and
        // the stored copies of this index and mail version.
        let names = quotedList(SearchDatabase.tables), identifiers = quotedList(migrations)
        let mailVersion = "(SELECT version FROM mail.email_directory_version WHERE id = 1)"
        let ftsVersion = "COALESCE((SELECT value FROM index_meta WHERE key = 'fts_version'), 0)"
        let maxIdSQL = "COALESCE((SELECT MAX(id) FROM mail.emails), 0)"
        let directoryRow = "FROM directory_cache WHERE id = 1 AND version = \(mailVersion) AND maxId = \(maxIdSQL) AND typeof(data) = 'blob'"
        var state: [Int64?] = []
        forEachRow(db, """
            SELECT (SELECT COUNT(*) FROM main.sqlite_master WHERE type = 'table' AND name IN (\(names))),
                   (SELECT instr(sql, 'prefix=') > 0 AND instr(sql, '\(escaped(SearchDatabase.tokenizerMark))') > 0
                           AND instr(sql, '\(SearchDatabase.attachmentsMark)') > 0 FROM main.sqlite_master WHERE name = 'email_fts'),
                   (SELECT COUNT(DISTINCT identifier) FROM mail.grdb_migrations WHERE identifier IN (\(identifiers))),
                   \(mailVersion), (SELECT value FROM index_meta WHERE key = 'checked_mail_version'), \(ftsVersion),
                   (SELECT MAX(id) FROM email_fts_docsize), \(maxIdSQL),
                   (SELECT length(data) FROM length_cache WHERE id = 1 AND version = \(ftsVersion) AND typeof(data) = 'blob'),
                   (SELECT threadIdLimit \(directoryRow)), (SELECT length(data) \(directoryRow))
            """) { row in
            state = (0..<11).map { sqlite3_column_type(row, $0) == SQLITE_NULL ? nil : sqlite3_column_int64(row, $0) }
        }
        guard state.count == 11, state[0] == Int64(SearchDatabase.tables.count), state[1] == 1,
              state[2] == Int64(migrations.count), let version = state[3], state[4] == version,
              let ftsVersionValue = state[5], let maxIdValue = state[7] else { return nil }
        let capacity = Int(max(0, state[6] ?? 0)) + 1 + 4_096
        let maxId = Int(maxIdValue)
        // Both copies are read straight into their tables (`sqlite3_blob_read`), not through a
        // buffer of SQLite's of the whole blob.
        var lengths: DocumentLengths?
        if let bytes = state[8] {
            lengths = DocumentLengths(version: ftsVersionValue, storedBytes: Int(bytes), capacity: capacity) { buffer in
                readBlob(db, table: "length_cache", into: buffer, at: 0)
            }
        }
        var directory: EmailDirectory.Snapshot?
        if let limit = state[9], state[10] == Int64(maxId + 1) * 18 {
            directory = EmailDirectory.snapshot(version: version, maxId: maxId, threadIdLimit: Int(limit),
                                                threadsOnly: true) { buffer, offset in
                readBlob(db, table: "directory_cache", into: buffer, at: offset)
            }
        }
        guard let lengths, let directory else { return nil }
        return OneShotIndex(db: db, directory: directory, lengths: lengths)
    }

    private init(db: OpaquePointer, directory: EmailDirectory.Snapshot, lengths: DocumentLengths) {
        self.db = db
        self.directory = directory
        self.lengths = lengths
    }

    /// Records `query` in the recent searches of the mail database at `path` as `MailStore.recordSearch`
    /// does (on a connection of its own that writes); false, having written nothing, when it cannot
    /// (the caller then leaves the search to the regular path, which records it).
    public static func recordSearch(_ query: String, dataDirectory path: String, migrations: [String],
                                    at seconds: Double) -> Bool {
        guard let (trimmed, normalized) = MailStore.recentSearchKey(query) else { return true }
        var handle: OpaquePointer?
        guard access(path + "/mail.sqlite", R_OK | W_OK) == 0,
              sqlite3_open_v2(path + "/mail.sqlite", &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db = handle else {
            sqlite3_close(handle)
            return false
        }
        defer { sqlite3_close(db) }
        sqlite3_busy_timeout(db, 30_000)
        // MailStore's settings for a connection that writes; a schema it would migrate is left to it.
        let identifiers = quotedList(migrations)
        let walPages = SQLiteFileLayout.pages(bytes: MailStore.checkpointBytes, pageSize: Int(integer(db, "PRAGMA page_size") ?? 4_096))
        guard execute(db, "PRAGMA synchronous = NORMAL"), execute(db, "PRAGMA wal_autocheckpoint = \(walPages)"),
              integer(db, "SELECT COUNT(DISTINCT identifier) FROM grdb_migrations WHERE identifier IN (\(identifiers))")
                == Int64(migrations.count),
              execute(db, "BEGIN IMMEDIATE") else { return false }
        func run(_ sql: String, _ bind: (OpaquePointer) -> Void) -> Bool {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { return false }
            defer { sqlite3_finalize(statement) }
            bind(statement)
            return sqlite3_step(statement) == SQLITE_DONE
        }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        guard run(MailStore.recordSearchSQL, { statement in
            sqlite3_bind_text(statement, 1, normalized, -1, transient)
            sqlite3_bind_text(statement, 2, trimmed, -1, transient)
            sqlite3_bind_double(statement, 3, seconds)
        }), run(MailStore.trimRecentSearchesSQL, { sqlite3_bind_int64($0, 1, Int64(MailStore.recentSearchLimit)) }),
              execute(db, "COMMIT") else {
            _ = execute(db, "ROLLBACK")
            return false
        }
        return true
    }

    /// Every email that matches `match` (an FTS5 expression) — and is in `candidates`, when given —
    /// with its BM25 rank, unordered: the statement and ranking of `FTS5Manager.matches`. nil when
    /// SQLite fails.
    public func keywordMatches(match: String, candidates: EmailIdSet? = nil) -> [KeywordHit]? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, FTS5Manager.matchesSQL(candidates: candidates != nil), -1, &statement, nil) == SQLITE_OK,
              let statement else { return nil }
        defer { sqlite3_finalize(statement) }
        var scan = BM25Scan()
        var deferred = BM25Scan.report()
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        sqlite3_bind_text(statement, 1, match, -1, transient)
        sqlite3_bind_pointer(statement, 2, lengths.table, MS_DOC_LENGTHS_TYPE, nil)
        let ok = withUnsafeMutablePointer(to: &deferred) { pointer -> Bool in
            sqlite3_bind_pointer(statement, 3, pointer, MS_BM25_DEFERRED_TYPE, nil)
            func run() -> Bool { Self.step(statement) { scan.add($0) } }
            guard let candidates else { return run() }
            return RawStatementScan.binding(candidates, to: statement, at: 4, run)
        }
        return ok ? scan.hits(deferred) : nil
    }

    /// The emails a positive `from:` filter with `sender` keeps, as `SearchIndexManager.candidates`
    /// finds them through the sender index a previous process stored for this version of the mail
    /// (of its 0.8 MB on Enron, the contact strings, 64 KB at a time, and the entries of the matching
    /// contacts are read); nil when there is no such copy (the regular path then runs the SQL and stores one).
    public func senderCandidates(_ sender: String) -> EmailIdSet? {
        let maxId = Int64(directory.threads.count - 1)
        guard let bytes = Self.integer(db, """
            SELECT length(data) FROM sender_cache
            WHERE id = 1 AND version = \(directory.version) AND maxId = \(maxId) AND typeof(data) = 'blob'
            """) else { return nil }
        var blob: OpaquePointer?
        guard sqlite3_blob_open(db, "main", "sender_cache", "data", 1, 0, &blob) == SQLITE_OK, let blob,
              Int64(sqlite3_blob_bytes(blob)) == bytes else {
            sqlite3_blob_close(blob)
            return nil
        }
        // One buffer for every read (each is used before the next): the contact strings pass
        // through it 64 KB at a time instead of being copied whole.
        var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 8)
        defer {
            sqlite3_blob_close(blob)
            buffer.deallocate()
        }
        let ids = SenderIndex.emailIds(sender: sender, storedBytes: Int(bytes), contactChunk: 1 << 16) { offset, count in
            guard count > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
            if count > buffer.count {
                buffer.deallocate()
                buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 8)
            }
            guard offset >= 0, offset + count <= Int(bytes),
                  sqlite3_blob_read(blob, buffer.baseAddress, Int32(count), Int32(offset)) == SQLITE_OK else { return nil }
            return UnsafeRawBufferPointer(rebasing: buffer[0..<count])
        }
        guard let ids else { return nil }
        return SearchIndexManager.intersection([ids], passing: EmailDirectory.DirectoryFilter(), directory: directory)
    }

    /// Runs `sql` once for each of `ids` (bound to ?1), calling `row` for each result row; false
    /// when SQLite fails. One lookup per id: an `IN (…)` list would build a temporary index first.
    public func forEachRow(_ sql: String, ids: [Int64], _ row: (OpaquePointer) -> Void) -> Bool {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { return false }
        defer { sqlite3_finalize(statement) }
        for id in ids {
            sqlite3_reset(statement)
            sqlite3_bind_int64(statement, 1, id)
            guard Self.step(statement, row) else { return false }
        }
        return true
    }

    /// Runs `sql` (no parameters; values are written into it) and calls `row` for each result row;
    /// false when SQLite fails.
    @discardableResult
    static func forEachRow(_ db: OpaquePointer, _ sql: String, _ row: (OpaquePointer) -> Void) -> Bool {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { return false }
        defer { sqlite3_finalize(statement) }
        return step(statement, row)
    }

    /// Steps `statement` to its end, calling `row` for each result row; false when SQLite fails.
    private static func step(_ statement: OpaquePointer, _ row: (OpaquePointer) -> Void) -> Bool {
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { return true }
            guard code == SQLITE_ROW else { return false }
            row(statement)
        }
    }

    /// Copies `buffer.count` bytes at `offset` of the `data` blob of row 1 of `table` into `buffer`.
    private static func readBlob(_ db: OpaquePointer, table: String, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Bool {
        guard buffer.count > 0 else { return true }
        var blob: OpaquePointer?
        guard sqlite3_blob_open(db, "main", table, "data", 1, 0, &blob) == SQLITE_OK, let blob else {
            sqlite3_blob_close(blob)
            return false
        }
        defer { sqlite3_blob_close(blob) }
        guard Int(sqlite3_blob_bytes(blob)) >= offset + buffer.count else { return false }
        return sqlite3_blob_read(blob, buffer.baseAddress, Int32(buffer.count), Int32(offset)) == SQLITE_OK
    }

    private static func execute(_ db: OpaquePointer, _ sql: String) -> Bool {
        sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK
    }

    /// The first column of the first row as an integer; nil when there is no row, it is NULL, or SQLite fails.
    private static func integer(_ db: OpaquePointer, _ sql: String) -> Int64? {
        var value: Int64?
        forEachRow(db, sql) { row in
            if value == nil, sqlite3_column_type(row, 0) != SQLITE_NULL { value = sqlite3_column_int64(row, 0) }
        }
        return value
    }

    /// `'a','b'`: SQL string literals separated by commas (built by hand: `joined` would cost a
    /// one-shot search a conformance look-up of the runtime).
    private static func quotedList(_ texts: [String]) -> String {
        var list = ""
        for text in texts { list += (list.isEmpty ? "'" : ",'") + escaped(text) + "'" }
        return list
    }

    /// `text` for inside single quotes in SQL.
    private static func escaped(_ text: String) -> String {
        text.contains("'") ? text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") : text
    }
}
