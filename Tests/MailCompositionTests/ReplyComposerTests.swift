import Foundation
import MailModel
import MailParsing
import XCTest
@testable import MailComposition

/// Reply, reply-all and forward templates (spec 001 §5.5.1): subjects that do not stack,
/// In-Reply-To/References per RFC 5322 §3.6.4, quoting, recipients without the user's own.
final class ReplyComposerTests: XCTestCase {
    private let me = "alice@example.org"
    private let date = Date(timeIntervalSince1970: 1_764_072_000)  // 2025-11-25 12:00:00 UTC
    private var composer: ReplyComposer { ReplyComposer(ownAddresses: ["Alice@Example.org", "alice@work.example"], timeZone: TimeZone(identifier: "UTC")!) }

    private func parent(from: Address? = Address(name: "Bob Example", email: "bob@example.com"),
                        to: [Address] = [Address(name: "Alice", email: "alice@example.org"), Address(email: "carol@example.net")],
                        cc: [Address] = [Address(email: "dave@example.com"), Address(email: "CAROL@example.net")],
                        replyTo: [Address] = [], subject: String = "Budget for Q3", messageId: String? = "m2@example.com",
                        references: [String] = ["m0@example.com", "m1@example.com"], text: String = "Hi,\n\nthe numbers are in.\n> earlier\n\nBob\n") -> ComposeParent {
        ComposeParent(messageId: messageId, references: references, inReplyTo: references.last, from: from, to: to, cc: cc,
                      replyTo: replyTo, subject: subject, date: date, text: text)
    }

    func testReplySubjectsDoNotStack() {
        XCTAssertEqual(ReplyComposer.replySubject("Budget"), "Re: Budget")
        XCTAssertEqual(ReplyComposer.replySubject("Re: Budget"), "Re: Budget")
        XCTAssertEqual(ReplyComposer.replySubject("RE: re: Budget"), "Re: Budget")
        XCTAssertEqual(ReplyComposer.replySubject("Re[2]: Budget"), "Re: Budget")
        XCTAssertEqual(ReplyComposer.replySubject("AW: Budget"), "Re: Budget")
        XCTAssertEqual(ReplyComposer.replySubject("Fwd: Budget"), "Re: Fwd: Budget", "a reply to a forward keeps what it answers")
        XCTAssertEqual(ReplyComposer.replySubject("Regarding: the plan"), "Re: Regarding: the plan", "a word that only starts with re is no prefix")
        XCTAssertEqual(ReplyComposer.replySubject(""), "Re:")
        XCTAssertEqual(ReplyComposer.forwardSubject("Budget"), "Fwd: Budget")
        XCTAssertEqual(ReplyComposer.forwardSubject("Fwd: FW: Budget"), "Fwd: Budget")
        XCTAssertEqual(ReplyComposer.forwardSubject("Re: Budget"), "Fwd: Re: Budget")
    }

    func testReplyThreadsUnderTheParent() {
        let template = composer.template(.reply, parent: parent())
        XCTAssertEqual(template.inReplyTo, "m2@example.com")
        XCTAssertEqual(template.references, ["m0@example.com", "m1@example.com", "m2@example.com"])
        XCTAssertEqual(template.subject, "Re: Budget for Q3")
        XCTAssertEqual(template.to.map(\.email), ["bob@example.com"])
        XCTAssertEqual(template.cc, [])
    }

    func testAParentWithoutReferencesUsesItsInReplyTo() {
        let template = composer.template(.reply, parent: ComposeParent(
            messageId: "m2@example.com", references: [], inReplyTo: "m1@example.com", from: Address(email: "bob@example.com"),
            subject: "x", date: nil, text: ""))
        XCTAssertEqual(template.references, ["m1@example.com", "m2@example.com"])
    }

    func testAParentWithoutAMessageIDGivesNoThreadingHeaders() {
        // A content-hash identity is not a Message-ID: nothing to refer to.
        let template = composer.template(.reply, parent: parent(messageId: nil, references: []))
        XCTAssertNil(template.inReplyTo)
        XCTAssertEqual(template.references, [])
    }

    func testInvalidReferencesAreLeftOut() {
        let template = composer.template(.reply, parent: parent(references: ["bad id with spaces", "m1@example.com"]))
        XCTAssertEqual(template.references, ["m1@example.com", "m2@example.com"])
    }

    func testQuotingUnderAnAttribution() {
        let template = composer.template(.reply, parent: parent())
        XCTAssertEqual(template.body, """


            On Tue, 25 Nov 2025 at 12:00, Bob Example wrote:
            > Hi,
            >
            > the numbers are in.
            >> earlier
            >
            > Bob

            """)
        XCTAssertEqual(ReplyComposer.quoted("a\r\nb\rc\n\n\n"), "> a\n> b\n> c\n", "CRLF and CR are line ends; trailing empty lines go")
    }

    func testReplyAllLeavesOutOwnAddressesAndDuplicates() {
        let template = composer.template(.replyAll, parent: parent())
        XCTAssertEqual(template.to.map(\.email), ["bob@example.com"])
        XCTAssertEqual(template.cc.map(\.email), ["carol@example.net", "dave@example.com"], "own address out, CAROL once")
    }

    func testReplyToWins() {
        let template = composer.template(.reply, parent: parent(replyTo: [Address(email: "list@example.com")]))
        XCTAssertEqual(template.to.map(\.email), ["list@example.com"])
    }

    func testAnsweringOwnMessageGoesToItsRecipients() {
        let template = composer.template(.replyAll, parent: parent(from: Address(email: "alice@work.example")))
        XCTAssertEqual(template.to.map(\.email), ["carol@example.net"])
        XCTAssertEqual(template.cc.map(\.email), ["dave@example.com"])
    }

    func testForwardCarriesTheOriginalsHeadersAndText() {
        let template = composer.template(.forward, parent: parent())
        XCTAssertEqual(template.subject, "Fwd: Budget for Q3")
        XCTAssertNil(template.inReplyTo)
        XCTAssertEqual(template.to, [])
        XCTAssertTrue(template.body.contains("---------- Forwarded message ---------\nFrom: Bob Example <bob@example.com>\n"
                                             + "Date: Tue, 25 Nov 2025 12:00:00 +0000\nSubject: Budget for Q3\n"), template.body)
        XCTAssertTrue(template.body.hasSuffix("\nthe numbers are in.\n> earlier\n\nBob\n"))
    }

    func testAReplyBuildsWithItsHeadersAndReadsBack() throws {
        let template = composer.template(.reply, parent: parent())
        let built = try MessageBuilder().build(OutgoingMessage(
            from: MailboxAddress(parsing: me), to: template.to.map { try MailboxAddress(parsing: $0.formatted) },
            subject: template.subject, inReplyTo: template.inReplyTo, references: template.references, textBody: "Thanks!" + template.body))
        let parsed = MIMEParser.parse(built.bytes)
        XCTAssertEqual(parsed.inReplyTo, ["m2@example.com"])
        XCTAssertEqual(parsed.references, ["m0@example.com", "m1@example.com", "m2@example.com"])
        XCTAssertEqual(parsed.subject, "Re: Budget for Q3")
        XCTAssertTrue(parsed.textBody.contains("> the numbers are in."), parsed.textBody)
    }

    func testADraftMayHaveNoRecipientButASentMessageMust() throws {
        let message = OutgoingMessage(from: try MailboxAddress(parsing: me), subject: "later")
        XCTAssertThrowsError(try MessageBuilder().build(message))
        XCTAssertNoThrow(try MessageBuilder().build(message, requireRecipients: false))
    }

    func testHeaderInjectionInAddressesIsRefused() {
        for text in ["bob@example.com\r\nBcc: eve@example.com", "bob@example.com\nX: y", "Bob <bob@example.com>\r"] {
            XCTAssertThrowsError(try MailboxAddress(parsing: text), text)
        }
    }
}
