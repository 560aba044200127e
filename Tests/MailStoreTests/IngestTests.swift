import Foundation
import GRDB
import MailModel
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

final class SubjectNormalizerTests: XCTestCase {
    func testStripsPrefixesRecursivelyAndCaseInsensitively() {
        XCTAssertEqual(SubjectNormalizer.normalize("Re: Fwd: RE: FW: AW: SV: Budget"), "budget")
        XCTAssertEqual(SubjectNormalizer.normalize("re[2]:  Budget   review "), "budget review")
        XCTAssertEqual(SubjectNormalizer.normalize("[USRP-users] Re: B210 issue"), "b210 issue")
        XCTAssertEqual(SubjectNormalizer.normalize("Reply needed: budget"), "reply needed: budget")
        XCTAssertEqual(SubjectNormalizer.normalize("Re:"), "")
    }
}
