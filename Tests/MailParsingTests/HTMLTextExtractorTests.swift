import XCTest
@testable import MailParsing

final class HTMLTextExtractorTests: XCTestCase {
    private func text(_ h: String) -> String { HTMLTextExtractor.plainText(from: h) }

    func testScriptStyleHeadAndCommentsAreDropped() {
        XCTAssertEqual(text("<html><head><title>x</title><style>.a{}</style></head><body><script>var a = '<p>';</script>Hi<!-- secret --> there</body></html>"), "Hi there")
        XCTAssertEqual(text("<SCRIPT type=x>alert(1)</SCRIPT>ok"), "ok")
    }

    func testEntities() {
        XCTAssertEqual(text("a &amp; b &lt;c&gt; &quot;d&quot; &#233;&#xE9; &eacute; &euro; &mdash; &nbsp;x &bogus; &amp"), "a & b <c> \"d\" éé é € — x &bogus; &")
        XCTAssertEqual(text("&#150;"), "–")
    }

    func testBlockElementsBecomeLineBreaks() {
        XCTAssertEqual(text("<p>one</p><p>two</p>line<br>break<ul><li>a</li><li>b</li></ul><h1>T</h1><blockquote>q</blockquote>"),
                       "one\ntwo\nline\nbreak\na\nb\nT\nq")
        XCTAssertEqual(text("<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>"), "a b\nc")
        XCTAssertEqual(text("  lots   of\n\n spaces\t here "), "lots of spaces here")
    }

    func testMalformedMarkupKeepsText() {
        XCTAssertEqual(text("a < b and c > d"), "a < b and c > d")
        XCTAssertEqual(text("x <b unclosed"), "x <b unclosed")
        XCTAssertEqual(text("<p>unclosed paragraph"), "unclosed paragraph")
    }

    func testHostileInputIsLinear() {
        let t0 = Date()
        _ = text(String(repeating: "<", count: 10_000_000))
        _ = text(String(repeating: "<a", count: 2_000_000))
        _ = text(String(repeating: "<title>", count: 500_000))
        _ = text(String(repeating: "&#", count: 2_000_000))
        XCTAssertLessThan(Date().timeIntervalSince(t0), 30)
    }
}
