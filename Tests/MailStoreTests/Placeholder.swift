import XCTest

final class MailStoreTestsPlaceholder: XCTestCase {
    func testBuilds() {}
}
