import NIOCore
import NIOEmbedded
import NIOSSL
import SMTPProtocol
import XCTest
@testable import SMTPClient

/// The channel handler with bytes alone: replies framed across reads, STARTTLS that drops what
/// came in clear after the 220, the silence timer, and a server that breaks the grammar.
final class SMTPChannelHandlerTests: XCTestCase {
    private func connectedChannel(_ queue: SMTPReplyQueue, greetingTimeout: TimeAmount = .seconds(30)) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(handler: SMTPChannelHandler(queue: queue, endpoint: "test:587", greetingTimeout: greetingTimeout))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 587)).wait()
        return channel
    }

    func testRepliesAreTheSameForEveryChunking() throws {
        let stream = Array("220 mx ready\r\n250-mx\r\n250-SIZE 1000\r\n250 STARTTLS\r\n550 5.1.1 no\r\n".utf8)
        func replies(_ chunks: [[UInt8]]) throws -> [SMTPReply] {
            let queue = SMTPReplyQueue()
            let channel = try connectedChannel(queue)
            for chunk in chunks { try channel.writeInbound(ByteBuffer(bytes: chunk)) }
            XCTAssertNil(queue.failure)
            _ = try channel.finish()
            return queue.drainBuffered()
        }
        let whole = try replies([stream])
        XCTAssertEqual(whole.map(\.code), [220, 250, 550])
        XCTAssertEqual(whole[1].lines, ["mx", "SIZE 1000", "STARTTLS"])
        for cut in 0...stream.count {
            XCTAssertEqual(try replies([Array(stream[..<cut]), Array(stream[cut...])]), whole, "split at \(cut)")
        }
        XCTAssertEqual(try replies(stream.map { [$0] }), whole)
    }

    func testBytesAfterTheSTARTTLSReplyAreDropped() throws {
        let queue = SMTPReplyQueue()
        let channel = try connectedChannel(queue)
        let context = try TLSSetup.makeContext(SMTPClientConfiguration(host: "localhost", security: .startTLS))
        try channel.writeOutbound(SMTPOutbound.startTLS(context: context, serverHostname: "localhost"))
        try channel.writeOutbound(SMTPOutbound.send(Array("STARTTLS\r\n".utf8), responseTimeout: .seconds(30), waitingFor: "STARTTLS"))
        XCTAssertEqual(try channel.readOutbound(as: ByteBuffer.self), ByteBuffer(string: "STARTTLS\r\n"))
        // The injection: a forged EHLO answer in the same read as the 220.
        try channel.writeInbound(ByteBuffer(string: "220 2.0.0 Ready to start TLS\r\n250-forged\r\n250 AUTH PLAIN\r\n"))
        XCTAssertEqual(queue.drainBuffered(), [SMTPReply(code: 220, lines: ["2.0.0 Ready to start TLS"])])
        XCTAssertNil(queue.failure)
        _ = try channel.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self)
        let hello = try XCTUnwrap(try channel.readOutbound(as: ByteBuffer.self))
        XCTAssertEqual(hello.getInteger(at: hello.readerIndex, as: UInt8.self), 0x16, "a TLS handshake record went out")
        // Clear text after that goes to TLS, which refuses it: never read as SMTP.
        try channel.writeInbound(ByteBuffer(string: "250 forged again\r\n"))
        XCTAssertEqual(queue.drainBuffered(), [])
        XCTAssertEqual(queue.failure?.kind, .tlsFailed)
    }

    func testARefusedSTARTTLSStartsNoTLS() throws {
        let queue = SMTPReplyQueue()
        let channel = try connectedChannel(queue)
        let context = try TLSSetup.makeContext(SMTPClientConfiguration(host: "localhost", security: .startTLS))
        try channel.writeOutbound(SMTPOutbound.startTLS(context: context, serverHostname: "localhost"))
        try channel.writeInbound(ByteBuffer(string: "454 4.7.0 TLS not available\r\n"))
        XCTAssertEqual(queue.drainBuffered().map(\.code), [454])
        XCTAssertThrowsError(try channel.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self))
    }

    func testSilenceAfterACommandTimesOutAndSaysWhatItWaitedFor() throws {
        let queue = SMTPReplyQueue()
        let channel = try connectedChannel(queue)
        try channel.writeOutbound(SMTPOutbound.send(Array("DATA\r\n".utf8), responseTimeout: .seconds(5), waitingFor: "waiting for the reply to DATA"))
        channel.embeddedEventLoop.advanceTime(by: .seconds(3))
        try channel.writeInbound(ByteBuffer(string: "354 go"))  // a partial line is activity
        channel.embeddedEventLoop.advanceTime(by: .seconds(4))
        XCTAssertNil(queue.failure, "the silence counts from the last bytes")
        channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        XCTAssertEqual(queue.failure?.kind, .timedOut)
        XCTAssertEqual(queue.failure?.message,
                       "the server test:587 sent nothing for 5 s while waiting for the reply to DATA; the connection was closed")
        XCTAssertFalse(channel.isActive)
    }

    func testAGreetingThatNeverComesTimesOut() throws {
        let queue = SMTPReplyQueue()
        let channel = try connectedChannel(queue, greetingTimeout: .seconds(10))
        channel.embeddedEventLoop.advanceTime(by: .seconds(11))
        XCTAssertEqual(queue.failure?.kind, .timedOut)
        XCTAssertTrue(queue.failure?.message.contains("waiting for the greeting") == true)
    }

    func testDisarmedBetweenCommands() throws {
        let queue = SMTPReplyQueue()
        let channel = try connectedChannel(queue, greetingTimeout: .seconds(10))
        try channel.writeInbound(ByteBuffer(string: "220 ready\r\n"))
        try channel.writeOutbound(SMTPOutbound.disarm)
        channel.embeddedEventLoop.advanceTime(by: .seconds(3600))
        XCTAssertNil(queue.failure)
    }

    func testAReplyThatBreaksTheGrammarClosesTheConnection() throws {
        let queue = SMTPReplyQueue()
        let channel = try connectedChannel(queue)
        try channel.writeInbound(ByteBuffer(string: "220 ok\r\n* OK IMAP4rev1\r\n250 after\r\n"))
        XCTAssertEqual(queue.drainBuffered().map(\.code), [220])
        XCTAssertEqual(queue.failure?.kind, .protocolViolation)
        XCTAssertTrue(queue.failure?.message.contains("test:587") == true)
        XCTAssertFalse(channel.isActive)
    }

    func testTheSharedFailuresAreSMTPKindsOfTheSameName() {
        XCTAssertEqual(SMTPClientError(.connectionFailed, message: "m").kind, .connectionFailed)
        XCTAssertEqual(SMTPClientError(.tlsFailed, message: "m").kind, .tlsFailed)
        XCTAssertEqual(SMTPClientError(.certificateRejected, message: "m").kind, .certificateRejected)
        XCTAssertEqual(SMTPClientError(.timedOut, message: "m").kind, .timedOut)
        XCTAssertEqual(SMTPClientError(.connectionClosed, message: "m").kind, .connectionClosed)
        XCTAssertEqual(SMTPClientError(.protocolViolation, message: "m").kind, .protocolViolation)
        XCTAssertEqual(SMTPClientError(.cancelled, message: "m").kind, .cancelled)
    }

    func testAFailedConnectionFailsWhatIsWrittenAfterWithTheReason() throws {
        let queue = SMTPReplyQueue()
        let channel = try connectedChannel(queue)
        try channel.writeInbound(ByteBuffer(string: "220 ready\r\n"))
        channel.pipeline.fireChannelInactive()
        XCTAssertEqual(queue.drainBuffered().map(\.code), [220])
        XCTAssertEqual(queue.failure?.message, "the connection to test:587 was closed by the server")
        XCTAssertThrowsError(try channel.writeOutbound(SMTPOutbound.send(Array("EHLO x\r\n".utf8), responseTimeout: .seconds(5), waitingFor: "EHLO"))) {
            XCTAssertEqual(($0 as? SMTPClientError)?.kind, .connectionClosed)
        }
    }

    func testA421BeforeTheCloseIsTheReasonGiven() throws {
        let queue = SMTPReplyQueue()
        let channel = try connectedChannel(queue)
        try channel.writeInbound(ByteBuffer(string: "421 4.3.2 Service shutting down\r\n"))
        _ = queue.drainBuffered()
        channel.pipeline.fireChannelInactive()
        XCTAssertEqual(queue.failure?.kind, .connectionClosed)
        XCTAssertEqual(queue.failure?.reply?.code, 421)
        XCTAssertTrue(queue.failure?.description.contains("Service shutting down") == true)
    }
}
