import XCTest
@testable import MailParsing

final class AttachmentTests: XCTestCase {
    private func parse(_ s: String) -> ParsedMessage { MIMEParser.parse(Array(s.utf8)) }

    func testAttachmentDetectionRules() {
        let m = parse("""
        Content-Type: multipart/mixed; boundary=b

        --b
        Content-Type: text/plain

        body
        --b
        Content-Type: application/pdf; name="report.pdf"
        Content-Transfer-Encoding: base64

        JVBERi0xLjQK
        --b
        Content-Type: text/plain
        Content-Disposition: attachment; filename="notes.txt"

        not body
        --b
        Content-Type: image/png
        Content-Disposition: inline
        Content-ID: <logo@x>

        PNG
        --b
        Content-Type: text/plain; name="inline.txt"
        Content-Disposition: inline; filename="inline.txt"

        inline text is body
        --b--
        """)
        XCTAssertEqual(m.textBody, "body\ninline text is body")
        XCTAssertEqual(m.attachments.map(\.filename), ["report.pdf", "notes.txt", nil])
        XCTAssertEqual(m.attachments[0], ParsedAttachment(filename: "report.pdf", mimeType: "application/pdf", size: 9, contentId: nil, isInline: false))
        XCTAssertEqual(m.attachments[2].contentId, "logo@x")
        XCTAssertTrue(m.attachments[2].isInline)
        XCTAssertTrue(m.hasAttachment)
    }

    func testInlineImageWithContentIdAloneIsNotHasAttachment() {
        let m = parse("""
        Content-Type: multipart/related; boundary=b

        --b
        Content-Type: text/html

        <img src="cid:logo@x">hi
        --b
        Content-Type: image/png
        Content-Disposition: inline; filename=logo.png
        Content-ID: <logo@x>
        Content-Transfer-Encoding: base64

        iVBORw0KGgo=
        --b--
        """)
        XCTAssertEqual(m.attachments.count, 1)
        XCTAssertFalse(m.hasAttachment)
        XCTAssertEqual(m.textBody, "hi")
    }

    func testRFC2231ParametersWithContinuationsAndCharset() {
        let v = MIMEHeaderValue("attachment; filename*0*=utf-8''na%C3%AFve%20; filename*1=\"file\"; filename*2*=%2Etxt")
        XCTAssertEqual(v.value, "attachment")
        XCTAssertEqual(v.parameters["filename"], "naïve file.txt")
        let single = MIMEHeaderValue("attachment; filename*=iso-8859-1'fr'caf%E9.pdf")
        XCTAssertEqual(single.parameters["filename"], "café.pdf")
        let plain = MIMEHeaderValue("text/plain; charset=\"UTF-8\"; format=flowed (comment)")
        XCTAssertEqual(plain.value, "text/plain")
        XCTAssertEqual(plain.parameters["charset"], "UTF-8")
        let ew = MIMEHeaderValue("attachment; filename=\"=?utf-8?b?w6l0w6kucGRm?=\"")
        XCTAssertEqual(ew.parameters["filename"], "été.pdf")
    }

    func testRFC2231FilenameReachesTheAttachment() {
        let m = parse("""
        Content-Type: multipart/mixed; boundary=b

        --b
        Content-Type: application/octet-stream
        Content-Disposition: attachment;
         filename*0*=utf-8''%E6%97%A5%E6%9C%AC;
         filename*1*=%2Ebin

        xx
        --b--
        """)
        XCTAssertEqual(m.attachments.first?.filename, "日本.bin")
        XCTAssertEqual(m.attachments.first?.size, 2)
    }
}
