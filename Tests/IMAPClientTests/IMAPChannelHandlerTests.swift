import ClientSupport
import IMAPProtocol
import NIOCore
import NIOEmbedded
import NIOSSL
import XCTest
@testable import IMAPClient

/// The IMAP channel handler with bytes alone, on an `EmbeddedChannel` and its virtual clock:
/// responses framed across reads (literals included), the greeting and its timeout, a command and
/// its tagged answer, the silence timer, the connection closing mid-command, STARTTLS.
final class IMAPChannelHandlerTests: XCTestCase {
    private func connectedChannel(_ queue: ResponseQueue, greetingTimeout: TimeAmount? = nil) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(handler: IMAPChannelHandler(queue: queue, endpoint: "test:143", greetingTimeout: greetingTimeout))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 143)).wait()
        return channel
    }

    private func send(_ line: String, on channel: EmbeddedChannel, timeout: TimeAmount? = .seconds(5)) throws {
        try channel.writeOutbound(IMAPOutbound.send(Array(line.utf8), responseTimeout: timeout, waitingFor: "waiting for the answer to A1 FETCH"))
        XCTAssertEqual(try channel.readOutbound(as: ByteBuffer.self), ByteBuffer(string: line))
    }

    // MARK: Framing

    private static let transcript = Array([
        "* OK [CAPABILITY IMAP4rev1 LITERAL+ IDLE] ready\r\n",
        "* 3 FETCH (UID 9 FLAGS (\\Seen) BODY[] {14}\r\nHi\r\n{3}\r\nthere)\r\n",
        "* 4 FETCH (UID 10 BODY[] {0}\r\n)\r\n",
        "+ go ahead\r\n",
        "* LIST (\\HasNoChildren) \"/\" {5}\r\nA)B\"C\r\n",
        "A7 OK [READ-WRITE] done\r\n",
    ].joined().utf8)

    private func responses(of chunks: [[UInt8]]) throws -> [IMAPResponse] {
        let queue = ResponseQueue()
        let channel = try connectedChannel(queue)
        for chunk in chunks { try channel.writeInbound(ByteBuffer(bytes: chunk)) }
        XCTAssertNil(queue.failure)
        _ = try channel.finish()
        return queue.drainBuffered()
    }

    func testResponsesWithLiteralsAreTheSameForEveryChunking() throws {
        let bytes = Self.transcript
        let whole = try responses(of: [bytes])
        XCTAssertEqual(whole.count, 6)
        guard case .untagged(.fetch(let fetch)) = whole[1] else { return XCTFail("\(whole[1])") }
        XCTAssertEqual(fetch.body(), Array("Hi\r\n{3}\r\nthere".utf8), "a literal's bytes are data, even when they look like a literal")
        guard case .untagged(.fetch(let empty)) = whole[2] else { return XCTFail("\(whole[2])") }
        XCTAssertEqual(empty.body(), [])
        XCTAssertEqual(whole[3], .continuation("go ahead"))
        XCTAssertEqual(whole[5], .tagged(tag: "A7", IMAPStatusResponse(status: .ok, code: .readWrite, text: "done")))
        for cut in 0...bytes.count {
            XCTAssertEqual(try responses(of: [Array(bytes[..<cut]), Array(bytes[cut...])]), whole, "split at \(cut)")
        }
        XCTAssertEqual(try responses(of: bytes.map { [$0] }), whole)
    }

    func testAResponseThatCannotBeParsedSaysWhereAndCloses() throws {
        let queue = ResponseQueue()
        let channel = try connectedChannel(queue)
        try channel.writeInbound(ByteBuffer(string: "* 1 EXISTS\r\n)))) garbage\r\n* 2 EXISTS\r\n"))
        XCTAssertEqual(queue.drainBuffered(), [.untagged(.exists(1))])
        XCTAssertEqual(queue.failure?.kind, .protocolViolation)
        XCTAssertEqual(queue.failure?.message,
                       "the server test:143 sent a response that cannot be parsed (the 12-byte response ending near byte 26 of the stream, "
                           + "at its byte 0): expected a tag, '*' or '+' to start the response")
        XCTAssertFalse(channel.isActive)
    }

    // MARK: The greeting

    func testTheGreetingIsTheFirstResponse() throws {
        let queue = ResponseQueue()
        let channel = try connectedChannel(queue, greetingTimeout: .seconds(30))
        try channel.writeInbound(ByteBuffer(string: "* OK [CAPABILITY IMAP4rev1 STARTTLS] Dovecot ready.\r\n"))
        XCTAssertEqual(queue.drainBuffered(), [
            .untagged(.status(IMAPStatusResponse(status: .ok, code: .capability([.imap4rev1, .startTLS]), text: "Dovecot ready."))),
        ])
    }

    func testAGreetingThatNeverComesTimesOutOnTheEventLoopsClock() throws {
        let queue = ResponseQueue()
        let channel = try connectedChannel(queue, greetingTimeout: .seconds(10))
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        XCTAssertNil(queue.failure, "not before the timeout")
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        XCTAssertEqual(queue.failure?.kind, .timedOut)
        XCTAssertEqual(queue.failure?.message, "the server test:143 sent nothing for 10 s while waiting for the greeting; the connection was closed")
        XCTAssertFalse(channel.isActive)
    }

    // MARK: Commands

    func testATaggedResponseCompletesTheCommand() throws {
        let queue = ResponseQueue()
        let channel = try connectedChannel(queue)
        try send("A1 NOOP\r\n", on: channel)
        try channel.writeInbound(ByteBuffer(string: "* 3 EXISTS\r\n* 1 RECENT\r\nA1 OK NOOP completed\r\n"))
        XCTAssertEqual(queue.drainBuffered(), [
            .untagged(.exists(3)), .untagged(.recent(1)),
            .tagged(tag: "A1", IMAPStatusResponse(status: .ok, text: "NOOP completed")),
        ])
        XCTAssertNil(queue.failure)
    }

    func testTheSilenceCountsFromTheLastBytesOfALiteralAndExpiresExactlyThen() throws {
        let queue = ResponseQueue()
        let channel = try connectedChannel(queue)
        try send("A1 UID FETCH 1 BODY[]\r\n", on: channel)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(4999))
        XCTAssertNil(queue.failure, "not before the timeout")
        try channel.writeInbound(ByteBuffer(string: "* 1 FETCH (UID 1 BODY[] {20}\r\n"))
        for _ in 0..<10 {  // 2 bytes every 4 s: 40 s in all, 8 times the timeout
            channel.embeddedEventLoop.advanceTime(by: .seconds(4))
            try channel.writeInbound(ByteBuffer(string: "ab"))
        }
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(4999))
        XCTAssertNil(queue.failure, "a literal that keeps flowing never times out")
        XCTAssertEqual(queue.drainBuffered(), [], "the response is not complete yet")
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        XCTAssertEqual(queue.failure, IMAPClientError(
            kind: .timedOut, message: "the server test:143 sent nothing for 5 s while waiting for the answer to A1 FETCH; the connection was closed"))
        XCTAssertFalse(channel.isActive)
    }

    func testNoTimeoutWhileIdling() throws {
        let queue = ResponseQueue()
        let channel = try connectedChannel(queue)
        try send("A1 IDLE\r\n", on: channel)
        try channel.writeInbound(ByteBuffer(string: "+ idling\r\n"))
        try channel.writeOutbound(IMAPOutbound.setResponseTimeout(nil, waitingFor: ""))
        channel.embeddedEventLoop.advanceTime(by: .minutes(29))
        XCTAssertNil(queue.failure)
        try channel.writeInbound(ByteBuffer(string: "* 4 EXISTS\r\n"))
        XCTAssertEqual(queue.drainBuffered(), [.continuation("idling"), .untagged(.exists(4))])
    }

    // MARK: The connection ending

    func testTheConnectionClosedMidCommandIsConnectionClosed() throws {
        let queue = ResponseQueue()
        let channel = try connectedChannel(queue)
        try send("A1 UID FETCH 1 BODY[]\r\n", on: channel)
        try channel.writeInbound(ByteBuffer(string: "* 1 FETCH (UID 1 BODY[] {100}\r\nonly part of it"))
        channel.pipeline.fireChannelInactive()
        XCTAssertEqual(queue.drainBuffered(), [])
        XCTAssertEqual(queue.failure?.kind, .connectionClosed)
        XCTAssertEqual(queue.failure?.message, "the connection to test:143 was closed")
        XCTAssertNil(queue.failure?.serverText)
        // What is written after that fails with the reason.
        XCTAssertThrowsError(try channel.writeOutbound(IMAPOutbound.send(Array("A2 NOOP\r\n".utf8), responseTimeout: .seconds(5), waitingFor: "A2"))) {
            XCTAssertEqual(($0 as? IMAPClientError)?.message, "the connection to test:143 was closed")
        }
    }

    func testAByeBeforeTheCloseIsTheReasonGiven() throws {
        let queue = ResponseQueue()
        let channel = try connectedChannel(queue)
        try send("A1 NOOP\r\n", on: channel)
        try channel.writeInbound(ByteBuffer(string: "* BYE [UNAVAILABLE] Server shutting down\r\n"))
        _ = queue.drainBuffered()
        channel.pipeline.fireChannelInactive()
        XCTAssertEqual(queue.failure?.kind, .connectionClosed)
        XCTAssertEqual(queue.failure?.message, "the server test:143 ended the connection (BYE)")
        XCTAssertEqual(queue.failure?.serverText, "Server shutting down")
        XCTAssertEqual(queue.failure?.code, .other(name: "UNAVAILABLE", arguments: nil))
    }

    func testErrorsFromBelowAreClassified() throws {
        let queue = ResponseQueue()
        let channel = try connectedChannel(queue)
        channel.pipeline.fireErrorCaught(NIOSSLError.uncleanShutdown)
        XCTAssertEqual(queue.failure?.kind, .connectionClosed)
        XCTAssertEqual(queue.failure?.message, "the connection to test:143 was cut (TLS ended without its close)")
        XCTAssertFalse(channel.isActive)

        let reset = ResponseQueue()
        let second = try connectedChannel(reset)
        second.pipeline.fireErrorCaught(IOError(errnoCode: ECONNRESET, reason: "read"))
        XCTAssertEqual(reset.failure?.kind, .connectionClosed)
        XCTAssertTrue(reset.failure?.message.hasPrefix("the connection to test:143 failed: ") == true, "\(String(describing: reset.failure))")
    }

    // MARK: STARTTLS

    private func startTLSContext() throws -> NIOSSLContext {
        try TLSSetup.makeContext(IMAPClientConfiguration(host: "localhost", port: 143, security: .startTLS))
    }

    func testTLSStartsAtTheFrontAfterSTARTTLSsOKAndWhatCameInClearIsDropped() throws {
        let queue = ResponseQueue()
        let channel = try connectedChannel(queue)
        try channel.writeOutbound(IMAPOutbound.startTLS(tag: "A2", context: try startTLSContext(), serverHostname: "localhost"))
        try send("A2 STARTTLS\r\n", on: channel)
        XCTAssertThrowsError(try channel.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self), "no TLS before the answer")
        // Another tag's OK is not the answer; the injection after the answer is never read.
        try channel.writeInbound(ByteBuffer(string: "A1 OK late\r\nA2 OK Begin TLS negotiation now\r\n* CAPABILITY IMAP4rev1 AUTH=PLAIN\r\n"))
        XCTAssertEqual(queue.drainBuffered(), [
            .tagged(tag: "A1", IMAPStatusResponse(status: .ok, text: "late")),
            .tagged(tag: "A2", IMAPStatusResponse(status: .ok, text: "Begin TLS negotiation now")),
        ])
        XCTAssertNil(queue.failure)
        // TLS started in front of the IMAP handler: the first bytes out are its ClientHello (a handshake record).
        let hello = try XCTUnwrap(try channel.readOutbound(as: ByteBuffer.self))
        XCTAssertEqual(hello.getInteger(at: hello.readerIndex, as: UInt8.self), 0x16)
    }

    func testANoToSTARTTLSStartsNoTLS() throws {
        let queue = ResponseQueue()
        let channel = try connectedChannel(queue)
        try channel.writeOutbound(IMAPOutbound.startTLS(tag: "A2", context: try startTLSContext(), serverHostname: "localhost"))
        try channel.writeInbound(ByteBuffer(string: "A2 NO not now\r\n* 1 EXISTS\r\n"))
        XCTAssertEqual(queue.drainBuffered(), [.tagged(tag: "A2", IMAPStatusResponse(status: .no, text: "not now")), .untagged(.exists(1))])
        XCTAssertThrowsError(try channel.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self))
    }

    func testASecondSTARTTLSIsRefused() throws {
        let queue = ResponseQueue()
        let channel = try connectedChannel(queue)
        try channel.writeOutbound(IMAPOutbound.startTLS(tag: "A2", context: try startTLSContext(), serverHostname: "localhost"))
        XCTAssertThrowsError(try channel.writeOutbound(IMAPOutbound.startTLS(tag: "A3", context: try startTLSContext(), serverHostname: "localhost"))) {
            XCTAssertEqual(($0 as? IMAPClientError)?.kind, .tlsFailed)
        }
    }
}
