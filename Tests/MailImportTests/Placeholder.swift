import XCTest

final class MailImportTestsPlaceholder: XCTestCase {
    func testBuilds() {}
}
