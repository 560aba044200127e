import XCTest

final class MailParsingTestsPlaceholder: XCTestCase {
    func testBuilds() {}
}
