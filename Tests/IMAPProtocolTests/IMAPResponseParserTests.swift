import Foundation
import XCTest
@testable import IMAPProtocol

/// Responses one at a time: every shape the sync engine relies on, the variants servers send,
/// and what stays raw.
final class IMAPResponseParserTests: XCTestCase {
    func testTaggedStatusesWithAndWithoutCodes() throws {
        XCTAssertEqual(try parse("A1 NO [TRYCREATE] Mailbox doesn't exist: Archive"),
                       .tagged(tag: "A1", IMAPStatusResponse(status: .no, code: .tryCreate, text: "Mailbox doesn't exist: Archive")))
        XCTAssertEqual(try parse("A2 BAD Error in IMAP command UID: Invalid uidset"),
                       .tagged(tag: "A2", IMAPStatusResponse(status: .bad, text: "Error in IMAP command UID: Invalid uidset")))
        XCTAssertEqual(try parse("x.7 ok"), .tagged(tag: "x.7", IMAPStatusResponse(status: .ok)))
        XCTAssertEqual(try parse("A3 OK [READ-ONLY] [Gmail]/All Mail selected."),
                       .tagged(tag: "A3", IMAPStatusResponse(status: .ok, code: .readOnly, text: "[Gmail]/All Mail selected.")))
    }

    func testUntaggedStatusesAndTheirResponseCodes() throws {
        func code(_ text: String) throws -> IMAPResponseCode? {
            guard case .status(let status)? = try untagged(text) else { return nil }
            return status.code
        }
        XCTAssertEqual(try code("* OK [ALERT] System shutdown in 10 minutes"), .alert)
        XCTAssertEqual(try code("* OK [CLOSED] Previous mailbox closed."), .closed)
        XCTAssertEqual(try code("* OK [NOMODSEQ] No permanent modsequences"), .noModSeq)
        XCTAssertEqual(try code("* NO [PARSE] Invalid header"), .parse)
        XCTAssertEqual(try code("* OK [READ-WRITE]"), .readWrite)
        XCTAssertEqual(try code("* OK [HIGHESTMODSEQ 90060115205545359] Highest"), .highestModSeq(90_060_115_205_545_359))
        XCTAssertEqual(try code("* OK [COPYUID 38505 304,319:320 3956:3958] Done"),
                       .copyUID(uidValidity: 38505, source: IMAPSequenceSet([304...304, 319...320]), destination: IMAPSequenceSet(3956...3958)))
        XCTAssertEqual(try code("* NO [BADCHARSET (UTF-8 US-ASCII)] Unsupported"), .other(name: "BADCHARSET", arguments: "(UTF-8 US-ASCII)"))
        XCTAssertEqual(try code("* OK [UIDVALIDITY abc] UIDs valid"), .other(name: "UIDVALIDITY", arguments: "abc"))
        XCTAssertEqual(try code("* OK [UIDNEXT 5 6] Predicted"), .other(name: "UIDNEXT", arguments: "5 6"))
        XCTAssertEqual(try code("* BYE [UNAVAILABLE] Server shutting down"), .other(name: "UNAVAILABLE", arguments: nil))
        XCTAssertEqual(try untagged("* OK [ALERT without a closing bracket"),
                       .status(IMAPStatusResponse(status: .ok, text: "[ALERT without a closing bracket")))
        XCTAssertEqual(try untagged("* PREAUTH IMAP4rev1 server logged in as alice"),
                       .status(IMAPStatusResponse(status: .preauth, text: "IMAP4rev1 server logged in as alice")))
        XCTAssertEqual(try untagged("* OK"), .status(IMAPStatusResponse(status: .ok)))
    }

    func testCapabilityAndEnabled() throws {
        XCTAssertEqual(try untagged("* CAPABILITY IMAP4rev1 literal+ AUTH=PLAIN  IDLE "),
                       .capability([.imap4rev1, .literalPlus, .authPlain, .idle]))
        XCTAssertEqual(try untagged("* ENABLED"), .enabled([]))
    }

    func testListVariants() throws {
        func entry(_ text: String) throws -> IMAPListEntry? {
            guard case .list(let e)? = try untagged(text) else { return nil }
            return e
        }
        let flat = try XCTUnwrap(try entry("* LIST (\\Noselect) NIL \"\""))
        XCTAssertNil(flat.delimiter)
        XCTAssertEqual(flat.mailbox.raw, [])
        XCTAssertFalse(flat.isSelectable)

        let literal = try XCTUnwrap(IMAPResponseParser.parse(Array("* LIST (\\HasNoChildren) \"/\" {11}\r\nfoo bar baz".utf8)))
        guard case .untagged(.list(let fromLiteral)) = literal else { return XCTFail("not a LIST") }
        XCTAssertEqual(fromLiteral.mailbox.name, "foo bar baz")

        XCTAssertEqual(try entry("* LIST () \"\\\\\" \"a \\\"q\\\" b\"")?.mailbox.name, "a \"q\" b")
        XCTAssertEqual(try entry("* LIST () \"\\\\\" x")?.delimiter, "\\")
        XCTAssertEqual(try entry("* list (\\SENT \\hasnochildren) \"/\" Gesendet")?.specialUse, .sent)
        XCTAssertEqual(try entry("* LIST (\\Subscribed) \"/\" \"Projekt/Kö\"")?.mailbox.name, "Projekt/Kö", "8-bit names read as UTF-8")
        let extended = try XCTUnwrap(try entry("* LIST (\\HasChildren) \"/\" Foo (\"CHILDINFO\" (\"SUBSCRIBED\"))"))
        XCTAssertEqual(extended.extendedData, [.list([.string(Array("CHILDINFO".utf8)), .list([.string(Array("SUBSCRIBED".utf8))])])])
        guard case .lsub(let lsub)? = try untagged("* LSUB () \".\" #news.comp.mail.misc") else { return XCTFail("not an LSUB") }
        XCTAssertEqual(lsub.mailbox.name, "#news.comp.mail.misc")
    }

    func testStatusKeepsKnownItemsAndSkipsOthers() throws {
        let parsed = try untagged("* STATUS \"Entw&APw-rfe\" (MESSAGES 231 UIDNEXT 44292 MAILBOXID (F2212ea87) SIZE 12345678901 X-FOO 7)")
        XCTAssertEqual(parsed, .mailboxStatus(IMAPMailboxStatus(mailbox: IMAPMailboxName("Entwürfe"), messages: 231, uidNext: 44292,
                                                                size: 12_345_678_901, other: ["X-FOO": 7])))
    }

    func testSearchAndESearch() throws {
        XCTAssertEqual(try untagged("* SEARCH"), .search([], highestModSeq: nil))
        XCTAssertEqual(try untagged("* SEARCH 2 84 882 "), .search([2, 84, 882], highestModSeq: nil))
        XCTAssertEqual(try untagged("* SEARCH 2 5 (MODSEQ 917162500)"), .search([2, 5], highestModSeq: 917_162_500))
        XCTAssertEqual(try untagged("* ESEARCH (TAG \"A282\") UID MIN 2 COUNT 3 MAX 11"),
                       .esearch(IMAPESearchResponse(tag: "A282", isUID: true, min: 2, max: 11, count: 3)))
        XCTAssertEqual(try untagged("* ESEARCH (TAG \"A3\") UID COUNT 0"), .esearch(IMAPESearchResponse(tag: "A3", isUID: true, count: 0)))
        XCTAssertEqual(try untagged("* ESEARCH ALL 1:3,5 MODSEQ 99 PARTIAL (1:10 1:3)"),
                       .esearch(IMAPESearchResponse(all: IMAPSequenceSet([1...3, 5...5]), modSeq: 99,
                                                    other: ["PARTIAL": .list([.atom("1:10"), .atom("1:3")])])))
    }

    func testMessageCountsFlagsAndVanished() throws {
        XCTAssertEqual(try untagged("* 0 EXISTS"), .exists(0))
        XCTAssertEqual(try untagged("* 1 RECENT"), .recent(1))
        XCTAssertEqual(try untagged("* 44 EXPUNGE"), .expunge(44))
        XCTAssertEqual(try untagged("* FLAGS (\\Answered \\SEEN $Label1)"), .flags([.answered, .seen, IMAPFlag("$Label1")]))
        XCTAssertEqual(try untagged("* VANISHED 405,9:7,411:*"),
                       .vanished(earlier: false, uids: IMAPSequenceSet([405...405, 7...9, 411...IMAPSequenceSet.last])))
    }

    func testFetchItemShapes() throws {
        func fetch(_ text: String) throws -> IMAPFetchResponse? {
            guard case .fetch(let f)? = try IMAPResponseParser.parse(Array(text.utf8)).untaggedValue else { return nil }
            return f
        }
        let quoted = try XCTUnwrap(fetch("* 1 FETCH (UID 9 BODY[] \"quoted \\\"body\\\"\" RFC822.SIZE 14)"))
        XCTAssertEqual(quoted.body()?.text, "quoted \"body\"")
        XCTAssertEqual(try fetch("* 1 FETCH (BODY[] NIL UID 3)")?.items, [.body(section: "", origin: nil, data: nil), .uid(3)])
        XCTAssertEqual(try fetch("* 2 FETCH (BODY[1.2]<0> {4}\r\nabcd)")?.items, [.body(section: "1.2", origin: 0, data: Array("abcd".utf8))])
        XCTAssertEqual(try fetch("* 2 FETCH (BINARY[1] ~{3}\r\n\u{0}\u{1}\u{2})")?.body(section: "1"), [0, 1, 2])
        XCTAssertEqual(try fetch("* 3 FETCH (RFC822 {2}\r\nhi RFC822.HEADER {0}\r\n)")?.items,
                       [.body(section: "", origin: nil, data: Array("hi".utf8)), .body(section: "HEADER", origin: nil, data: [])])
        XCTAssertEqual(try fetch("* 4 FETCH (INTERNALDATE \"17-Jul-1996 02:44:25 -0700\")")?.internalDate, Date(timeIntervalSince1970: 837_596_665))
        XCTAssertEqual(try fetch("* 4 FETCH (INTERNALDATE \"31-Feb-2024 02:44:25 -0700\")")?.items,
                       [.other(name: "INTERNALDATE", value: .string(Array("31-Feb-2024 02:44:25 -0700".utf8)))])
        let envelope = try XCTUnwrap(fetch("* 5 FETCH (ENVELOPE (\"Mon, 7 Feb 1994\" \"Hi\" ((\"Bob\" NIL \"bob\" \"example.net\")) NIL NIL NIL NIL NIL NIL \"<id@x>\") X-UNKNOWN abc UID 5)"))
        XCTAssertEqual(envelope.uid, 5)
        guard case .other("ENVELOPE", .list(let fields)) = envelope.items[0] else { return XCTFail("ENVELOPE not kept") }
        XCTAssertEqual(fields.count, 10)
        XCTAssertEqual(envelope.items[1], .other(name: "X-UNKNOWN", value: .atom("abc")))
        XCTAssertEqual(try fetch("* 6 FETCH (BODY[HEADER.FIELDS (FROM)]<10> NIL MODSEQ (624140003) uid 6)")?.items,
                       [.body(section: "HEADER.FIELDS (FROM)", origin: 10, data: nil), .modSeq(624_140_003), .uid(6)])
        XCTAssertEqual(try fetch("* 7 FETCH (X-GM-LABELS ())")?.gmailLabels, [])
    }

    func testIDContinuationAndUnknownResponses() throws {
        XCTAssertEqual(try untagged("* ID NIL"), .id(nil))
        XCTAssertEqual(try untagged("* ID (\"name\" \"Cyrus\" \"os\" NIL)"), .id(["name": "Cyrus"]))
        XCTAssertEqual(try parse("+ idling"), .continuation("idling"))
        XCTAssertEqual(try parse("+"), .continuation(""))
        XCTAssertEqual(try parse("+ eyJzdGF0dXMiOiI0MDEifQ=="), .continuation("eyJzdGF0dXMiOiI0MDEifQ=="))
        let namespace = "* NAMESPACE ((\"\" \"/\")) NIL NIL"
        XCTAssertEqual(try untagged(namespace), .unknown(name: "NAMESPACE", raw: Array((namespace + "\r\n").utf8)))
        guard case .unknown(name: "XYZZY", _)? = try untagged("* 3 XYZZY (odd") else { return XCTFail("not unknown") }
    }

    func testBrokenGrammarIsATypedErrorWithItsPosition() {
        let cases: [(String, Int)] = [
            ("", 0),
            ("A1", 2),
            ("A1 MAYBE fine", 3),
            ("*", 1),
            ("* 4294967296 EXISTS", 2),
            ("* 1 FETCH (UID 0)", 15),
            ("* 1 FETCH (UID 1 FLAGS (\\Seen)", 30),
            ("* 1 FETCH (UID 1))", 17),
            ("* 1 FETCH (BODY[] {10}\r\nabc)", 19),
            ("* LIST (\\Noselect \"/\" x", 18),
            ("* SEARCH 1 x", 11),
        ]
        for (text, offset) in cases {
            XCTAssertThrowsError(try IMAPResponseParser.parse(Array(text.utf8)), text) { error in
                XCTAssertEqual((error as? IMAPParseError)?.offset, offset, "\(text): \(error)")
            }
        }
    }
}

extension IMAPResponse {
    var untaggedValue: IMAPUntaggedResponse? {
        if case .untagged(let u) = self { u } else { nil }
    }
}
