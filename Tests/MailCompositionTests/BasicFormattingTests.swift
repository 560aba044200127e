import MailParsing
import XCTest
@testable import MailComposition

/// The composer's bold, italic and links (spec 001 §5.5.1) as an HTML alternative: only the three
/// forms become markup, everything else is escaped, quoted text is never read as formatting.
final class BasicFormattingTests: XCTestCase {
    func testPlainTextHasNoHTMLAlternative() {
        XCTAssertNil(BasicFormatting.html("Hello Bob,\nsee you at 10.\n"))
        XCTAssertNil(BasicFormatting.html("call get_user_name(2*3*4) in snake_case_names"), "markers inside words are text")
        XCTAssertNil(BasicFormatting.html("> *quoted* text is the sender's own\n"))
    }

    func testBoldItalicAndLinks() throws {
        let html = try XCTUnwrap(BasicFormatting.html("This is *very* _important_: [the plan](https://example.com/plan?a=1&b=2).\n> their *text*"))
        XCTAssertTrue(html.contains("This is <strong>very</strong> <em>important</em>: <a href=\"https://example.com/plan?a=1&amp;b=2\">the plan</a>.<br>"), html)
        XCTAssertTrue(html.contains("<blockquote>their *text*</blockquote>"), html)
    }

    func testTypedMarkupIsEscaped() throws {
        let html = try XCTUnwrap(BasicFormatting.html("*<script>alert(1)</script>* <img src=x onerror=alert(1)> \"q\" & 'a'"))
        XCTAssertFalse(html.contains("<script>"))
        XCTAssertFalse(html.contains("<img"))
        XCTAssertTrue(html.contains("<strong>&lt;script&gt;alert(1)&lt;/script&gt;</strong> &lt;img src=x onerror=alert(1)&gt; &quot;q&quot; &amp; &#39;a&#39;"), html)
    }

    func testOnlyWebAndMailLinksBecomeLinks() throws {
        XCTAssertNil(BasicFormatting.html("[click](javascript:alert(1)) [x](data:text/html,hi)"))
        let html = try XCTUnwrap(BasicFormatting.html("[write](mailto:bob@example.com) [bad](https://a.example/\"onmouseover=x)"))
        XCTAssertTrue(html.contains("<a href=\"mailto:bob@example.com\">write</a>"), html)
        XCTAssertFalse(html.contains("onmouseover=x\">"), html)
    }

    func testAMessageWithFormattingCarriesBothParts() throws {
        let built = try MessageBuilder().build(OutgoingMessage(
            from: MailboxAddress(parsing: "a@example.com"), to: [MailboxAddress(parsing: "b@example.com")], subject: "x",
            textBody: "*bold*\n", htmlBody: BasicFormatting.html("*bold*\n")))
        let text = String(decoding: built.bytes, as: UTF8.self)
        XCTAssertTrue(text.contains("multipart/alternative"))
        let parsed = MIMEParser.parse(built.bytes)
        XCTAssertEqual(parsed.textBody, "*bold*\n", "the text part keeps the text as typed")
        XCTAssertTrue(parsed.htmlBody?.contains("<strong>bold</strong>") ?? false, parsed.htmlBody ?? "no HTML part")
    }
}
