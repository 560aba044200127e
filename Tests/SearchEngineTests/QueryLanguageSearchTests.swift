import Foundation
import GRDB
import MailModel
import MailStore
import SearchEngine
import SearchIndex
import XCTest

/// The query language end to end: negation, OR, groups, the sender filter on the email's own
/// From name, search-as-you-type on the last word, highlights that follow the MATCH.
final class QueryLanguageSearchTests: XCTestCase {
    typealias Spec = SearchFixture.Spec

    /// Ids of the emails `filter` admits, through the SQL the search runs.
    private func filtered(_ f: SearchFixture, _ query: SearchQuery) throws -> Set<Int64> {
        let filter = EmailFilterSQL(query: query)
        return try f.index.read { db in
            Set(try Int64.fetchAll(db, sql: "SELECT e.id FROM mail.emails e WHERE \(filter.condition)", arguments: filter.arguments))
        }
    }

    private func parse(_ text: String) -> SearchQuery { SearchFixture.parser.parse(text) }

    // MARK: Negation and OR

    func testNegatedWordsAndPhrasesExcludeMail() async throws {
        let f = try SearchFixture()
        let ids = try f.add([
            Spec(subject: "Budget report A", body: "final numbers"),
            Spec(subject: "Budget report B", body: "first draft of the numbers"),
            Spec(subject: "Forecast report", body: "final forecast"),
            Spec(subject: "Lunch", body: "nothing"),
        ])
        let useCase = f.useCase()
        try await f.assertFinds(useCase, "report -draft", [ids[0], ids[2]])
        try await f.assertFinds(useCase, "report -\"first draft\"", [ids[0], ids[2]])
        try await f.assertFinds(useCase, "(budget OR forecast) report -draft", [ids[0], ids[2]])
        try await f.assertFinds(useCase, "{budget lunch} -draft", [ids[0], ids[3]])
        // Only exclusions: every other message, newest first, through the filter.
        try await f.assertFinds(useCase, "-draft", [ids[0], ids[2], ids[3]])
        try await f.assertFinds(useCase, "-report", [ids[3]])
    }

    func testNegatedOperatorsAndOrBetweenOperators() async throws {
        let f = try SearchFixture()
        let ids = try f.add([
            Spec(subject: "alpha one", from: "john@example.com", isRead: false),
            Spec(subject: "alpha two", from: "mary@example.com", hasAttachment: true),
            Spec(subject: "alpha three", from: "bob@example.com", folders: ["Trash"]),
        ])
        let useCase = f.useCase()
        try await f.assertFinds(useCase, "alpha -from:john", [ids[1], ids[2]])
        try await f.assertFinds(useCase, "alpha -is:unread", [ids[1], ids[2]])
        try await f.assertFinds(useCase, "alpha -has:attachment", [ids[0], ids[2]])
        try await f.assertFinds(useCase, "alpha -in:trash", [ids[0], ids[1]])
        try await f.assertFinds(useCase, "from:john OR from:mary", [ids[0], ids[1]])
        try await f.assertFinds(useCase, "alpha {from:john from:bob}", [ids[0], ids[2]])
        try await f.assertFinds(useCase, "two OR from:john", [ids[0], ids[1]])
        try await f.assertFinds(useCase, "alpha -(from:john OR in:trash)", [ids[1]])
        try await f.assertFinds(useCase, "-from:john -from:mary", [ids[2]])
    }

    /// `NOT (x LIKE ?)` is NULL, not true, when x is NULL: a message without a From header or a
    /// date must not vanish from a negated filter.
    func testNegatedFiltersKeepMailWithMissingColumns() throws {
        let f = try SearchFixture()
        let ids = try f.add([
            Spec(subject: "no sender", from: nil),
            Spec(subject: "no date", from: "john@example.com", daysAgo: nil),
            Spec(subject: "jane's", from: "jane@example.com", daysAgo: 1),
        ])
        XCTAssertEqual(try filtered(f, parse("-from:jane")), [ids[0], ids[1]])
        XCTAssertEqual(try filtered(f, parse("-after:2024-06-01")), [ids[0], ids[1]])
        XCTAssertEqual(try filtered(f, parse("-from:john -from:jane")), [ids[0]])
    }

    func testAHandBuiltQueryWithOnlyExclusionsIsFilteredToo() throws {
        let f = try SearchFixture()
        let ids = try f.add([Spec(subject: "draft plan"), Spec(subject: "final plan")])
        XCTAssertEqual(try filtered(f, SearchQuery(text: "-draft")), [ids[1]])
        XCTAssertEqual(try filtered(f, SearchQuery(text: "plan -draft")), Set(ids), "the NOT is in the MATCH, not the filter")
        XCTAssertEqual(EmailFilterSQL(query: SearchQuery(text: "plan -draft")).condition, "1")
    }

    /// Gmail's attachment kinds match by MIME type or by the name's extension (an XLSX sent as
    /// application/octet-stream is a spreadsheet); `filename:` is part of a name; sizes bound the
    /// whole message.
    func testAttachmentKindsNamesAndSizes() async throws {
        let f = try SearchFixture()
        let xlsxMime = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
        let ids = try f.add([
            Spec(subject: "alpha sheet", hasAttachment: true, attachments: [("Q3-Budget.xlsx", xlsxMime)], sizeBytes: 40_000),
            Spec(subject: "alpha octet", hasAttachment: true, attachments: [("forecast.XLS", "application/octet-stream")],
                 sizeBytes: 3 * 1024 * 1024),
            Spec(subject: "alpha csv", hasAttachment: true, attachments: [("numbers.csv", "text/csv")], sizeBytes: 2_000),
            Spec(subject: "alpha slides", hasAttachment: true,
                 attachments: [("deck.odp", "application/vnd.oasis.opendocument.presentation")], sizeBytes: 20 * 1024 * 1024),
            Spec(subject: "alpha letter", hasAttachment: true, attachments: [("letter.docx", "application/octet-stream"),
                                                                             ("photo.HEIC", "application/octet-stream")]),
            Spec(subject: "alpha picture", hasAttachment: true, attachments: [("scan", "image/png")]),
            Spec(subject: "alpha plain", body: "a spreadsheet mentioned in prose only"),
        ])
        let useCase = f.useCase()
        try await f.assertFinds(useCase, "alpha has:spreadsheet", [ids[0], ids[1], ids[2]])
        try await f.assertFinds(useCase, "alpha with a spreadsheet", [ids[0], ids[1], ids[2]])
        try await f.assertFinds(useCase, "alpha has:xlsx", [ids[0]])
        try await f.assertFinds(useCase, "alpha has:xls", [ids[1]])
        try await f.assertFinds(useCase, "alpha has:presentation", [ids[3]])
        try await f.assertFinds(useCase, "alpha has:document", [ids[4]])
        try await f.assertFinds(useCase, "alpha has:image", [ids[4], ids[5]])
        try await f.assertFinds(useCase, "alpha -has:image", [ids[0], ids[1], ids[2], ids[3], ids[6]])
        try await f.assertFinds(useCase, "alpha has:pdf", [])
        try await f.assertFinds(useCase, "filename:budget", [ids[0]])
        try await f.assertFinds(useCase, "filename:q3-budget.xlsx", [ids[0]])
        try await f.assertFinds(useCase, "filename:xls", [ids[0], ids[1]])
        try await f.assertFinds(useCase, "filename:100%", [])
        try await f.assertFinds(useCase, "alpha larger:1M", [ids[1], ids[3]])
        try await f.assertFinds(useCase, "alpha larger:1M smaller:10M", [ids[1]])
        try await f.assertFinds(useCase, "alpha smaller:10K", [ids[2], ids[4], ids[5], ids[6]])
        try await f.assertFinds(useCase, "alpha -larger:1M has:spreadsheet", [ids[0], ids[2]])
        // The same SQL answers a filter-only query and a negated group.
        XCTAssertEqual(try filtered(f, parse("has:spreadsheet OR larger:10M")), Set([ids[0], ids[1], ids[2], ids[3]]))
    }

    func testNegatedSenderOnTheEmailsOwnName() async throws {
        let f = try SearchFixture()
        let list = "usrp-users@lists.ettus.com"
        let ids = try f.add([
            Spec(subject: "B210 clock", from: list, fromName: "Jane Doe via USRP-users", daysAgo: 3),
            Spec(subject: "X310 firmware", from: list, fromName: "Rob Kossler via USRP-users", daysAgo: 2),
            Spec(subject: "Direct note", from: "rob.kossler@ni.com", fromName: "Rob Kossler", daysAgo: 1),
        ])
        try await f.assertFinds(f.useCase(), "-from:\"Jane Doe\"", [ids[1], ids[2]])
    }
}
