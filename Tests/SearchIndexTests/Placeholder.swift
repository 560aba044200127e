import XCTest

final class SearchIndexTestsPlaceholder: XCTestCase {
    func testBuilds() {}
}
