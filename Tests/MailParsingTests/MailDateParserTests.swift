import XCTest
@testable import MailParsing

final class MailDateParserTests: XCTestCase {
    private func t(_ s: String) -> Int? { MailDateParser.parse(s).map { Int($0.timeIntervalSince1970) } }
    // 2002-03-04 22:11:14 UTC
    let ref = 1_015_279_874

    func testRFC5322Forms() {
        XCTAssertEqual(t("Mon, 4 Mar 2002 14:11:14 -0800"), ref)
        XCTAssertEqual(t("Mon, 4 Mar 2002 14:11:14 -0800 (PST)"), ref)
        XCTAssertEqual(t("4 Mar 2002 22:11:14 +0000"), ref)
        XCTAssertEqual(t("Mon,  4 Mar 2002   23:11:14   +0100"), ref)
    }

    func testObsoleteForms() {
        XCTAssertEqual(t("Mon, 4 Mar 02 14:11:14 PST"), ref)
        XCTAssertEqual(t("4 Mar 2002 17:11:14 EST"), ref)
        XCTAssertEqual(t("4 Mar 2002 22:11:14 GMT"), ref)
        XCTAssertEqual(t("4 Mar 2002 22:11:14 UT"), ref)
        XCTAssertEqual(t("4 Mar 2002 22:11:14 Z"), ref)
        XCTAssertEqual(t("4 Mar 2002 15:11:14 PDT"), ref)
        XCTAssertEqual(t("Mon, 4 Mar 2002 14:11:14 (PST)"), ref)
        XCTAssertEqual(t("4 Mar 2002 22:11 +0000"), ref - 14)
        XCTAssertEqual(t("Mon, 4 Mar 2002 23:11:14 0100"), ref)
        XCTAssertEqual(t("Monday, 04-Mar-02 22:11:14 GMT"), ref)
        XCTAssertEqual(t("4 March 2002 10:11:14 pm GMT"), ref)
        XCTAssertEqual(t("Sat, 6 Aug 0001 00:06:06 -0800 (PST)"), t("Sat, 6 Aug 2001 00:06:06 -0800"))
        XCTAssertEqual(t("4 Mar 99 22:11:14 +0000"), t("4 Mar 1999 22:11:14 +0000"))
    }

    func testAsctimeAndISO8601() {
        XCTAssertEqual(t("Mon Mar  4 22:11:14 2002"), ref)
        XCTAssertEqual(t("Thu Oct 25 12:38:17 2001"), 1_004_013_497)
        XCTAssertEqual(t("2002-03-04T22:11:14Z"), ref)
        XCTAssertEqual(t("2002-03-04 23:11:14 +01:00"), ref)
        XCTAssertEqual(t("2002-03-04T23:11:14.123+0100"), ref)
        XCTAssertEqual(t("03/04/2002 22:11:14"), ref)
    }

    func testGarbageIsNil() {
        XCTAssertNil(t(""))
        XCTAssertNil(t("garbage"))
        XCTAssertNil(t("32 Foo 2002"))
        XCTAssertNil(t("Mon, 4 Mar 2002 25:61:14"))
        XCTAssertNil(t(String(repeating: "9", count: 10_000)))
    }
}
