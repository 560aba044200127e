import XCTest

final class SearchEngineTestsPlaceholder: XCTestCase {
    func testBuilds() {}
}
