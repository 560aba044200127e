import DemoCorpus
import Foundation
import GRDB
@testable import MailSearchKit
import MailModel
import MailStore
import SearchEngine
import XCTest

/// Categories on a non-Gmail import, end to end through the service: the rules at import, the
/// category filter and the query language over them, the user's choice (kept, seen by searches at
/// once, a preference for the sender's other mail), the reason in `show --json`, and mail stored
/// before header signals were kept.
final class CategoryServiceTests: XCTestCase {
    var work: URL!

    override func setUpWithError() throws {
        work = FileManager.default.temporaryDirectory.appendingPathComponent("categories-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: work)
    }

    func makeService() throws -> MailSearchService {
        try MailSearchService(configuration: .init(dataDirectory: DataDirectory(url: work.appendingPathComponent("data")),
                                                   modelDirectory: work.appendingPathComponent("no-model"), cacheCapacity: 20))
    }

    static let mbox = """
        From a Mon Mar  4 14:11:14 2024
        Message-ID: <list1@example.com>
        From: Alice Ng <alice@uni.example>
        To: sdr-users@lists.example
        Subject: [sdr-users] overflow on the B210
        List-Id: SDR users <sdr-users.lists.example>
        List-Post: <mailto:sdr-users@lists.example>
        List-Unsubscribe: <mailto:sdr-users-leave@lists.example>
        Precedence: list
        Date: Mon, 4 Mar 2024 10:00:00 +0000

        I get overflows at 20 MS/s. Any idea?

        From a Mon Mar  4 14:11:14 2024
        Status: O
        Message-ID: <promo1@example.com>
        From: John Carter <john@carter-outlet.example>
        To: me@home.example
        Subject: Summer sale: 30% off everything
        List-Unsubscribe: <https://carter-outlet.example/u/1>
        X-Mailchimp-Campaign: 77
        Date: Tue, 5 Mar 2024 10:00:00 +0000

        Our summer sale starts now. Shop the deals, free shipping on every order. Unsubscribe here.

        From a Mon Mar  4 14:11:14 2024
        Status: RO
        Message-ID: <promo2@example.com>
        From: John Carter <john@carter-outlet.example>
        To: me@home.example
        Subject: Last chance: the sale ends tonight
        List-Unsubscribe: <https://carter-outlet.example/u/2>
        X-Mailchimp-Campaign: 78
        Date: Wed, 6 Mar 2024 10:00:00 +0000

        Last chance to save 30%. Shop now. Unsubscribe here.

        From a Mon Mar  4 14:11:14 2024
        Status: O
        Message-ID: <promo3@example.com>
        From: Brightside Books <news@brightside.example>
        To: me@home.example
        Subject: New arrivals and an exclusive offer
        List-Unsubscribe: <https://brightside.example/u>
        Feedback-ID: 1:books:esp
        Date: Thu, 7 Mar 2024 10:00:00 +0000

        New arrivals this week, with an exclusive coupon for members. Unsubscribe.

        From a Mon Mar  4 14:11:14 2024
        Status: O
        Message-ID: <person1@example.com>
        From: John Smith <john.smith@gmail.com>
        To: me@home.example
        Subject: Lunch on Thursday?
        X-Mailer: Microsoft Outlook 16.0
        Date: Fri, 8 Mar 2024 10:00:00 +0000

        Are you free for lunch on Thursday? The invoice for the trip is paid, by the way.

        From a Mon Mar  4 14:11:14 2024
        Message-ID: <receipt1@example.com>
        From: Parcelway <no-reply@parcelway.example>
        To: me@home.example
        Subject: Your order #1234 has shipped
        Auto-Submitted: auto-generated
        Date: Sat, 9 Mar 2024 10:00:00 +0000

        Your order #1234 has shipped. Tracking number 1Z999. Estimated delivery: Tuesday.

        """

    func importFixture(_ service: MailSearchService) async throws -> [String: Int64] {
        let path = work.appendingPathComponent("fixture.mbox")
        try Data(Self.mbox.utf8).write(to: path)
        _ = try await service.mailbox.importMail(path: path.path, account: "home")
        let rows = try await service.store.database.read { try Row.fetchAll($0, sql: "SELECT id, messageId FROM emails") }
        return Dictionary(uniqueKeysWithValues: rows.map { (($0["messageId"] as String).components(separatedBy: "@")[0], $0["id"] as Int64) })
    }

    func search(_ service: MailSearchService, _ text: String) async throws -> Set<Int64> {
        Set(try await service.search.search(SearchRequest(text: text, limit: 100, mode: .keyword, recordHistory: false)).results.map(\.emailId))
    }

    func testAC_S_05_UnreadPromotionsFromJohnOnANonGmailImport() async throws {
        let service = try makeService()
        defer { service.shutdown() }
        let ids = try await importFixture(service)
        let r101 = try await search(service, "unread promotions from john")
        XCTAssertEqual(r101, [ids["promo1"]!])
        let r102 = try await search(service, "category:promotions")
        XCTAssertEqual(r102, [ids["promo1"]!, ids["promo2"]!, ids["promo3"]!])
    }

    func testCategoryForumsFindsTheListPostAndTheReasonIsShown() async throws {
        let service = try makeService()
        defer { service.shutdown() }
        let ids = try await importFixture(service)
        let r103 = try await search(service, "category:forums")
        XCTAssertEqual(r103, [ids["list1"]!])
        let r104 = try await search(service, "category:updates")
        XCTAssertEqual(r104, [ids["receipt1"]!])
        let r105 = try await search(service, "category:primary")
        XCTAssertEqual(r105, [ids["person1"]!])

        let detail = try await service.reader.email(id: ids["list1"]!)
        XCTAssertEqual(detail.category, "forums")
        XCTAssertEqual(detail.categorization?.method, .rule)
        XCTAssertTrue(detail.categorization?.reason.contains("List-Post") == true, detail.categorization?.reason ?? "")
        // `show --json` prints this object: the reason is in it.
        let json = String(decoding: try JSONEncoder().encode(detail), as: UTF8.self)
        XCTAssertTrue(json.contains("\"categorization\""), json)
        let categoryCounts = try await service.categories.categoryCounts()["forums"]
        XCTAssertEqual(categoryCounts, 1)
    }

    func testTheUsersChoiceIsSeenAtOnceKeptAndFollowedForTheSendersOtherMail() async throws {
        let service = try makeService()
        defer { service.shutdown() }
        let ids = try await importFixture(service)
        let r106 = try await search(service, "category:promotions")
        XCTAssertEqual(r106.count, 3)  // now cached
        let generation = service.generation

        let change = try await service.categories.setCategory(.primary, emailIds: [ids["promo1"]!])
        XCTAssertEqual(change.emailIds, [ids["promo1"]!])
        XCTAssertEqual(change.sameSenderEmails, 1)
        XCTAssertGreaterThan(service.generation, generation)
        // The same service, the same query: the change is seen at once, for the sender's other mail too.
        let r107 = try await search(service, "category:promotions")
        XCTAssertEqual(r107, [ids["promo3"]!])
        let r108 = try await search(service, "category:primary")
        XCTAssertEqual(r108, [ids["person1"]!, ids["promo1"]!, ids["promo2"]!])
        let method = try await service.reader.email(id: ids["promo1"]!).categorization?.method
        XCTAssertEqual(method, .user)
        let method2 = try await service.reader.email(id: ids["promo2"]!).categorization?.method
        XCTAssertEqual(method2, .preference)

        // Recategorising the mailbox keeps the user's choice and the preference.
        let summary = try await service.categories.recategorize()
        XCTAssertEqual(summary.emails, 5)
        let method3 = try await service.reader.email(id: ids["promo1"]!).categorization?.method
        XCTAssertEqual(method3, .user)
        let category = try await service.reader.email(id: ids["promo2"]!).category
        XCTAssertEqual(category, "primary")

        // A thread at once.
        let threadId = try await service.reader.email(id: ids["receipt1"]!).threadId
        let thread = try XCTUnwrap(threadId)
        _ = try await service.categories.setCategory(.promotions, threadId: thread)
        let r109 = try await search(service, "category:promotions")
        XCTAssertTrue(r109.contains(ids["receipt1"]!))
        await assertThrowsAsync(try await service.categories.setCategory(.uncategorized, emailIds: [ids["receipt1"]!]))
        await assertThrowsAsync(try await service.categories.setCategory(.primary, emailIds: [999_999]))
    }

    func testMailStoredBeforeSignalsWereKeptIsCategorisedFromItsSource() async throws {
        let service = try makeService()
        defer { service.shutdown() }
        let ids = try await importFixture(service)
        try await service.store.database.write {
            try $0.execute(sql: "UPDATE email_categories SET signals = NULL, method = NULL")
            try $0.execute(sql: "UPDATE emails SET category = 'uncategorized'")
        }
        let r1 = try await service.categories.categorizePending()
        XCTAssertEqual(r1, 6)
        let category = try await service.reader.email(id: ids["list1"]!).category
        XCTAssertEqual(category, "forums")
        XCTAssertNotNil(try service.store.categorization(emailId: ids["list1"]!)?.signals)
        let r110 = try await search(service, "category:promotions")
        XCTAssertEqual(r110.count, 3)
    }

    func testIngestedMailIsCategorisedByTheBackgroundQueue() async throws {
        let service = try makeService()
        defer { service.shutdown() }
        let account = try service.store.account(named: "sync")
        var email = Email(accountId: account.id, messageId: "bg1@example.com", from: Address(name: "Shop", email: "noreply@shop.example"),
                          subject: "Your receipt", bodyPlain: "Amount paid: $10. Order #5.", dateSent: Date())
        email.isRead = false
        var signals = CategorySignals.autoSubmitted
        signals.insert(.listUnsubscribe)
        try service.core.ingest([IncomingEmail(email: email, folders: [FolderSpec(path: "INBOX")], categorySignals: signals)],
                           accountId: account.id)
        await service.categories.waitForCategorization()
        let r111 = try await search(service, "category:updates")
        XCTAssertEqual(r111.count, 1)
    }

    func testAPostDecidedBeforeItsListWasKnownBecomesForumsOnceTheMailboxShowsTheList() async throws {
        let service = try makeService()
        defer { service.shutdown() }
        func post(_ n: Int, from: String, headers: String) -> String {
            """
            From a Mon Mar  4 14:11:14 2024
            Message-ID: <post\(n)@example.com>
            From: Person \(n) <\(from)>
            To: dns-swap@lists.example.net
            Subject: zone transfer question \(n)
            \(headers)Date: Mon, 4 Mar 2024 1\(n):00:00 +0000

            Has anyone seen this?

            """
        }
        let first = work.appendingPathComponent("first.mbox")
        try Data(post(0, from: "zed@example.org", headers: "").utf8).write(to: first)
        _ = try await service.mailbox.importMail(path: first.path, account: "home")
        let bare = try await service.store.database.read { try Int64.fetchOne($0, sql: "SELECT id FROM emails WHERE messageId = 'post0@example.com'") }!
        let category = try await service.reader.email(id: bare).category
        XCTAssertEqual(category, "primary", "no list known yet: a person's mail")

        // Majordomo-era posts to the same address: Precedence: bulk and the owner's Sender, three people.
        let later = work.appendingPathComponent("later.mbox")
        let posts = (1...3).map { post($0, from: "p\($0)@example.org", headers: "Precedence: bulk\nSender: owner-dns-swap@lists.example.net\n") }
        try Data(posts.joined().utf8).write(to: later)
        _ = try await service.mailbox.importMail(path: later.path, account: "home")
        _ = try await service.categories.categorizePending()
        let category2 = try await service.reader.email(id: bare).category
        XCTAssertEqual(category2, "forums")
        let contains = try await service.reader.email(id: bare).categorization?.reason.contains("dns-swap@lists.example.net") == true
        XCTAssertTrue(contains)
        let categoryCounts = try await service.categories.categoryCounts()["forums"]
        XCTAssertEqual(categoryCounts, 4)

        // Then many people write to the address with no list header at all: it is a person's or a
        // team's address after all, and the post it alone made Forums goes back.
        let personal = work.appendingPathComponent("personal.mbox")
        try Data((4...9).map { post($0, from: "q\($0)@example.org", headers: "") }.joined().utf8).write(to: personal)
        _ = try await service.mailbox.importMail(path: personal.path, account: "home")
        _ = try await service.categories.categorizePending()
        let category3 = try await service.reader.email(id: bare).category
        XCTAssertEqual(category3, "primary")
        let categoryCounts2 = try await service.categories.categoryCounts()["forums"]
        XCTAssertEqual(categoryCounts2, 3, "the posts with the list owner's Sender stay Forums")
    }

    func testAListTheLastBatchesOfAnImportShowReachesItsFirstPost() async throws {
        // One import, a message per batch: while it runs the lists are learnt again only as the
        // mailbox grows by a quarter; once it ends they are learnt from all of its mail.
        let service = try makeService()
        defer { service.shutdown() }
        func message(_ n: Int, from: String, to: String, headers: String = "") -> String {
            """
            From a Mon Mar  4 14:11:14 2024
            Message-ID: <m\(n)@example.com>
            From: Person \(n) <\(from)>
            To: \(to)
            Subject: zone transfer question \(n)
            \(headers)Date: Mon, 4 Mar 2024 1\(n % 10):00:00 +0000

            Has anyone seen this?

            """
        }
        var mail = [message(0, from: "zed@example.org", to: "dns-swap@lists.example.net")]
        mail += (1...12).map { message($0, from: "r\($0)@example.org", to: "friend\($0)@example.org") }
        mail += (13...15).map {
            message($0, from: "p\($0)@example.org", to: "dns-swap@lists.example.net",
                    headers: "Precedence: bulk\nSender: owner-dns-swap@lists.example.net\n")
        }
        let path = work.appendingPathComponent("one.mbox")
        try Data(mail.joined().utf8).write(to: path)
        _ = try await service.mailbox.importMail(path: path.path, account: "home", batchSize: 1)
        await service.categories.waitForCategorization()
        let first = try await service.store.database.read { try Int64.fetchOne($0, sql: "SELECT id FROM emails WHERE messageId = 'm0@example.com'") }!
        let category = try await service.reader.email(id: first).category
        XCTAssertEqual(category, "forums")
        let forums = try await service.categories.categoryCounts()["forums"]
        XCTAssertEqual(forums, 4)
    }

    // MARK: Accuracy on real and generated mail

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testUsrpUsersMailingListIsForumsWithRecallAtLeast95Percent() async throws {
        let mbox = Self.packageRoot.appendingPathComponent("corpora/usrp-users.mbox")
        guard FileManager.default.fileExists(atPath: mbox.path) else { throw XCTSkip("corpora not unpacked (make corpora)") }
        let service = try makeService()
        defer { service.shutdown() }
        _ = try await service.mailbox.importMail(path: mbox.path, account: "usrp")
        let counts = try await service.categories.categoryCounts()
        let total = counts.values.reduce(0, +)
        let recall = Double(counts["forums"] ?? 0) / Double(total)
        print("usrp-users: \(total) emails, " + counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
              + String(format: "; forums recall %.4f", recall))
        XCTAssertGreaterThanOrEqual(recall, 0.95)
    }

    func testGeneratedCorpusPrecisionAndRecallPerCategoryAtLeast90Percent() async throws {
        let messages = CategoryCorpus.generate(count: 1500, seed: 11)
        let mbox = work.appendingPathComponent("generated.mbox")
        try CategoryCorpus.write(messages, mbox: mbox, labels: work.appendingPathComponent("labels.tsv"))
        let service = try makeService()
        defer { service.shutdown() }
        _ = try await service.mailbox.importMail(path: mbox.path, account: "generated")
        let rows = try await service.store.database.read { try Row.fetchAll($0, sql: "SELECT messageId, category FROM emails") }
        let predicted = Dictionary(uniqueKeysWithValues: rows.map { ($0["messageId"] as String, $0["category"] as String) })
        let truthName: [DemoMailCategory: String] = [.conversation: "primary", .promotion: "promotions", .social: "social",
                                                     .update: "updates", .forum: "forums"]
        var confusion: [String: [String: Int]] = [:]
        var hardMisses: [String: Int] = [:]
        for m in messages {
            let truth = truthName[m.truth]!
            let p = predicted[m.messageId] ?? "missing"
            confusion[truth, default: [:]][p, default: 0] += 1
            if p != truth, let hard = m.hardCase { hardMisses[hard, default: 0] += 1 }
        }
        let names = ["primary", "social", "promotions", "updates", "forums"]
        print("generated corpus (\(messages.count) messages), rows truth, columns predicted:")
        print("truth\\pred   " + names.map { $0.padding(toLength: 11, withPad: " ", startingAt: 0) }.joined())
        for t in names {
            print(t.padding(toLength: 13, withPad: " ", startingAt: 0) + names.map { String(confusion[t]?[$0] ?? 0).padding(toLength: 11, withPad: " ", startingAt: 0) }.joined())
        }
        for c in names {
            let tp = Double(confusion[c]?[c] ?? 0)
            let predictedC = Double(names.reduce(0) { $0 + (confusion[$1]?[c] ?? 0) })
            let actualC = Double(confusion[c]?.values.reduce(0, +) ?? 0)
            let precision = predictedC > 0 ? tp / predictedC : 0
            let recall = actualC > 0 ? tp / actualC : 0
            print(String(format: "%@: precision %.3f recall %.3f", c, precision, recall))
            XCTAssertGreaterThanOrEqual(precision, 0.9, c)
            XCTAssertGreaterThanOrEqual(recall, 0.9, c)
        }
        print("hard cases missed: \(hardMisses)")
    }
}
