import Foundation
import GRDB
import MailModel
import MailStore
import SearchEngine
import SearchIndex
import XCTest

/// Acceptance criteria of spec 002, on fixtures built to each criterion's numbers.
final class SearchAcceptanceTests: XCTestCase {
    typealias Spec = SearchFixture.Spec

    /// 1000 emails: 200 from john@example.com (50 of them with attachments, 20 about budget),
    /// a spread of dates, folders, categories and read states.
    static func makeThousand() throws -> SearchFixture {
        let f = try SearchFixture()
        var specs: [Spec] = []
        for i in 0..<1000 {
            var s = Spec()
            s.daysAgo = Double(i % 60) + 0.5
            s.isRead = i % 4 != 0
            s.folders = i % 5 == 0 ? ["Sent"] : ["Inbox"]
            s.category = [.primary, .promotions, .social, .updates, .forums][i % 5]
            if i < 200 {
                s.from = "john@example.com"
                s.fromName = "John Smith"
                s.hasAttachment = i < 50
                s.subject = i < 20 ? "Budget numbers \(i)" : "Note \(i) from John"
                s.body = i < 20 ? "The budget for next quarter, draft \(i)." : "Routine note number \(i)."
            } else {
                s.from = "user\(i % 37)@example.org"
                s.subject = ["Project update \(i)", "Lunch plans", "Weekly digest", "Deployment notes \(i)"][i % 4]
                s.body = ["The project update is attached for review.", "Shall we meet at noon?",
                          "Your weekly digest of news.", "Deployment went fine; the schedule holds."][i % 4]
            }
            specs.append(s)
        }
        try f.add(specs)
        return f
    }

    // MARK: AC-S-01

    func test_AC_S_01_basicSearchShowsConversationsWithHighlights() async throws {
        let f = try Self.makeThousand()
        let r = try await f.useCase().search("project update", limit: 500)
        XCTAssertGreaterThan(r.results.count, 0)
        XCTAssertEqual(r.conversationCount, Set(r.results.map(\.threadId)).count, "one row per conversation")
        for result in r.results.prefix(20) {
            XCTAssertTrue(result.subject.lowercased().contains("project update"))
            let subjectUnits = Array(result.subject.utf16)
            let highlighted = result.highlights.filter { $0.field == .subject }.map {
                String(decoding: subjectUnits[$0.start..<$0.start + $0.length], as: UTF16.self).lowercased()
            }
            XCTAssertTrue(highlighted.contains("project") && highlighted.contains("update"), "\(highlighted)")
            XCTAssertEqual(result.matchSource, .keyword)
        }
        XCTAssertLessThan(r.tookMs, 500)
    }

    // MARK: AC-S-02 / E-01 / E-10

    func test_AC_S_02_E_01_noResultsIsAnEmptyAnswerNotAnError() async throws {
        let f = try Self.makeThousand()
        let r = try await f.useCase().search("xyznonexistent12345")
        XCTAssertTrue(r.results.isEmpty)
        XCTAssertEqual(r.conversationCount, 0)
    }

    func test_AC_S_02_E_10_zeroStateHasRecentSearchesAndTopContacts() throws {
        let f = try Self.makeThousand()
        try f.store.recordSearch("budget")
        let contacts = try f.store.topContacts(limit: 5)
        XCTAssertEqual(contacts.count, 5)
        XCTAssertEqual(contacts.first?.email, "me@example.com")
        XCTAssertTrue(contacts.contains { $0.email == "john@example.com" })
        XCTAssertEqual(try f.store.recentSearches(), ["budget"])
    }

    // MARK: AC-S-03

    func test_AC_S_03_filtersCombineWithAnd() async throws {
        let f = try Self.makeThousand()
        let useCase = f.useCase()
        var q = SearchQuery(filters: SearchFilters(sender: "john@example.com"))
        var r = try await useCase.search(q, limit: 1000)
        XCTAssertEqual(r.results.count, 200)
        XCTAssertTrue(r.results.allSatisfy { $0.senderEmail == "john@example.com" })

        q.filters.hasAttachment = true
        r = try await useCase.search(q, limit: 1000)
        XCTAssertEqual(r.results.count, 50)
        XCTAssertTrue(r.results.allSatisfy { $0.hasAttachment && $0.senderEmail == "john@example.com" })

        q.text = "budget"
        r = try await useCase.search(q, limit: 1000)
        XCTAssertEqual(r.results.count, 20)
        XCTAssertTrue(r.results.allSatisfy { $0.hasAttachment && $0.subject.lowercased().contains("budget") })

        let week = SearchQuery(filters: SearchFilters(dateRange: DateRange(start: SearchFixture.now.addingTimeInterval(-7 * SearchFixture.day))))
        r = try await useCase.search(week, limit: 1000)
        XCTAssertFalse(r.results.isEmpty)
        XCTAssertTrue(r.results.allSatisfy { $0.date! >= SearchFixture.now.addingTimeInterval(-7 * SearchFixture.day) })

        // Results are conversations; repeated subjects ("Lunch plans") thread together, so count messages.
        func messages(_ r: SearchResponse) -> Int { r.results.map(\.matchedMessages).reduce(0, +) }
        r = try await useCase.search(SearchQuery(filters: SearchFilters(folder: "sent")), limit: 1000)
        XCTAssertEqual(messages(r), 200)
        r = try await useCase.search(SearchQuery(filters: SearchFilters(category: .promotions)), limit: 1000)
        XCTAssertEqual(messages(r), 200)
        r = try await useCase.search(SearchQuery(filters: SearchFilters(isRead: false)), limit: 1000)
        XCTAssertEqual(messages(r), 250)
        XCTAssertEqual(r.conversationCount, r.results.count)
    }

    // MARK: AC-S-04

    func test_AC_S_04_scopesUseTheFolderLink() async throws {
        let f = try SearchFixture()
        try f.add((0..<500).map { i in Spec(subject: "meeting \(i)", folders: ["Inbox"]) })
        try f.add((0..<300).map { i in Spec(subject: "meeting sent \(i)", folders: ["Sent"]) })
        let both = try f.add(Spec(subject: "meeting in two folders", folders: ["Inbox", "Archive"]))
        try f.add(Spec(subject: "draft", folders: ["Drafts"]))
        let useCase = f.useCase()
        let inbox = try await useCase.search("meeting", scope: .currentFolder(folderId: try f.folderId("Inbox")), limit: 1000)
        XCTAssertEqual(inbox.results.count, 501)
        XCTAssertTrue(f.emailIds(inbox).contains(both))
        let all = try await useCase.search("meeting", scope: .allMail, limit: 1000)
        XCTAssertEqual(all.results.count, 801)
        let archive = try await useCase.search("meeting", scope: .currentFolder(folderId: try f.folderId("Archive")))
        XCTAssertEqual(f.emailIds(archive), [both])
        let drafts = try await useCase.search("meeting", scope: .currentFolder(folderId: try f.folderId("Drafts")))
        XCTAssertFalse(f.emailIds(drafts).contains(both))
    }

    func testAFolderPathNamesThatFolderNotEveryFolderOfItsLastPartsRole() async throws {
        let f = try SearchFixture()
        try f.add((0..<3).map { i in Spec(subject: "report \(i)", folders: ["allen-p/inbox"]) })
        try f.add((0..<5).map { i in Spec(subject: "memo \(i)", folders: ["kay-m/inbox"]) })
        try f.add(Spec(subject: "note", folders: ["INBOX"]))
        let useCase = f.useCase()
        let path = try await useCase.search(SearchQuery(filters: SearchFilters(folder: "allen-p/inbox")), limit: 100)
        XCTAssertEqual(Set(path.results.map(\.subject)), ["report 0", "report 1", "report 2"])
        // A role's name still finds every folder of that role.
        let role = try await useCase.search(SearchQuery(filters: SearchFilters(folder: "inbox")), limit: 100)
        XCTAssertEqual(role.results.count, 9, "INBOX and both inbox folders")
    }

    // MARK: AC-S-05 / E-03

    func test_AC_S_05_E_03_naturalLanguageFiltersAloneSkipTheRankers() async throws {
        let f = try Self.makeThousand()
        let semantic = FakeSemanticRanker(ranking: [1, 2, 3])
        let useCase = f.useCase(semantic: semantic)
        let r = try await useCase.search("from john last week with attachments", limit: 1000)
        XCTAssertEqual(r.query.text, "")
        XCTAssertEqual(r.query.filters.sender, "john")
        XCTAssertEqual(r.query.filters.hasAttachment, true)
        XCTAssertNotNil(r.query.filters.dateRange?.start)
        XCTAssertFalse(r.results.isEmpty)
        XCTAssertTrue(r.results.allSatisfy { $0.matchSource == .filter && $0.hasAttachment && $0.senderEmail == "john@example.com" })
        XCTAssertTrue(r.results.allSatisfy { $0.date! >= SearchFixture.now.addingTimeInterval(-8 * SearchFixture.day) })
        XCTAssertTrue(semantic.calls.isEmpty, "E-03: no semantic ranking for a filters-only query")

        let budget = try await useCase.search("budget from john", limit: 100)
        XCTAssertEqual(budget.query.text, "budget")
        XCTAssertEqual(budget.results.count, 20)

        let unread = try await useCase.search("unread promotions from john", limit: 1000)
        XCTAssertEqual(unread.query.filters.isRead, false)
        XCTAssertEqual(unread.query.filters.category, .promotions)
        XCTAssertTrue(unread.results.allSatisfy { $0.senderEmail == "john@example.com" })
    }

    // MARK: AC-S-07

    func test_AC_S_07_prefixMatchingFindsWordsStartingWithTheTypedText() async throws {
        let f = try SearchFixture()
        let ids = try f.add([Spec(subject: "The project plan"), Spec(body: "a projection of costs"),
                             Spec(subject: "Two projects"), Spec(subject: "Unrelated proper noun")])
        let r = try await f.useCase().search("proj", limit: 10)
        XCTAssertEqual(f.emailIds(r), Set(ids.prefix(3)))
    }

    func test_AC_S_07_bothWordsRankHighest() async throws {
        let f = try SearchFixture()
        try f.add((0..<30).map { i in Spec(subject: "Deployment \(i)", body: "deployment only") })
        try f.add((0..<30).map { i in Spec(subject: "Schedule \(i)", body: "schedule only") })
        let both = try f.add([Spec(subject: "Deployment schedule", body: "the deployment schedule for Friday"),
                              Spec(subject: "Re: plan", body: "deployment and schedule are fixed")])
        let r = try await f.useCase().search("deployment schedule", limit: 10)
        XCTAssertEqual(Set(r.results.prefix(2).map(\.emailId)), Set(both))
        XCTAssertEqual(r.results.count, 2, "terms combine with AND")
    }

    // MARK: AC-S-09

    func test_AC_S_09_indexManagementOnSyncDeleteAndAccountRemoval() async throws {
        let f = try SearchFixture()
        let useCase = f.useCase()
        let id = try f.add(Spec(subject: "Fresh zebra news"))
        var r = try await useCase.search("zebra")
        XCTAssertEqual(f.emailIds(r), [id], "findable immediately after indexing")

        try f.index.deleteEmail(id: id)
        r = try await useCase.search("zebra")
        XCTAssertTrue(r.results.isEmpty)
        XCTAssertEqual(try f.index.status().orphaned, 0)

        let other = try f.store.account(named: "other").id
        try f.add((0..<100).map { i in Spec(subject: "giraffe \(i)") }, accountId: other)
        try f.add(Spec(subject: "giraffe kept"))
        let before = try await useCase.search("giraffe", limit: 200)
        XCTAssertEqual(before.results.count, 101)
        XCTAssertEqual(try f.index.deleteAccount(id: other).count, 100)
        let ftsRows = try await f.index.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM email_fts WHERE account_id = ?", arguments: [other]) }
        XCTAssertEqual(ftsRows, 0)
        let after = try await useCase.search("giraffe", limit: 200)
        XCTAssertEqual(after.results.count, 1)
        XCTAssertTrue(try f.index.status().healthy)
    }

    // MARK: AC-S-10

    func test_AC_S_10_recentSearchesAreOrderedDeduplicatedAndClearable() throws {
        let f = try SearchFixture()
        let t = SearchFixture.now
        try f.store.recordSearch("budget", at: t)
        try f.store.recordSearch("meeting notes", at: t.addingTimeInterval(1))
        try f.store.recordSearch("project alpha", at: t.addingTimeInterval(2))
        XCTAssertEqual(try f.store.recentSearches(), ["project alpha", "meeting notes", "budget"])
        try f.store.clearRecentSearches()
        XCTAssertEqual(try f.store.recentSearches(), [])
        try f.store.recordSearch("budget", at: t.addingTimeInterval(3))
        try f.store.recordSearch("other", at: t.addingTimeInterval(4))
        try f.store.recordSearch("  Budget ", at: t.addingTimeInterval(5))
        XCTAssertEqual(try f.store.recentSearches(), ["Budget", "other"])
        for i in 0..<15 { try f.store.recordSearch("q\(i)", at: t.addingTimeInterval(10 + Double(i))) }
        XCTAssertEqual(try f.store.recentSearches().count, 10)
        XCTAssertEqual(try f.store.recentSearches().first, "q14")
    }

    // MARK: Edge cases

    func test_E_02_shortQueriesArePrefixOnlyAndSkipSemantic() async throws {
        let f = try SearchFixture()
        let ids = try f.add([Spec(subject: "project"), Spec(subject: "print")])
        let semantic = FakeSemanticRanker(ranking: ids)
        let r = try await f.useCase(semantic: semantic).search("pr")
        XCTAssertEqual(f.emailIds(r), Set(ids))
        XCTAssertTrue(semantic.calls.isEmpty)
        XCTAssertFalse(r.semantic.ran)
    }

    func test_E_04_AC_S_08_missingEmbeddingsFallBackToKeywordsWithoutError() async throws {
        let f = try SearchFixture()
        let id = try f.add(Spec(subject: "financial planning"))
        for ranker in [nil, FakeSemanticRanker(unavailableReason: .modelNotInstalled),
                       FakeSemanticRanker(failure: CocoaError(.fileNoSuchFile))] as [FakeSemanticRanker?] {
            let r = try await f.useCase(semantic: ranker).search("financial planning")
            XCTAssertEqual(f.emailIds(r), [id])
            XCTAssertFalse(r.semantic.ran)
            XCTAssertNotNil(r.semantic.reason)
        }
    }

    func test_E_05_corruptIndexIsRebuiltAndMailIsUntouched() async throws {
        let f = try SearchFixture()
        try f.add((0..<50).map { i in Spec(subject: "walrus \(i)") })
        try f.add(Spec(subject: "other"))
        let mailBefore = try mailDump(f.store)
        let searchURL = f.directory.appendingPathComponent("search.sqlite")
        // Garbage over the index while the process keeps running: the next query hits it.
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: searchURL.path + suffix) }
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("corrupt-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: copy) }
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        _ = try await f.store.database.writeWithoutTransaction { try $0.checkpoint(.truncate) }
        try FileManager.default.copyItem(at: f.directory.appendingPathComponent("mail.sqlite"), to: copy.appendingPathComponent("mail.sqlite"))
        try Data((0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 13) }).write(to: copy.appendingPathComponent("search.sqlite"))
        let store = try MailStore(directory: DataDirectory(url: copy))
        let notices = NoticeBox()
        let index = try SearchIndexManager(store: store, notices: { notices.append($0) })
        let r = try await SearchEmailsUseCase(index: index, parser: SearchFixture.parser).search("walrus", limit: 100)
        XCTAssertEqual(r.results.count, 50)
        XCTAssertEqual(notices.values.count, 1, "one notice: \(notices.values)")
        XCTAssertEqual(try mailDump(store), mailBefore, "mail data unchanged")
    }

    /// Every row of every mail table, as text (the byte-level check runs in the CLI tests,
    /// across processes).
    func mailDump(_ store: MailStore) throws -> String {
        try store.database.read { db in
            var out = ""
            for table in ["accounts", "folders", "emails", "email_folders", "threads", "contacts", "attachments", "message_ids"] {
                for row in try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY 1, 2") { out += "\(table): \(row)\n" }
            }
            return out
        }
    }

    func test_E_05_missingIndexIsRebuiltFromMail() async throws {
        let f = try SearchFixture()
        try f.add((0..<20).map { i in Spec(subject: "heron \(i)") })
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("missing-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: copy) }
        _ = try await f.store.database.writeWithoutTransaction { try $0.checkpoint(.truncate) }
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: f.directory.appendingPathComponent("mail.sqlite"), to: copy.appendingPathComponent("mail.sqlite"))
        let store = try MailStore(directory: DataDirectory(url: copy))
        let index = try SearchIndexManager(store: store)
        let r = try await SearchEmailsUseCase(index: index, parser: SearchFixture.parser).search("heron", limit: 100)
        XCTAssertEqual(r.results.count, 20)
    }

    func test_E_08_specialCharactersNeverError() async throws {
        let f = try SearchFixture()
        try f.add(Spec(subject: "C++ and Objective-C: a review", body: "email me at dev@example.com (urgent!)"))
        let useCase = f.useCase()
        let nasty = ["\"", "\"unbalanced", "a\"b\"c", "*", "-", "-foo", "^bar", "subject:", "body:x", "(", ")", "((a)",
                     "AND", "OR", "NOT", "a OR", "NEAR(a b)", "NEAR/3", "a AND NOT b", "{subject}: x", "email_fts",
                     "dev@example.com", "c++", "🙂🙂", "日本語", "'; DROP TABLE emails; --", "\\", "%_%", "\u{0}",
                     "\u{2}\u{3}", String(repeating: "budget ", count: 1500), String(repeating: "\"(", count: 3000)]
        for q in nasty {
            _ = try await useCase.search(q)
        }
        let r = try await useCase.search("dev@example.com")
        XCTAssertEqual(r.results.count, 1)
        let cpp = try await useCase.search("c++")
        XCTAssertEqual(cpp.results.count, 1)
    }

    func test_E_12_AC_S_13_searchWorksOfflineWithoutAModel() async throws {
        let f = try SearchFixture()
        let id = try f.add(Spec(subject: "Offline notes", body: "works on a plane"))
        let r = try await f.useCase(semantic: nil).search("plane")
        XCTAssertEqual(f.emailIds(r), [id])
        XCTAssertEqual(r.semantic.reason, .modelNotInstalled)
    }

    // MARK: Hybrid

    func test_hybridFusionMarksSourcesAndKeepsKeywordOnlyResults() async throws {
        let f = try SearchFixture()
        let ids = try f.add([Spec(subject: "quarterly budget review"), Spec(subject: "financial planning meeting"),
                             Spec(subject: "team lunch")])
        let semantic = FakeSemanticRanker(ranking: [ids[0], ids[1]])
        let r = try await f.useCase(semantic: semantic).search("financial planning meeting")
        let sources = Dictionary(uniqueKeysWithValues: r.results.map { ($0.emailId, $0.matchSource) })
        XCTAssertEqual(sources[ids[1]], .both)
        XCTAssertEqual(sources[ids[0]], .semantic, "AC-S-06: a non-keyword result appears")
        XCTAssertNil(sources[ids[2]])
        XCTAssertEqual(r.results.first?.emailId, ids[1])
        XCTAssertTrue(r.semantic.ran)
    }

    func test_anEmailFoundByBothRankersIsOneMatchingMessage() async throws {
        let f = try SearchFixture()
        let ids = try f.add([Spec(subject: "financial planning meeting", messageId: "only@x"),
                             Spec(subject: "team lunch", messageId: "lunch@x")])
        let semantic = FakeSemanticRanker(ranking: [ids[0]])
        let r = try await f.useCase(semantic: semantic).search("financial planning")
        XCTAssertEqual(r.results.map(\.emailId), [ids[0]])
        XCTAssertEqual(r.results.first?.matchSource, .both)
        XCTAssertEqual(r.results.first?.matchedMessages, 1, "a one-message conversation has one matching message")
        XCTAssertEqual(r.conversationCount, 1)
    }

    func test_semanticRankerIsRestrictedToFilterCandidates() async throws {
        let f = try SearchFixture()
        let a = try f.add(Spec(subject: "alpha", from: "john@example.com"))
        let b = try f.add(Spec(subject: "beta", from: "mary@example.com"))
        let semantic = FakeSemanticRanker(ranking: [b, a])
        let r = try await f.useCase(semantic: semantic).search("from john greek letters")
        XCTAssertEqual(semantic.calls.first?.candidates, [a])
        XCTAssertEqual(f.emailIds(r), [a])
    }

    func test_conversationsGroupMessagesOfOneThread() async throws {
        let f = try SearchFixture()
        try f.add(Spec(subject: "Offsite agenda", body: "offsite in May", messageId: "root@x"))
        try f.add(Spec(subject: "Re: Offsite agenda", body: "offsite works", daysAgo: 29, messageId: "r1@x", inReplyTo: "root@x"))
        try f.add(Spec(subject: "Offsite budget", body: "separate offsite thread", messageId: "other@x"))
        let r = try await f.useCase().search("offsite")
        XCTAssertEqual(r.conversationCount, 2)
        XCTAssertEqual(r.results.map(\.matchedMessages).sorted(), [1, 2])
    }

    // MARK: Property

    func testPropertyAnyStringSearchesWithoutError() async throws {
        let f = try SearchFixture()
        try f.add((0..<20).map { i in Spec(subject: "Subject \(i) budget", body: "body text \(i) meeting") })
        let useCase = f.useCase(semantic: FakeSemanticRanker(ranking: [1, 2]))
        let soup: [String] = ["\"", "*", "-", ":", "^", "(", ")", "AND", "OR", "NOT", "NEAR", "subject", "body", "from",
                              "from:", "to:", "in:", "is:unread", "last week", "before", "after:2024-01-01", "🙂",
                              "日本", "é", "\u{301}", " ", "\t", "\n", "budget", "meeting", "{", "}", "\\", "'", "%",
                              "\u{2}", "\u{3}", "\u{0}", "\u{FFFF}", "1", "2024", "older_than:3d", "has:attachment",
                              "-from:", "-from:x", "-(", "-{", "-is:unread", "-\"", "-budget", "from:x OR"]
        var rng = SplitMix(seed: 7)
        for _ in 0..<400 {
            let n = Int(rng.next() % 8) + 1
            let q = (0..<n).map { _ in soup[Int(rng.next() % UInt64(soup.count))] }.joined(separator: rng.next() % 2 == 0 ? " " : "")
            do {
                let r = try await useCase.search(q)
                XCTAssertLessThanOrEqual(r.results.count, 20)
            } catch {
                XCTFail("query \(q.unicodeScalars.map { String($0.value, radix: 16) }) failed: \(error)")
                return
            }
        }
    }
}

/// SplitMix64: a small deterministic generator, so that generated data is the same every run.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
