import Foundation
import MailParsing
import SMTPProtocol
import XCTest
@testable import MailComposition

/// Outgoing messages built, then read back by the project's own MIME parser: what was asked for
/// is what a reader finds, Bcc stays out of the headers, and nothing typed can add a header.
final class MessageBuilderTests: XCTestCase {
    /// Fixed randomness: boundaries and generated ids are reproducible.
    private let builder = MessageBuilder(randomBytes: { count in (0..<count).map { UInt8($0 & 0xFF) } })
    private let date = Date(timeIntervalSince1970: 1_764_072_000)  // 2025-11-25 12:00:00 UTC

    private func mailbox(_ text: String) throws -> MailboxAddress { try MailboxAddress(parsing: text) }

    private func text(_ built: BuiltMessage) -> String { String(decoding: built.bytes, as: UTF8.self) }

    private func headerBlock(_ built: BuiltMessage) -> String {
        let all = text(built)
        return String(all[..<all.range(of: "\r\n\r\n")!.lowerBound])
    }

    func testAPlainMessageRoundTrips() throws {
        let message = OutgoingMessage(
            from: try mailbox("Alice Example <alice@example.org>"), to: [try mailbox("bob@example.com")],
            cc: [try mailbox("\"Carol, C.\" <carol@example.net>")], bcc: [try mailbox("dave@example.com")],
            subject: "Lunch on Friday?", date: date, timeZone: TimeZone(identifier: "Europe/Berlin")!,
            textBody: "Hi Bob,\n\nlunch at noon?\n\n-- \nAlice\n")
        let built = try builder.build(message)
        let parsed = MIMEParser.parse(built.bytes)
        XCTAssertEqual(parsed.subject, "Lunch on Friday?")
        XCTAssertEqual(parsed.from, [ParsedAddress(name: "Alice Example", address: "alice@example.org")])
        XCTAssertEqual(parsed.to.map(\.address), ["bob@example.com"])
        XCTAssertEqual(parsed.cc, [ParsedAddress(name: "Carol, C.", address: "carol@example.net")])
        XCTAssertEqual(parsed.bcc, [], "Bcc is never written")
        XCTAssertFalse(text(built).lowercased().contains("dave@example.com"))
        XCTAssertEqual(built.recipients.map(\.address), ["bob@example.com", "carol@example.net", "dave@example.com"])
        XCTAssertEqual(parsed.date, date)
        XCTAssertTrue(headerBlock(built).contains("Date: Tue, 25 Nov 2025 13:00:00 +0100"))
        XCTAssertEqual(parsed.messageId, built.messageID)
        XCTAssertTrue(built.messageID.hasSuffix("@example.org"), "generated in the sender's domain")
        XCTAssertEqual(parsed.textBody.trimmingCharacters(in: .whitespacesAndNewlines), "Hi Bob,\n\nlunch at noon?\n\n-- \nAlice")
        XCTAssertTrue(parsed.defects.isEmpty, "\(parsed.defects)")
        XCTAssertFalse(built.requires8BitMIME)
        XCTAssertFalse(built.requiresSMTPUTF8)
        // Every line ends in CRLF and none is longer than 998 bytes.
        XCTAssertFalse(text(built).replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        XCTAssertLessThanOrEqual(SMTPDataEncoder.longestLine(built.bytes), 998)
    }

    func testNonASCIISubjectNamesAndBodyAreEncoded() throws {
        let subject = "Grüße aus Köln – 日本語の件名も長くなると複数のエンコードされた単語に分かれます"
        let message = OutgoingMessage(
            from: try mailbox("Jörg Müller <joerg@example.de>"), to: [try mailbox("Zoë <zoe@example.com>")],
            subject: subject, date: date, textBody: "Schöne Grüße!\nÜberall ümlaute. " + String(repeating: "long line ", count: 20))
        let built = try builder.build(message)
        let head = headerBlock(built)
        XCTAssertTrue(head.unicodeScalars.allSatisfy(\.isASCII), "headers are 7-bit")
        XCTAssertTrue(head.contains("Subject: =?UTF-8?B?"))
        XCTAssertFalse(head.components(separatedBy: "\r\n").contains { $0.utf8.count > 998 })
        XCTAssertFalse(built.requires8BitMIME, "quoted-printable by default")
        let parsed = MIMEParser.parse(built.bytes)
        XCTAssertEqual(parsed.subject, subject)
        XCTAssertEqual(parsed.from.first?.name, "Jörg Müller")
        XCTAssertEqual(parsed.to.first?.name, "Zoë")
        XCTAssertTrue(parsed.textBody.hasPrefix("Schöne Grüße!\nÜberall ümlaute. long line long line"), parsed.textBody)
        XCTAssertTrue(text(built).contains("Content-Transfer-Encoding: quoted-printable"))
    }

    func testEightBitBodyWhenAsked() throws {
        var message = OutgoingMessage(from: try mailbox("a@example.org"), to: [try mailbox("b@example.org")],
                                      subject: "8bit", date: date, textBody: "Grüße\n")
        message.textEncoding = .eightBit
        let built = try builder.build(message)
        XCTAssertTrue(built.requires8BitMIME)
        XCTAssertTrue(text(built).contains("Content-Transfer-Encoding: 8bit"))
        XCTAssertEqual(MIMEParser.parse(built.bytes).textBody.trimmingCharacters(in: .whitespacesAndNewlines), "Grüße")
    }

    func testReplyHeaders() throws {
        let (inReplyTo, references) = OutgoingMessage.replyHeaders(parentMessageID: "p3@example.org",
                                                                  parentReferences: ["p1@example.org", "p2@example.org"])
        XCTAssertEqual(inReplyTo, "p3@example.org")
        XCTAssertEqual(references, ["p1@example.org", "p2@example.org", "p3@example.org"])
        XCTAssertEqual(OutgoingMessage.replyHeaders(parentMessageID: "b@x", parentReferences: [], parentInReplyTo: ["a@x"]).references,
                       ["a@x", "b@x"])
        let long = OutgoingMessage.replyHeaders(parentMessageID: "last@x", parentReferences: (1...30).map { "r\($0)@x" }, limit: 5)
        XCTAssertEqual(long.references, ["r1@x", "r28@x", "r29@x", "r30@x", "last@x"])

        let message = OutgoingMessage(
            from: try mailbox("bob@example.com"), to: [try mailbox("alice@example.org")], subject: "Re: Lunch", date: date,
            messageID: "reply-1@example.com", inReplyTo: inReplyTo, references: references, textBody: "Yes.")
        let parsed = MIMEParser.parse(try builder.build(message).bytes)
        XCTAssertEqual(parsed.messageId, "reply-1@example.com")
        XCTAssertEqual(parsed.inReplyTo, ["p3@example.org"])
        XCTAssertEqual(parsed.references, ["p1@example.org", "p2@example.org", "p3@example.org"])
    }

    func testHTMLAlternativeAndAttachmentsRoundTrip() throws {
        let pdf = (0..<3000).map { UInt8(($0 * 7) & 0xFF) }
        let message = OutgoingMessage(
            from: try mailbox("alice@example.org"), to: [try mailbox("bob@example.com")], subject: "Report", date: date,
            textBody: "See the report.", htmlBody: "<p>See the <b>report</b>.</p>",
            attachments: [OutgoingAttachment(filename: "report.pdf", mimeType: "application/pdf", content: pdf),
                          OutgoingAttachment(filename: "../../Übersicht 2025.txt", mimeType: "text/plain", content: Array("ü\n".utf8))])
        let built = try builder.build(message)
        let parsed = MIMEParser.parse(built.bytes)
        XCTAssertTrue(parsed.defects.isEmpty, "\(parsed.defects)")
        XCTAssertEqual(parsed.textBody.trimmingCharacters(in: .whitespacesAndNewlines), "See the report.")
        XCTAssertEqual(parsed.htmlBody?.trimmingCharacters(in: .whitespacesAndNewlines), "<p>See the <b>report</b>.</p>")
        XCTAssertEqual(parsed.attachments.map(\.filename), ["report.pdf", "Übersicht 2025.txt"], "paths are cut to the name")
        XCTAssertEqual(parsed.attachments.map(\.mimeType), ["application/pdf", "text/plain"])
        let contents = MIMEParser.attachmentContents(built.bytes)
        XCTAssertEqual(contents.first?.content, pdf)
        XCTAssertEqual(contents.last?.content, Array("ü\n".utf8))
        XCTAssertTrue(text(built).contains("multipart/mixed"))
        XCTAssertTrue(text(built).contains("multipart/alternative"))
        XCTAssertLessThanOrEqual(SMTPDataEncoder.longestLine(built.bytes), 78)
    }

    func testNothingTypedCanAddAHeader() throws {
        let message = OutgoingMessage(
            from: MailboxAddress(name: "Eve\r\nBcc: victim@example.com", address: try SMTPAddress("eve@example.org")),
            to: [try mailbox("bob@example.com")], subject: "Hi\r\nBcc: victim@example.com\r\n\r\nforged body", date: date,
            textBody: "x",
            attachments: [OutgoingAttachment(filename: "a\"\r\nContent-Type: text/html\r\n.txt", content: [1, 2, 3])])
        let built = try builder.build(message)
        let parsed = MIMEParser.parse(built.bytes)
        XCTAssertEqual(parsed.bcc, [])
        XCTAssertFalse(parsed.headers.contains { $0.name.lowercased() == "bcc" })
        XCTAssertEqual(parsed.headers.filter { $0.name.lowercased() == "subject" }.count, 1)
        XCTAssertTrue(parsed.subject.contains("forged body"), "the typed line breaks are spaces in the one subject")
        XCTAssertThrowsError(try MailboxAddress(parsing: "Bob <bob@example.com>\r\nBcc: x@y.z"))
        XCTAssertThrowsError(try MailboxAddress(parsing: "bob@example.com\r\nRCPT TO:<carol@example.com>")) { error in
            XCTAssertEqual((error as? SMTPEncodingError)?.kind, .lineBreakOrControl)
        }
        XCTAssertThrowsError(try MailboxAddress(parsing: "Bob\0 <bob@example.com>"))
        XCTAssertThrowsError(try builder.build(OutgoingMessage(from: try mailbox("a@b.c"), to: [try mailbox("d@e.f")],
                                                               messageID: "x\r\nBcc: y@z")))
        XCTAssertThrowsError(try builder.build(OutgoingMessage(from: try mailbox("a@b.c"), to: [try mailbox("d@e.f")],
                                                               attachments: [OutgoingAttachment(filename: "x", mimeType: "text/plain\r\nX: y", content: [])])))
    }

    func testAnUnbreakableSubjectStaysUnderTheLineLimit() throws {
        let subject = String(repeating: "x", count: 2000)
        let built = try builder.build(OutgoingMessage(from: try mailbox("a@example.org"), to: [try mailbox("b@example.org")],
                                                      subject: subject, date: date, textBody: "x"))
        XCTAssertLessThanOrEqual(SMTPDataEncoder.longestLine(built.bytes), 78)
        XCTAssertEqual(MIMEParser.parse(built.bytes).subject, subject)
    }

    func testAMessageNeedsARecipient() throws {
        XCTAssertThrowsError(try builder.build(OutgoingMessage(from: try mailbox("a@example.org")))) { error in
            XCTAssertEqual((error as? MessageBuildError)?.field, "To")
        }
    }

    func testUnicodeAddressesNeedSMTPUTF8() throws {
        let built = try builder.build(OutgoingMessage(from: try mailbox("jörg@example.de"), to: [try mailbox("b@example.org")],
                                                      date: date, textBody: "x"))
        XCTAssertTrue(built.requiresSMTPUTF8)
        XCTAssertTrue(built.messageID.hasSuffix("@example.de"))
    }

    func testQuotedPrintableLinesAndSoftBreaks() {
        let encoded = String(decoding: QuotedPrintable.encode(Array((String(repeating: "é", count: 40) + " \n.dot\nFrom me=").utf8)),
                             as: UTF8.self)
        let lines = encoded.components(separatedBy: "\r\n")
        XCTAssertTrue(lines.allSatisfy { $0.utf8.count <= 76 }, encoded)
        XCTAssertTrue(encoded.contains("=20\r\n"), "a space before a line end is encoded")
        XCTAssertTrue(encoded.contains("=2Edot"))
        XCTAssertTrue(encoded.contains("=46rom me=3D"))
    }

    func testLongASCIIHeadersAreFolded() throws {
        let recipients = try (1...12).map { try mailbox("Recipient Number \($0) <recipient.number.\($0)@example.com>") }
        let built = try builder.build(OutgoingMessage(from: try mailbox("a@example.org"), to: recipients, subject: "x", date: date))
        XCTAssertTrue(headerBlock(built).components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 78 })
        XCTAssertEqual(MIMEParser.parse(built.bytes).to.count, 12)
    }
}
