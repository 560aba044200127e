import XCTest
@testable import HTMLSanitizer

final class SmokeTests: XCTestCase {
    func testSmoke() {
        let result = HTMLSanitizer.sanitize("<p onclick=x>Hi <b>there</b><script>alert(1)</script></p>")
        XCTAssertEqual(result.html, "<p>Hi <b>there</b></p>")
    }
}
