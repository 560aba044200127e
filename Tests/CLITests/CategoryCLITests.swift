import Foundation
import XCTest

/// `categorize`, `recategorize`, the counts in `stats` and the reason in `show --json`, through the built binary.
final class CategoryCLITests: CLITestCase {
    func testCategorizeRecategorizeStatsAndTheReasonInShow() throws {
        let mbox = try writeMbox(count: 10)
        XCTAssertEqual(try mailsearch(["import", mbox, "--account", "demo"]).status, 0)

        let stats = try JSONSerialization.jsonObject(with: Data(try mailsearch(["stats", "--json"]).stdout.utf8)) as! [String: Any]
        let counts = try XCTUnwrap(stats["categories"] as? [String: Int])
        XCTAssertEqual(counts.values.reduce(0, +), 10)
        XCTAssertEqual(counts["uncategorized"], 0, "every imported email has a category")

        let shown = try JSONSerialization.jsonObject(with: Data(try mailsearch(["show", "e1", "--json"]).stdout.utf8)) as! [String: Any]
        let categorization = try XCTUnwrap(shown["categorization"] as? [String: Any])
        XCTAssertNotNil(categorization["reason"] as? String)
        XCTAssertNotNil(categorization["confidence"] as? Double)

        let set = try mailsearch(["categorize", "e1", "promotions"])
        XCTAssertEqual(set.status, 0, set.stderr)
        XCTAssertEqual(try mailsearch(["categorize", "e1", "spam"]).status, 64)
        let search = try mailsearch(["search", "category:promotions", "--json"])
        let found = try JSONSerialization.jsonObject(with: Data(search.stdout.utf8)) as! [String: Any]
        XCTAssertGreaterThanOrEqual(found["conversationCount"] as? Int ?? 0, 1, "the choice is searchable at once")

        let again = try mailsearch(["recategorize", "--json"])
        XCTAssertEqual(again.status, 0, again.stderr)
        let reshown = try JSONSerialization.jsonObject(with: Data(try mailsearch(["show", "e1", "--json"]).stdout.utf8)) as! [String: Any]
        XCTAssertEqual(reshown["category"] as? String, "promotions", "the user's choice stays")
        XCTAssertEqual((reshown["categorization"] as? [String: Any])?["method"] as? String, "user")
    }
}
