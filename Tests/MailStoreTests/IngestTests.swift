import Foundation
import GRDB
import MailModel
import MailParsing
import MailStore
import XCTest

final class IngestTests: StoreTestCase {
    func testSameMessageIdIsStoredOnceAndGainsFolders() throws {
        let first = try ingest(mail("m1", folders: ["Inbox"]))
        XCTAssertEqual(first.inserted.count, 1)
        let again = try ingest(mail("m1", folders: ["Archive"]), mail("m1", folders: ["Inbox"]))
        XCTAssertEqual(again.inserted.count, 0)
        XCTAssertEqual(again.duplicates, 2)
        let stats = try store.statistics()
        XCTAssertEqual(stats.emails, 1)
        XCTAssertEqual(stats.folderLinks, 2, "one email in Inbox and Archive (AC-S-04 multi-folder)")
        let stored = try XCTUnwrap(try store.email(id: XCTUnwrap(first.inserted.first?.id)))
        XCTAssertEqual(stored.folders, ["Archive", "Inbox"])
    }

    func testContactsCountMessagesPerAddress() throws {
        try ingest(mail("1", from: "John@Example.com"), mail("2", from: "john@example.com", day: 2))
        let rows = try store.database.read { db in
            try Row.fetchAll(db, sql: "SELECT email, frequency, lastSeen FROM contacts ORDER BY email")
        }
        XCTAssertEqual(rows.map { $0["email"] as String }, ["john@example.com", "me@example.com"])
        XCTAssertEqual(rows[0]["frequency"] as Int, 2)
        XCTAssertEqual(rows[0]["lastSeen"] as Double, Self.t0.addingTimeInterval(2 * Self.day).timeIntervalSince1970)
    }

    func testContactsOfABatchAreTheSameAsOneMessageAtATime() throws {
        // Written once per address when the batch ends: the latest date whatever the order, the
        // last name given (a message without one keeps it), every message counted; a later batch adds.
        func from(_ id: String, _ name: String?, day: Double) -> IncomingEmail {
            var m = mail(id, from: "ann@example.com", day: day)
            m.email.from = Address(name: name, email: "Ann@Example.com")
            return m
        }
        try ingest(from("1", "Ann", day: 3), from("2", nil, day: 1), from("3", "Ann B.", day: 2), from("4", nil, day: 0))
        try ingest(from("5", nil, day: 1))
        let row = try XCTUnwrap(try store.database.read { db in
            try Row.fetchOne(db, sql: "SELECT displayName, frequency, lastSeen FROM contacts WHERE email = 'ann@example.com'")
        })
        XCTAssertEqual(row["displayName"] as String?, "Ann B.")
        XCTAssertEqual(row["frequency"] as Int, 5)
        XCTAssertEqual(row["lastSeen"] as Double, Self.t0.addingTimeInterval(3 * Self.day).timeIntervalSince1970)
        let me = try store.database.read { try Int.fetchOne($0, sql: "SELECT frequency FROM contacts WHERE email = 'me@example.com'") }
        XCTAssertEqual(me, 5)
    }

    func testDeletingAnAccountRemovesAllItsData() throws {
        try ingest(mail("1"), mail("2", subject: "Re: Hello", inReplyTo: "1", references: ["1"]))
        let removed = try store.deleteAccount(id: accountId)
        XCTAssertEqual(removed.count, 2)
        let s = try store.statistics()
        XCTAssertEqual([s.accounts, s.emails, s.threads, s.folders, s.contacts, s.folderLinks], [0, 0, 0, 0, 0, 0])
        let ids = try store.database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM message_ids")! }
        XCTAssertEqual(ids, 0)
    }

    func testAddressListsRoundTrip() throws {
        var m = mail("r")
        m.email.to = [Address(name: "Smith, John", email: "john@example.com"), Address(name: nil, email: "x@y.z"),
                      Address(name: "Tab\tName", email: "t@example.com")]
        let r = try ingest(m)
        let stored = try XCTUnwrap(try store.email(id: r.inserted[0].id))
        XCTAssertEqual(stored.email.to.map(\.email), ["john@example.com", "x@y.z", "t@example.com"])
        XCTAssertEqual(stored.email.to[0].name, "Smith, John")
        XCTAssertEqual(stored.email.to[2].name, "Tab Name")
    }

    func testReopeningTheStoreKeepsEverything() throws {
        try ingest(mail("keep"))
        store = nil
        let reopened = try MailStore(directory: DataDirectory(url: directory))
        XCTAssertEqual(try reopened.statistics().emails, 1)
    }

    func testAGarbageDatabaseFileIsReportedNotReplaced() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("garbage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let file = dir.appendingPathComponent("mail.sqlite")
        try garbage.write(to: file)
        XCTAssertThrowsError(try MailStore(directory: DataDirectory(url: dir))) { error in
            XCTAssertTrue("\(error)".contains("mail.sqlite"))
        }
        XCTAssertEqual(try Data(contentsOf: file), garbage, "mail.sqlite must be left byte-identical")
    }
}

/// Spec 001 §5.2.4 step 4: only Re/Fwd forms are stripped, recursively and in any case; a
/// leading [tag] is kept, with the Re/Fwd forms around it stripped.
final class SubjectNormalizerTests: XCTestCase {
    func testStripsReAndFwdFormsRecursivelyInAnyCase() {
        XCTAssertEqual(SubjectNormalizer.normalize("Re: Fwd: RE: FW: fwd: re: Fw: Budget"), "Budget")
        XCTAssertEqual(SubjectNormalizer.normalize("re[2]:  Budget   review "), "Budget review")
        XCTAssertEqual(SubjectNormalizer.normalize("Re(3): Re : Budget"), "Budget")
        XCTAssertEqual(SubjectNormalizer.normalize("Fwd:Re:Budget"), "Budget")
        XCTAssertEqual(SubjectNormalizer.normalize("Re:"), "")
    }

    func testKeepsEverythingElse() {
        XCTAssertEqual(SubjectNormalizer.normalize("Reply needed: budget"), "Reply needed: budget")
        XCTAssertEqual(SubjectNormalizer.normalize("AW: SV: Budget"), "AW: SV: Budget")
        XCTAssertEqual(SubjectNormalizer.normalize("Re: budget"), "budget", "case is kept: the spec matches exactly")
        XCTAssertEqual(SubjectNormalizer.normalize("Refund: March"), "Refund: March")
    }

    func testPatchTagsAreKept() {
        let v1 = SubjectNormalizer.normalize("[PATCH RFC 00/67] Add MIPS R6 support")
        let v2 = SubjectNormalizer.normalize("[PATCH RFC v2 00/70] Add MIPS R6 support")
        XCTAssertEqual(v1, "[PATCH RFC 00/67] Add MIPS R6 support")
        XCTAssertNotEqual(v1, v2)
        XCTAssertNotEqual(SubjectNormalizer.normalize("[PATCH 0/6] mm: cleanups"),
                          SubjectNormalizer.normalize("[PATCH v3 0/6] mm: cleanups"))
        XCTAssertEqual(SubjectNormalizer.normalize("Re: [PATCH v2 3/5] mm: fix"), "[PATCH v2 3/5] mm: fix")
    }

    func testListTagWithTheReplyPrefixOnEitherSide() {
        for subject in ["[USRP-users] B210 issue", "[USRP-users] Re: B210 issue", "Re: [USRP-users] B210 issue",
                        "RE: [USRP-users] Re:  B210 issue", "Fwd: [USRP-users] B210 issue"] {
            XCTAssertEqual(SubjectNormalizer.normalize(subject), "[USRP-users] B210 issue", subject)
        }
        XCTAssertEqual(SubjectNormalizer.normalize("[USRP-users] Re:"), "[USRP-users]")
    }
}

/// `AddressListCodec` reads bytes: the same addresses as splitting Characters, as it did before.
final class AddressListCodecTests: XCTestCase {
    static func decodeBefore(_ text: String?) -> [Address] {
        guard let text, !text.isEmpty else { return [] }
        return text.split(separator: "\n", omittingEmptySubsequences: true).map { line in
            if let tab = line.firstIndex(of: "\t") {
                let name = String(line[..<tab])
                return Address(name: name.isEmpty ? nil : name, email: String(line[line.index(after: tab)...]))
            }
            return Address(name: nil, email: String(line))
        }
    }

    func testDecodingGivesTheSameAddressesAsSplittingCharacters() {
        var texts: [String?] = [nil, "", "\n", "\t", "a\tb", "\tb", "a\t", "a\tb\nc\td", "a\tb\n\nc\td\n", "a\r\nb\tc", "a\tb\r\nc\td",
                                "\r\n", "x\t\u{301}y\n\u{301}z\tw", "é\te\u{301}@x\nA B\tc@d\te"]
        var random = SystemRandomNumberGenerator()
        let pieces = ["a", "B", " ", "\t", "\n", "\r", "\r\n", "é", "e\u{301}", "\u{301}", "@", "💌"]
        for _ in 0..<3000 {
            var text = ""
            for _ in 0..<Int.random(in: 1...12, using: &random) { text += pieces.randomElement(using: &random)! }
            texts.append(text)
        }
        for text in texts {
            XCTAssertEqual(AddressListCodec.decode(text), Self.decodeBefore(text), String(reflecting: text))
            var emails: [String] = ["kept"]
            AddressListCodec.appendLowercasedEmails(text, to: &emails)
            XCTAssertEqual(emails, ["kept"] + Self.decodeBefore(text).map { $0.email.lowercased() }, String(reflecting: text))
        }
        let addresses = [Address(name: "Ann\tB\r\nC", email: "a@b\n"), Address(name: nil, email: "c@d"), Address(name: "", email: "e@f")]
        XCTAssertEqual(AddressListCodec.decode(AddressListCodec.encode(addresses)), Self.decodeBefore(AddressListCodec.encode(addresses)))
    }
}

/// A decision the rules made as a message was parsed is stored beside it and handed to the
/// categoriser (`CategorizationInput.provisional`) until something decides it or asks for it to be
/// decided again; then it is never taken up (the rules of the day decide).
final class ProvisionalDecisionStoreTests: StoreTestCase {
    func testAProvisionalDecisionIsHandedOverUntilRecategorizationClearsIt() throws {
        var item = mail("p1@x", subject: "Your order has shipped")
        item.email.category = .updates
        item.categorySignals = CategorySignals()
        item.provisionalDecision = CategoryDecision(category: .updates, method: .rule, reason: "order notice", confidence: 0.7)
        var plain = mail("p2@x")
        plain.categorySignals = CategorySignals()
        let ids = try ingest(item, plain).inserted.map(\.id)
        var inputs = try store.categorizationInputs(ids: ids)
        XCTAssertEqual(inputs[0].input.provisional?.reason, "order notice")
        XCTAssertEqual(inputs[0].input.provisional?.category, .updates)
        XCTAssertEqual(inputs[0].storedCategory, .updates)
        XCTAssertNil(inputs[1].input.provisional, "no decision stored with it")

        XCTAssertEqual(try store.requestRecategorization(), 2)
        inputs = try store.categorizationInputs(ids: ids)
        XCTAssertNil(inputs[0].input.provisional, "recategorising decides again by the rules as they are now")
        XCTAssertEqual(inputs[0].input.signals, CategorySignals(), "its header signals stay")

        // A decision the categoriser made (with a time) is no provisional one, waiting or not.
        try store.storeCategoryDecisions([(ids[1], CategoryDecision(category: .primary, method: .rule, reason: "person", confidence: 0.9))])
        XCTAssertEqual(try store.requestRecategorization(), 2)
        XCTAssertNil(try store.categorizationInputs(ids: [ids[1]])[0].input.provisional)
    }
}
