import XCTest
@testable import MailParsing

final class AddressParserTests: XCTestCase {
    private func p(_ s: String) -> [ParsedAddress] { AddressParser.parseList(s) }
    private func a(_ name: String?, _ address: String) -> ParsedAddress { ParsedAddress(name: name, address: address) }

    func testDisplayNamesAndAngleAddresses() {
        XCTAssertEqual(p("John Doe <john@example.com>"), [a("John Doe", "john@example.com")])
        XCTAssertEqual(p("<john@example.com>"), [a(nil, "john@example.com")])
        XCTAssertEqual(p("john@example.com"), [a(nil, "john@example.com")])
        XCTAssertEqual(p("k..allen@enron.com, phillip.allen@enron.com"), [a(nil, "k..allen@enron.com"), a(nil, "phillip.allen@enron.com")])
    }

    func testQuotedStringsWithEscapesAndCommas() {
        XCTAssertEqual(p(#""Doe, John" <jd@x.org>, "A \"quoted\" name" <q@x.org>"#),
                       [a("Doe, John", "jd@x.org"), a(#"A "quoted" name"#, "q@x.org")])
    }

    func testCommentsGiveANameWhenThereIsNoPhrase() {
        XCTAssertEqual(p("jd@x.org (John Doe)"), [a("John Doe", "jd@x.org")])
        XCTAssertEqual(p("John <jd@x.org> (work)"), [a("John", "jd@x.org")])
    }

    func testGroups() {
        XCTAssertEqual(p("undisclosed-recipients:;"), [])
        XCTAssertEqual(p("Team: a@x.com, B <b@y.com>;, c@z.com"), [a(nil, "a@x.com"), a("B", "b@y.com"), a(nil, "c@z.com")])
    }

    func testMalformedForms() {
        XCTAssertEqual(p("a@x.com,, b@y.com,"), [a(nil, "a@x.com"), a(nil, "b@y.com")])
        XCTAssertEqual(p("John Doe john@x.com"), [a("John Doe", "john@x.com")])
        XCTAssertEqual(p("Doe, John <jd@x.org>"), [a("Doe, John", "jd@x.org")])
        XCTAssertEqual(p("<@route.example:user@x.org>"), [a(nil, "user@x.org")])
        XCTAssertEqual(p("Name <unterminated@x.org"), [a("Name", "unterminated@x.org")])
        XCTAssertEqual(p(""), [])
        XCTAssertEqual(p("   "), [])
    }

    func testEncodedWordsInDisplayNames() {
        XCTAssertEqual(p("=?utf-8?q?Ren=C3=A9?= <r@x.fr>"), [a("René", "r@x.fr")])
        XCTAssertEqual(p(#""=?iso-8859-1?q?M=FCller=2C_Hans?=" <h@x.de>"#), [a("Müller, Hans", "h@x.de")])
    }
}
