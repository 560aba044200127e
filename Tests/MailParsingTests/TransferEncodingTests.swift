import XCTest
@testable import MailParsing

final class TransferEncodingTests: XCTestCase {
    private func body(cte: String, _ content: String, charset: String = "utf-8") -> ParsedMessage {
        MIMEParser.parse(Array("Content-Type: text/plain; charset=\(charset)\nContent-Transfer-Encoding: \(cte)\n\n\(content)".utf8))
    }

    func testBase64ToleratesWhitespaceGarbageAndMissingPadding() {
        XCTAssertEqual(body(cte: "base64", "SGVsbG8g\r\nV29y bGQ=\n").textBody, "Hello World")
        XCTAssertEqual(body(cte: "base64", "SGVsbG8gV29ybGQ").textBody, "Hello World")
        let garbage = body(cte: "base64", "SGVs*bG8@")
        XCTAssertEqual(garbage.textBody, "Hello")
        XCTAssertTrue(garbage.defects.contains { $0.code == "bad-base64" })
    }

    func testQuotedPrintableSoftBreaksAndMalformedEscapes() {
        XCTAssertEqual(body(cte: "quoted-printable", "caf=C3=A9 au=\r\n lait=20\n").textBody, "café au lait \n")
        XCTAssertEqual(body(cte: "Quoted-Printable", "soft=  \nbreak").textBody, "softbreak")
        let bad = body(cte: "quoted-printable", "100=ZZ percent =\n=3d=3D")
        XCTAssertEqual(bad.textBody, "100=ZZ percent ==")
        XCTAssertTrue(bad.defects.contains { $0.code == "bad-quoted-printable" })
    }

    func testIdentityEncodings() {
        for cte in ["7bit", "8bit", "binary", "7BIT"] {
            XCTAssertEqual(body(cte: cte, "plain text").textBody, "plain text", cte)
        }
        let latin = MIMEParser.parse(Array("Content-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: 8bit\n\n".utf8) + [0x63, 0x61, 0x66, 0xE9])
        XCTAssertEqual(latin.textBody, "café")
    }

    func testUnknownEncodingIsTreatedAs7BitWithADefect() {
        let m = body(cte: "x-rot13", "text stays")
        XCTAssertEqual(m.textBody, "text stays")
        XCTAssertTrue(m.defects.contains { $0.code == "unknown-transfer-encoding" })
    }

    func testHeaderQEncodingUnderscore() {
        XCTAssertEqual(TransferDecoder.decodeQuotedPrintable(Array("a_b=5F".utf8), header: true).bytes, Array("a b_".utf8))
    }
}
