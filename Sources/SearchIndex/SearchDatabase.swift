import CRanking
import Foundation
import GRDB
import MailModel
import MailStore

/// `search.sqlite`: the FTS5 index (exact FR-SEARCH-06 schema), with `mail.sqlite` attached
/// as `mail` on every connection so that filters and rebuilds read the mail directly.
/// It is a cache: when missing or corrupt it is recreated and refilled from `mail.sqlite`.
final class SearchDatabase: Sendable {
    /// A pool, or for a one-shot search (`memoryMapped`) a single connection.
    let pool: any DatabaseWriter
    let url: URL
    private let lengths = LockedBox<DocumentLengths?>(nil)
    /// Whether a search found no copy of the row lengths for its index version (`length_cache`).
    let lengthCopyDue = LockedBox(false)

    /// Column weights for bm25(): email_id, account_id, subject, body, sender_name, sender_email,
    /// attachments. A term in the subject is the sender's own summary of the message, so it weighs
    /// 10× the body; sender name and address weigh 5× (people search by who wrote); a term in an
    /// attachment's name or text counts half a body term (a long document repeats its words).
    /// The attachments column counts for no row length (`ms_bm25`): a large attachment does not
    /// push its message's body matches down.
    static let bm25Weights = "0.0, 0.0, 10.0, 1.0, 5.0, 5.0, \(attachmentWeight)"

    /// The weight of the attachments column (names and text).
    static let attachmentWeight = 0.5

    static let schemaSQL = """
        CREATE VIRTUAL TABLE IF NOT EXISTS email_fts USING fts5(
            email_id UNINDEXED,
            account_id UNINDEXED,
            subject,
            body,
            sender_name,
            sender_email,
            attachments,
            tokenize='mailsearch remove_diacritics 2',
            prefix='2'
        );
        CREATE TABLE IF NOT EXISTS index_meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS length_cache (
            id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL, data BLOB NOT NULL
        );
        CREATE TABLE IF NOT EXISTS sender_cache (
            id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL, maxId INTEGER NOT NULL, data BLOB NOT NULL
        );
        CREATE TABLE IF NOT EXISTS directory_cache (
            id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL, maxId INTEGER NOT NULL,
            threadIdLimit INTEGER NOT NULL, data BLOB NOT NULL
        );
        """

    /// The most of each file a memory-mapped connection maps (SQLite caps it at its own maximum).
    static let mapSize = 1 << 40

    /// The tables `schemaSQL` creates (when all exist, opening writes nothing).
    static let tables = ["email_fts", "index_meta", "directory_cache", "length_cache", "sender_cache"]

    /// `memoryMapped`: a one-shot search's single connection reads search.sqlite through a memory
    /// map (`PRAGMA mmap_size`) instead of a read call per page; a long-running
    /// process leaves it off (each connection's mapped pages would count apart). The attached mail
    /// is read as before: a filter that scans it (`from:`) would map every page it reads.
    init(url: URL, mailURL: URL, memoryMapped: Bool = false) throws {
        self.url = url
        var config = Configuration()
        config.busyMode = .timeout(30)
        let mailPath = mailURL.path
        config.prepareDatabase { db in
            // A new file gets 16 KB pages (SQLiteFileLayout), set before GRDB puts it in WAL mode.
            if !db.configuration.readonly { try SQLiteFileLayout.prepareNewFile(db) }
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // A 64 MB page cache keeps the indexes of a large import in memory (the default 2 MB
            // thrashes), and fewer, larger checkpoints cut write amplification.
            // Readers (up to five) 8 MB each, the writer 64 MB; no memory mapping (as in MailStore).
            let reader = db.configuration.readonly
            try db.execute(sql: "PRAGMA cache_size = \(reader ? -8192 : -65536)")
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            try SQLiteFileLayout.setCheckpointInterval(db, bytes: MailStore.checkpointBytes)
            // Read-only: the index never writes the user's mail.
            try db.execute(sql: "ATTACH DATABASE ? AS mail", arguments: [Self.readOnlyURI(mailPath)])
            // The attached mail's page cache (PRAGMAs apply per schema).
            try db.execute(sql: "PRAGMA mail.cache_size = \(reader ? -8192 : -65536)")
            // `main.`: without a schema name the pragma would map the attached mail too.
            if memoryMapped { try db.execute(sql: "PRAGMA main.mmap_size = \(Self.mapSize)") }
            try RawStatementScan.registerFunctions(db)
            try Self.registerFTS5Extensions(db)
        }
        // One-shot: one connection (each costs an open and a read of both schemas); a file that
        // does not exist yet is made by a pool, which puts it in WAL mode.
        if memoryMapped && FileManager.default.fileExists(atPath: url.path) {
            pool = try DatabaseQueue(path: url.path, configuration: config)
        } else {
            pool = try DatabasePool(path: url.path, configuration: config)
        }
        let complete = try pool.read { db in
            try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN (\(Self.tables.map { "'\($0)'" }.joined(separator: ",")))
                """) == Self.tables.count
        }
        if !complete { try pool.write { try $0.execute(sql: Self.schemaSQL) } }
        // Touch the table: a file that is not a database, or a damaged schema, fails here.
        _ = try pool.read { try Int.fetchOne($0, sql: "SELECT rowid FROM email_fts LIMIT 1") }
        // An index made before the prefix index or the `mailsearch` tokenizer is rebuilt (it is a
        // cache of mail.sqlite).
        let definition = try pool.read { try String.fetchOne($0, sql: "SELECT sql FROM sqlite_master WHERE name = 'email_fts'") }
        guard let definition, Self.isCurrent(definition: definition) else { throw OutdatedSchema() }
    }

    /// Whether the FTS5 table's definition is this version's: the prefix index (`prefix='2'`) and
    /// the `mailsearch` tokenizer (CJK bigrams, ß = ss; `ms_tokenizer.c`).
    static func isCurrent(definition: String) -> Bool {
        definition.contains("prefix=") && definition.contains(tokenizerMark) && definition.contains(attachmentsMark)
    }

    /// The attachments column (names and text of attachments), which earlier versions lacked.
    static let attachmentsMark = "attachments,"

    /// What the FTS5 definition of this version holds and earlier ones did not (SQL `instr` too).
    static let tokenizerMark = "tokenize='mailsearch "

    /// Registers `ms_bm25` and the `mailsearch` tokenizer on a connection: any connection that
    /// reads or writes `email_fts` needs the tokenizer (the `sqlite3` shell does not have it).
    static func registerFTS5Extensions(_ db: Database) throws {
        let code = ms_register_fts5(db.sqliteConnection)
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "cannot register ms_bm25 and the mailsearch tokenizer with FTS5")
        }
    }

    /// An index whose FTS5 table lacks the prefix index or this version's tokenizer.
    struct OutdatedSchema: Error, CustomStringConvertible {
        var description: String {
            "it was built by an earlier version (without the prefix index, the tokenizer that finds words inside Chinese, Japanese and Korean text, or the attachments column)"
        }
    }

    /// The row lengths for `ms_bm25` that belong to the index as `db`'s transaction sees it.
    func documentLengths(_ db: Database) throws -> DocumentLengths {
        let version = try DocumentLengths.version(db)
        if let table = lengths.value, table.version == version { return table }
        let capacity = try DocumentLengths.capacity(db)
        let stored = try DocumentLengths.storedCopy(db, version: version, capacity: capacity)
        if stored == nil { lengthCopyDue.set(true) }
        let table = stored ?? DocumentLengths(version: version, capacity: capacity)
        lengths.withLockedValue { current in
            if current.map({ $0.version < version }) ?? true { current = table }
        }
        return table
    }

    /// `file:PATH?mode=ro`, the path percent-encoded as `addingPercentEncoding(withAllowedCharacters:
    /// .urlPathAllowed)` does (every UTF-8 byte but ASCII letters, digits and `!$&'()*+,-./:=@_~`),
    /// written out: building the CharacterSet costs a one-shot search a third of a millisecond.
    static func readOnlyURI(_ path: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = Array("file:".utf8)
        for b in path.utf8 {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                bytes.append(b)
            default:
                if "!$&'()*+,-./:=@_~".utf8.contains(b) {
                    bytes.append(b)
                } else {
                    bytes += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 15)]]
                }
            }
        }
        return String(decoding: bytes, as: UTF8.self) + "?mode=ro"
    }

    /// Removes the database files (used before a rebuild from mail.sqlite).
    static func removeFiles(at url: URL) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
    }
}
