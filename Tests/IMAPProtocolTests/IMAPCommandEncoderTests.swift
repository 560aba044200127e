import Foundation
import XCTest
@testable import IMAPProtocol

/// Commands on the wire: tags, quoting, literals of both kinds, and user input that must not be
/// able to end or alter a command.
final class IMAPCommandEncoderTests: XCTestCase {
    private func encode(_ command: IMAPCommand, capabilities: Set<IMAPCapability> = []) throws -> IMAPEncodedCommand {
        var encoder = IMAPCommandEncoder(capabilities: capabilities)
        return try encoder.encode(command)
    }

    private func wire(_ command: IMAPCommand, capabilities: Set<IMAPCapability> = []) throws -> [String] {
        try encode(command, capabilities: capabilities).parts.map(\.text)
    }

    func testMailboxActionCommands() throws {
        XCTAssertEqual(try wire(.uidMove(IMAPSequenceSet(numbers: [3, 4, 5, 9]), IMAPMailboxName("Archive"))), ["A1 UID MOVE 3:5,9 Archive\r\n"])
        XCTAssertEqual(try wire(.uidCopy(IMAPSequenceSet(numbers: [7]), IMAPMailboxName("Old mail"))), ["A1 UID COPY 7 \"Old mail\"\r\n"])
        XCTAssertEqual(try wire(.uidExpunge(IMAPSequenceSet(numbers: [7]))), ["A1 UID EXPUNGE 7\r\n"])
        XCTAssertEqual(try wire(.expunge), ["A1 EXPUNGE\r\n"])
        XCTAssertEqual(try wire(.create(IMAPMailboxName("Archive"))), ["A1 CREATE Archive\r\n"])
        XCTAssertThrowsError(try encode(.uidMove(IMAPSequenceSet(numbers: [UInt32]()), .inbox)))
    }

    func testGmailLabelStoresWriteSystemLabelsAsTheyAreAndUserLabelsAsModifiedUTF7Strings() throws {
        let one = IMAPSequenceSet(numbers: [102])
        XCTAssertEqual(try wire(.uidStoreGmailLabels(one, .remove, ["\\Inbox"])), ["A1 UID STORE 102 -X-GM-LABELS.SILENT (\\Inbox)\r\n"])
        XCTAssertEqual(try wire(.uidStoreGmailLabels(one, .add, ["Projects", "\\Starred", "Q3 plans"], silent: false)),
                       ["A1 UID STORE 102 +X-GM-LABELS (Projects \\Starred \"Q3 plans\")\r\n"])
        XCTAssertEqual(try wire(.uidStoreGmailLabels(one, .add, ["Reçus/2024"])), ["A1 UID STORE 102 +X-GM-LABELS.SILENT (Re&AOc-us/2024)\r\n"])
        // A quote or backslash in a user's label, or a backslash that is not a system label's: a literal, never a broken string.
        XCTAssertEqual(try wire(.uidStoreGmailLabels(one, .add, ["say \"hi\""])),
                       ["A1 UID STORE 102 +X-GM-LABELS.SILENT ({8}\r\n", "say \"hi\")\r\n"])
        XCTAssertEqual(try wire(.uidStoreGmailLabels(one, .add, ["\\In box"])), ["A1 UID STORE 102 +X-GM-LABELS.SILENT ({7}\r\n", "\\In box)\r\n"])
        XCTAssertThrowsError(try encode(.uidStoreGmailLabels(one, .add, [])))
        XCTAssertThrowsError(try encode(.uidStoreGmailLabels(one, .add, [""])))
        // Control characters go out encoded, as in any modified UTF-7 name: never raw bytes on the wire.
        XCTAssertEqual(try wire(.uidStoreGmailLabels(one, .add, ["a\u{0}b\r\n"])), ["A1 UID STORE 102 +X-GM-LABELS.SILENT (a&AAA-b&AA0ACg-)\r\n"])
    }

    func testTagsCountUpAndAFailedCommandUsesNone() throws {
        var encoder = IMAPCommandEncoder(tagPrefix: "MS")
        XCTAssertEqual(try encoder.encode(.noop).tag, "MS1")
        XCTAssertThrowsError(try encoder.encode(.enable([])))
        XCTAssertEqual(encoder.nextTag, "MS2")
        let logout = try encoder.encode(.logout)
        XCTAssertEqual(logout.bytes.text, "MS2 LOGOUT\r\n")
        XCTAssertEqual("\(logout)", "MS2 LOGOUT")
    }

    func testStringsAreAtomsQuotedOrLiteralsAsTheirBytesAllow() throws {
        XCTAssertEqual(try wire(.login(username: "alice@example.org", password: "hunter2")), ["A1 LOGIN alice@example.org hunter2\r\n"])
        XCTAssertEqual(try wire(.login(username: "alice", password: "two words")), ["A1 LOGIN alice \"two words\"\r\n"])
        XCTAssertEqual(try wire(.login(username: "", password: "(x)")), ["A1 LOGIN \"\" \"(x)\"\r\n"])
        XCTAssertEqual(try wire(.select(IMAPMailboxName("Entwürfe"))), ["A1 SELECT Entw&APw-rfe\r\n"])
        XCTAssertEqual(try wire(.select(IMAPMailboxName("Sent Items"))), ["A1 SELECT \"Sent Items\"\r\n"])
        XCTAssertEqual(try wire(.examine(IMAPMailboxName("a]b"))), ["A1 EXAMINE \"a]b\"\r\n"])
    }

    func testAPasswordWithAQuoteBackslashOrNonASCIIGoesAsASynchronisingLiteral() throws {
        XCTAssertEqual(try wire(.login(username: "alice", password: "pa\"ss")), ["A1 LOGIN alice {5}\r\n", "pa\"ss\r\n"])
        XCTAssertEqual(try wire(.login(username: "alice", password: "back\\slash")), ["A1 LOGIN alice {10}\r\n", "back\\slash\r\n"])
        XCTAssertEqual(try wire(.login(username: "jörg", password: "pässwörd")),
                       ["A1 LOGIN {5}\r\n", "jörg {10}\r\n", "pässwörd\r\n"])
    }

    func testLinesInAPasswordTravelInsideTheLiteral() throws {
        let command = try encode(.login(username: "alice", password: "x\r\nA2 DELETE INBOX"))
        XCTAssertEqual(command.parts.map(\.text), ["A1 LOGIN alice {18}\r\n", "x\r\nA2 DELETE INBOX\r\n"])
        XCTAssertFalse(command.parts[0].text.contains("DELETE"), "nothing of the password before the server's +")
        XCTAssertEqual(try wire(.login(username: "alice", password: "x\ny"), capabilities: [.literalPlus]), ["A1 LOGIN alice {3+}\r\nx\ny\r\n"])
    }

    func testANULIsRefusedWithoutEchoingTheSecret() {
        XCTAssertThrowsError(try encode(.login(username: "alice", password: "sec\u{0}ret"))) { error in
            XCTAssertEqual((error as? IMAPEncodingError)?.kind, .nulByte)
            XCTAssertEqual((error as? IMAPEncodingError)?.field, "LOGIN password")
            XCTAssertFalse("\(error)".contains("sec"))
        }
        XCTAssertThrowsError(try encode(.authenticatePlain(username: "a\u{0}b", password: "p"))) {
            XCTAssertEqual(($0 as? IMAPEncodingError)?.kind, .nulByte)
        }
        XCTAssertThrowsError(try encode(.select(IMAPMailboxName(raw: [0x61, 0, 0x62])))) { XCTAssertEqual(($0 as? IMAPEncodingError)?.kind, .nulByte) }
        XCTAssertEqual(try wire(.select(IMAPMailboxName("a\u{0}b"))), ["A1 SELECT a&AAA-b\r\n"], "a readable name is encoded, NUL and all")
        XCTAssertThrowsError(try encode(.append(.inbox, message: [0x61, 0]))) { XCTAssertEqual(($0 as? IMAPEncodingError)?.kind, .nulByte) }
    }

    func testLiteralPlusAndLiteralMinus() throws {
        let big = String(repeating: "ü", count: 2049)  // 4098 bytes
        let small = "ü"
        XCTAssertEqual(try wire(.login(username: "a", password: small), capabilities: [.literalMinus]), ["A1 LOGIN a {2+}\r\nü\r\n"])
        XCTAssertEqual(try wire(.login(username: "a", password: big), capabilities: [.literalMinus]).count, 2, "LITERAL- stops at 4096 bytes")
        XCTAssertEqual(try wire(.login(username: "a", password: big), capabilities: [.literalPlus]).count, 1)
        XCTAssertEqual(try wire(.login(username: "a", password: String(repeating: "x ", count: 513))).count, 2, "long strings go as literals")
    }

    func testLoginIsRefusedWhileTheServerSaysLOGINDISABLED() {
        XCTAssertThrowsError(try encode(.login(username: "a", password: "b"), capabilities: [.loginDisabled])) {
            XCTAssertEqual(($0 as? IMAPEncodingError)?.kind, .invalidArgument)
        }
    }

    func testSASLWithAndWithoutAnInitialResponse() throws {
        let plain = Data("\u{0}alice\u{0}pw".utf8).base64EncodedString()
        XCTAssertEqual(try wire(.authenticatePlain(username: "alice", password: "pw"), capabilities: [.saslIR]),
                       ["A1 AUTHENTICATE PLAIN \(plain)\r\n"])
        XCTAssertEqual(try wire(.authenticatePlain(username: "alice", password: "pw")), ["A1 AUTHENTICATE PLAIN\r\n", "\(plain)\r\n"])
        let oauth = Data("user=a@gmail.com\u{1}auth=Bearer tok\u{1}\u{1}".utf8).base64EncodedString()
        XCTAssertEqual(try wire(.authenticateXOAuth2(username: "a@gmail.com", accessToken: "tok")), ["A1 AUTHENTICATE XOAUTH2\r\n", "\(oauth)\r\n"])
        XCTAssertEqual(try encode(.authenticateXOAuth2(username: "a", accessToken: "t"), capabilities: [.saslIR]).name, "AUTHENTICATE")
        XCTAssertThrowsError(try encode(.authenticateXOAuth2(username: "a", accessToken: "t\u{1}auth=x"))) {
            XCTAssertEqual(($0 as? IMAPEncodingError)?.kind, .invalidArgument)
        }
        XCTAssertEqual(IMAPCommandEncoder.emptyResponse, [0x0D, 0x0A])

        let bearer = Data("n,a=a=3Db=2Cc,\u{1}host=imap.example.com\u{1}port=993\u{1}auth=Bearer tok\u{1}\u{1}".utf8).base64EncodedString()
        XCTAssertEqual(try wire(.authenticateOAuthBearer(username: "a=b,c", accessToken: "tok", host: "imap.example.com", port: 993),
                                capabilities: [.saslIR]), ["A1 AUTHENTICATE OAUTHBEARER \(bearer)\r\n"])
        let bare = Data("n,a=a,\u{1}auth=Bearer tok\u{1}\u{1}".utf8).base64EncodedString()
        XCTAssertEqual(try wire(.authenticateOAuthBearer(username: "a", accessToken: "tok")), ["A1 AUTHENTICATE OAUTHBEARER\r\n", "\(bare)\r\n"])
        XCTAssertThrowsError(try encode(.authenticateOAuthBearer(username: "a", accessToken: "t\u{1}auth=x"))) {
            XCTAssertEqual(($0 as? IMAPEncodingError)?.kind, .invalidArgument)
        }
        XCTAssertEqual(IMAPCommandEncoder.oauthBearerErrorResponse, Array("\(Data([1]).base64EncodedString())\r\n".utf8))
    }

    func testSelectListStatusAndID() throws {
        XCTAssertEqual(try wire(.select(.inbox, .qresync(uidValidity: 67_890_007, modSeq: 20_050_715_194_045_000))),
                       ["A1 SELECT INBOX (QRESYNC (67890007 20050715194045000))\r\n"])
        XCTAssertThrowsError(try encode(.select(.inbox, .qresync(uidValidity: 0, modSeq: 1))))
        XCTAssertEqual(try wire(.list(returning: [.specialUse, .status([.messages, .uidNext])])),
                       ["A1 LIST \"\" \"*\" RETURN (SPECIAL-USE STATUS (MESSAGES UIDNEXT))\r\n"])
        XCTAssertEqual(try wire(.list(reference: IMAPMailboxName("Archiv"), pattern: "Entwürfe/%")),
                       ["A1 LIST \"Archiv\" \"Entw&APw-rfe/%\"\r\n"])
        XCTAssertThrowsError(try encode(.status(.inbox, [])))
        XCTAssertEqual(try wire(.id(nil)), ["A1 ID NIL\r\n"])
        XCTAssertEqual(try wire(.id(["version": "1 \"beta\"", "name": "MailSearch"])),
                       ["A1 ID (\"name\" \"MailSearch\" \"version\" {8}\r\n", "1 \"beta\")\r\n"])
        XCTAssertEqual(try wire(.enable([.qresync])), ["A1 ENABLE QRESYNC\r\n"])
        XCTAssertThrowsError(try encode(.enable([IMAPCapability("BAD NAME")]))) { XCTAssertEqual(($0 as? IMAPEncodingError)?.kind, .invalidAtom) }
    }

    func testSearchKeys() throws {
        let day = try XCTUnwrap(IMAPCalendarDate(year: 2024, month: 3, day: 5))
        XCTAssertEqual(try wire(.uidSearch([])), ["A1 UID SEARCH ALL\r\n"])
        XCTAssertEqual(try wire(.uidSearch([.uid(.from(4201))])), ["A1 UID SEARCH UID 4201:*\r\n"])
        XCTAssertEqual(try wire(.uidSearch([.since(day), .not(.deleted), .or(.unseen, .modSeq(77)), .and([.before(day), .all])], returning: [.min, .count])),
                       ["A1 UID SEARCH RETURN (MIN COUNT) SINCE 5-Mar-2024 NOT DELETED OR UNSEEN MODSEQ 77 (BEFORE 5-Mar-2024 ALL)\r\n"])
        XCTAssertThrowsError(try encode(.uidSearch([.uid(IMAPSequenceSet([]))])))
        XCTAssertNil(IMAPCalendarDate(year: 2023, month: 2, day: 29))
        XCTAssertEqual(IMAPCalendarDate(Date(timeIntervalSince1970: 1_709_596_800 - 1)).description, "4-Mar-2024")
        XCTAssertEqual(IMAPCalendarDate(Date(timeIntervalSince1970: 1_709_596_800 - 1), secondsFromGMT: 3600).description, "5-Mar-2024")
    }

    func testFetchAndStore() throws {
        XCTAssertEqual(try wire(.uidFetch(IMAPSequenceSet(numbers: [7, 1, 2, 3, 9, 10]), [.uid, .body(section: "1.2", peek: false, partial: IMAPPartialRange(origin: 0, count: 1024))])),
                       ["A1 UID FETCH 1:3,7,9:10 (UID BODY[1.2]<0.1024>)\r\n"])
        XCTAssertEqual(try wire(.uidFetch(.from(1), [.flags, .modSeq], changedSince: 12345)), ["A1 UID FETCH 1:* (FLAGS MODSEQ) (CHANGEDSINCE 12345)\r\n"])
        XCTAssertThrowsError(try encode(.uidFetch(.from(1), [.flags], vanished: true)))
        XCTAssertThrowsError(try encode(.uidFetch(.from(1), [])))
        XCTAssertThrowsError(try encode(.uidFetch(IMAPSequenceSet(0...4), [.uid])))
        XCTAssertThrowsError(try encode(.uidFetch(.from(1), [.body(section: "TEXT] X-INJECT [")]))) {
            XCTAssertEqual(($0 as? IMAPEncodingError)?.kind, .invalidAtom)
        }
        XCTAssertEqual(try wire(.uidStore(IMAPSequenceSet(5...5), .remove, [.flagged, IMAPFlag("$Junk")], silent: false, unchangedSince: 320_162_338)),
                       ["A1 UID STORE 5 (UNCHANGEDSINCE 320162338) -FLAGS (\\Flagged $Junk)\r\n"])
        XCTAssertEqual(try wire(.uidStore(IMAPSequenceSet(5...6), .replace, [])), ["A1 UID STORE 5:6 FLAGS.SILENT ()\r\n"])
        XCTAssertThrowsError(try encode(.uidStore(IMAPSequenceSet(5...5), .add, [IMAPFlag("\\Se en")]))) {
            XCTAssertEqual(($0 as? IMAPEncodingError)?.kind, .invalidAtom)
        }
    }

    func testAppendWaitsForTheServerBeforeTheMessageWithoutLiteralPlus() throws {
        let message = Array("Subject: x\r\n\r\nbody\r\n".utf8)
        let date = Date(timeIntervalSince1970: 837_596_665)
        XCTAssertEqual(try wire(.append(IMAPMailboxName("Sent"), flags: [.seen], date: date, message: message)),
                       ["A1 APPEND Sent (\\Seen) \"17-Jul-1996 09:44:25 +0000\" {20}\r\n", "Subject: x\r\n\r\nbody\r\n\r\n"])
        XCTAssertEqual(IMAPDateTime.format(date, secondsFromGMT: -7 * 3600), "17-Jul-1996 02:44:25 -0700")
        XCTAssertEqual(IMAPDateTime.parse(Array(IMAPDateTime.format(date, secondsFromGMT: 19_800).utf8)), date)
        XCTAssertEqual(IMAPDateTime.format(Date(timeIntervalSince1970: .infinity)), "31-Dec-9999 23:59:59 +0000", "clamped, not a trap")
        XCTAssertEqual(IMAPDateTime.format(Date(timeIntervalSince1970: -1e300)), "01-Jan-0001 00:00:00 +0000")
    }

    func testIdleAndItsDone() throws {
        XCTAssertEqual(try wire(.idle), ["A1 IDLE\r\n"])
        XCTAssertEqual(IMAPCommandEncoder.idleDone.text, "DONE\r\n")
    }
}
