import Foundation
import GRDB
import MailModel
import MailStore
import SearchEngine
@testable import SearchIndex
import XCTest

final class SearchIndexManagerTests: XCTestCase {
    typealias Spec = SearchFixture.Spec

    func testReconcileAddsMissingRowsAndDropsOrphans() throws {
        let f = try SearchFixture()
        // Mail stored but never indexed (an import killed between the two commits).
        let result = try f.store.ingest([IncomingEmail(
            email: Email(accountId: f.accountId, messageId: "lost@x", subject: "penguin"), folders: [FolderSpec(path: "Inbox")])],
            accountId: f.accountId)
        XCTAssertEqual(try f.index.status().missing, 1)
        // An FTS row whose email is gone.
        let id = try f.add(Spec(subject: "orphan"))
        try f.store.deleteEmail(id: id)
        XCTAssertEqual(try f.index.status().orphaned, 1)
        let fixed = try f.index.reconcile()
        XCTAssertEqual(fixed.added, 1)
        XCTAssertEqual(fixed.removed, 1)
        XCTAssertTrue(try f.index.status().healthy)
        XCTAssertEqual(result.inserted.count, 1)
    }

    /// The reply ranker's idf: how many emails hold each word, from FTS5's vocabulary, any column.
    func testDocumentFrequenciesCountEmailsHoldingEachWord() throws {
        let f = try SearchFixture()
        _ = try f.add([Spec(subject: "Tuesday review", body: "Tuesday works, Tuesday at noon"),
                       Spec(subject: "lunch", body: "see you tuesday"),
                       Spec(subject: "invoice", body: "attached")])
        let counted = try f.index.documentFrequencies(of: ["tuesday", "lunch", "never", "attached"])
        XCTAssertEqual(counted.documents, 3)
        XCTAssertEqual(counted.frequencies, ["tuesday": 2, "lunch": 1, "attached": 1])
        XCTAssertEqual(try f.index.documentFrequencies(of: []).frequencies, [:])
    }

    /// Mail is committed before its index rows. A process that opens the index in between (a
    /// search during an import) reconciles those emails itself; the import then indexes them too,
    /// and neither fails: each email is one row, as it would have been.
    func testAnImportIndexesMailAnotherProcessReconciledMeanwhile() throws {
        let f = try SearchFixture()
        _ = try f.add([Spec(subject: "kept as it was", body: "heron")])
        let result = try f.store.ingest((0..<5).map { i in IncomingEmail(
            email: Email(accountId: f.accountId, messageId: "race\(i)@x", subject: "osprey \(i)", bodyPlain: "kingfisher \(i)"),
            folders: [FolderSpec(path: "Inbox")]) }, accountId: f.accountId)
        let other = try SearchIndexManager(store: f.store)  // reconciles at open
        XCTAssertTrue(try other.status().healthy)
        try f.index.index(Array(result.inserted.prefix(3)))
        let late = try f.store.ingest([IncomingEmail(
            email: Email(accountId: f.accountId, messageId: "race-late@x", subject: "osprey late"), folders: [])], accountId: f.accountId)
        try f.index.index(Array(result.inserted.dropFirst(3)) + late.inserted)  // two reconciled, one new
        let status = try f.index.status()
        XCTAssertTrue(status.healthy)
        XCTAssertEqual(status.indexedEmails, 7)
        let check = try DatabaseQueue(path: f.store.directory.searchDatabaseURL.path)
        try check.write { db in
            try SearchDatabase.registerFTS5Extensions(db)
            try db.execute(sql: "INSERT INTO email_fts(email_fts) VALUES('integrity-check')")
        }
        try f.index.read { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM email_fts WHERE email_fts MATCH 'osprey'"), 6)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM email_fts WHERE email_fts MATCH 'kingfisher'"), 5)
        }
    }

    func testReopeningReconcilesAutomatically() throws {
        let f = try SearchFixture()
        _ = try f.store.ingest([IncomingEmail(
            email: Email(accountId: f.accountId, messageId: "late@x", subject: "otter"), folders: [])], accountId: f.accountId)
        let reopened = try SearchIndexManager(store: f.store)
        XCTAssertTrue(try reopened.status().healthy)
    }

    /// An index made before the prefix index (`prefix='2'`) is rebuilt once, with a notice, and
    /// finds what it found before.
    func testAnIndexWithoutThePrefixIndexIsRebuiltOnce() async throws {
        let f = try SearchFixture()
        let ids = try f.add((0..<30).map { i in Spec(subject: "scheduling note \(i)") })
        let url = f.store.directory.searchDatabaseURL
        // The index as a version before the prefix index made it (unicode61, the tokenizer of then).
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        let old = try DatabaseQueue(path: url.path)
        try await old.write { db in
            let withoutPrefix = SearchDatabase.schemaSQL.replacingOccurrences(of: "remove_diacritics 2',", with: "remove_diacritics 2'")
                .replacingOccurrences(of: "prefix='2'", with: "")
                .replacingOccurrences(of: SearchDatabase.tokenizerMark, with: "tokenize='unicode61 ")
            XCTAssertFalse(withoutPrefix.contains("prefix"))
            try db.execute(sql: withoutPrefix)
        }
        try old.close()
        let notices = NoticeBox()
        let reopened = try SearchIndexManager(store: f.store, notices: notices.append)
        XCTAssertEqual(notices.values.count, 1)
        XCTAssertTrue(notices.values.first?.contains("prefix") ?? false, "\(notices.values)")
        XCTAssertEqual(try reopened.status().indexedEmails, 30)
        let r = try await SearchEmailsUseCase(index: reopened, parser: SearchFixture.parser).search("sc")
        XCTAssertTrue(Set(r.results.map(\.emailId)).isSubset(of: Set(ids)))
        XCTAssertEqual(r.conversationCount, 30)
        _ = try SearchIndexManager(store: f.store, notices: notices.append)
        XCTAssertEqual(notices.values.count, 1, "once")
    }

    func testRebuildRecreatesTheSameRows() throws {
        let f = try SearchFixture()
        try f.add((0..<120).map { i in Spec(subject: "mole \(i)") })
        var progress: [(Int, Int)] = []
        try f.index.rebuild { progress.append(($0, $1)) }
        XCTAssertEqual(progress.last?.0, 120)
        XCTAssertEqual(try f.index.status().indexedEmails, 120)
        XCTAssertTrue(try f.index.status().healthy)
    }

    func testSearchesRunWhileIndexing() async throws {
        let f = try SearchFixture()
        try f.add((0..<50).map { i in Spec(subject: "lynx \(i)") })
        let useCase = f.useCase()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for batch in 0..<10 { try f.add((0..<50).map { i in Spec(subject: "lynx late \(batch)-\(i)") }) }
            }
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<20 {
                        let r = try await useCase.search("lynx", limit: 1000)
                        XCTAssertGreaterThanOrEqual(r.results.count, 50)
                    }
                }
            }
            try await group.waitForAll()
        }
        let final = try await useCase.search("lynx", limit: 1000)
        XCTAssertEqual(final.results.count, 550)
    }

    /// `ms_bm25` is FTS5's bm25() with row lengths kept in memory: the same number for every
    /// row, also after a row id is reused by a longer email (the lengths belong to one index version).
    func testKeywordRanksEqualFTS5BM25AlsoAfterTheIndexChanges() async throws {
        let f = try SearchFixture()
        let filler = "word "
        try f.add((0..<40).map { i in
            Spec(subject: i % 3 == 0 ? "lynx report \(i)" : "status \(i)",
                 body: "The lynx \(String(repeating: filler, count: i * 7)) otter notes \(i % 5 == 0 ? "lynx lynx" : "")",
                 from: "sender\(i % 4)@example.com", fromName: i % 2 == 0 ? "Lynx Watcher" : "Someone")
        })
        func compare(_ match: String, index: SearchIndexManager? = nil, file: StaticString = #filePath, line: UInt = #line) async throws {
            let ours = try await (index ?? f.index).keywordMatches(match: match, candidates: nil)
            let fts5 = try await f.index.read { db in
                try Row.fetchAll(db, sql: "SELECT rowid, bm25(email_fts, 0.0, 0.0, 10.0, 1.0, 5.0, 5.0) AS r FROM email_fts WHERE email_fts MATCH ?",
                                 arguments: [match]).map { ($0[0] as Int64, $0[1] as Double) }
            }
            XCTAssertFalse(fts5.isEmpty, match, file: file, line: line)
            XCTAssertEqual(ours.count, fts5.count, match, file: file, line: line)
            let expected = Dictionary(uniqueKeysWithValues: fts5)
            for hit in ours {
                XCTAssertEqual(hit.rank, expected[hit.emailId] ?? .nan, accuracy: 1e-12, "\(match) row \(hit.emailId)", file: file, line: line)
            }
        }
        let matches = ["\"lynx\"", "\"lynx\" OR \"otter\"", "\"ly\"*", "\"lynx report\"", "\"otter\" NOT \"report\"", "\"notes\" \"watcher\""]
        for match in matches { try await compare(match) }
        // The next process ranks from the copy of every row's length (decoded from email_fts_docsize).
        f.index.storeCopiesForNextProcess()
        let next = try SearchIndexManager(store: f.store)
        for match in matches { try await compare(match, index: next) }
        // The newest email is deleted and its id reused by a much longer one.
        let last = try await f.index.read { try Int64.fetchOne($0, sql: "SELECT MAX(rowid) FROM email_fts") }!
        try f.index.deleteEmail(id: last)
        let reused = try f.add(Spec(subject: "lynx", body: "lynx " + String(repeating: filler, count: 900)))
        XCTAssertEqual(reused, last, "SQLite reuses the largest rowid")
        try await compare("\"lynx\"")
        try await compare("\"lynx\"", index: try SearchIndexManager(store: f.store))
    }

    /// A one-shot process reads the email directory from the copy the last search kept in
    /// search.sqlite — the same directory — and never a copy of older mail.
    func testTheDirectoryCopyIsReadWhenCurrentAndIgnoredWhenTheMailChanged() async throws {
        let f = try SearchFixture()
        try f.add((0..<30).map { i in Spec(subject: "kestrel \(i)", isRead: i % 2 == 0, messageId: "k\(i)@x",
                                            inReplyTo: i % 3 == 0 ? nil : "k\(i - 1)@x") })
        let first = try await f.useCase().search("kestrel", limit: 100)
        f.index.storeCopiesForNextProcess()
        func fresh() throws -> (SearchIndexManager, EmailDirectory.Snapshot, scanned: Bool) {
            let manager = try SearchIndexManager(store: f.store)
            let snapshot = try manager.read { try manager.directory.snapshot($0) }
            return (manager, snapshot, manager.directory.takePendingCopy() != nil)
        }
        let (manager, copy, scanned) = try fresh()
        XCTAssertFalse(scanned, "read from the copy the first search kept")
        let again = try await SearchEmailsUseCase(index: manager, parser: SearchFixture.parser).search("kestrel", limit: 100)
        XCTAssertEqual(again.conversationCount, first.conversationCount)
        XCTAssertEqual(again.results.map(\.emailId), first.results.map(\.emailId))
        let scannedIds = try await f.index.read { db -> [Int64] in Array(try EmailDirectory().snapshot(db).emailIds) }
        XCTAssertEqual(Array(copy.emailIds), scannedIds)

        // The mail changes (a flag): the copy is of older mail and is not used.
        try await f.store.database.write { try $0.execute(sql: "UPDATE emails SET isRead = 1 - isRead") }
        let (_, changed, rescanned) = try fresh()
        XCTAssertTrue(rescanned, "older copy ignored")
        XCTAssertNotEqual(changed.version, copy.version)
        let unread = try await SearchEmailsUseCase(index: manager, parser: SearchFixture.parser).search("kestrel is:unread", limit: 100)
        XCTAssertEqual(unread.keywordMatches, 15)
    }

    /// The in-memory `from:` filter answers exactly what the SQL answers, on tricky senders.
    func testTheSenderIndexAgreesWithTheSQLFilter() throws {
        let f = try SearchFixture()
        let senders: [(String?, String?)] = [
            ("john.smith@example.com", "John Smith"), ("John.Smith@Example.COM", nil), ("jsmith@corp.example", ""),
            ("list@usrp.example", "Jane Doe via USRP-users"), ("list@usrp.example", "Bob Ö via USRP-users"),
            ("list@usrp.example", nil), ("oeztuerk@example.de", "Özge Öztürk"), ("100%_sure@odd.example", "Per Cent_Under"),
            ("kay.mann@enron.com", "Kay Mann"), ("kay.mann@enron.com", "K. Mann"), (nil, "No Address"), (nil, nil),
        ]
        try f.add(senders.enumerated().map { i, s in Spec(subject: "mail \(i)", from: s.0, fromName: s.1) })
        // Contacts that only ever received mail match some patterns but have no email to give.
        try f.add([Spec(subject: "to kay", from: "kay.mann@enron.com", to: "kay.only-receives@enron.com"),
                   Spec(subject: "to john", from: nil, to: "john.receiver@example.com")])
        let patterns = ["john", "JOHN", "smith", "example.com", "EXAMPLE", "usrp", "via", "jane", "Ö", "ö", "özge", "Özge",
                        "100%", "_", "%", "cent_", "kay", "mann", "k. mann", "no address", "@", ".", "zzz", "list"]
        try f.index.read { db in
            let snapshot = try f.index.directory.snapshot(db)
            let maxId = Int64(snapshot.threads.count - 1)
            let index = try SenderIndex(db, version: snapshot.version, maxId: maxId)
            XCTAssertEqual(index.contactCount, 6, "the senders' contacts only")
            XCTAssertGreaterThan(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM mail.contacts") ?? 0, 6)
            // The stored layout, read back as the next process reads it, answers the same.
            let copy = try XCTUnwrap(SenderIndex(bytes: index.bytes, version: snapshot.version, maxId: maxId))
            for p in patterns {
                var filters = SearchFilters()
                filters.sender = p
                let sql = try SearchIndexManager.candidates(filters: filters, scope: .allMail, directory: snapshot, db: db)
                XCTAssertEqual(index.emailIds(sender: p).ids.sorted(), sql?.ids.sorted(), "from:\(p)")
                XCTAssertEqual(copy.emailIds(sender: p).ids.sorted(), sql?.ids.sorted(), "from:\(p), stored copy")
            }
            // A damaged copy is refused, not read.
            XCTAssertNil(SenderIndex(bytes: Array(index.bytes.dropLast()), version: snapshot.version, maxId: maxId))
            XCTAssertNil(SenderIndex(bytes: [UInt8](repeating: 7, count: index.bytes.count), version: snapshot.version, maxId: maxId))
            // And the search takes the index from its second sender search on.
            let lookup = SenderLookup()
            XCTAssertNil(try lookup.index(db, version: snapshot.version, maxId: maxId))
            XCTAssertTrue(lookup.takeCopyDue(), "the SQL ran without a stored copy: one is due")
            XCTAssertNotNil(try lookup.index(db, version: snapshot.version, maxId: maxId))
        }
        // Without the sender indexes (a first import builds them once its mail is stored): the same answers.
        try f.store.database.write { try $0.execute(sql: "DROP INDEX emails_from; DROP INDEX emails_from_name; DROP INDEX emails_from_lower") }
        try f.index.read { db in
            let snapshot = try f.index.directory.snapshot(db)
            let index = try SenderIndex(db, version: snapshot.version, maxId: Int64(snapshot.threads.count - 1))
            for p in patterns {
                var filters = SearchFilters()
                filters.sender = p
                let sql = try SearchIndexManager.candidates(filters: filters, scope: .allMail, directory: snapshot, db: db)
                XCTAssertEqual(index.emailIds(sender: p).ids.sorted(), sql?.ids.sorted(), "from:\(p), no sender indexes")
            }
        }
    }

    /// A one-shot process that searched `from:` leaves the sender index for the next process,
    /// which answers from it at once, with the same results; new mail makes it stale.
    func testTheNextProcessReadsTheSenderIndexTheLastOneStored() async throws {
        let f = try SearchFixture()
        try f.add([Spec(subject: "budget one", from: "kay.mann@enron.com", fromName: "Kay Mann"),
                   Spec(subject: "budget two", from: "jeff@enron.com", fromName: "Jeff")])
        let first = try await SearchEmailsUseCase(index: f.index, parser: SearchFixture.parser).search("budget from:kay", limit: 10)
        XCTAssertEqual(first.results.count, 1)
        f.index.storeCopiesForNextProcess()
        let stored = try await f.index.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sender_cache") }
        XCTAssertEqual(stored, 1)
        let next = try SearchIndexManager(store: f.store)
        let again = try await SearchEmailsUseCase(index: next, parser: SearchFixture.parser).search("budget from:kay", limit: 10)
        XCTAssertEqual(again.results.map(\.emailId), first.results.map(\.emailId))
        XCTAssertFalse(next.senders.takeCopyDue(), "the next process answered from the stored copy, not the SQL")
        XCTAssertFalse(next.senders.takeCopyDue(), "the next process answered from the stored copy, not the SQL")
        let directory = next.directory
        let copied = try await next.read { db in
            let snapshot = try directory.snapshot(db)
            return try SenderIndex.storedCopy(db, version: snapshot.version, maxId: Int64(snapshot.threads.count - 1)) != nil
        }
        XCTAssertTrue(copied)
        try f.add(Spec(subject: "budget three", from: "kay.mann@enron.com", fromName: "Kay Mann"))
        let later = try await SearchEmailsUseCase(index: next, parser: SearchFixture.parser).search("budget from:kay", limit: 10)
        XCTAssertEqual(later.results.count, 2, "new mail: the stale copy is not used")
    }

    func testIndexStatusReportsSizesAndNoSemanticYet() throws {
        let f = try SearchFixture()
        try f.add(Spec(subject: "size"))
        let s = try f.index.status()
        XCTAssertGreaterThan(s.bytes, 0)
        XCTAssertEqual(s.indexedEmails, 1)
        XCTAssertEqual(s.embeddingCoverage, 0)
    }

    func testTheGenerationChangesWithTheIndexSoCachedResultsExpire() async throws {
        let f = try SearchFixture()
        let cache = SearchCache<SearchResponse>()
        try f.add(Spec(subject: "heron one"))
        let first = try await f.useCase().search("heron")
        cache.insert(first, for: "heron", generation: f.index.generation)
        XCTAssertNotNil(cache.value(for: " Heron ", generation: f.index.generation))

        let before = f.index.generation
        let id = try f.add(Spec(subject: "heron two"))
        XCTAssertNotEqual(f.index.generation, before, "indexing changes the generation")
        XCTAssertNil(cache.value(for: "heron", generation: f.index.generation), "the cached answer is stale")

        let afterAdd = f.index.generation
        try f.index.deleteEmail(id: id)
        XCTAssertNotEqual(f.index.generation, afterAdd, "deleting changes it too")
        let afterDelete = f.index.generation
        try f.index.rebuild()
        XCTAssertNotEqual(f.index.generation, afterDelete, "and so does a rebuild")
    }

    /// Removing an account leaves nothing of it on disk: no FTS5 row, none of its terms in FTS5's segments
    /// (a deleted row's terms are only marked deleted there), no copy for the next process that holds its
    /// senders or its emails (not even the directory a search read before the removal and the process
    /// keeps at its end), and nothing in either database's WAL.
    func testRemovingAnAccountLeavesNothingOfItOnDisk() async throws {
        let f = try SearchFixture()
        let gone = try f.store.account(named: "gone").id
        try f.add([Spec(subject: "wombat census", body: "marsupialia burrows near the creek", from: "quill@burrow.example"),
                   Spec(subject: "wombat roster", body: "marsupialia joeys", from: "moss@burrow.example")], accountId: gone)
        try f.add((0..<3).map { Spec(subject: "kookaburra \($0)", body: "dacelo chorus", from: "perch@gumtree.example") })
        // A `from:` search and the copies for the next process, as a one-shot command leaves them; then new mail
        // and a search, whose directory (with the account's emails in it) waits for the process's end.
        let bySender = try await f.useCase().search("wombat from:quill", limit: 10)
        XCTAssertEqual(bySender.results.count, 1)
        f.index.storeCopiesForNextProcess()
        try f.add(Spec(subject: "kookaburra late", body: "dacelo at dusk", from: "perch@gumtree.example"))
        let kept = try await f.useCase().search("kookaburra", limit: 10)
        XCTAssertEqual(kept.results.count, 4)

        let files = ["search.sqlite", "search.sqlite-wal", "mail.sqlite", "mail.sqlite-wal"].map { f.directory.appendingPathComponent($0) }
        let words = ["marsupialia", "burrow.example"]
        func left() async throws -> [String] {
            var found = try await f.index.read { db -> [String] in
                var found: [String] = []
                for (table, column) in [("email_fts_data", "block"), ("email_fts_content", "c3"), ("sender_cache", "data")] {
                    for word in words where try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table) WHERE instr(\(column), CAST(? AS BLOB)) > 0",
                                                              arguments: [word])! > 0 {
                        found.append("\(table): \(word)")
                    }
                }
                let current = try EmailDirectory.version(db)
                if try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM directory_cache WHERE version <> ?", arguments: [current])! > 0 {
                    found.append("directory_cache: a copy of older mail")
                }
                return found
            }
            // The files' bytes, where SQLite overwrites what it deletes (SECURE_DELETE, as Debian builds it).
            let zeroes = try await f.index.read { try Int.fetchOne($0, sql: "PRAGMA secure_delete") ?? 0 }
            for file in files where zeroes != 0 {
                let bytes = (try? Data(contentsOf: file)) ?? Data()
                for word in words where bytes.range(of: Data(word.utf8)) != nil { found.append("\(file.lastPathComponent): \(word)") }
            }
            return found
        }
        let before = try await left()
        XCTAssertTrue(before.contains("email_fts_data: marsupialia") && before.contains("sender_cache: burrow.example"), "\(before)")

        XCTAssertEqual(try f.index.deleteAccount(id: gone).count, 2)
        f.index.storeCopiesForNextProcess()
        let after = try await left()
        XCTAssertEqual(after, [])
        XCTAssertTrue(try f.index.status().healthy)
        XCTAssertEqual(try f.index.status().indexedEmails, 4)
        let removedWord = try await f.useCase().search("marsupialia", limit: 10)
        XCTAssertEqual(removedWord.results.count, 0)
        let keptAgain = try await f.useCase().search("kookaburra", limit: 10)
        XCTAssertEqual(keptAgain.results.map(\.emailId), kept.results.map(\.emailId))
        let keptSender = try await f.useCase().search("from:perch", limit: 10)
        XCTAssertEqual(keptSender.results.count, 4)
    }
}
