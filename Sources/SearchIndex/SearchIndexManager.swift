import Foundation
import GRDB
import GRDBSQLite
import MailModel
import MailStore

/// Health and size of the search index (`mailsearch index status`, NFR-SEARCH-02).
public struct IndexStatus: Sendable, Codable, Hashable {
    public var path: String
    public var bytes: Int64
    public var indexedEmails: Int
    public var mailEmails: Int
    /// Emails in mail.sqlite without an FTS row, and FTS rows without an email.
    public var missing: Int
    public var orphaned: Int
    public var healthy: Bool
    public var embeddedEmails: Int
    /// Share of emails with an embedding (0…1).
    public var embeddingCoverage: Double
    public var semanticSearch: String
}

/// The single owner of every search-index mutation (FR-SEARCH-08): FTS5 inserts and deletes,
/// account removal, orphan reconciliation and rebuilds. `search.sqlite` is a cache of
/// `mail.sqlite`: when it is missing or corrupt it is rebuilt automatically (E-05), with a
/// one-line notice to `notices`, and nothing in `mail.sqlite` is touched.
public final class SearchIndexManager: Sendable {
    public let store: MailStore
    private let notices: @Sendable (String) -> Void
    private let current: LockedBox<SearchDatabase>
    private let generationCounter = LockedBox(0)
    /// Every email's conversation, date and flags, in memory, for filtering, grouping and counting
    /// search matches.
    public let directory = EmailDirectory()
    /// The `from:` filter in memory once a process searches by sender repeatedly (`SenderIndex`).
    public let senders = SenderLookup()

    /// Changes whenever the index does (emails indexed or removed, reconcile, rebuild):
    /// caches of search results key their entries by it (`SearchCache`).
    public var generation: Int { generationCounter.value }

    private func indexChanged() { generationCounter.withLockedValue { $0 += 1 } }

    /// Whether connections read through a memory map (`SearchDatabase`'s `memoryMapped`).
    private let memoryMapped: Bool

    /// The import under way (`beginImport` to `optimizeAfterImport`): the rows the index held when
    /// it began, the emails it has indexed since, and whether FTS5 merges lazily meanwhile.
    private struct ImportRun {
        var rowsAtStart: Int
        var indexed = 0
        var lazyMerging = false
    }
    private let importRun = LockedBox<ImportRun?>(nil)

    /// FTS5's `automerge` (its default): a level's segments are merged once it holds this many.
    static let automerge = 4
    /// `automerge` while a large import runs: merged 16 at a time instead of 4, segments are
    /// rewritten fewer times (Enron: 25 % less CPU to index), and the import ends with `optimize`,
    /// which merges them all into one either way.
    static let importAutomerge = 16

    /// `memoryMapped`: read the index through a memory map, for a
    /// one-shot process (a search from the command line).
    public init(store: MailStore, notices: @escaping @Sendable (String) -> Void = { _ in }, memoryMapped: Bool = false) throws {
        self.store = store
        self.notices = notices
        self.memoryMapped = memoryMapped
        let url = store.directory.searchDatabaseURL
        let mailURL = store.directory.mailDatabaseURL
        let existed = FileManager.default.fileExists(atPath: url.path)
        let database: SearchDatabase
        do {
            database = try SearchDatabase(url: url, mailURL: mailURL, memoryMapped: memoryMapped)
        } catch {
            if let outdated = error as? SearchDatabase.OutdatedSchema {
                notices("Rebuilding the search index at \(url.path) from mail.sqlite: \(outdated). This happens once.")
            } else {
                notices("The search index at \(url.path) could not be read (\(Self.reason(error))); rebuilding it from mail.sqlite.")
            }
            SearchDatabase.removeFiles(at: url)
            database = try SearchDatabase(url: url, mailURL: mailURL, memoryMapped: memoryMapped)
        }
        current = LockedBox(database)
        if !existed {
            _ = try reconcile()
        } else {
            try reconcileIfNeeded()
            // An import killed before its end left FTS5 merging lazily: back to the default.
            if !memoryMapped { try restoreAutomergeIfNeeded() }
        }
    }

    // MARK: Mutations

    /// Indexes newly stored emails (called in the import pipeline, batch by batch).
    public func index(_ emails: [Email]) throws {
        guard !emails.isEmpty else { return }
        // Once an import has indexed enough to be sure of ending with `optimize` (as many emails
        // as `optimizeAfterImport` asks for), FTS5 merges its segments lazily until then.
        let mergeLazily = importRun.withLockedValue { run -> Bool in
            guard var current = run else { return false }
            current.indexed += emails.count
            defer { run = current }
            guard !current.lazyMerging, Self.importWillOptimize(indexed: current.indexed, rowsAtStart: current.rowsAtStart)
            else { return false }
            current.lazyMerging = true
            return true
        }
        try withDatabase { db in
            try db.pool.write { db in
                if mergeLazily { try FTS5Manager.setAutomerge(Self.importAutomerge, db: db) }
                try FTS5Manager.insert(emails, db: db)
            }
        }
        indexChanged()
    }

    /// An import begins: `index` counts what it adds (see `importRun`).
    public func beginImport() throws {
        let rows = try withDatabase { db in
            try db.pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM email_fts_docsize") ?? 0 }
        }
        importRun.set(ImportRun(rowsAtStart: rows))
    }

    /// Whether an import that has indexed `indexed` emails into an index of `rowsAtStart` rows
    /// ends with `optimize` (at least 1,000, and a quarter of the rows after it).
    static func importWillOptimize(indexed: Int, rowsAtStart: Int) -> Bool {
        indexed >= 1_000 && indexed * 4 >= rowsAtStart + indexed
    }

    /// Replaces the attachments column of emails (their attachments' names and the text read
    /// from them), keyed by email id.
    public func updateAttachments(_ texts: [Int64: String]) throws {
        guard !texts.isEmpty else { return }
        try withDatabase { db in
            try db.pool.write { try FTS5Manager.updateAttachments(texts, db: $0) }
        }
        indexChanged()
    }

    /// Removes emails from the index (after they were deleted from the store).
    public func remove(emailIds: [Int64]) throws {
        guard !emailIds.isEmpty else { return }
        try withDatabase { db in
            try db.pool.write { try FTS5Manager.delete(emailIds: emailIds, db: $0) }
        }
        indexChanged()
    }

    /// Deletes one email everywhere: the store, its FTS row (and its embedding, which goes with the email).
    public func deleteEmail(id: Int64) throws {
        try remove(emailIds: [id])
        try store.deleteEmail(id: id)
    }

    /// Deletes an account and everything local to it: FTS rows, then the mail data.
    /// Returns the ids of the emails removed.
    ///
    /// Nothing of the account stays in search.sqlite: FTS5 only marks a deleted row's terms as deleted
    /// in its segments, so they are merged into one without them (`optimize`); the copies kept for the
    /// next process (they hold its emails' threads and dates, its senders, its rows' lengths) go, to be
    /// made again from what is left; and the WAL, which still holds all of it, is checkpointed and
    /// emptied (best effort: a reader that holds on past the busy timeout leaves it for SQLite's own
    /// checkpoints).
    @discardableResult
    public func deleteAccount(id: Int64) throws -> [Int64] {
        try withDatabase { db in
            try db.pool.write { db in
                _ = try FTS5Manager.deleteAccount(id, db: db)
                try db.execute(sql: "INSERT INTO email_fts(email_fts) VALUES('optimize')")
                try db.execute(sql: "DELETE FROM directory_cache; DELETE FROM sender_cache; DELETE FROM length_cache")
            }
            _ = try? db.pool.writeWithoutTransaction { try $0.checkpoint(.truncate) }
        }
        indexChanged()
        return try store.deleteAccount(id: id)
    }

    /// Brings the index in line with mail.sqlite: indexes missing emails, drops orphaned rows.
    @discardableResult
    public func reconcile() throws -> (added: Int, removed: Int) {
        defer { indexChanged() }
        return try withDatabase { db in
            try db.pool.write { db in
                let orphans = try Int64.fetchAll(db, sql: """
                    SELECT id FROM email_fts_docsize WHERE id NOT IN (SELECT id FROM mail.emails)
                    """)
                try FTS5Manager.delete(emailIds: orphans, db: db)
                let missing = try Int64.fetchAll(db, sql: """
                    SELECT id FROM mail.emails WHERE id NOT IN (SELECT id FROM email_fts_docsize) ORDER BY id
                    """)
                var added = 0
                for chunk in stride(from: 0, to: missing.count, by: 500) {
                    let ids = Array(missing[chunk..<min(missing.count, chunk + 500)])
                    let placeholders = Array(repeating: "?", count: ids.count).joined(separator: ",")
                    added += try FTS5Manager.insertFromMail(
                        where: "id IN (\(placeholders))", arguments: StatementArguments(ids), db: db)
                }
                return (added, orphans.count)
            }
        }
    }

    /// Drops and rebuilds the whole index from mail.sqlite, reporting (done, total) as it goes.
    public func rebuild(progress: (Int, Int) -> Void = { _, _ in }) throws {
        defer { indexChanged() }
        let old = current.value
        let url = old.url
        let total = try store.database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM emails") ?? 0 }
        try old.pool.close()
        SearchDatabase.removeFiles(at: url)
        let fresh = try SearchDatabase(url: url, mailURL: store.directory.mailDatabaseURL, memoryMapped: memoryMapped)
        current.set(fresh)
        var lastId: Int64 = 0
        var done = 0
        progress(0, total)
        while true {
            let step = try fresh.pool.write { try FTS5Manager.fillFromMail(db: $0, afterId: lastId, chunk: 2_000) }
            guard let next = step.lastId else { break }
            lastId = next
            done += step.count
            progress(done, total)
        }
        try fresh.pool.write { try $0.execute(sql: "INSERT INTO email_fts(email_fts) VALUES('optimize')") }
    }

    /// After an import that added `imported` emails: when that is at least 1,000 and a quarter of
    /// the index (a first import, or one that grew the mailbox by a third), FTS5's segments are
    /// merged into one (`optimize`: 1.4 s for Enron's 45K emails, against 19 s to import them),
    /// so that each word's matches are read from one list instead of a dozen (a keyword search
    /// on Enron ~10% faster). Smaller additions leave it to FTS5's own incremental merging.
    /// The index's content — rows, words, lengths — is unchanged, so its version is too.
    ///
    /// An import that merged lazily (`importAutomerge`) always ends with `optimize`, and FTS5's
    /// `automerge` goes back to its default.
    public func optimizeAfterImport(imported: Int) throws {
        let run = importRun.withLockedValue { run in
            defer { run = nil }
            return run
        }
        let lazy = run?.lazyMerging ?? false
        guard imported >= 1_000 || lazy else { return }
        try withDatabase { db in
            try db.pool.write { db in
                let rows = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM email_fts_docsize") ?? 0
                if lazy { try FTS5Manager.setAutomerge(Self.automerge, db: db) }
                guard imported * 4 >= rows || lazy else { return }
                try db.execute(sql: "INSERT INTO email_fts(email_fts) VALUES('optimize')")
            }
        }
    }

    /// An import stopped on an error: FTS5 merges as usual again (no `optimize`).
    public func abandonImport() {
        let run = importRun.withLockedValue { run in
            defer { run = nil }
            return run
        }
        guard run?.lazyMerging == true else { return }
        // Best effort: if this fails, the next process that opens the index sets it back.
        try? withDatabase { db in try db.pool.write { try FTS5Manager.setAutomerge(Self.automerge, db: $0) } }
    }

    /// FTS5's `automerge` back to its default when an import ended without setting it back.
    private func restoreAutomergeIfNeeded() throws {
        try withDatabase { db in
            let value = try db.pool.read { try FTS5Manager.automerge(db: $0) }
            guard let value, value != Self.automerge else { return }
            try db.pool.write { try FTS5Manager.setAutomerge(Self.automerge, db: $0) }
        }
    }

    // MARK: Queries

    /// FTS5's own BM25 top-`limit` of `match` (an FTS5 expression from `FTS5QueryBuilder`), no
    /// filters, no grouping: the baseline of the keyword benchmark.
    public func rawKeywordTop(match: String, limit: Int) throws -> [KeywordHit] {
        try withDatabase { db in
            try db.pool.read { try FTS5Manager.topRanked(match: match, limit: limit, db: $0) }
        }
    }

    /// Keeps what the last search had to compute in `search.sqlite` for the next process: the
    /// email directory read from the mail, every row's length when there was no copy for the
    /// index's version, the sender index when a `from:` search had to run its SQL. A one-shot command calls it after its output; a server when it stops.
    /// Best effort: a failure only costs the next process that work again.
    public func storeCopiesForNextProcess() {
        let database = current.value
        if database.lengthCopyDue.value {
            database.lengthCopyDue.set(false)
            try? database.pool.write { try DocumentLengths.storeCopy($0) }
        }
        if let snapshot = directory.takePendingCopy() {
            try? database.pool.write { db in
                // Read from mail that has changed since (an account removed, say): never read again, and it
                // would keep what is gone.
                guard try EmailDirectory.version(db) == snapshot.version else { return }
                try EmailDirectory.storeCopy(snapshot, db: db)
            }
        }
        // A `from:` search ran its SQL: the sender index for the next one, built from the mail as
        // this transaction sees it (about 20–40 ms on Enron, once per version of the mail).
        if senders.takeCopyDue() {
            try? database.pool.write { db in
                let version = try EmailDirectory.version(db)
                let maxId = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM mail.emails") ?? 0
                try SenderIndex(db, version: version, maxId: maxId).storeCopy(db: db)
            }
        }
    }

    /// Every email that matches `match` (an FTS5 expression) and is in `candidates` (all emails
    /// when nil), with its BM25 rank, unordered: see `FTS5Manager.matches`.
    public func keywordMatches(match: String, candidates: EmailIdSet?) async throws -> [KeywordHit] {
        try await readIndex { database, db in
            try FTS5Manager.matches(match: match, candidates: candidates, lengths: database.documentLengths(db), db: db)
        }
    }

    /// The emails that pass `filters` and `scope`, or nil when nothing restricts the search; read
    /// in `db`'s transaction. Each filter is resolved where it is cheapest: dates and flags from
    /// the in-memory `directory`, folders, scope and attachment types and names from their link tables'
    /// indexes, and only the rest (sender, recipient, subject…) by SQL over the emails.
    public static func candidates(filters: SearchFilters, scope: SearchScope, directory: EmailDirectory.Snapshot,
                                  senders: SenderLookup? = nil, db: Database) throws -> EmailIdSet? {
        var rest = filters
        let test = EmailDirectory.DirectoryFilter(taking: &rest)
        var queries: [(sql: String, arguments: StatementArguments)] = []
        var sets: [EmailIdSet] = []
        // A positive from: filter in memory when this process searches by sender again and again.
        if let sender = rest.sender?.trimmingCharacters(in: .whitespaces), !sender.isEmpty,
           let index = try senders?.index(db, version: directory.version, maxId: Int64(directory.threads.count - 1)) {
            sets.append(index.emailIds(sender: sender))
            rest.sender = nil
        }
        func add(_ query: (sql: String, arguments: [any DatabaseValueConvertible])) {
            queries.append((query.sql, StatementArguments(query.arguments)))
        }
        if let folder = rest.folder?.trimmingCharacters(in: .whitespaces), !folder.isEmpty {
            add(EmailFilterSQL.folderEmailIds(folder))
        }
        rest.folder = nil
        if let type = rest.attachmentType?.trimmingCharacters(in: .whitespaces), !type.isEmpty {
            add(EmailFilterSQL.attachmentTypeEmailIds(type))
        }
        rest.attachmentType = nil
        if let name = rest.attachmentName, !name.isEmpty {
            add(EmailFilterSQL.attachmentNameEmailIds(name))
        }
        rest.attachmentName = nil
        if let scoped = EmailFilterSQL.scopeEmailIds(scope) { add(scoped) }
        let remaining = EmailFilterSQL(filters: rest, scope: .allMail)
        if !remaining.isEmpty {
            queries.append(("SELECT e.id FROM mail.emails e WHERE \(remaining.condition)", remaining.arguments))
        }
        if queries.isEmpty && sets.isEmpty && test.isEmpty { return nil }
        for query in queries {
            var set = EmailIdSet()
            try RawStatementScan.forEachRow(db, sql: query.sql, arguments: query.arguments) { row in
                set.insert(sqlite3_column_int64(row, 0))
            }
            sets.append(set)
        }
        return intersection(sets, passing: test, directory: directory)
    }

    /// The emails of the directory in every one of `sets` (every email when there is none) that pass `test`.
    static func intersection(_ sets: [EmailIdSet], passing test: EmailDirectory.DirectoryFilter,
                             directory: EmailDirectory.Snapshot) -> EmailIdSet {
        let sets = sets.sorted { $0.count < $1.count }
        var result = EmailIdSet()
        func consider(_ id: Int64) {
            if directory.passes(id, test), sets.dropFirst().allSatisfy({ $0.contains(id) }) { result.insert(id) }
        }
        if let smallest = sets.first {
            for id in smallest.ids { consider(id) }
        } else {
            for id in directory.emailIds { consider(id) }
        }
        return result
    }

    /// How many indexed emails hold each of `words` (any column; FTS5's own vocabulary through a
    /// `fts5vocab` table of this connection's temp schema), and how many emails the index holds.
    /// Words the index folds differently (upper case, diacritics) are looked up as given: pass
    /// lower-cased ASCII words.
    public func documentFrequencies(of words: Set<String>) throws -> (documents: Int, frequencies: [String: Int]) {
        try read { db in
            try db.execute(sql: "CREATE VIRTUAL TABLE IF NOT EXISTS temp.email_vocab USING fts5vocab(main, email_fts, row)")
            let documents = try Int.fetchOne(db, sql: "SELECT count(*) FROM email_fts_docsize") ?? 0
            var frequencies: [String: Int] = [:]
            let list = Array(words)
            for start in stride(from: 0, to: list.count, by: 500) {
                let chunk = Array(list[start..<min(start + 500, list.count)])
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                for row in try Row.fetchAll(db, sql: "SELECT term, doc FROM temp.email_vocab WHERE term IN (\(marks))",
                                            arguments: StatementArguments(chunk)) {
                    frequencies[row[0]] = row[1]
                }
            }
            return (documents, frequencies)
        }
    }

    /// Runs `body` in a read transaction of the search database (mail attached as `mail`).
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try withDatabase { db in try db.pool.read(body) }
    }

    /// Runs `body` in a read transaction off the cooperative pool (GRDB's reader queues), with the
    /// same corruption recovery as the synchronous calls.
    public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await readIndex { _, db in try body(db) }
    }

    /// `read`, with the search database the transaction belongs to.
    private func readIndex<T: Sendable>(_ body: @escaping @Sendable (SearchDatabase, Database) throws -> T) async throws -> T {
        func attempt() async throws -> T {
            let database = current.value
            return try await database.pool.read { try body(database, $0) }
        }
        do {
            return try await attempt()
        } catch let error as DatabaseError where Self.isCorruption(error) {
            notices("The search index was damaged (\(Self.reason(error))); rebuilt it from mail.sqlite.")
            try rebuild()
            return try await attempt()
        }
    }

    public func status(embeddedEmails: Int = 0, semanticSearch: String = "off: no embedding model installed") throws -> IndexStatus {
        let url = current.value.url
        let counts = try withDatabase { db in
            try db.pool.read { db in
                // FTS5 rows are counted in `email_fts_docsize` (one small row each, same ids):
                // scanning `email_fts` itself reads every stored body.
                let indexed = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM email_fts_docsize") ?? 0
                let mail = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM mail.emails") ?? 0
                let missing = try Int.fetchOne(db, sql: """
                    SELECT COUNT(*) FROM mail.emails WHERE id NOT IN (SELECT id FROM email_fts_docsize)
                    """) ?? 0
                let orphaned = try Int.fetchOne(db, sql: """
                    SELECT COUNT(*) FROM email_fts_docsize WHERE id NOT IN (SELECT id FROM mail.emails)
                    """) ?? 0
                return (indexed, mail, missing, orphaned)
            }
        }
        return IndexStatus(
            path: url.path, bytes: MailStore.fileSize(url), indexedEmails: counts.0, mailEmails: counts.1,
            missing: counts.2, orphaned: counts.3, healthy: counts.2 == 0 && counts.3 == 0,
            embeddedEmails: embeddedEmails,
            embeddingCoverage: counts.1 == 0 ? 0 : Double(embeddedEmails) / Double(counts.1),
            semanticSearch: semanticSearch)
    }

    // MARK: Corruption handling (E-05)

    /// Runs `body`; when SQLite reports the search database corrupt (or not a database),
    /// rebuilds it from mail.sqlite with a notice and runs `body` once more.
    private func withDatabase<T>(_ body: (SearchDatabase) throws -> T) throws -> T {
        do {
            return try body(current.value)
        } catch let error as DatabaseError where Self.isCorruption(error) {
            notices("The search index was damaged (\(Self.reason(error))); rebuilt it from mail.sqlite.")
            try rebuild()
            return try body(current.value)
        }
    }

    /// Check at open that every email has its FTS5 row and no row is left over. When
    /// `index_meta.checked_mail_version` equals the mail's directory version (which every insert
    /// and delete of mail changes, whichever process made it), the last check still holds and
    /// nothing is read; else counts and highest ids are compared, and a mismatch reconciles.
    private func reconcileIfNeeded() throws {
        let state = try withDatabase { db in
            try db.pool.read { db -> (consistent: Bool, version: Int64, checked: Bool) in
                let version = try EmailDirectory.version(db)
                let checked = try Int64.fetchOne(db, sql: "SELECT value FROM index_meta WHERE key = 'checked_mail_version'")
                if checked == version { return (true, version, true) }
                let a = try Row.fetchOne(db, sql: "SELECT COUNT(*) AS n, MAX(id) AS m FROM mail.emails")!
                // `email_fts_docsize` has one small row per FTS5 row: counting it reads a few pages,
                // where counting `email_fts` reads every stored body (130 ms and 160 MB on Enron).
                let b = try Row.fetchOne(db, sql: "SELECT COUNT(*) AS n, MAX(id) AS m FROM email_fts_docsize")!
                return ((a["n"] as Int) == (b["n"] as Int) && (a["m"] as Int64?) == (b["m"] as Int64?), version, false)
            }
        }
        if state.checked { return }
        guard state.consistent else {
            // The next open counts again and then records the version.
            try reconcile()
            return
        }
        // The mail version the counts were taken at (same read transaction); any later change of
        // the mail makes it differ. Best effort: without it the next open counts again.
        try? withDatabase { db in
            try db.pool.write { db in
                try db.execute(sql: "INSERT OR REPLACE INTO index_meta (key, value) VALUES ('checked_mail_version', ?)",
                               arguments: [state.version])
            }
        }
    }

    static func isCorruption(_ error: DatabaseError) -> Bool {
        let code = error.resultCode.primaryResultCode
        return code == .SQLITE_CORRUPT || code == .SQLITE_NOTADB
    }

    static func reason(_ error: Error) -> String {
        if let e = error as? DatabaseError { return e.message ?? "\(e.resultCode)" }
        return "\(error)"
    }
}
