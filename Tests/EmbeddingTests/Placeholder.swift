import XCTest

final class EmbeddingTestsPlaceholder: XCTestCase {
    func testBuilds() {}
}
