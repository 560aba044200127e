import XCTest
@testable import MailParsing

final class MaildirInfoTests: XCTestCase {
    func testFlagsFromInfoSuffix() {
        let i = MaildirInfo.parse(filename: "1234.M5P6.host:2,FRS")
        XCTAssertEqual(i, MaildirInfo(seen: true, flagged: true, replied: true))
        XCTAssertEqual(MaildirInfo.parse(filename: "cur/1234.host!2,DPT"), MaildirInfo(draft: true, trashed: true, passed: true))
        XCTAssertEqual(MaildirInfo.parse(filename: "/a:2,S/1234.host"), MaildirInfo())
        XCTAssertEqual(MaildirInfo.parse(filename: "1234.host:2,"), MaildirInfo())
        XCTAssertEqual(MaildirInfo.parse(filename: "1234.host"), MaildirInfo())
        XCTAssertEqual(MaildirInfo.parse(filename: ""), MaildirInfo())
        XCTAssertEqual(MaildirInfo.parse(filename: ":2"), MaildirInfo())
    }
}
