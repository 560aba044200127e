import DemoCorpus
import Embedding
import Foundation
import GRDB
import MailImport
import MailModel
import MailParsing
import MailStore
import SearchEngine
import SearchIndex
import XCTest

/// Wrong answers first seen on a real 84,000-message list archive, each turned into a test on a
/// corpus built here: filtered searches that lost their matches, conversation counts that were
/// the size of a candidate window, and semantic "matches" for text like nothing in the mailbox.
final class RealAnswersTests: XCTestCase {
    typealias Spec = SearchFixture.Spec
    static let year: Double = 365

    /// 1,400 messages about a kernel patch: the 150 oldest (imported first, so the lowest ids)
    /// are from 1997–98 and from Miguel; the rest are recent. Pairs of messages form a thread.
    func archive() throws -> (SearchFixture, old: [Int64], recent: [Int64]) {
        let f = try SearchFixture()
        var oldSpecs: [Spec] = []
        for i in 0..<75 {
            let root = "old-\(i)@archive"
            oldSpecs += [
                Spec(subject: "mips patch \(i)", body: "A kernel patch for the MIPS port, take \(i).", from: "miguel@nuclecu.unam.mx",
                     fromName: "Miguel de Icaza", daysAgo: 27 * Self.year + Double(i), messageId: root),
                Spec(subject: "Re: mips patch \(i)", body: "Applied the kernel patch \(i), thanks.", from: "ralf@linux-mips.org",
                     daysAgo: 27 * Self.year + Double(i) - 1, messageId: "re-old-\(i)@archive", inReplyTo: root),
            ]
        }
        var recentSpecs: [Spec] = []
        for i in 0..<625 {
            let root = "new-\(i)@archive"
            recentSpecs += [
                Spec(subject: "patch \(i): fix the build", body: "This patch fixes the build of the kernel on arm, part \(i).",
                     from: "dev\(i % 40)@example.org", daysAgo: Double(i % 300), messageId: root),
                Spec(subject: "Re: patch \(i): fix the build", body: "Reviewed this kernel patch; looks good to me.",
                     from: "reviewer@example.org", daysAgo: Double(i % 300), messageId: "re-new-\(i)@archive", inReplyTo: root),
            ]
        }
        let old = try f.add(oldSpecs)
        let recent = try f.add(recentSpecs)
        return (f, old, recent)
    }

    func testFilteredSearchFindsOldMatchesBeyondAThousandNewerOnes() async throws {
        let (f, old, _) = try archive()
        let before = try await f.useCase().search("patch before 1999")
        XCTAssertEqual(before.conversationCount, 75, "every 1997–98 patch thread, though 1,250 newer messages match `patch`")
        XCTAssertEqual(Set(before.results.map(\.emailId)).isSubset(of: Set(old)), true)
        XCTAssertEqual(before.results.count, 20)

        let kernel = try await f.useCase().search("kernel from miguel")
        XCTAssertEqual(kernel.conversationCount, 75, "Miguel's kernel mail is old and imported first")
        let fromMiguel = try await f.useCase().search("from miguel")
        XCTAssertEqual(fromMiguel.conversationCount, 75)
    }

    func testConversationCountIsExactOverEveryMatch() async throws {
        let (f, _, _) = try archive()
        let r = try await f.useCase().search("patch")
        XCTAssertEqual(r.keywordMatches, 1_400)
        XCTAssertEqual(r.conversationCount, 700, "700 two-message threads match, not the grouping of a candidate window")
        XCTAssertEqual(r.results.count, 20)
        XCTAssertEqual(Set(r.results.map(\.threadId)).count, 20, "one row per conversation")
        XCTAssertTrue(r.results.allSatisfy { $0.matchedMessages == 2 })
        let arm = try await f.useCase().search("arm")
        XCTAssertEqual(arm.conversationCount, 625)
    }

    /// BM25 with the column weights (subject 10, body 1, sender 5): the order is known.
    func testBM25OrderIsKnownOnAFixtureAndMatchesFTS5sOwnRanking() async throws {
        let f = try SearchFixture()
        let filler = String(repeating: "unrelated words about other things entirely. ", count: 40)
        let ids = try f.add([
            Spec(subject: "Lunch on Monday", body: "zephyr once, in a long message. " + filler, daysAgo: 1),  // weakest
            Spec(subject: "Lunch on Tuesday", body: "zephyr zephyr zephyr, short.", daysAgo: 2),             // body, dense
            Spec(subject: "Zephyr rollout", body: "Nothing in the body.", daysAgo: 3),                      // subject
            Spec(subject: "Lunch on Friday", body: "zephyr twice: zephyr. " + filler, daysAgo: 4),           // body, long
            Spec(subject: "Other", body: "No match here.", daysAgo: 5),
        ])
        let r = try await f.useCase().search("zephyr")
        XCTAssertEqual(r.results.map(\.emailId), [ids[2], ids[1], ids[3], ids[0]])
        let raw = try f.index.rawKeywordTop(match: try XCTUnwrap(FTS5QueryBuilder.matchExpression(for: "zephyr")), limit: 10)
        XCTAssertEqual(raw.map(\.emailId), r.results.map(\.emailId), "same order as FTS5's ORDER BY bm25")
        XCTAssertEqual(r.results.map { $0.why.keyword?.rank }, [1, 2, 3, 4])
        XCTAssertEqual(r.results.first?.why.keyword?.terms, ["zephyr"])
        XCTAssertNil(r.results.first?.why.semantic)
    }

    /// AC-S-03: filters combine with AND, and the counts are the known ones.
    func test_AC_S_03_countsOfFilteredSearchesAreExact() async throws {
        let (f, _, _) = try archive()
        var invoices: [Spec] = []
        for i in 0..<30 {
            var spec = Spec(subject: "invoice \(i)", body: "Invoice attached for the patch work.", from: "billing@vendor.com")
            spec.daysAgo = Double(i)
            spec.hasAttachment = i % 3 == 0
            spec.isRead = i % 2 == 0
            invoices.append(spec)
        }
        let unread = try f.add(invoices)
        XCTAssertEqual(unread.count, 30)
        var r = try await f.useCase().search("invoice")
        XCTAssertEqual(r.conversationCount, 30)
        r = try await f.useCase().search("invoice with attachments")
        XCTAssertEqual(r.conversationCount, 10)
        r = try await f.useCase().search("unread invoice")
        XCTAssertEqual(r.conversationCount, 15)
        r = try await f.useCase().search("unread invoice with attachments")
        XCTAssertEqual(r.conversationCount, 5, "i = 3, 9, 15, 21, 27")
        r = try await f.useCase().search("patch from billing")
        XCTAssertEqual(r.conversationCount, 30)
        r = try await f.useCase().search("from:billing@vendor.com")
        XCTAssertEqual(r.conversationCount, 30, "filters only: exact count, newest first")
        XCTAssertEqual(r.results.first?.subject, "invoice 0")
    }

    func testFilterThatMatchesNothingGivesNothingQuickly() async throws {
        let (f, _, _) = try archive()
        let r = try await f.useCase().search("patch from nobody-at-all")
        XCTAssertEqual(r.conversationCount, 0)
        XCTAssertTrue(r.results.isEmpty)
    }

    /// The in-memory directory of dates and flags is read again when mail.sqlite changes, whoever wrote.
    func testChangedFlagsAndNewMailReachTheNextSearch() async throws {
        let f = try SearchFixture()
        let ids = try f.add([Spec(subject: "invoice one", isRead: false), Spec(subject: "invoice two", isRead: true)])
        var r = try await f.useCase().search("unread invoice")
        XCTAssertEqual(r.conversationCount, 1)
        try await f.store.database.write { try $0.execute(sql: "UPDATE emails SET isRead = 0 WHERE id = ?", arguments: [ids[1]]) }
        r = try await f.useCase().search("unread invoice")
        XCTAssertEqual(r.conversationCount, 2, "a flag changed by another writer")
        try f.add(Spec(subject: "invoice three", isRead: false))
        r = try await f.useCase().search("unread invoice")
        XCTAssertEqual(r.conversationCount, 3, "new mail")
    }

    func testSemanticOnlyNeighboursDoNotPushOutTheBestKeywordHits() async throws {
        let f = try SearchFixture()
        let ids = try f.add((0..<10).map { i in Spec(subject: "Status \(i)", body: "The quarterly budget, part \(i).", daysAgo: Double(i)) })
        let others = try f.add((0..<5).map { i in Spec(subject: "Note \(i)", body: "Unrelated text \(i).", daysAgo: Double(20 + i)) })
        let r = try await f.useCase(semantic: FakeSemanticRanker(ranking: others)).search("quarterly budget")
        XCTAssertEqual(Set(r.results.prefix(3).map(\.matchSource)), [.keyword])
        XCTAssertTrue(r.results.prefix(3).allSatisfy { ids.contains($0.emailId) })
        XCTAssertEqual(r.conversationCount, 15, "keyword and semantic matches are both counted")
        let semantic = try XCTUnwrap(r.results.first { $0.matchSource == .semantic })
        XCTAssertNotNil(semantic.why.semantic?.similarity)
        XCTAssertNil(semantic.why.keyword)
    }
}

/// AC-S-02 / E-01 and the semantic floor with the real all-MiniLM-L6-v2 model.
final class SemanticFloorWithRealModelTests: XCTestCase {
    typealias Spec = SearchFixture.Spec

    static func embedder() throws -> MiniLMEmbedder {
        let directory = ModelStore.defaultDirectory()
        guard FileManager.default.fileExists(atPath: directory.appendingPathComponent("model.safetensors").path) else {
            let message = "The all-MiniLM-L6-v2 model is not installed in \(directory.path); run scripts/install-model.sh"
            if ProcessInfo.processInfo.environment["MAILSEARCH_REQUIRE_MODEL"] == "1" { XCTFail(message) }
            throw XCTSkip(message)
        }
        return try MiniLMEmbedder(modelDirectory: directory)
    }

    static let mailbox: [Spec] = [
        Spec(subject: "Q3 budget review", body: "Attached are the spending figures for the third quarter. We are 4% over on travel and need to cut the marketing budget before the board meeting.", from: "sarah@corp.example", fromName: "Sarah Lee"),
        Spec(subject: "Server outage last night", body: "The database cluster went down at 2am because a disk filled up. Service was restored at 3:40am; we are adding monitoring on free space.", from: "ops@corp.example"),
        Spec(subject: "Your flight to Denver", body: "Your booking is confirmed: flight UA 512 departs Friday at 7:15 from gate B12. Check in online 24 hours before departure.", from: "noreply@airline.example"),
        Spec(subject: "Team offsite agenda", body: "Day one is planning for next year, day two is a hike and dinner. Please tell me about dietary restrictions by Monday.", from: "anna@corp.example"),
        Spec(subject: "Contract renewal with Acme", body: "Legal reviewed the renewal terms. The price increase is 6% and the termination clause changed; can you approve before the end of the month?", from: "legal@corp.example"),
        Spec(subject: "Welcome to the gardening club", body: "Our next meeting is about planting tomatoes and pruning roses in early spring. Bring gloves.", from: "club@garden.example"),
        Spec(subject: "Interview feedback: backend engineer", body: "The candidate was strong on distributed systems but weak on testing. I'd hire for the senior role.", from: "hiring@corp.example"),
        Spec(subject: "Invoice #2231", body: "Please find the invoice for consulting services in October. Payment is due within 30 days.", from: "billing@vendor.example"),
    ]

    func test_AC_S_02_E_01_nonsenseGivesTheEmptyStateWithTheModel() async throws {
        let embedder = try Self.embedder()
        let f = try SearchFixture()
        let ids = try f.add(Self.mailbox)
        try EmbeddingIndexer(store: f.store, embedder: embedder).run()
        let vectors = VectorSearchEngine()
        try vectors.load(from: f.store, model: nil)
        let ranker = VectorSemanticRanker(embedder: embedder, vectors: vectors)
        let useCase = f.useCase(semantic: ranker)

        for nonsense in ["xyznonexistent12345", "qwpzk vbnmx trlq", "zebra tango quartz"] {
            let r = try await useCase.search(nonsense)
            // Letters that are no words are recognised before the semantic search (QueryWords);
            // words (however unrelated) are searched, and the floor keeps them empty.
            XCTAssertTrue(r.semantic.ran || r.semantic.reason == .notWords, "\(nonsense): \(r.semantic)")
            XCTAssertEqual(r.semantic.ran, nonsense == "zebra tango quartz", nonsense)
            XCTAssertTrue(r.results.isEmpty, "\(nonsense): \(r.results.map { ($0.subject, $0.why.semantic?.similarity ?? 0) })")
            XCTAssertEqual(r.conversationCount, 0)
        }
        // The floor is not "drop everything": a paraphrase with no shared word finds its email. These
        // one-paragraph emails are less similar to any query than real mail (the default floor is
        // calibrated on real mail), so the floor is lowered, as `--min-similarity` lets a user do.
        let lowered = f.useCase(semantic: VectorSemanticRanker(embedder: embedder, vectors: vectors, minimumSimilarity: 0.3))
        let paraphrase = try await lowered.search("airplane trip reservation")
        XCTAssertEqual(paraphrase.results.first?.emailId, ids[2], "\(paraphrase.results.map { ($0.subject, $0.why.semantic?.similarity ?? 0) })")
        XCTAssertEqual(paraphrase.results.first?.matchSource, .semantic)
        XCTAssertLessThanOrEqual(paraphrase.results.count, 3, "only the similar enough: \(paraphrase.results.map { ($0.subject, $0.why.semantic?.similarity ?? 0) })")
        // With sender filter and real text: only Sarah's budget mail, not all of Sarah's mail.
        let budget = try await useCase.search("budget report from sarah")
        XCTAssertEqual(budget.results.map(\.emailId), [ids[0]])
    }
}

/// Issue 19: a fixed cosine floor, calibrated on some mailboxes, dropped relevant answers to
/// natural-language questions on others. Real mail (the usrp-users sample) and a question written
/// in other words than the mail's (`scripts/eval/paraphrase/usrp.jsonl`), whose answer is less
/// similar than the old floor of 0.45: the per-query floor keeps it, and nonsense still finds nothing.
final class SemanticRecallOnRealMailTests: XCTestCase {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    struct Paraphrase: Decodable {
        var id: String
        var query: String
        var relevant: [String]
    }

    func test_aRelevantParaphraseUnderTheOldFloorIsKeptAndNonsenseStaysEmpty() async throws {
        let embedder = try SemanticFloorWithRealModelTests.embedder()
        let mbox = Self.packageRoot.appendingPathComponent("corpora/usrp-users.mbox")
        guard FileManager.default.fileExists(atPath: mbox.path) else {
            let message = "corpora/usrp-users.mbox is missing (make corpora)"
            if ProcessInfo.processInfo.environment["MAILSEARCH_REQUIRE_MODEL"] == "1" { XCTFail(message) }
            throw XCTSkip(message)
        }
        let labels = try String(contentsOf: Self.packageRoot.appendingPathComponent("scripts/eval/paraphrase/usrp.jsonl"),
                                encoding: .utf8)
        let paraphrase = try labels.split(separator: "\n").map { try JSONDecoder().decode(Paraphrase.self, from: Data($0.utf8)) }
            .first { $0.id == "paraphrase-usrp-059" }
        let question = try XCTUnwrap(paraphrase)

        // The whole sample is imported; the conversation and the 300 oldest other emails are embedded
        // (the vector search sees those 300-odd, as in a small mailbox).
        let f = try SearchFixture()
        _ = try ImportPipeline(store: f.store, accountName: "usrp", observer: f.index).run(path: mbox.path)
        let rows = try await f.store.database.read { db in
            try Row.fetchAll(db, sql: "SELECT id, messageId, threadId, subject, fromName, substr(bodyPlain, 1, ?) AS body FROM emails ORDER BY id",
                             arguments: [EmbeddingText.bodyWindow])
        }
        let relevantIds = Set(question.relevant)
        let relevantRows = rows.filter { relevantIds.contains($0["messageId"]) }
        XCTAssertFalse(relevantRows.isEmpty, "the conversation of \(question.id) is in the sample")
        let threads = Set(relevantRows.map { $0["threadId"] as Int64 })
        let chosen = relevantRows + rows.filter { !relevantIds.contains($0["messageId"]) }.prefix(300)
        let texts = chosen.map { EmbeddingText.compose(subject: $0["subject"], fromName: $0["fromName"], body: $0["body"]) }
        let embedded = try embedder.embed(texts)
        try f.store.saveEmbeddings(zip(chosen, embedded).map { (emailId: $0["id"], vector: $1) }, model: "all-MiniLM-L6-v2")
        let vectors = VectorSearchEngine()
        try vectors.load(from: f.store, model: nil)

        let ranker = VectorSemanticRanker(embedder: embedder, vectors: vectors)
        let r = try await f.useCase(semantic: ranker).search(question.query, mode: .semantic)
        let position = r.results.firstIndex { threads.contains($0.threadId) }
        let described = r.results.prefix(5).map { ($0.subject, $0.why.semantic?.similarity ?? 0) }
        XCTAssertNotNil(position, "\(question.query): \(described)")
        if let position {
            XCTAssertLessThan(position, 3, "\(question.query): \(described)")
            let similarity = try XCTUnwrap(r.results[position].why.semantic?.similarity)
            XCTAssertLessThan(similarity, 0.45, "the answer is one the old fixed floor dropped")
        }
        let fixed = try await f.useCase(semantic: VectorSemanticRanker(embedder: embedder, vectors: vectors, minimumSimilarity: 0.45))
            .search(question.query, mode: .semantic)
        XCTAssertFalse(fixed.results.contains { threads.contains($0.threadId) }, "with the old floor the answer is lost")

        for nonsense in ["xyznonexistent12345", "qwpzk vbnmx trlq", "zebra tango quartz", "asdfghjkl zxcvbnm"] {
            let n = try await f.useCase(semantic: ranker).search(nonsense)
            XCTAssertTrue(n.semantic.ran || n.semantic.reason == .notWords, "\(nonsense): \(n.semantic)")
            XCTAssertTrue(n.results.isEmpty, "\(nonsense): \(n.results.map { ($0.subject, $0.why.semantic?.similarity ?? 0) })")
        }
    }
}

/// The README's example query has an answer in the demo mailbox (`make run`).
final class DemoMailboxAnswerTests: XCTestCase {
    func test_theReadmeQueryFindsSarahsBudgetReportWithItsAttachment() async throws {
        let f = try SearchFixture()
        let mbox = f.directory.appendingPathComponent("demo.mbox")
        _ = try DemoCorpusGenerator(configuration: DemoCorpusConfiguration(endDate: SearchFixture.now)).writeMbox(to: mbox)
        _ = try ImportPipeline(store: f.store, accountName: "demo", observer: f.index).run(path: mbox.path)
        let r = try await f.useCase().search("budget report from sarah last week with attachments")
        XCTAssertEqual(r.results.first?.subject, "Budget report for the quarter", "\(r.results.map(\.subject))")
        XCTAssertTrue(r.results.allSatisfy { $0.senderEmail == "sarah.chen@example.com" && $0.hasAttachment })
        if let date = r.results.first?.date {
            XCTAssertGreaterThan(date, SearchFixture.now.addingTimeInterval(-7 * 86_400))
        }
    }
}
