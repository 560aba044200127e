import Foundation
import GRDB
import MailModel
import MailStore
import SearchEngine
import SearchIndex
import XCTest

/// The sender filter reads the email's own From name and address (mailing lists), with the
/// contact's name standing in for mail that has no name of its own.
final class SenderFilterTests: XCTestCase {
    typealias Spec = SearchFixture.Spec

    private func filtered(_ f: SearchFixture, _ text: String) throws -> Set<Int64> {
        let query = SearchFixture.parser.parse(text)
        let filter = EmailFilterSQL(filters: query.filters, scope: query.scope)
        return try f.index.read { db in
            Set(try Int64.fetchAll(db, sql: "SELECT e.id FROM mail.emails e WHERE \(filter.condition)", arguments: filter.arguments))
        }
    }

    /// "driver built from git": a sender read from prose that no email has is text; one that
    /// exists stays a filter even when nothing else matches; `from:` always filters.
    func testAProseSenderNobodyIsIsSearchedAsText() async throws {
        let f = try SearchFixture()
        let ids = try f.add([
            Spec(subject: "driver built from git reports old firmware", from: "alice@example.com", fromName: "Alice Li"),
            Spec(subject: "quarterly budget", from: "sarah@example.com", fromName: "Sarah Chen"),
        ])
        let parsed = SearchFixture.parser.parse("driver built from git")
        XCTAssertEqual(parsed.filters.sender, "git")
        XCTAssertEqual(parsed.proseSenderFallback?.text, "driver built from git")
        XCTAssertNil(SearchFixture.parser.parse("driver from:git").proseSenderFallback)

        let prose = try await f.useCase().search("driver built from git")
        XCTAssertEqual(prose.results.map(\.emailId), [ids[0]])
        XCTAssertNil(prose.query.filters.sender, "the answer shows the reading it used")
        let exists = try await f.useCase().search("driver from sarah")
        XCTAssertEqual(exists.results.count, 0, "Sarah exists: her filter stands")
        XCTAssertEqual(exists.query.filters.sender, "sarah")
        let operatorForm = try await f.useCase().search("driver from:git")
        XCTAssertEqual(operatorForm.results.count, 0)
    }

    /// On a mailing list most mail is `"Name via List" <list@…>`: the contacts table holds one
    /// (the latest) name for the list's address, so `from:` must read the email's own From name.
    func testSenderMatchesTheEmailsOwnFromName() async throws {
        let f = try SearchFixture()
        let list = "usrp-users@lists.ettus.com"
        let ids = try f.add([
            Spec(subject: "B210 clock", from: list, fromName: "Jane Doe via USRP-users", daysAgo: 3),
            Spec(subject: "X310 firmware", from: list, fromName: "Rob Kossler via USRP-users", daysAgo: 2),
            Spec(subject: "Direct note", from: "rob.kossler@ni.com", fromName: "Rob Kossler", daysAgo: 1),
        ])
        let useCase = f.useCase()
        try await f.assertFinds(useCase, "from:\"Jane Doe\"", [ids[0]])
        try await f.assertFinds(useCase, "from:\"Rob Kossler\"", [ids[1], ids[2]])
        try await f.assertFinds(useCase, "from:kossler firmware", [ids[1]])
        try await f.assertFinds(useCase, "from:usrp-users", [ids[0], ids[1]], "the address still matches")
        try await f.assertFinds(useCase, "from:ettus.com", [ids[0], ids[1]])
    }

    /// Mail without a From name of its own is still found by the name its address goes by.
    func testMailWithoutANameIsFoundByItsContactsName() throws {
        let f = try SearchFixture()
        let ids = try f.add([
            Spec(subject: "named", from: "john@example.com", fromName: "John Smith", daysAgo: 2),
            Spec(subject: "bare", from: "john@example.com", fromName: nil, daysAgo: 1),
            Spec(subject: "other", from: "someone@example.com", fromName: "Mary Jones", daysAgo: 1),
        ])
        XCTAssertEqual(try filtered(f, "from:\"John Smith\""), [ids[0], ids[1]])
        XCTAssertEqual(try filtered(f, "from:JOHN"), [ids[0], ids[1]], "case-insensitive")
        XCTAssertEqual(try filtered(f, "from:mary"), [ids[2]])
    }

    func testTheSenderNameIndexIsUsed() throws {
        let f = try SearchFixture()
        _ = try f.add(Spec(subject: "x", fromName: "Jane Doe via list"))
        let filter = EmailFilterSQL(filters: SearchFilters(sender: "jane"), scope: .allMail)
        let plan = try f.index.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT e.id FROM mail.emails e WHERE \(filter.condition)",
                             arguments: filter.arguments).map { $0["detail"] as String }
        }
        XCTAssertTrue(plan.contains { $0.contains("emails_from_name") }, "\(plan)")
        XCTAssertTrue(plan.contains { $0.contains("emails_from_lower") }, "\(plan)")
        XCTAssertFalse(plan.contains { $0.hasPrefix("SCAN e") || $0 == "SCAN n" }, "\(plan)")
    }
}
