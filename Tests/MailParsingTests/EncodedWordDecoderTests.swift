import XCTest
@testable import MailParsing

final class EncodedWordDecoderTests: XCTestCase {
    func testBAndQEncodings() {
        XCTAssertEqual(EncodedWordDecoder.decode("=?UTF-8?B?SGVsbG8gV29ybGQ=?="), "Hello World")
        XCTAssertEqual(EncodedWordDecoder.decode("=?iso-8859-1?q?caf=E9_au_lait?="), "café au lait")
        XCTAssertEqual(EncodedWordDecoder.decode("=?utf-8?Q?=E2=9C=93?= done"), "✓ done")
    }

    func testAdjacentEncodedWordsJoinWithoutWhitespace() {
        XCTAssertEqual(EncodedWordDecoder.decode("=?utf-8?q?a?= =?utf-8?q?b?=\r\n =?utf-8?q?c?="), "abc")
        XCTAssertEqual(EncodedWordDecoder.decode("x =?utf-8?q?a?= y"), "x a y")
    }

    func testMultiByteCharacterSplitAcrossWords() {
        // "é" = C3 A9 split over two words.
        XCTAssertEqual(EncodedWordDecoder.decode("=?utf-8?B?ww==?= =?utf-8?B?qQ==?="), "é")
        XCTAssertEqual(EncodedWordDecoder.decode("=?utf-8?Q?=C3?= =?utf-8?Q?=A9t=C3=A9?="), "été")
    }

    func testOtherCharsets() {
        XCTAssertEqual(EncodedWordDecoder.decode("=?koi8-r?B?8NLJ18XU?="), "Привет")
        XCTAssertEqual(EncodedWordDecoder.decode("=?ISO-2022-JP?B?GyRCRnxLXDhsGyhC?="), "日本語")
        XCTAssertEqual(EncodedWordDecoder.decode("=?gb2312?B?1tDOxA==?="), "中文")
        XCTAssertEqual(EncodedWordDecoder.decode("=?windows-1251?Q?=CF=F0=E8=E2=E5=F2?="), "Привет")
        XCTAssertEqual(EncodedWordDecoder.decode("=?UTF-8*en?Q?hi?="), "hi")
    }

    func testToleratesMissingSpacesAndMalformedWords() {
        XCTAssertEqual(EncodedWordDecoder.decode("Re:=?utf-8?q?caf=C3=A9?=!"), "Re:café!")
        XCTAssertEqual(EncodedWordDecoder.decode("=?utf-8?x?nope?="), "=?utf-8?x?nope?=")
        XCTAssertEqual(EncodedWordDecoder.decode("a =?utf-8?q?unterminated"), "a =?utf-8?q?unterminated")
        XCTAssertEqual(EncodedWordDecoder.decode("=?utf-8?b?SGk?="), "Hi")  // missing padding
        XCTAssertEqual(EncodedWordDecoder.decode("plain = ? text"), "plain = ? text")
    }

    func testSubjectAndDisplayNameUseTheDecoder() {
        let m = MIMEParser.parse(Array("""
        Subject: =?utf-8?q?Gr=C3=BC=C3=9Fe?= aus
         =?utf-8?b?S8O2bG4=?=
        From: "=?utf-8?q?J=C3=BCrgen?= M." <j@example.de>

        b
        """.utf8))
        XCTAssertEqual(m.subject, "Grüße aus Köln")
        XCTAssertEqual(m.from, [ParsedAddress(name: "Jürgen M.", address: "j@example.de")])
    }

    func testHostileInputIsLinear() {
        let s = String(repeating: "=?a?q?", count: 200_000)
        let t0 = Date()
        _ = EncodedWordDecoder.decode(s)
        XCTAssertLessThan(Date().timeIntervalSince(t0), 5)
    }
}
