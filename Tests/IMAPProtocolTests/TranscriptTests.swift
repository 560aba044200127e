import Foundation
import XCTest
@testable import IMAPProtocol

/// Whole sessions recorded in the shape Dovecot 2.3 and Gmail answer: every server response
/// framed and parsed into the values the sync engine needs, and the client's side of each
/// session re-created byte for byte by the encoder.
final class TranscriptTests: XCTestCase {
    private let dovecotCapabilities: [IMAPCapability] = """
        IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE IDLE SORT SORT=DISPLAY THREAD=REFERENCES THREAD=REFS \
        THREAD=ORDEREDSUBJECT MULTIAPPEND URL-PARTIAL CATENATE UNSELECT CHILDREN NAMESPACE UIDPLUS LIST-EXTENDED \
        I18NLEVEL=1 CONDSTORE QRESYNC ESEARCH ESORT SEARCHRES WITHIN CONTEXT=SEARCH LIST-STATUS BINARY MOVE \
        SNIPPET=FUZZY PREVIEW=FUZZY PREVIEW STATUS=SIZE SAVEDATE LITERAL+ NOTIFY SPECIAL-USE
        """.split(separator: " ").map { IMAPCapability(String($0)) }

    private func day(_ year: Int, _ month: Int, _ day: Int) throws -> IMAPCalendarDate {
        try XCTUnwrap(IMAPCalendarDate(year: year, month: month, day: day))
    }

    func testDovecotInitialSyncParsesIntoTypedValues() throws {
        let responses = try responses(of: Transcript.load("dovecot-initial-sync.txt").server)
        XCTAssertEqual(responses.count, 37)

        guard case .untagged(.status(let greeting)) = responses[0], case .capability(let preLogin)? = greeting.code else {
            return XCTFail("greeting without capabilities")
        }
        XCTAssertTrue(preLogin.contains(.saslIR) && preLogin.contains(.literalPlus) && preLogin.contains(.authPlain))
        XCTAssertEqual(greeting.text, "Dovecot (Debian) ready.")
        guard case .tagged("A1", let login) = responses[1], case .capability(let capabilities)? = login.code else {
            return XCTFail("login answer without capabilities")
        }
        XCTAssertEqual(login.status, .ok)
        XCTAssertEqual(capabilities, dovecotCapabilities)
        XCTAssertEqual(responses[2], .untagged(.id(["name": "Dovecot"])))
        XCTAssertEqual(responses[4], .untagged(.enabled([.condStore, .qresync])))

        let entries = responses.compactMap { if case .untagged(.list(let e)) = $0 { e } else { nil } }
        XCTAssertEqual(entries.map(\.mailbox.name),
                       ["INBOX", "Drafts", "Sent", "Junk", "Trash", "Archive", "Archive.2023", "Entwürfe alt", "日本語"])
        XCTAssertEqual(entries.map(\.specialUse), [nil, .drafts, .sent, .junk, .trash, nil, .archive, nil, nil])
        XCTAssertEqual(Set(entries.map(\.delimiter)), ["."])
        XCTAssertTrue(entries[0].mailbox.isInbox)
        XCTAssertEqual(entries[7].mailbox.raw.text, "Entw&APw-rfe alt", "the wire name is kept for SELECT")

        var selected: [IMAPResponseCode] = []
        for case .untagged(.status(let status)) in responses[16...24] { if let code = status.code { selected.append(code) } }
        XCTAssertEqual(selected.count, 5)
        XCTAssertTrue(selected.contains(.uidValidity(1_700_000_001)))
        XCTAssertTrue(selected.contains(.uidNext(105)))
        XCTAssertTrue(selected.contains(.unseen(2)))
        XCTAssertTrue(selected.contains(.highestModSeq(517)))
        guard case .permanentFlags(let permanent)? = selected.first else { return XCTFail("no PERMANENTFLAGS") }
        XCTAssertEqual(permanent.count, 9)
        XCTAssertTrue(permanent.contains(.mayCreateKeywords))
        XCTAssertTrue(responses.contains(.untagged(.exists(4))))
        XCTAssertTrue(responses.contains(.tagged(tag: "A5", IMAPStatusResponse(
            status: .ok, code: .readWrite, text: "Select completed (0.002 + 0.000 + 0.001 secs)."))))
        XCTAssertTrue(responses.contains(.untagged(.search([101, 102, 103, 104], highestModSeq: nil))))

        let fetches = responses.compactMap { if case .untagged(.fetch(let f)) = $0 { f } else { nil } }
        XCTAssertEqual(fetches.map(\.uid), [101, 102, 103, 104])
        XCTAssertEqual(fetches.map(\.modSeq), [512, 514, 515, 517])
        XCTAssertEqual(fetches.map(\.flags), [[.seen], [], [.seen, IMAPFlag("$Forwarded")], [.seen, .answered]])
        XCTAssertEqual(fetches.map(\.internalDate), [1_707_120_842, 1_707_239_011, 1_707_285_601, 1_707_388_204].map {
            Date(timeIntervalSince1970: $0)
        })
        for fetch in fetches {
            let body = try XCTUnwrap(fetch.body())
            XCTAssertEqual(UInt64(body.count), fetch.size)
            XCTAssertEqual(Array(body.suffix(2)), [0x0D, 0x0A])
        }
        XCTAssertTrue(try XCTUnwrap(fetches[0].body()).text.contains("hardware is {3}\r\n) and travel"))
        XCTAssertTrue(try XCTUnwrap(fetches[1].body()).text.contains("die Reisepläne für März stehen: Zürich → Köln"))
        XCTAssertTrue(try XCTUnwrap(fetches[2].body()).text.contains("\r\nA7 OK Fetch completed\r\n"))

        XCTAssertEqual(Array(responses[32...]), [
            .continuation("idling"),
            .untagged(.exists(5)),
            .tagged(tag: "A8", IMAPStatusResponse(status: .ok, text: "Idle completed (0.001 + 5.211 + 5.210 secs).")),
            .untagged(.status(IMAPStatusResponse(status: .bye, text: "Logging out"))),
            .tagged(tag: "A9", IMAPStatusResponse(status: .ok, text: "Logout completed (0.001 + 0.000 secs).")),
        ])
    }

    func testDovecotInitialSyncClientSideIsWhatTheEncoderWrites() throws {
        let transcript = try Transcript.load("dovecot-initial-sync.txt")
        var encoder = IMAPCommandEncoder(capabilities: [.imap4rev1, .saslIR, .literalPlus, .authPlain])
        var written: [UInt8] = []
        func send(_ command: IMAPCommand) throws {
            let encoded = try encoder.encode(command)
            XCTAssertEqual(encoded.parts.count, 1, "\(encoded): SASL-IR and LITERAL+ need no round trip")
            written += encoded.bytes
        }
        try send(.authenticatePlain(username: "alice@example.org", password: "correct horse \"battery\""))
        encoder.capabilities = Set(dovecotCapabilities)
        try send(.id(["name": "MailSearch", "version": "0.1"]))
        try send(.enable([.condStore, .qresync]))
        try send(.list(returning: [.specialUse]))
        try send(.select(.inbox, .condStore))
        try send(.uidSearch([.since(day(2024, 2, 1))]))
        try send(.uidFetch(IMAPSequenceSet(101...104), [.uid, .flags, .internalDate, .rfc822Size, .message]))
        try send(.idle)
        written += IMAPCommandEncoder.idleDone
        try send(.logout)
        XCTAssertEqual(written.text, transcript.client.text)
    }

    func testDovecotQuickResyncReportsVanishedUIDsAndChangedFlags() throws {
        let responses = try responses(of: Transcript.load("dovecot-qresync.txt").server)
        XCTAssertTrue(responses.contains(.untagged(.vanished(earlier: true, uids: IMAPSequenceSet([102...102, 104...104])))))
        XCTAssertTrue(responses.contains(.untagged(.status(IMAPStatusResponse(status: .ok, code: .highestModSeq(540), text: "Highest")))))
        let fetches = responses.compactMap { if case .untagged(.fetch(let f)) = $0 { f } else { nil } }
        XCTAssertEqual(fetches.map(\.uid), [101, 101, 105, 101, 106])
        XCTAssertEqual(fetches[0].flags, [.seen, .flagged])
        XCTAssertEqual(fetches[0].modSeq, 530)
        XCTAssertEqual(fetches[2].flags, [])
        XCTAssertEqual(fetches[3].items, [.uid(101), .modSeq(541)])
        XCTAssertEqual(fetches[4].flags, [.recent])
        XCTAssertEqual(fetches[4].body(section: "header.fields (date subject)")?.text,
                       "Date: Tue, 13 Feb 2024 08:00:00 +0000\r\nSubject: Lunch?\r\n\r\n")

        XCTAssertTrue(responses.contains(.untagged(.esearch(IMAPESearchResponse(
            tag: "A3", isUID: true, all: IMAPSequenceSet([101...101, 103...103, 105...106]))))))
        XCTAssertTrue(responses.contains(.untagged(.mailboxStatus(IMAPMailboxStatus(
            mailbox: IMAPMailboxName("Sent"), messages: 12, uidNext: 13, uidValidity: 1_700_000_003, unseen: 0, highestModSeq: 44)))))
        XCTAssertTrue(responses.contains { response in
            if case .tagged("A5", let status) = response { status.code == .appendUID(uidValidity: 1_700_000_002, uids: IMAPSequenceSet(7...7)) } else { false }
        })
    }

    func testDovecotQuickResyncClientSideIsWhatTheEncoderWrites() throws {
        let transcript = try Transcript.load("dovecot-qresync.txt")
        var encoder = IMAPCommandEncoder(capabilities: Set(dovecotCapabilities))
        let draft = Array("Date: Mon, 12 Feb 2024 10:00:00 +0000\r\nFrom: Alice <alice@example.org>\r\nTo: Bob Example <bob@example.net>\r\nSubject: Draft: budget\r\n\r\nNot sent yet.\r\n".utf8)
        let commands: [IMAPCommand] = [
            .select(.inbox, .qresync(uidValidity: 1_700_000_001, modSeq: 517, knownUIDs: IMAPSequenceSet(101...104))),
            .uidFetch(.from(1), [.flags], changedSince: 517, vanished: true),
            .uidSearch([.since(try day(2024, 1, 1))], returning: [.all]),
            .status(IMAPMailboxName("Sent"), [.messages, .uidNext, .uidValidity, .unseen, .highestModSeq]),
            .append(IMAPMailboxName("Drafts"), flags: [.draft], date: Date(timeIntervalSince1970: 1_707_732_000), message: draft),
            .uidStore(IMAPSequenceSet(101...101), .add, [.seen]),
            .uidFetch(IMAPSequenceSet(106...106), [.uid, .flags, .body(section: "HEADER.FIELDS (DATE SUBJECT)")]),
        ]
        var written: [UInt8] = []
        for command in commands { written += try encoder.encode(command).bytes }
        XCTAssertEqual(written.text, transcript.client.text)
    }

    func testGmailSyncReadsLabelsThreadsAndSpecialUseFolders() throws {
        let responses = try responses(of: Transcript.load("gmail-sync.txt").server)
        guard case .untagged(.capability(let capabilities)) = responses[1] else { return XCTFail("no CAPABILITY") }
        XCTAssertTrue(capabilities.contains(.gmailExtensions) && capabilities.contains(.authXOAuth2))
        XCTAssertEqual(capabilities.compactMap(\.authenticationMechanism), ["XOAUTH2", "PLAIN", "PLAIN-CLIENTTOKEN", "OAUTHBEARER"])
        guard case .untagged(.id(let id?)) = responses[5] else { return XCTFail("no ID") }
        XCTAssertEqual(id["vendor"], "Google, Inc.")

        let entries = responses.compactMap { if case .untagged(.list(let e)) = $0 { e } else { nil } }
        XCTAssertEqual(entries.map(\.mailbox.name), ["INBOX", "[Gmail]", "[Gmail]/All Mail", "[Gmail]/Drafts", "[Gmail]/Important",
                                                     "[Gmail]/Sent Mail", "[Gmail]/Spam", "[Gmail]/Starred", "[Gmail]/Trash", "Reisepläne", "Work"])
        XCTAssertEqual(entries.map(\.specialUse), [nil, nil, .all, .drafts, .important, .sent, .junk, .flagged, .trash, nil, nil])
        XCTAssertEqual(entries.map(\.isSelectable), [true, false] + Array(repeating: true, count: 9))
        XCTAssertEqual(Set(entries.map(\.delimiter)), ["/"])

        XCTAssertTrue(responses.contains(.untagged(.status(IMAPStatusResponse(status: .ok, code: .permanentFlags([]), text: "Flags permitted.")))))
        XCTAssertTrue(responses.contains(.untagged(.status(IMAPStatusResponse(status: .ok, code: .highestModSeq(2_087_113))))))
        XCTAssertTrue(responses.contains { if case .tagged("A5", let s) = $0 { s.code == .readOnly } else { false } })

        let fetches = responses.compactMap { if case .untagged(.fetch(let f)) = $0 { f } else { nil } }
        XCTAssertEqual(fetches.map(\.uid), [4518, 4519, 4520])
        XCTAssertEqual(fetches.map(\.gmailLabels), [
            ["\\Important", "\\Sent", "Work"],
            ["\\Important", "\\Inbox", "Reisepläne", "Project X"],
            ["\\Inbox", "CATEGORY_PROMOTIONS"],
        ])
        XCTAssertEqual(fetches.map(\.gmailThreadID), [1_790_120_977_524_163_870, 1_790_120_977_524_163_870, 1_790_275_101_116_350_101])
        XCTAssertEqual(fetches.map(\.gmailMessageID), [1_790_120_977_524_163_870, 1_790_191_255_011_876_214, 1_790_275_101_116_350_101])
        XCTAssertEqual(fetches[0].internalDate, Date(timeIntervalSince1970: 1_707_239_009))
        XCTAssertTrue(try XCTUnwrap(fetches[1].body()).text.hasSuffix("See you in Zürich.\r\n"))
    }

    func testGmailSyncClientSideIsWhatTheEncoderWrites() throws {
        let transcript = try Transcript.load("gmail-sync.txt")
        let server = try responses(of: transcript.server)
        var encoder = IMAPCommandEncoder()
        var written = try encoder.encode(.capability).bytes
        guard case .untagged(.capability(let preAuth)) = server[1] else { return XCTFail("no CAPABILITY") }
        encoder.capabilities = Set(preAuth)
        written += try encoder.encode(.authenticateXOAuth2(username: "alice@gmail.com", accessToken: "ya29.a0AfB_byC-token")).bytes
        guard case .untagged(.capability(let postAuth)) = server[3] else { return XCTFail("no CAPABILITY after login") }
        encoder.capabilities = Set(postAuth)
        XCTAssertTrue(encoder.capabilities.contains(.literalMinus))
        for command: IMAPCommand in [
            .id(["name": "MailSearch", "version": "0.1"]),
            .list(),
            .examine(IMAPMailboxName("[Gmail]/All Mail"), .condStore),
            .uidSearch([.since(try day(2024, 2, 1))]),
            .uidFetch(IMAPSequenceSet(4518...4520), [.uid, .flags, .internalDate, .rfc822Size, .gmailMessageID, .gmailThreadID, .gmailLabels, .message]),
            .logout,
        ] {
            written += try encoder.encode(command).bytes
        }
        XCTAssertEqual(written.text, transcript.client.text)
    }
}
