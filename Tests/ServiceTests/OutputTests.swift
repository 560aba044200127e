import CLIOutput
import Foundation
import SearchCLI
import XCTest

/// The CLI's number formatting without Foundation's formatter gives what `String(format:)` gives.
final class OutputTests: XCTestCase {
    func testFixedDecimalsAreTheCLibrarysRounding() {
        var values: [Double] = [0, -0.0, 0.05, 0.15, 0.25, 1.005, 2.675, 12.345, -3.14159, 1e-9, 123_456_789.987_654, 1e300,
                                -1e300, .infinity, -.infinity, .nan, Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 { values.append(Double.random(in: -1_000...1_000, using: &generator)) }
        for value in values {
            for digits in [0, 1, 2, 6] {
                XCTAssertEqual(Output.fixed(value, digits: digits), String(format: "%.\(digits)f", value), "\(value) \(digits)")
            }
        }
    }
}

/// The headline of a result list counts what matched apart from what is only related.
final class HeadlineTests: XCTestCase {
    func testTheHeadlineSaysWhatContainsTheWordsAndWhatIsRelated() {
        XCTAssertEqual(SearchRun.headline(conversations: 12, matched: 12), "12 conversations")
        XCTAssertEqual(SearchRun.headline(conversations: 1, matched: 1), "1 conversation")
        XCTAssertEqual(SearchRun.headline(conversations: 32, matched: 1), "1 conversation contains these words · 31 related")
        XCTAssertEqual(SearchRun.headline(conversations: 5, matched: 2), "2 conversations contain these words · 3 related")
        XCTAssertEqual(SearchRun.headline(conversations: 4, matched: 0), "4 related conversations (none contains all these words)")
        XCTAssertEqual(SearchRun.headline(conversations: 1, matched: 0), "1 related conversation (none contains all these words)")
    }
}
