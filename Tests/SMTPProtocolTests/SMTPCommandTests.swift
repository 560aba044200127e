import XCTest
@testable import SMTPProtocol

/// Commands on the wire, addresses that cannot inject a line, SASL encodings, dot-stuffing.
final class SMTPCommandTests: XCTestCase {
    private func wire(_ command: SMTPCommand) throws -> String {
        String(decoding: try command.encoded(), as: UTF8.self)
    }

    func testCommandLines() throws {
        let alice = try SMTPAddress("alice@example.org")
        XCTAssertEqual(try wire(.ehlo(domain: "[127.0.0.1]")), "EHLO [127.0.0.1]\r\n")
        XCTAssertEqual(try wire(.startTLS), "STARTTLS\r\n")
        XCTAssertEqual(try wire(.mailFrom(alice, size: nil, body: nil, smtpUTF8: false)), "MAIL FROM:<alice@example.org>\r\n")
        XCTAssertEqual(try wire(.mailFrom(alice, size: 1234, body: .eightBitMIME, smtpUTF8: true)),
                       "MAIL FROM:<alice@example.org> SIZE=1234 BODY=8BITMIME SMTPUTF8\r\n")
        XCTAssertEqual(try wire(.rcptTo(try SMTPAddress("<bob@example.com>"))), "RCPT TO:<bob@example.com>\r\n")
        XCTAssertEqual(try wire(.data), "DATA\r\n")
        XCTAssertEqual(try wire(.quit), "QUIT\r\n")
        XCTAssertEqual(try wire(.auth(mechanism: "plain", initialResponse: "AGEAYg==")), "AUTH PLAIN AGEAYg==\r\n")
        XCTAssertEqual(try wire(.auth(mechanism: "PLAIN", initialResponse: "")), "AUTH PLAIN =\r\n")
        XCTAssertEqual(try wire(.auth(mechanism: "LOGIN", initialResponse: nil)), "AUTH LOGIN\r\n")
        XCTAssertEqual(try wire(.authResponse("*")), "*\r\n")
    }

    func testNoArgumentCanEndTheLine() {
        XCTAssertThrowsError(try SMTPCommand.ehlo(domain: "x\r\nRCPT TO:<evil@x>").encoded())
        XCTAssertThrowsError(try SMTPCommand.auth(mechanism: "PLAIN\r\nQUIT", initialResponse: nil).encoded())
        XCTAssertThrowsError(try SMTPCommand.auth(mechanism: "PLAIN", initialResponse: "AA\r\nQUIT").encoded())
        XCTAssertThrowsError(try SMTPCommand.authResponse("abc def").encoded())
    }

    func testCommandDescriptionsNeverCarryArguments() throws {
        let command = SMTPCommand.auth(mechanism: "PLAIN", initialResponse: try SMTPSASL.plain(username: "u", password: "secret"))
        XCTAssertEqual(command.description, "AUTH PLAIN")
        XCTAssertEqual(SMTPCommand.rcptTo(try SMTPAddress("bob@example.com")).description, "RCPT TO")
    }

    // MARK: Addresses

    func testAddressesWithLineBreaksOrNULAreRefused() {
        for bad in ["bob@example.com\r\nRCPT TO:<evil@x>", "bob@example.com\n", "bob\r@example.com", "bob@exa\0mple.com",
                    "bob@example.com\u{0B}", "bob@example.com\u{85}"] {
            XCTAssertThrowsError(try SMTPAddress(bad), bad) { error in
                XCTAssertEqual((error as? SMTPEncodingError)?.kind, .lineBreakOrControl, bad)
                XCTAssertFalse((error as? SMTPEncodingError)?.message.contains("\n") ?? true, "the message shows escapes, not the line break")
            }
        }
    }

    func testAddressesThatAreNotMailboxesAreRefused() {
        for bad in ["", "bob", "@example.com", "bob@", "bob@@example.com", "bob smith@example.com", "bob@exa mple.com",
                    "<bob@example.com", "bob>@example.com", "bob@example..com", ".bob@example.com", "bob.@example.com",
                    "bob@-example.com", "a,b@example.com", String(repeating: "a", count: 65) + "@example.com"] {
            XCTAssertThrowsError(try SMTPAddress(bad), bad)
        }
    }

    func testValidAddresses() throws {
        XCTAssertEqual(try SMTPAddress(" <alice+tag@mail.example.org> ").address, "alice+tag@mail.example.org")
        XCTAssertEqual(try SMTPAddress("\"john doe\"@example.com").localPart, "\"john doe\"")
        XCTAssertEqual(try SMTPAddress("user@[192.0.2.1]").domain, "[192.0.2.1]")
        XCTAssertEqual(try SMTPAddress("o'brien@example.ie").address, "o'brien@example.ie")
        let unicode = try SMTPAddress("jörg@bücher.example")
        XCTAssertTrue(unicode.requiresSMTPUTF8)
        XCTAssertFalse(try SMTPAddress("joerg@example.org").requiresSMTPUTF8)
    }

    // MARK: SASL

    func testSASLEncodings() throws {
        XCTAssertEqual(try SMTPSASL.plain(username: "alice", password: "pw"), "AGFsaWNlAHB3")
        let login = try SMTPSASL.login(username: "alice", password: "pässword")
        XCTAssertEqual(login.username, "YWxpY2U=")
        XCTAssertEqual(Base64.decode(login.password).map { String(decoding: $0, as: UTF8.self) }, "pässword")
        XCTAssertEqual(try SMTPSASL.xoauth2(username: "a@b.c", accessToken: "tok"),
                       Base64.encode(Array("user=a@b.c\u{01}auth=Bearer tok\u{01}\u{01}".utf8)))
        XCTAssertThrowsError(try SMTPSASL.plain(username: "a\0b", password: "x"))
        XCTAssertThrowsError(try SMTPSASL.xoauth2(username: "a", accessToken: "t\r\nQUIT"))
        XCTAssertEqual(try SMTPSASL.oauthBearer(username: "a=b,c", accessToken: "tok", host: "smtp.example.com", port: 587),
                       Base64.encode(Array("n,a=a=3Db=2Cc,\u{01}host=smtp.example.com\u{01}port=587\u{01}auth=Bearer tok\u{01}\u{01}".utf8)))
        XCTAssertEqual(try SMTPSASL.oauthBearer(username: "a", accessToken: "tok"), Base64.encode(Array("n,a=a,\u{01}auth=Bearer tok\u{01}\u{01}".utf8)))
        XCTAssertThrowsError(try SMTPSASL.oauthBearer(username: "a", accessToken: "t\u{01}x"))
        XCTAssertEqual(SMTPSASL.oauthBearerErrorResponse, Base64.encode([0x01]))
        let challenge = SMTPReply(code: 334, lines: [Base64.encode(Array("{\"status\":\"401\"}".utf8))])
        XCTAssertEqual(SMTPSASL.decodeChallenge(challenge), "{\"status\":\"401\"}")
    }

    func testBase64RoundTrips() {
        for length in 0..<20 {
            let bytes = (0..<length).map { UInt8(($0 * 37 + 11) & 0xFF) }
            XCTAssertEqual(Base64.decode(Base64.encode(bytes)), bytes)
        }
        XCTAssertNil(Base64.decode("a b"))
        XCTAssertNil(Base64.decode("a"))
    }

    // MARK: DATA

    private func data(_ text: String) -> String {
        String(decoding: SMTPDataEncoder.encode(Array(text.utf8)), as: UTF8.self)
    }

    func testDotStuffingAndLineEnds() {
        XCTAssertEqual(data("Hello\r\n.\r\nWorld"), "Hello\r\n..\r\nWorld\r\n.\r\n")
        XCTAssertEqual(data(".starts with a dot\n..two\nend\n"), "..starts with a dot\r\n...two\r\nend\r\n.\r\n")
        XCTAssertEqual(data("bare\rcr\n\nlf"), "bare\r\ncr\r\n\r\nlf\r\n.\r\n")
        XCTAssertEqual(data(""), ".\r\n")
        XCTAssertEqual(data("a.b\r\n"), "a.b\r\n.\r\n")
    }

    func testNothingInTheMessageCanEndTheDataEarly() {
        let hostile = "x\r\n.\r\nMAIL FROM:<evil@x>\r\n.\n.\r.\r\n"
        let wire = data(hostile)
        // The only line that is a lone dot is the last one.
        let lines = wire.components(separatedBy: "\r\n")
        XCTAssertEqual(lines.filter { $0 == "." }.count, 1)
        XCTAssertEqual(lines[lines.count - 2], ".")
    }

    func testSizeAndEightBit() {
        XCTAssertEqual(SMTPDataEncoder.wireSize(Array("a\nb".utf8)), 6)
        XCTAssertEqual(SMTPDataEncoder.wireSize(Array("a\r\nb\r\n".utf8)), 6)
        XCTAssertTrue(SMTPDataEncoder.requires8Bit(Array("ü".utf8)))
        XCTAssertFalse(SMTPDataEncoder.requires8Bit(Array("u".utf8)))
        XCTAssertEqual(SMTPDataEncoder.longestLine(Array("ab\r\nabcd\r\n".utf8)), 4)
    }
}
