import XCTest
@testable import SMTPProtocol

/// Replies cut from a byte stream whatever its chunking; multi-line replies; enhanced status
/// codes; hostile input refused with a sticky error.
final class SMTPReplyFramerTests: XCTestCase {
    private func replies(_ chunks: [String]) throws -> [SMTPReply] {
        var framer = SMTPReplyFramer()
        var out: [SMTPReply] = []
        for chunk in chunks {
            framer.append(Array(chunk.utf8))
            while let reply = try framer.nextReply() { out.append(reply) }
        }
        return out
    }

    func testASingleLineReplyAndItsEnhancedCode() throws {
        let reply = try XCTUnwrap(try replies(["250 2.1.0 Ok\r\n"]).first)
        XCTAssertEqual(reply.code, 250)
        XCTAssertEqual(reply.enhancedCode, SMTPEnhancedStatusCode(statusClass: 2, subject: 1, detail: 0))
        XCTAssertEqual(reply.text, "Ok")
        XCTAssertTrue(reply.isPositiveCompletion)
        XCTAssertEqual(reply.description, "250 2.1.0 Ok")
    }

    func testAMultiLineReplyIsOneReplyWhateverTheChunking() throws {
        let stream = "250-mail.example.org Hello\r\n250-SIZE 35882577\r\n250-8BITMIME\r\n250 STARTTLS\r\n354 go ahead\r\n"
        let whole = try replies([stream])
        let bytewise = try replies(stream.map { String($0) })
        XCTAssertEqual(whole, bytewise)
        XCTAssertEqual(whole.count, 2)
        XCTAssertEqual(whole[0].lines, ["mail.example.org Hello", "SIZE 35882577", "8BITMIME", "STARTTLS"])
        XCTAssertEqual(whole[1].code, 354)
        XCTAssertTrue(whole[1].isPositiveIntermediate)
    }

    func testBareLineFeedsAndACodeWithoutTextAreAccepted() throws {
        let all = try replies(["220 ready\n", "250\r\n"])
        XCTAssertEqual(all.map(\.code), [220, 250])
        XCTAssertEqual(all[1].lines, [""])
    }

    func testTransientAndPermanentFailures() throws {
        let all = try replies(["451 4.7.1 Try again later\r\n550-5.1.1 No such user\r\n550 5.1.1 here\r\n"])
        XCTAssertTrue(all[0].isTransientFailure)
        XCTAssertTrue(all[1].isPermanentFailure)
        XCTAssertEqual(all[1].enhancedCode?.description, "5.1.1")
        XCTAssertEqual(all[1].text, "No such user here")
    }

    func testTextThatOnlyLooksLikeAnEnhancedCodeIsText() {
        XCTAssertNil(SMTPReply(code: 250, lines: ["3.1.4 pi"]).enhancedCode)
        XCTAssertNil(SMTPReply(code: 250, lines: ["2.1 short"]).enhancedCode)
        XCTAssertNil(SMTPReply(code: 250, lines: ["2.1.0000 long"]).enhancedCode)
        XCTAssertEqual(SMTPReply(code: 250, lines: ["2.0.0"]).enhancedCode?.description, "2.0.0")
    }

    func testALineThatIsNotAReplyIsAViolationAndTheErrorSticks() {
        var framer = SMTPReplyFramer()
        framer.append(Array("* OK IMAP4rev1\r\n".utf8))
        XCTAssertThrowsError(try framer.nextReply()) { error in
            XCTAssertEqual((error as? SMTPProtocolError)?.kind, .malformedLine)
        }
        framer.append(Array("250 ok\r\n".utf8))
        XCTAssertThrowsError(try framer.nextReply())
        XCTAssertThrowsError(try replies(["250x\r\n"]))
        XCTAssertThrowsError(try replies(["650 no such class\r\n"]))
        XCTAssertThrowsError(try replies(["25\r\n"]))
    }

    func testAMultiLineReplyMayNotChangeItsCode() {
        XCTAssertThrowsError(try replies(["250-first\r\n550 second\r\n"])) { error in
            XCTAssertEqual((error as? SMTPProtocolError)?.kind, .inconsistentCode)
        }
    }

    func testLimitsBoundAHostileServer() {
        var framer = SMTPReplyFramer(maximumLineLength: 100, maximumLines: 3)
        framer.append(Array(repeating: UInt8(ascii: "2"), count: 101))
        XCTAssertThrowsError(try framer.nextReply()) { XCTAssertEqual(($0 as? SMTPProtocolError)?.kind, .tooLong) }
        var lines = SMTPReplyFramer(maximumLineLength: 100, maximumLines: 3)
        lines.append(Array(String(repeating: "250-x\r\n", count: 4).utf8))
        XCTAssertThrowsError(try lines.nextReply()) { XCTAssertEqual(($0 as? SMTPProtocolError)?.kind, .tooLong) }
    }

    func testResetDropsWhatWasBuffered() throws {
        var framer = SMTPReplyFramer()
        framer.append(Array("220 2.0.0 Ready to start TLS\r\n250 injected\r\n".utf8))
        XCTAssertEqual(try framer.nextReply()?.code, 220)
        framer.reset()
        XCTAssertNil(try framer.nextReply())
        XCTAssertEqual(framer.bufferedByteCount, 0)
    }
}

/// EHLO capabilities (RFC 5321 §4.1.1.1 and the extensions the client uses).
final class SMTPCapabilitiesTests: XCTestCase {
    func testEveryExtensionTheClientUses() {
        let reply = SMTPReply(code: 250, lines: [
            "smtp.example.org Hello [192.0.2.1]", "SIZE 35882577", "8BITMIME", "AUTH LOGIN PLAIN XOAUTH2",
            "ENHANCEDSTATUSCODES", "PIPELINING", "SMTPUTF8", "STARTTLS", "CHUNKING",
        ])
        let capabilities = SMTPCapabilities(ehloReply: reply)
        XCTAssertEqual(capabilities.maximumSize, 35_882_577)
        XCTAssertTrue(capabilities.supports8BitMIME)
        XCTAssertTrue(capabilities.supportsSMTPUTF8)
        XCTAssertTrue(capabilities.supportsStartTLS)
        XCTAssertTrue(capabilities.supportsPipelining)
        XCTAssertTrue(capabilities.supportsEnhancedStatusCodes)
        XCTAssertEqual(capabilities.authMechanisms, ["LOGIN", "PLAIN", "XOAUTH2"])
        XCTAssertFalse(capabilities.contains("smtp.example.org"))
    }

    func testOldAuthSyntaxLowerCaseAndSizesWithoutALimit() {
        let capabilities = SMTPCapabilities(ehloReply: SMTPReply(code: 250, lines: ["x", "auth=login", "AUTH plain", "size"]))
        XCTAssertEqual(capabilities.authMechanisms, ["LOGIN", "PLAIN"])
        XCTAssertTrue(capabilities.supportsSize)
        XCTAssertNil(capabilities.maximumSize)
        XCTAssertNil(SMTPCapabilities(ehloReply: SMTPReply(code: 250, lines: ["x", "SIZE 0"])).maximumSize)
        XCTAssertFalse(SMTPCapabilities(ehloReply: SMTPReply(code: 250, lines: ["x"])).supportsStartTLS)
    }
}
