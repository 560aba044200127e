import XCTest
@testable import MailParsing

/// A `text/plain` part that is an HTML document (Enron: 359 newsletters, offers and web-mail
/// forwards) is read as HTML; a person's words that quote or discuss HTML stay text.
final class HTMLInPlainTextTests: XCTestCase {
    private func parse(_ s: String) -> ParsedMessage { MIMEParser.parse(Array(s.utf8)) }

    func testAPlainPartThatIsAnHTMLDocumentIsReadAsHTML() {
        let html = "<html>\nHi Students,<br>\n<br>\n<b><u>Ignore this if you are graduating.<br>\n</u></b>Now that bidding is&nbsp;over, tell us.<br>\n</html>"
        let m = parse("From: a@b.c\nSubject: Feedback on Bidding\nContent-Type: text/plain; charset=us-ascii\n\n\(html)\n")
        XCTAssertFalse(m.textBody.contains("<"), m.textBody)
        XCTAssertTrue(m.textBody.contains("Hi Students,"), m.textBody)
        XCTAssertTrue(m.textBody.contains("Now that bidding is over, tell us."), m.textBody)
        XCTAssertEqual(m.htmlBody, html + "\n")
        XCTAssertTrue(m.defects.contains { $0.code == "html-in-text-plain" }, "\(m.defects)")
        XCTAssertFalse(m.snippet.contains("<"), m.snippet)
    }

    func testNoContentTypeAndLeadingDeclarationsAndComments() {
        let m = parse("""
        From: a@b.c
        Subject: The newest spring looks

        <! >
        <! You are reading this message because your mail reader cannot display HTML.>
        <!-- a comment -->
        <P ALIGN=CENTER><FONT COLOR="#0000ff" SIZE=5>Do you have a business?</FONT><BR>
        <BR>
        """)
        XCTAssertEqual(m.textBody.trimmingCharacters(in: .whitespacesAndNewlines), "Do you have a business?")
        XCTAssertNotNil(m.htmlBody)
    }

    func testAMessageThatBeginsWithItsAuthorsWordsStaysText() {
        // A list post pasting the HTML it asks about: its tags are the subject of the message.
        let body = "Razor strips this message, why?\n\n<html><body><p>Hello <b>there</b></p><br><br></body></html>\n"
        let m = parse("From: a@b.c\nContent-Type: text/plain\n\n" + body)
        XCTAssertEqual(m.textBody, body)
        XCTAssertNil(m.htmlBody)
        XCTAssertFalse(m.defects.contains { $0.code == "html-in-text-plain" })
    }

    func testAddressesEnrichedTextAndFewTagsStayText() {
        for body in [
            "<jo@example.com> wrote:\n> <p>quoted</p> and <br> more\n",   // an address is no element
            "<bigger>Amy,</bigger>\n\nSorry I'm just now responding.\n",   // enriched text
            "<b>Note</b>: the meeting moved to 3pm.\n",                      // two tags: not a document
            "<Embedded Microsoft Word Document>\n",
            "<http://www.example.com/> has the details <br>\n",
        ] {
            let m = parse("From: a@b.c\nContent-Type: text/plain\n\n" + body)
            XCTAssertEqual(m.textBody, body)
            XCTAssertNil(m.htmlBody, body)
        }
    }

    func testARealHTMLAlternativeStaysTheHTMLShown() {
        let m = parse("""
        From: a@b.c
        Content-Type: multipart/alternative; boundary=x

        --x
        Content-Type: text/plain

        <p>Plain <b>part</b> that is HTML</p>
        --x
        Content-Type: text/html

        <p>The real <i>HTML</i></p>
        --x--
        """)
        XCTAssertEqual(m.textBody.trimmingCharacters(in: .whitespacesAndNewlines), "Plain part that is HTML")
        XCTAssertEqual(m.htmlBody?.trimmingCharacters(in: .whitespacesAndNewlines), "<p>The real <i>HTML</i></p>")
    }

    func testMixedPartsKeepEveryText() {
        let m = parse("""
        From: a@b.c
        Content-Type: multipart/mixed; boundary=x

        --x
        Content-Type: text/plain

        See the forwarded offer below.
        --x
        Content-Type: text/plain

        <html><body><p>Offer: <b>25%</b> off</p></body></html>
        --x--
        """)
        XCTAssertTrue(m.textBody.hasPrefix("See the forwarded offer below.\n"), m.textBody)
        XCTAssertTrue(m.textBody.contains("Offer: 25% off"), m.textBody)
        XCTAssertFalse(m.textBody.contains("<"), m.textBody)
    }

    func testSnifferEdges() {
        XCTAssertTrue(HTMLSniffer.isHTMLDocument("\u{FEFF}<!DOCTYPE html><html><head><title>t</title></head></html>"))
        XCTAssertTrue(HTMLSniffer.isHTMLDocument("  \n<P> Laura,\n<P>Talk to Carl &nbsp;or Manny<BR>"))
        XCTAssertFalse(HTMLSniffer.isHTMLDocument(""))
        XCTAssertFalse(HTMLSniffer.isHTMLDocument("<!-- never closed <p><p><p>"))
        XCTAssertFalse(HTMLSniffer.isHTMLDocument("<p"))
        XCTAssertFalse(HTMLSniffer.isHTMLDocument("<pre>x</pre>"))  // two tags
        XCTAssertFalse(HTMLSniffer.isHTMLDocument("<paragraph><p><p>"))  // not an element first
        XCTAssertTrue(HTMLSniffer.isHTMLDocument("<br/><br/>text<br />"))
        // Tags far beyond the window do not count.
        XCTAssertFalse(HTMLSniffer.isHTMLDocument("<p>" + String(repeating: "x", count: 70_000) + "<p><p>"))
    }
}
