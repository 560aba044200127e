import Foundation
import GRDB
import GRDBSQLite
import MailImport
import MailModel
import MailStore
@testable import SearchEngine
@testable import SearchIndex
import XCTest

/// `SearchQueryParser.plainText` answers only for queries that `parse` reads as text alone.
final class PlainQueryTests: XCTestCase {
    func testPlainWordsAndPhrasesAreTextFiltersAreNot() {
        XCTAssertEqual(SearchQueryParser.plainText("gas prices california"), "gas prices california")
        XCTAssertEqual(SearchQueryParser.plainText("  \"natural gas\"   Dabhol "), "\"natural gas\" Dabhol")
        XCTAssertEqual(SearchQueryParser.plainText("notes of the offsite"), "notes of the offsite")
        XCTAssertEqual(SearchQueryParser.plainQuery("contract from:kay")?.text, "contract")
        XCTAssertEqual(SearchQueryParser.plainQuery("contract From:Kay.Mann@enron.com")?.sender, "Kay.Mann@enron.com")
        for query in ["from:kay", "a from:kay from:jeff", "a -from:kay", "a from:\"kay\"", "a from:kay.", "a from:", "a from: kay"] {
            XCTAssertNil(SearchQueryParser.plainQuery(query), query)
        }
        for query in ["contract from:kay", "from john", "budget last week", "unread promotions", "report -draft",
                      "a OR b", "(a b)", "{a b}", "q3 report", "mail to sarah", "pdf", "budget in march", "", "   ",
                      "sent items", "emails", "meeting today", "john@example.com", "-(x)"] {
            XCTAssertNil(SearchQueryParser.plainText(query), query)
        }
    }

    /// Random queries over the parser's own vocabulary, ordinary words, names, numbers, quotes and
    /// operators: wherever `plainText` answers, `parse` finds no filter and the same text.
    func testNeverAnswersWhereTheParserFindsAFilter() {
        var words = PlainQueryWords.triggers.words + QueryVocabulary.stopWords.words + QueryVocabulary.numberWords.keys
        words += ["gas", "prices", "california", "budget", "report", "Sarah", "John", "Kay", "meeting", "notes", "offsite",
                  "q3", "2024", "3", "7", "days", "weeks", "ago", "e-mail", "x-ray", "report.", "john,", "(budget)",
                  "\"natural gas\"", "\"from john\"", "-draft", "OR", "AND", "from:kay", "is:unread", "Über", "café",
                  "March", "Monday", "Sent", "Inbox", "PDF", "Promotions", "[tag]", "re:", "Fwd:", "it's", "o'brien",
                  "from:kay", "From:Jeff.Dasovich", "from:p3@example.com", "from:a-b_c+d", "from:kay.", "from:\"kay mann\"",
                  "-from:kay", "from:", "to:kay", "subject:budget"]
        words += words.map { $0.prefix(1).uppercased() + $0.dropFirst() }
        let parser = SearchFixture.parser
        var generator = SplitMix(seed: 42)
        var plain = 0, withSender = 0
        for _ in 0..<30_000 {
            let count = Int.random(in: 1...5, using: &generator)
            let query = (0..<count).map { _ in words.randomElement(using: &generator)! }.joined(separator: " ")
            guard let (text, sender) = SearchQueryParser.plainQuery(query) else { continue }
            plain += 1
            if sender != nil { withSender += 1 }
            let parsed = parser.parse(query)
            var expected = SearchFilters()
            expected.sender = sender
            XCTAssertEqual(parsed.filters, expected, query)
            XCTAssertEqual(parsed.text, text, query)
            XCTAssertNil(parsed.proseSenderFallback, query)
            XCTAssertEqual(SearchQueryParser.plainText(query), sender == nil ? text : nil, query)
        }
        XCTAssertGreaterThan(plain, 1_000, "plain queries are common enough to be worth a path of their own")
        XCTAssertGreaterThan(withSender, 100)
    }
}

/// A keyword search through `OneShotKeywordSearch` gives what the service's search gives: the same
/// conversations in the same order, with the same counts, snippets, highlights and explanations,
/// on real mail (the usrp-users sample: list mail, quoted replies, non-ASCII text).
final class OneShotKeywordSearchTests: XCTestCase {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The sample imported, then opened again (as the next process would) and searched once, so
    /// that the index is checked and its copies are stored.
    private func importedSample() throws -> (SearchFixture, SearchIndexManager) {
        let mbox = Self.packageRoot.appendingPathComponent("corpora/usrp-users.mbox")
        guard FileManager.default.fileExists(atPath: mbox.path) else {
            let message = "corpora/usrp-users.mbox is missing (make corpora)"
            if ProcessInfo.processInfo.environment["MAILSEARCH_REQUIRE_MODEL"] == "1" { XCTFail(message) }
            throw XCTSkip(message)
        }
        let f = try SearchFixture()
        _ = try ImportPipeline(store: f.store, accountName: "usrp", observer: f.index).run(path: mbox.path)
        let index = try SearchIndexManager(store: f.store)
        return (f, index)
    }

    private func regular(_ index: SearchIndexManager, _ text: String, limit: Int) async throws -> SearchResponse {
        try await SearchEmailsUseCase(index: index, parser: SearchFixture.parser).search(text, limit: limit, mode: .keyword)
    }

    func testSameResultsAsTheServiceOnRealMail() async throws {
        let (f, index) = try importedSample()
        // Before any search stored the copies, the one-shot search leaves the work to the regular path.
        XCTAssertNil(OneShotKeywordSearch.search(dataDirectory: f.directory.path, text: "usrp", limit: 20))
        _ = try await regular(index, "usrp", limit: 20)
        index.storeCopiesForNextProcess()
        // A `from:` search runs its SQL once; the stored sender index serves the next process.
        XCTAssertNil(OneShotKeywordSearch.search(dataDirectory: f.directory.path, text: "uhd from:ettus", limit: 20))
        _ = try await regular(index, "uhd from:ettus", limit: 20)
        index.storeCopiesForNextProcess()

        // Queries from the mail itself: words and pairs of words of subjects, and phrases.
        let subjects = try await f.store.database.read { db in
            try String.fetchAll(db, sql: "SELECT subject FROM emails ORDER BY id")
        }
        var generator = SplitMix(seed: 7)
        var queries = ["usrp", "gnuradio uhd", "b210 firmware", "\"timed commands\"", "ettus", "FPGA image", "Über",
                       "x310 10gbe", "zzzzzz", "the", "re", "Marcus", "n210 clock", "uhd from:ettus", "from:marcus fpga",
                       "clock from:nobody-at-all", "from:gmail.com usrp", "from:Müller uhd"]
        for _ in 0..<60 {
            let words = subjects.randomElement(using: &generator)!.split(whereSeparator: { !$0.isLetter && !$0.isNumber })
            guard !words.isEmpty else { continue }
            let start = Int.random(in: 0..<words.count, using: &generator)
            let length = min(words.count - start, Int.random(in: 1...3, using: &generator))
            queries.append(words[start..<start + length].joined(separator: " "))
        }
        var compared = 0
        for query in queries where SearchQueryParser.plainQuery(query) != nil {
            for limit in [1, 20, 100] {
                let expected = try await regular(index, query, limit: limit)
                let oneShot = try XCTUnwrap(OneShotKeywordSearch.search(dataDirectory: f.directory.path, text: query, limit: limit),
                                            "\(query): the index is up to date")
                XCTAssertEqual(oneShot.conversationCount, expected.conversationCount, query)
                XCTAssertEqual(oneShot.keywordMatches, expected.keywordMatches, query)
                XCTAssertEqual(oneShot.results, expected.results, "\(query), limit \(limit)")
                XCTAssertEqual(oneShot.query.text, expected.query.text, query)
                compared += 1
            }
        }
        XCTAssertGreaterThan(compared, 120)
        let fromEttus = try await regular(index, "uhd from:ettus", limit: 20)
        XCTAssertFalse(fromEttus.results.isEmpty)
        XCTAssertEqual(OneShotKeywordSearch.search(dataDirectory: f.directory.path, text: "uhd from:ettus", limit: 20)?.results,
                       fromEttus.results)
    }

    /// A one-phrase MATCH takes its IDF from the rows it walks (`ms_bm25_tf`) instead of a second
    /// query of the phrase: every rank is the one `ms_bm25` gives, to the bit, with and without
    /// candidates; a MATCH of several phrases is ranked by `ms_bm25` itself.
    func testDeferredIDFGivesMsBm25sRanksToTheBit() throws {
        let (f, index) = try importedSample()
        _ = f
        let texts = ["usrp", "firmware", "\"timed commands\"", "b210", "x", "the", "gnuradio uhd", "uhd -ettus", "clock OR pps",
                     "zzzzzz", "re"]
        try index.read { db in
            let maxId = try Int64.fetchOne(db, sql: "SELECT MAX(rowid) FROM email_fts") ?? 0
            var everyOther = EmailIdSet()
            for id in stride(from: Int64(1), through: maxId, by: 2) { everyOther.insert(id) }
            for text in texts {
                guard let match = FTS5QueryBuilder.query(for: text).match else { continue }
                for candidates in [nil, everyOther] {
                    let lengths = DocumentLengths(version: 0, capacity: Int(maxId) + 4_096)
                    var expected: [Int64: Double] = [:]
                    let sql = "SELECT rowid, ms_bm25(email_fts, ?2, \(SearchDatabase.bm25Weights)) FROM email_fts WHERE email_fts MATCH ?1"
                        + (candidates == nil ? "" : " AND ms_email_in(rowid, ?3)")
                    try RawStatementScan.forEachRow(db, sql: sql, text: match, lengths: lengths, set: candidates) { row in
                        expected[sqlite3_column_int64(row, 0)] = sqlite3_column_double(row, 1)
                    }
                    let hits = try FTS5Manager.matches(match: match, candidates: candidates,
                                                       lengths: DocumentLengths(version: 0, capacity: Int(maxId) + 4_096), db: db)
                    XCTAssertEqual(hits.count, expected.count, text)
                    for hit in hits { XCTAssertEqual(hit.rank, expected[hit.emailId], "\(text) \(hit.emailId)") }
                }
            }
        }
    }

    func testNewMailSendsTheSearchBackToTheRegularPathUntilItsCopiesAreStored() async throws {
        let (f, index) = try importedSample()
        _ = try await regular(index, "usrp", limit: 20)
        index.storeCopiesForNextProcess()
        XCTAssertNotNil(OneShotKeywordSearch.search(dataDirectory: f.directory.path, text: "zebrafish", limit: 20))

        try f.add([SearchFixture.Spec(subject: "Zebrafish sighting", body: "A zebrafish in the lab.")])
        XCTAssertNil(OneShotKeywordSearch.search(dataDirectory: f.directory.path, text: "zebrafish", limit: 20),
                     "the mail changed: its directory copy and the index check are stale")
        let reopened = try SearchIndexManager(store: f.store)
        let expected = try await regular(reopened, "zebrafish", limit: 20)
        reopened.storeCopiesForNextProcess()
        let oneShot = try XCTUnwrap(OneShotKeywordSearch.search(dataDirectory: f.directory.path, text: "zebrafish", limit: 20))
        XCTAssertEqual(oneShot.results, expected.results)
        XCTAssertEqual(oneShot.results.map(\.subject), ["Zebrafish sighting"])
    }

    func testRecordsTheSearchInTheRecentSearchesAsTheServiceDoes() async throws {
        let (f, index) = try importedSample()
        _ = try await regular(index, "usrp", limit: 20)
        index.storeCopiesForNextProcess()
        try f.store.recordSearch("older search")
        XCTAssertNotNil(OneShotKeywordSearch.search(dataDirectory: f.directory.path, text: "  Timed Commands\n", limit: 5,
                                                    recordHistory: true))
        XCTAssertNotNil(OneShotKeywordSearch.search(dataDirectory: f.directory.path, text: "fpga", limit: 5))
        XCTAssertEqual(try f.store.recentSearches(), ["Timed Commands", "older search"])
    }

    func testRecentSearchKeyTrimsAsFoundationDoes() {
        // Every scalar alone, then mixed text.
        for value in 0..<0x3100 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = "a" + String(scalar)
            XCTAssertEqual(MailStore.recentSearchKey(text)?.query, text.trimmingCharacters(in: .whitespacesAndNewlines), "U+\(value)")
        }
        let pieces = ["a", "B", " ", "\t", "\n", "\r\n", "\u{00A0}", "\u{2003}", "\u{2028}", "\u{0085}", "\u{200B}", "\u{FEFF}", "é", "Ö"]
        var generator = SplitMix(seed: 3)
        for _ in 0..<5_000 {
            let text = (0..<Int.random(in: 0...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            let key = MailStore.recentSearchKey(text)
            XCTAssertEqual(key?.query, trimmed.isEmpty ? nil : trimmed, text.debugDescription)
            XCTAssertEqual(key?.normalized, trimmed.isEmpty ? nil : trimmed.lowercased())
        }
    }

    func testAMissingOrDamagedIndexIsLeftToTheRegularPath() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("oneshot-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        XCTAssertNil(OneShotKeywordSearch.search(dataDirectory: dir.path, text: "budget", limit: 20))
        try Data("not a database".utf8).write(to: dir.appendingPathComponent("search.sqlite"))
        try Data("not a database".utf8).write(to: dir.appendingPathComponent("mail.sqlite"))
        XCTAssertNil(OneShotKeywordSearch.search(dataDirectory: dir.path, text: "budget", limit: 20))
    }
}


/// A large import leaves FTS5's index in one segment; a small one leaves merging to FTS5.
final class OptimizeAfterImportTests: XCTestCase {
    private func mbox(_ count: Int, from first: Int = 0) throws -> URL {
        var text = ""
        for i in first..<first + count {
            text += "From x@example.com Mon Mar  4 14:11:14 2024\nMessage-ID: <opt\(i)@example.com>\n"
            text += "From: P\(i % 7) <p\(i % 7)@example.com>\nSubject: Report \(i) on gas prices\nDate: 4 Mar 2024 10:00:00 +0000\n\n"
            text += "Body \(i): pipeline capacity, gas storage and the quarterly budget number \(i * 7).\n\n"
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("opt-\(UUID().uuidString).mbox")
        try Data(text.utf8).write(to: url)
        return url
    }

    private func segments(_ index: SearchIndexManager) throws -> Int {
        try index.read { try Int.fetchOne($0, sql: "SELECT COUNT(DISTINCT segid) FROM email_fts_idx") ?? 0 }
    }

    private func automerge(_ index: SearchIndexManager) throws -> Int? {
        try index.read { try FTS5Manager.automerge(db: $0) }
    }

    func testAnImportKilledWhileFTS5MergedLazilyIsSetBackWhenTheIndexIsOpened() throws {
        let f = try SearchFixture()
        var configuration = Configuration()
        configuration.prepareDatabase(SearchDatabase.registerFTS5Extensions)
        let queue = try DatabaseQueue(path: f.store.directory.searchDatabaseURL.path, configuration: configuration)
        try queue.write { try FTS5Manager.setAutomerge(SearchIndexManager.importAutomerge, db: $0) }
        try queue.close()
        let reopened = try SearchIndexManager(store: f.store)
        XCTAssertEqual(try automerge(reopened), SearchIndexManager.automerge)
    }

    func testALargeImportIsOptimizedASmallOneIsNot() async throws {
        let f = try SearchFixture()
        let large = try mbox(3_000)
        defer { try? FileManager.default.removeItem(at: large) }
        let before = try await f.useCase().search("gas prices", limit: 50, mode: .keyword)
        XCTAssertEqual(before.conversationCount, 0)
        _ = try ImportPipeline(store: f.store, accountName: "a", batchSize: 100, observer: f.index).run(path: large.path)
        XCTAssertEqual(try segments(f.index), 1, "one segment after a large import")
        XCTAssertEqual(try automerge(f.index), SearchIndexManager.automerge, "FTS5 merges as usual again after the import")
        let small = try mbox(50, from: 3_000)
        defer { try? FileManager.default.removeItem(at: small) }
        _ = try ImportPipeline(store: f.store, accountName: "a", batchSize: 10, observer: f.index).run(path: small.path)
        XCTAssertGreaterThan(try segments(f.index), 1, "a small import is merged by FTS5 as it goes")
        let after = try await f.useCase().search("report gas", limit: 5, mode: .keyword)
        XCTAssertEqual(after.keywordMatches, 3_050)
    }
}
