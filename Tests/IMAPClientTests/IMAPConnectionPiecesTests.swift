import ClientSupport
import IMAPProtocol
import NIOCore
import NIOEmbedded
import NIOSSL
import XCTest
@testable import IMAPClient

/// `IMAPConnection` on a `NIOAsyncTestingChannel`, without a server: the test speaks for it, and
/// time is the testing event loop's, moved by hand. The greeting, a login, commands and their
/// tagged answers, IDLE, the silence timer, cancellation, and the connection ending mid-command.
final class IMAPConnectionPiecesTests: XCTestCase {
    private struct Harness {
        let connection: IMAPConnection
        let channel: NIOAsyncTestingChannel
        let queue: ResponseQueue

        func serverSends(_ text: String) async throws {
            try await channel.writeInbound(ByteBuffer(string: text))
        }

        /// The next bytes the client wrote.
        func clientSent() async throws -> String {
            String(buffer: try await channel.waitForOutboundWrite(as: ByteBuffer.self))
        }

        func advance(_ amount: TimeAmount) async {
            await channel.testingEventLoop.advanceTime(by: amount)
        }
    }

    private func harness(
        security: IMAPSecurity = .plaintext, responseTimeout: Duration = .seconds(30), tls: NIOSSLContext? = nil
    ) async throws -> Harness {
        let queue = ResponseQueue()
        let greetingTimeout = TimeAmount(responseTimeout)
        let channel = try await NIOAsyncTestingChannel { channel in
            try channel.pipeline.syncOperations.addHandler(IMAPChannelHandler(queue: queue, endpoint: "test:143", greetingTimeout: greetingTimeout))
        }
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 143)).get()
        let configuration = IMAPClientConfiguration(host: "test", port: 143, security: security, responseTimeout: responseTimeout, clientID: nil)
        let session = ClientConnection<IMAPDialect>(channel: channel, queue: queue, endpoint: configuration.endpoint,
                                                    startTLSContext: tls, serverHostname: "localhost")
        return Harness(connection: IMAPConnection(configuration: configuration, session: session), channel: channel, queue: queue)
    }

    /// A harness past the greeting.
    private func greeted(_ greeting: String = "* OK [CAPABILITY IMAP4rev1 IDLE LITERAL+] ready\r\n",
                         responseTimeout: Duration = .seconds(30)) async throws -> Harness {
        let h = try await harness(responseTimeout: responseTimeout)
        try await h.serverSends(greeting)
        try await h.connection.start()
        return h
    }

    /// What `body` threw (nil when it threw nothing, or not an `IMAPClientError`), checked to be of `kind`.
    private func expectError(_ kind: IMAPClientError.Kind, _ body: () async throws -> Void,
                             file: StaticString = #filePath, line: UInt = #line) async -> IMAPClientError? {
        let error: IMAPClientError? = await { () async -> IMAPClientError? in
            do { try await body() } catch { return error as? IMAPClientError }
            return nil
        }()
        XCTAssertEqual(error?.kind, kind, "\(String(describing: error))", file: file, line: line)
        return error
    }

    // MARK: Greeting and commands

    func testTheGreetingsCapabilitiesThenACommandWithALiteralAndItsTaggedAnswer() async throws {
        let h = try await greeted()
        XCTAssertEqual(h.connection.capabilities, [.imap4rev1, .idle, .literalPlus])
        XCTAssertEqual(h.connection.session.session.state, .notAuthenticated)

        let running = Task { try await h.connection.run(.noop) }
        let sent = try await h.clientSent()
        XCTAssertEqual(sent, "A1 NOOP\r\n")
        try await h.serverSends("* 1 FETCH (UID 7 BODY[] {5}\r\nhel")
        try await h.serverSends("lo)\r\n* 2 EXISTS\r\nA1 OK NOOP done\r\n")
        let response = try await running.value
        XCTAssertEqual(response.status, IMAPStatusResponse(status: .ok, text: "NOOP done"))
        XCTAssertEqual(response.untagged.count, 2)
        guard case .fetch(let fetch) = response.untagged.first else { return XCTFail("\(response.untagged)") }
        XCTAssertEqual(fetch.body(), Array("hello".utf8))
        XCTAssertEqual(h.connection.sentCommands, ["A1 NOOP (1 part)"])
        await h.connection.close()
    }

    func testAGreetingWithoutCapabilitiesAsksForThem() async throws {
        let h = try await harness()
        try await h.serverSends("* OK ready\r\n")
        let starting = Task { try await h.connection.start() }
        let sent = try await h.clientSent()
        XCTAssertEqual(sent, "A1 CAPABILITY\r\n")
        try await h.serverSends("* CAPABILITY IMAP4rev1 IDLE\r\nA1 OK done\r\n")
        try await starting.value
        XCTAssertEqual(h.connection.capabilities, [.imap4rev1, .idle])
        await h.connection.close()
    }

    func testAByeGreetingIsConnectionClosedWithTheServersWords() async throws {
        let h = try await harness()
        try await h.serverSends("* BYE [UNAVAILABLE] Too many connections\r\n")
        let error = await expectError(.connectionClosed) { try await h.connection.start() }
        XCTAssertEqual(error?.serverText, "Too many connections")
    }

    func testALoginMovesTheSessionToAuthenticatedAndASecondLoginSendsNothing() async throws {
        let h = try await greeted("* OK [CAPABILITY IMAP4rev1] ready\r\n")
        let login = Task { try await h.connection.login(.password(user: "alice", password: "secret")) }
        let sent = try await h.clientSent()
        XCTAssertTrue(sent.hasPrefix("A1 LOGIN "), sent)
        try await h.serverSends("A1 OK [CAPABILITY IMAP4rev1 IDLE] Logged in\r\n")
        try await login.value
        XCTAssertEqual(h.connection.session.session.state, .authenticated)
        XCTAssertEqual(h.connection.capabilities, [.imap4rev1, .idle])
        try await h.connection.login(.password(user: "alice", password: "secret"))
        let nothing = try await h.channel.readOutbound(as: ByteBuffer.self)
        XCTAssertNil(nothing)
        await h.connection.close()
        XCTAssertEqual(h.connection.session.session.state, .closed)
    }

    // MARK: The silence timer

    func testSilenceDuringACommandTimesOutAfterTheTimeoutAndNotBefore() async throws {
        let h = try await greeted()
        let running = Task { try await h.connection.run(.noop) }
        _ = try await h.clientSent()
        await h.advance(.seconds(29))
        XCTAssertNil(h.queue.failure, "not before the timeout")
        XCTAssertTrue(h.connection.isOpen)
        await h.advance(.seconds(1))
        let error = await expectError(.timedOut) { _ = try await running.value }
        XCTAssertEqual(error?.message, "the server test:143 sent nothing for 30 s while waiting for the answer to A1 NOOP; the connection was closed")
        XCTAssertFalse(h.connection.isOpen)
        await h.connection.logout()  // never throws, even now
    }

    func testAGreetingThatNeverComesTimesOut() async throws {
        let h = try await harness(responseTimeout: .seconds(10))
        let starting = Task { try await h.connection.start() }
        await h.advance(.seconds(10))
        let error = await expectError(.timedOut) { try await starting.value }
        XCTAssertEqual(error?.message, "the server test:143 sent nothing for 10 s while waiting for the greeting; the connection was closed")
    }

    func testIdleHasNoTimeoutAndEndsAtItsDurationOnTheEventLoopsClock() async throws {
        let h = try await greeted()
        let idling = Task { try await h.connection.idle(for: .seconds(600)) { _ in false } }
        let idle = try await h.clientSent()
        XCTAssertEqual(idle, "A1 IDLE\r\n")
        try await h.serverSends("+ idling\r\n* 5 EXISTS\r\n")
        // The clock moves only once the client has taken the `+` and stopped its silence timer (on a
        // busy machine the idle task may not have run yet; 100 s of the loop's clock would then fire it).
        let handler = try await h.channel.pipeline.handler(type: IMAPChannelHandler.self).get()
        let started = ContinuousClock.now
        while try await h.channel.testingEventLoop.submit({ handler.silenceTimerIsArmed }).get(),
              ContinuousClock.now - started < .seconds(10) {
            try await Task.sleep(for: .milliseconds(2))
        }
        // 100 s at a time: DONE comes once 600 s have passed since the `+`, never before, and the
        // response timeout (30 s) does not apply meanwhile.
        var elapsed: TimeAmount = .zero
        var done: ByteBuffer?
        for _ in 0..<200 where done == nil {
            await h.advance(.seconds(100))
            elapsed = elapsed + .seconds(100)
            try await Task.sleep(for: .milliseconds(5))
            done = try await h.channel.readOutbound(as: ByteBuffer.self)
        }
        XCTAssertEqual(done.map { String(buffer: $0) }, "DONE\r\n")
        XCTAssertGreaterThanOrEqual(elapsed, .seconds(600))
        XCTAssertNil(h.queue.failure)
        try await h.serverSends("A1 OK Idle completed\r\n")
        let responses = try await idling.value
        XCTAssertEqual(responses, [.exists(5)])
        await h.connection.close()
    }

    // MARK: The connection ending

    func testTheConnectionClosingMidCommandIsConnectionClosed() async throws {
        let h = try await greeted()
        let running = Task { try await h.connection.run(.uidFetch(IMAPSequenceSet(1...1), [.uid, .message])) }
        _ = try await h.clientSent()
        try await h.serverSends("* 1 FETCH (UID 1 BODY[] {100}\r\nonly part of it")
        try await h.channel.close()
        let error = await expectError(.connectionClosed) { _ = try await running.value }
        XCTAssertEqual(error?.message, "the connection to test:143 was closed")
        XCTAssertFalse(h.connection.isOpen)
        let next = await expectError(.connectionClosed) { _ = try await h.connection.run(.noop) }
        XCTAssertEqual(next?.message, "the connection to test:143 was closed")
    }

    func testAByeThenTheCloseGivesTheServersWords() async throws {
        let h = try await greeted()
        let running = Task { try await h.connection.run(.noop) }
        _ = try await h.clientSent()
        try await h.serverSends("* BYE Server shutting down\r\n")
        try await h.channel.close()
        let error = await expectError(.connectionClosed) { _ = try await running.value }
        XCTAssertEqual(error?.serverText, "Server shutting down")
    }

    func testACancelledCommandClosesTheConnection() async throws {
        let h = try await greeted()
        let running = Task { try await h.connection.run(.noop) }
        _ = try await h.clientSent()
        running.cancel()
        let error = await expectError(.cancelled) { _ = try await running.value }
        XCTAssertEqual(error?.message, "cancelled while waiting for A1 NOOP from test:143; the connection was closed")
        XCTAssertFalse(h.connection.isOpen)
        XCTAssertEqual(h.connection.session.session.state, .closed)
    }

    func testAProtocolViolationClosesTheConnection() async throws {
        let h = try await greeted()
        let running = Task { try await h.connection.run(.noop) }
        _ = try await h.clientSent()
        try await h.serverSends("Z9 OK not yours\r\n")
        let error = await expectError(.protocolViolation) { _ = try await running.value }
        XCTAssertTrue(error?.message.contains("answered a command that was not sent") == true, "\(String(describing: error))")
        XCTAssertFalse(h.connection.isOpen)
    }

    // MARK: STARTTLS

    func testSTARTTLSRefusalsNeverGoOnInClear() async throws {
        let preauth = try await harness(security: .startTLS)
        try await preauth.serverSends("* PREAUTH [CAPABILITY IMAP4rev1 STARTTLS] logged in already\r\n")
        let refused = await expectError(.tlsFailed) { try await preauth.connection.start() }
        XCTAssertTrue(refused?.message.contains("PREAUTH") == true, "\(String(describing: refused))")

        let none = try await harness(security: .startTLS)
        try await none.serverSends("* OK [CAPABILITY IMAP4rev1] no TLS here\r\n")
        let missing = await expectError(.tlsFailed) { try await none.connection.start() }
        XCTAssertTrue(missing?.message.contains("does not offer STARTTLS") == true, "\(String(describing: missing))")
    }

    func testSTARTTLSsOKStartsTLSBeforeTheNextCommand() async throws {
        let context = try TLSSetup.makeContext(IMAPClientConfiguration(host: "localhost", port: 143, security: .startTLS))
        let h = try await harness(security: .startTLS, tls: context)
        try await h.serverSends("* OK [CAPABILITY IMAP4rev1 STARTTLS] ready\r\n")
        let starting = Task { try await h.connection.start() }
        let sent = try await h.clientSent()
        XCTAssertEqual(sent, "A1 STARTTLS\r\n")
        XCTAssertEqual(h.connection.session.session.state, .upgradingToTLS)
        try await h.serverSends("A1 OK Begin TLS negotiation now\r\n* CAPABILITY IMAP4rev1 AUTH=PLAIN\r\n")
        // The ClientHello goes out; the CAPABILITY that follows waits for the handshake, never in clear.
        let hello = try await h.channel.waitForOutboundWrite(as: ByteBuffer.self)
        XCTAssertEqual(hello.getInteger(at: hello.readerIndex, as: UInt8.self), 0x16)
        try await h.channel.close()
        _ = await expectError(.connectionClosed) { try await starting.value }
        XCTAssertFalse(h.connection.capabilities.contains(.authPlain), "what came in clear after the OK is never read")
    }
}
