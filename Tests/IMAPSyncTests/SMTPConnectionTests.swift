import Foundation
import MailComposition
import MailParsing
import SMTPClient
import SMTPProtocol
import XCTest

/// The SMTP client against Dovecot's submission service from the harness (dovecot.py, submission),
/// which delivers into the recipients' INBOX: sessions with several messages, refused
/// transactions that leave the session usable, concurrent sends on one connection, SIZE, logins.
final class SMTPConnectionTests: XCTestCase {
    private var server: DovecotServer!

    override func setUpWithError() throws {
        server = try DovecotServer(users: ["alice": "alice-password", "bob": "bob-password"], submission: true, maxMailSize: 100_000)
    }

    override func tearDown() {
        server?.stop()
        server = nil
    }

    private func configuration(_ security: SMTPSecurity = .startTLS) throws -> SMTPClientConfiguration {
        let port = try XCTUnwrap(security == .tls ? server.submissionsPort : server.submissionPort)
        return SMTPClientConfiguration(host: "127.0.0.1", port: port, security: security, caFile: server.caFile,
                                       responseTimeout: .seconds(20))
    }

    private func message(_ subject: String, to recipients: [String] = ["bob@example.com"], inReplyTo: String? = nil,
                         references: [String] = [], body: String = "Hello.\n") throws -> BuiltMessage {
        try MessageBuilder().build(OutgoingMessage(
            from: MailboxAddress(parsing: "Alice <alice@example.org>"), to: recipients.map { try MailboxAddress(parsing: $0) },
            subject: subject, inReplyTo: inReplyTo, references: references, textBody: body))
    }

    /// The raw message with this Message-ID in `user`'s INBOX (through doveadm), or nil.
    private func delivered(_ messageID: String, user: String = "bob") throws -> [UInt8]? {
        let text = try server.doveadm(["fetch", "-u", user, "text", "mailbox", "INBOX", "header", "message-id", messageID])
        guard text.hasPrefix("text:\n") else { return nil }
        return Array(text.dropFirst("text:\n".count).utf8)
    }

    private func inboxCount(_ user: String) throws -> Int {
        try server.status(user: user)["messages"] as? Int ?? -1
    }

    func testSeveralMessagesInOneSessionWithARefusedTransactionBetween() async throws {
        let connection = try await SMTPConnection.connect(try configuration())
        XCTAssertTrue(connection.capabilities.supportsSize)
        XCTAssertEqual(connection.capabilities.maximumSize, 100_000)
        XCTAssertTrue(connection.capabilities.authMechanisms.contains("PLAIN"))
        XCTAssertFalse(connection.capabilities.supportsStartTLS, "asked again over TLS, where STARTTLS is not offered")
        try await connection.authenticate(.password(user: "alice", password: "alice-password"))

        let first = try message("first")
        let sent = try await connection.send(message: first.bytes, from: first.sender, to: first.recipients)
        XCTAssertEqual(sent.accepted.map(\.address), ["bob@example.com"])
        XCTAssertTrue(sent.finalReply.isPositiveCompletion)

        let nobody = try message("to nobody", to: ["nobody@example.com", "ghost@example.com"])
        do {
            _ = try await connection.send(message: nobody.bytes, from: nobody.sender, to: nobody.recipients)
            XCTFail("every recipient was refused")
        } catch {
            XCTAssertEqual(error.kind, .recipientsRejected)
            XCTAssertEqual(error.rejected.map(\.recipient.address), ["nobody@example.com", "ghost@example.com"])
            XCTAssertEqual(error.rejected.map(\.reply.enhancedCode?.description), ["5.1.1", "5.1.1"])
        }

        // The session is still usable: RSET ended the refused transaction.
        let reply = try message("Re: first", to: ["bob@example.com", "nobody@example.com"], inReplyTo: first.messageID,
                                references: [first.messageID])
        let partly = try await connection.send(message: reply.bytes, from: reply.sender, to: reply.recipients)
        XCTAssertEqual(partly.accepted.map(\.address), ["bob@example.com"])
        XCTAssertEqual(partly.rejected.map(\.recipient.address), ["nobody@example.com"])
        XCTAssertEqual(partly.rejected.first?.reply.code, 550)
        await connection.quit()
        XCTAssertEqual(connection.sentCommands.suffix(1), ["QUIT"])
        XCTAssertTrue(connection.sentCommands.contains("RSET"))

        XCTAssertEqual(try inboxCount("bob"), 2)
        let parsed = MIMEParser.parse(try XCTUnwrap(try delivered("<\(reply.messageID)>")))
        XCTAssertEqual(parsed.messageId, reply.messageID)
        XCTAssertEqual(parsed.inReplyTo, [first.messageID])
        XCTAssertEqual(parsed.references, [first.messageID])
        XCTAssertEqual(parsed.subject, "Re: first")
    }

    func testConcurrentSendsOnOneConnectionTakeTurns() async throws {
        let connection = try await SMTPConnection.connect(try configuration(.tls))
        try await connection.authenticate(.password(user: "alice", password: "alice-password"))
        let messages = try (0..<4).map { try message("concurrent \($0)") }
        try await withThrowingTaskGroup(of: SMTPSendResult.self) { group in
            for built in messages {
                group.addTask { try await connection.send(message: built.bytes, from: built.sender, to: built.recipients) }
            }
            for try await result in group {
                XCTAssertEqual(result.accepted.map(\.address), ["bob@example.com"])
            }
        }
        await connection.quit()
        XCTAssertEqual(try inboxCount("bob"), 4)
        for built in messages {
            XCTAssertNotNil(try delivered("<\(built.messageID)>"), built.messageID)
        }
    }

    func testAMessageOverTheServersSizeIsRefusedBeforeMailFrom() async throws {
        let connection = try await SMTPConnection.connect(try configuration())
        try await connection.authenticate(.password(user: "alice", password: "alice-password"))
        let big = try message("big", body: String(repeating: "0123456789abcdef\n", count: 7000))
        do {
            _ = try await connection.send(message: big.bytes, from: big.sender, to: big.recipients)
            XCTFail("over SIZE")
        } catch {
            XCTAssertEqual(error.kind, .messageTooLarge)
            XCTAssertTrue(error.message.contains("accepts at most 97.7 KB (100000 bytes)"), error.message)
        }
        XCTAssertFalse(connection.sentCommands.contains("MAIL FROM"))
        // And the session goes on.
        let small = try message("small")
        _ = try await connection.send(message: small.bytes, from: small.sender, to: small.recipients)
        await connection.quit()
        XCTAssertEqual(try inboxCount("bob"), 1)
    }

    func testAWrongPasswordIsAnAuthenticationFailureWithTheServersReply() async throws {
        let connection = try await SMTPConnection.connect(try configuration(.tls))
        do {
            try await connection.authenticate(.password(user: "alice", password: "wrong"))
            XCTFail("wrong password accepted")
        } catch {
            XCTAssertEqual(error.kind, .authenticationFailed)
            XCTAssertEqual(error.reply?.code, 535)
            XCTAssertTrue(error.description.contains("refused the login of alice"), error.description)
            XCTAssertFalse(error.description.contains("wrong"))
        }
        await connection.quit()
    }

    func testWithoutALoginTheServerRefusesTheSenderAndSaysWhy() async throws {
        let connection = try await SMTPConnection.connect(try configuration())
        let built = try message("no login")
        do {
            _ = try await connection.send(message: built.bytes, from: built.sender, to: built.recipients)
            XCTFail("sent without a login")
        } catch {
            XCTAssertEqual(error.kind, .senderRejected)
            XCTAssertTrue(error.message.contains("refused the sender alice@example.org; nothing was sent"), error.message)
        }
        await connection.quit()
    }

    func testNothingListensIsAConnectionFailureNamingTheServer() async throws {
        let port = try XCTUnwrap(server.submissionPort)
        server.stop()
        do {
            _ = try await SMTPConnection.connect(SMTPClientConfiguration(host: "127.0.0.1", port: port, security: .startTLS))
            XCTFail("connected to nothing")
        } catch {
            XCTAssertEqual(error.kind, .connectionFailed)
            XCTAssertTrue(error.message.contains("127.0.0.1:\(port)"), error.message)
        }
    }
}
