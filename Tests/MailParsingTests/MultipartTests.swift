import XCTest
@testable import MailParsing

final class MultipartTests: XCTestCase {
    private func parse(_ s: String) -> ParsedMessage { MIMEParser.parse(Array(s.utf8)) }

    func testNestedMultipartWithPreambleAndEpilogue() {
        let m = parse("""
        From: a@b.c
        Content-Type: multipart/mixed; boundary="outer"

        This is the preamble.
        --outer
        Content-Type: multipart/alternative; boundary=inner

        inner preamble
        --inner
        Content-Type: text/plain; charset=utf-8

        plain version
        --inner
        Content-Type: text/html; charset=utf-8

        <p>html <b>version</b></p>
        --inner--
        inner epilogue
        --outer
        Content-Type: text/plain

        second part
        --outer--
        This is the epilogue.
        """)
        XCTAssertEqual(m.textBody, "plain version\nsecond part")
        XCTAssertEqual(m.htmlBody, "<p>html <b>version</b></p>")
        XCTAssertFalse(m.textBody.contains("preamble"))
        XCTAssertFalse(m.textBody.contains("epilogue"))
        XCTAssertTrue(m.defects.isEmpty, "\(m.defects)")
        XCTAssertEqual(m.snippet, "plain version second part")
    }

    func testAlternativeWithOnlyHTMLUsesHTMLAsText() {
        let m = parse("""
        Content-Type: multipart/alternative; boundary=b

        --b
        Content-Type: text/html

        <html><head><title>T</title><style>p{}</style></head><body><p>Hello&nbsp;<i>there</i></p><p>Bye</p></body></html>
        --b--
        """)
        XCTAssertEqual(m.textBody, "Hello there\nBye")
        XCTAssertNotNil(m.htmlBody)
    }

    func testHTMLOnlyMessageFallsBackToHTMLText() {
        let m = parse("Content-Type: text/html\n\n<div>one</div><div>two &amp; three</div>")
        XCTAssertEqual(m.textBody, "one\ntwo & three")
    }

    func testMissingCloseDelimiterKeepsTheLastPart() {
        let m = parse("Content-Type: multipart/mixed; boundary=z\n\n--z\nContent-Type: text/plain\n\nonly part\n")
        XCTAssertEqual(m.textBody, "only part\n")
        XCTAssertTrue(m.defects.contains { $0.code == "missing-close-boundary" })
    }

    func testBoundaryNeverFoundIsASinglePart() {
        let m = parse("Content-Type: multipart/mixed; boundary=nothere\n\njust text\n")
        XCTAssertEqual(m.textBody, "just text\n")
        XCTAssertTrue(m.defects.contains { $0.code == "boundary-not-found" })
        let noParam = parse("Content-Type: multipart/mixed\n\njust text\n")
        XCTAssertEqual(noParam.textBody, "just text\n")
        XCTAssertTrue(noParam.defects.contains { $0.code == "missing-boundary-parameter" })
    }

    func testBoundaryPrefixOfAnotherBoundaryIsNotConfused() {
        let m = parse("""
        Content-Type: multipart/mixed; boundary=b

        --b
        Content-Type: multipart/alternative; boundary=b-2

        --b-2
        Content-Type: text/plain

        inner
        --b-2--
        --b--
        """)
        XCTAssertEqual(m.textBody, "inner")
        XCTAssertTrue(m.defects.isEmpty, "\(m.defects)")
    }

    func testMessageRFC822InlineTextIsPartOfTheBody() {
        let m = parse("""
        Content-Type: multipart/mixed; boundary=b

        --b
        Content-Type: text/plain

        see below
        --b
        Content-Type: message/rfc822

        Subject: inner
        Content-Type: text/plain

        forwarded text
        --b
        Content-Type: message/rfc822
        Content-Disposition: attachment; filename=old.eml

        Subject: attached

        not in body
        --b--
        """)
        XCTAssertEqual(m.textBody, "see below\nforwarded text")
        XCTAssertEqual(m.attachments.map(\.mimeType), ["message/rfc822"])
        XCTAssertEqual(m.attachments.first?.filename, "old.eml")
        XCTAssertTrue(m.hasAttachment)
    }

    func testCRLFMultipart() {
        let m = parse("Content-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\nContent-Type: text/plain\r\n\r\nhello\r\n--x--\r\n")
        XCTAssertEqual(m.textBody, "hello")
    }
}
