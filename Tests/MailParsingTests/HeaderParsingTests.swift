import XCTest
@testable import MailParsing

final class HeaderParsingTests: XCTestCase {
    private func parse(_ s: String) -> ParsedMessage { MIMEParser.parse(Array(s.utf8)) }

    func testFoldedHeadersAreUnfoldedWithCRLF() {
        let m = parse("Subject: a long\r\n  subject line\r\nTo: a@x.com,\r\n\tb@y.com\r\n\r\nbody\r\n")
        XCTAssertEqual(m.subject, "a long subject line")
        XCTAssertEqual(m.header("subject"), "a long  subject line")
        XCTAssertEqual(m.to.map(\.address), ["a@x.com", "b@y.com"])
        XCTAssertEqual(m.textBody, "body\n")
    }

    func testLFAndBareCRLineEndings() {
        let lf = parse("Subject: hi\nFrom: a@b.c\n\nline1\nline2")
        XCTAssertEqual(lf.subject, "hi")
        XCTAssertEqual(lf.textBody, "line1\nline2")
        let cr = parse("Subject: hi\rFrom: a@b.c\r\rline1\rline2")
        XCTAssertEqual(cr.subject, "hi")
        XCTAssertEqual(cr.from.first?.address, "a@b.c")
        XCTAssertEqual(cr.textBody, "line1\nline2")
    }

    func testHeaderBlockEndsAtFirstEmptyLine() {
        let m = parse("Subject: s\n\nX-Not-A-Header: body text\n")
        XCTAssertEqual(m.headers.count, 1)
        XCTAssertEqual(m.textBody, "X-Not-A-Header: body text\n")
    }

    func testMalformedHeaderLineIsADefectAndStartsTheBody() {
        let m = parse("Subject: s\nthis is not a header\nmore\n")
        XCTAssertTrue(m.defects.contains { $0.code == "missing-header-body-separator" })
        XCTAssertEqual(m.subject, "s")
        XCTAssertTrue(m.textBody.hasPrefix("this is not a header"))
    }

    func testRaw8BitHeadersDecodeAsUTF8OrWindows1252() {
        var bytes = Array("Subject: caf".utf8) + [0xE9] + Array(" \nFrom: ".utf8)
        bytes += Array("Jos\u{e9} <j@x.org>\n\nb".utf8)
        let m = MIMEParser.parse(bytes)
        XCTAssertEqual(m.subject, "café")
        XCTAssertEqual(m.from.first?.name, "José")
    }

    func testMessageIdsWithAndWithoutBrackets() {
        let m = parse("""
        Message-ID: <abc@example.com>
        In-Reply-To: <p1@x> (Your message of Monday)
        References: <r1@x> <r2@x>
         <p1@x>

        b
        """)
        XCTAssertEqual(m.messageId, "abc@example.com")
        XCTAssertEqual(m.inReplyTo, ["p1@x"])
        XCTAssertEqual(m.references, ["r1@x", "r2@x", "p1@x"])
        let bare = parse("Message-ID: abc@example.com\nReferences: r1@x r2@x\n\nb")
        XCTAssertEqual(bare.messageId, "abc@example.com")
        XCTAssertEqual(bare.references, ["r1@x", "r2@x"])
    }

    /// Spec 001 §5.2.4 links messages by Message-IDs only: prose in In-Reply-To/References gives no
    /// id, even when it holds an address; a value that is nothing but bare ids still does.
    func testProseInReplyToGivesNoIds() {
        for value in ["Message from miguel@nuclecu.unam.mx of 10 Jul 1997 23:28:17 CDT",
                      "miguel@nuclecu.unam.mx's message of Thu, 10 Jul 1997 23:28:17 -0500",
                      "Your message of \"Thu, 10 Jul 1997\" (miguel@nuclecu.unam.mx)",
                      "\"miguel@nuclecu.unam.mx\""] {
            let m = parse("Message-ID: <r@x>\nIn-Reply-To: \(value)\nReferences: \(value)\n\nb")
            XCTAssertEqual(m.inReplyTo, [], value)
            XCTAssertEqual(m.references, [], value)
        }
        let archive = parse("Message-ID: <r@x>\nIn-Reply-To: 5290031e-4f10-22f7@gmail.com\n\nb")
        XCTAssertEqual(archive.inReplyTo, ["5290031e-4f10-22f7@gmail.com"])
        let commented = parse("Message-ID: <r@x>\nIn-Reply-To: p1@x (from miguel@nuclecu.unam.mx)\n\nb")
        XCTAssertEqual(commented.inReplyTo, ["p1@x"])
        let bracketed = parse("Message-ID: <r@x>\nIn-Reply-To: Your message of 10 Jul 1997 <199707110428.AA1@host.example>\n\nb")
        XCTAssertEqual(bracketed.inReplyTo, ["199707110428.AA1@host.example"])
    }

    func testMboxFromLineAtStartIsSkippedAndDated() {
        let m = parse("From someone@x Thu Dec  9 14:01:50 2021\nSubject: s\n\nb")
        XCTAssertEqual(m.subject, "s")
        XCTAssertEqual(m.dateSource, .mboxFromLine)
        XCTAssertEqual(m.date, Date(timeIntervalSince1970: 1_639_058_510))
    }

    func testDateFallbackOrder() {
        let received = parse("""
        Received: from a by b; Tue, 1 Mar 2022 10:00:00 +0000
        Received: from c by a; Tue, 1 Mar 2022 09:59:00 +0000

        b
        """)
        XCTAssertEqual(received.dateSource, .received)
        XCTAssertEqual(received.date, MailDateParser.parse("Tue, 1 Mar 2022 10:00:00 +0000"))
        let header = parse("Date: Tue, 1 Mar 2022 08:00:00 +0000\nReceived: x; Tue, 1 Mar 2022 10:00:00 +0000\n\nb")
        XCTAssertEqual(header.dateSource, .header)
        XCTAssertEqual(header.receivedDate, MailDateParser.parse("Tue, 1 Mar 2022 10:00:00 +0000"))
        let fromLine = MIMEParser.parse(Array("Subject: s\n\nb".utf8), mboxFromLineDate: Date(timeIntervalSince1970: 5), fallbackDate: Date(timeIntervalSince1970: 9))
        XCTAssertEqual(fromLine.dateSource, .mboxFromLine)
        let fallback = MIMEParser.parse(Array("Date: garbage\n\nb".utf8), fallbackDate: Date(timeIntervalSince1970: 9))
        XCTAssertEqual(fallback.dateSource, .fallback)
        XCTAssertEqual(fallback.date, Date(timeIntervalSince1970: 9))
        XCTAssertTrue(fallback.defects.contains { $0.code == "unparseable-date" })
        XCTAssertNil(parse("Subject: s\n\nb").date)
    }

    func testSnippetCollapsesWhitespaceAndCutsAtAWord() {
        let words = Array(repeating: "lorem ipsum", count: 30).joined(separator: "\n\n  ")
        let m = parse("Subject: s\n\n\(words)")
        XCTAssertLessThanOrEqual(m.snippet.count, 100)
        XCTAssertGreaterThan(m.snippet.count, 60)
        XCTAssertTrue(m.snippet.hasPrefix("lorem ipsum lorem ipsum"))
        XCTAssertFalse(m.snippet.contains("\n"))
        XCTAssertTrue(m.snippet.hasSuffix("lorem") || m.snippet.hasSuffix("ipsum"))
    }
}
