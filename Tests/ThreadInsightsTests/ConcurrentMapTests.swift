import MailModel
import XCTest

/// `concurrentMap` (MailModel): what a summary's cleaning and an import's parsing run on.
final class ConcurrentMapTests: XCTestCase {
    func testTheSameAsMapInOrder() {
        for count in [0, 1, 2, 3, 17, 1_000] {
            let input = Array(0..<count)
            XCTAssertEqual(input.concurrentMap { $0 * $0 + 1 }, input.map { $0 * $0 + 1 })
        }
    }

    func testFromATaskOfSwiftConcurrency() async {
        let input = (0..<64).map { String(repeating: "x", count: $0) }
        let counts = await Task.detached { input.concurrentMap(\.count) }.value
        XCTAssertEqual(counts, Array(0..<64))
    }
}
