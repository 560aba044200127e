@testable import ClientSupport
import NIOCore
import NIOPosix
import NIOEmbedded
import NIOSSL
import XCTest
@testable import IMAPClient

/// What the IMAP and SMTP clients share, on its own: the state machines (pure), the response queue
/// on an embedded event loop, failure classification, and the error kinds by name.
final class ClientSupportTests: XCTestCase {
    private static let t0 = NIODeadline.uptimeNanoseconds(1_000_000_000)

    // MARK: Self-connection

    /// A socket bound to a free port and connected to that same port is connected to itself (TCP's
    /// simultaneous open): what a client's connect to a local port nobody listens on can get when
    /// the kernel picks that port as its own. Such a connection is told apart, and a normal one is not.
    func testASocketConnectedToItselfIsToldApart() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let probe = try await ServerBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get()
        let port = probe.localAddress!.port!
        try await probe.close()
        let address = try SocketAddress(ipAddress: "127.0.0.1", port: port)
        let selfConnected = try await ClientBootstrap(group: group)
            .channelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .bind(to: address).connect(to: address).get()
        XCTAssertTrue(isSelfConnection(selfConnected))
        try await selfConnected.close()

        let server = try await ServerBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get()
        let normal = try await ClientBootstrap(group: group).connect(to: server.localAddress!).get()
        XCTAssertFalse(isSelfConnection(normal))
        try await normal.close()
        try await server.close()
    }

    /// A server that closes the connection in the middle of the TLS handshake (it stopped, or is
    /// restarting) is a cut connection, worth another attempt, not a TLS setting to change.
    func testAServerThatHangsUpDuringTheTLSHandshakeIsAClosedConnection() async throws {
        final class HangUp: ChannelInboundHandler, Sendable {
            typealias InboundIn = ByteBuffer
            func channelRead(context: ChannelHandlerContext, data: NIOAny) { context.close(promise: nil) }
        }
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { $0.pipeline.addHandler(HangUp()) }
            .bind(host: "127.0.0.1", port: 0).get()
        defer { server.close(promise: nil) }
        do {
            _ = try await IMAPConnection.connect(IMAPClientConfiguration(host: "127.0.0.1", port: server.localAddress!.port!, security: .tls,
                                                                         responseTimeout: .seconds(10)))
            XCTFail("connected to a server that hung up")
        } catch {
            let failure = try XCTUnwrap(error as? IMAPClientError)
            XCTAssertEqual(failure.kind, .connectionClosed, failure.message)
        }
    }

    // MARK: SilenceTimer

    func testSilenceTimerSchedulesOnArmAndExpiresOnlyAfterTheTimeoutOfSilence() {
        var timer = SilenceTimer()
        XCTAssertEqual(timer.arm(.seconds(5), waitingFor: "the answer", now: Self.t0), .schedule(at: Self.t0 + .seconds(5)))
        // Bytes at +3 s: the check at +5 s waits again, until +8 s.
        timer.activity(now: Self.t0 + .seconds(3))
        XCTAssertEqual(timer.fired(now: Self.t0 + .seconds(5)), .schedule(at: Self.t0 + .seconds(8)))
        XCTAssertEqual(timer.fired(now: Self.t0 + .seconds(8)), .expired(timeout: .seconds(5), waitingFor: "the answer"))
        XCTAssertEqual(timer.state, .stopped)
        // Stopped for good: neither armed again nor expired twice.
        XCTAssertEqual(timer.arm(.seconds(5), waitingFor: "more", now: Self.t0 + .seconds(9)), .none)
        XCTAssertEqual(timer.fired(now: Self.t0 + .seconds(20)), .none)
    }

    func testSilenceTimerDisarmedIgnoresActivityAndChecks() {
        var timer = SilenceTimer()
        _ = timer.arm(.seconds(5), waitingFor: "x", now: Self.t0)
        XCTAssertEqual(timer.arm(nil, waitingFor: "", now: Self.t0 + .seconds(1)), .cancel)
        timer.activity(now: Self.t0 + .seconds(2))
        XCTAssertEqual(timer.state, .disarmed)
        XCTAssertEqual(timer.fired(now: Self.t0 + .seconds(60)), .none, "a check that fires late changes nothing")
        XCTAssertEqual(timer.stop(), .cancel)
        XCTAssertEqual(timer.state, .stopped)
    }

    // MARK: ClientSessionStateMachine

    func testSessionGreetingLoginAndClose() {
        var session = ClientSessionStateMachine()
        XCTAssertEqual(session.state, .awaitingGreeting)
        XCTAssertEqual(session.startTLSRequested(), .refuseOutOfOrder, "not before the greeting")
        session.authenticated()
        XCTAssertEqual(session.state, .awaitingGreeting, "no login before the greeting")
        session.greeted(preauthenticated: false)
        XCTAssertEqual(session.state, .notAuthenticated)
        session.authenticated()
        XCTAssertTrue(session.isAuthenticated)
        XCTAssertEqual(session.startTLSRequested(), .refuseAuthenticated)
        XCTAssertEqual(session.closeRequested(), .closeChannel)
        XCTAssertEqual(session.closeRequested(), .none, "only the first close closes the channel")
        session.greeted(preauthenticated: false)
        session.authenticated()
        XCTAssertEqual(session.state, .closed, "closed is for good")
    }

    func testSessionSTARTTLSUpgrade() {
        var session = ClientSessionStateMachine()
        session.greeted(preauthenticated: false)
        XCTAssertEqual(session.startTLSRequested(), .send)
        XCTAssertEqual(session.state, .upgradingToTLS)
        XCTAssertEqual(session.startTLSRequested(), .refuseOutOfOrder, "one upgrade at a time")
        session.authenticated()
        XCTAssertEqual(session.state, .upgradingToTLS, "no login during the upgrade")
        session.tlsStarted()
        XCTAssertEqual(session.state, .notAuthenticated)

        var preauth = ClientSessionStateMachine()
        preauth.greeted(preauthenticated: true)
        XCTAssertEqual(preauth.state, .authenticated)
        XCTAssertEqual(preauth.startTLSRequested(), .refuseAuthenticated)
    }

    // MARK: ClientChannelStateMachine

    private func request(_ key: String) throws -> StartTLSRequest<String> {
        StartTLSRequest(key: key, context: try TLSClientContext.make(caFile: nil, endpoint: "test:143", as: IMAPClientError.self),
                        serverHostname: "test")
    }

    func testChannelStartsTLSOnlyOnTheAnswersYes() throws {
        var machine = ClientChannelStateMachine<String>()
        guard case .awaitAnswer = machine.startTLSRequested(try request("A2")) else { return XCTFail() }
        // Not the answer: delivered, still waiting.
        guard case .deliver = machine.responseReceived(answersStartTLS: { _ in nil }) else { return XCTFail() }
        guard case .awaitingStartTLSAnswer(let pending) = machine.state, pending.key == "A2" else { return XCTFail("\(machine.state)") }
        // The yes.
        guard case .startTLSAndDeliver(_, let hostname) = machine.responseReceived(answersStartTLS: { $0 == "A2" ? true : nil }) else {
            return XCTFail()
        }
        XCTAssertEqual(hostname, "test")
        guard case .upgradedToTLS = machine.state else { return XCTFail("\(machine.state)") }
        guard case .refuse = machine.startTLSRequested(try request("A3")) else { return XCTFail("no second upgrade") }
        guard case .deliver = machine.responseReceived(answersStartTLS: { _ in true }) else { return XCTFail("nothing pending any more") }
    }

    func testChannelANoStartsNoTLSAndTheFirstFailureWins() throws {
        var machine = ClientChannelStateMachine<String>()
        _ = machine.startTLSRequested(try request("A2"))
        guard case .deliver = machine.responseReceived(answersStartTLS: { _ in false }) else { return XCTFail() }
        guard case .reading = machine.state else { return XCTFail("\(machine.state)") }
        XCTAssertTrue(machine.failed())
        XCTAssertFalse(machine.failed())
        XCTAssertTrue(machine.isFailed)
        guard case .ignore = machine.startTLSRequested(try request("A3")) else { return XCTFail() }
    }

    // MARK: ClientResponseQueue

    func testQueueHandsOutBufferedResponsesBeforeTheFailure() async throws {
        let loop = NIOAsyncTestingEventLoop()
        let queue = ClientResponseQueue<Int, IMAPClientError>()
        queue.push(1)
        queue.push(2)
        queue.fail(IMAPClientError(kind: .connectionClosed, message: "first"))
        queue.fail(IMAPClientError(kind: .timedOut, message: "second"))
        queue.push(3)  // after the failure: dropped
        let first = try await queue.next(on: loop)
        let second = try await queue.next(on: loop)
        XCTAssertEqual([first, second], [.response(1), .response(2)])
        do {
            _ = try await queue.next(on: loop)
            XCTFail("the failure comes after the buffer")
        } catch {
            XCTAssertEqual(error.message, "first", "the first failure wins")
        }
        await loop.shutdownGracefully()
    }

    func testQueueDeadlineIsOnTheEventLoopsClock() async throws {
        let loop = NIOAsyncTestingEventLoop()
        let queue = ClientResponseQueue<Int, IMAPClientError>()
        let deadline = loop.now + .seconds(60)
        let waiting = Task { try await queue.next(deadline: deadline, on: loop) }
        await loop.advanceTime(by: .seconds(59))
        queue.push(7)
        let wait = try await waiting.value
        XCTAssertEqual(wait, .response(7), "not before the deadline")
        let late = Task { try await queue.next(deadline: loop.now + .seconds(60), on: loop) }
        try await Task.sleep(for: .milliseconds(20))
        await loop.advanceTime(by: .seconds(60))
        let expired = try await late.value
        XCTAssertEqual(expired, .deadline)
        queue.push(8)
        let kept = try await queue.next(on: loop)
        XCTAssertEqual(kept, .response(8), "nothing is lost to a deadline")
        await loop.shutdownGracefully()
    }

    func testQueueCancellationEndsOnlyACancellableWait() async throws {
        let loop = NIOAsyncTestingEventLoop()
        let queue = ClientResponseQueue<Int, IMAPClientError>()
        let cancellable = Task { try await queue.next(on: loop, cancellable: true) }
        cancellable.cancel()
        let cancelled = try await cancellable.value
        XCTAssertEqual(cancelled, .cancelled)

        let stubborn = Task { try await queue.next(on: loop, cancellable: false) }
        stubborn.cancel()
        try await Task.sleep(for: .milliseconds(20))
        queue.push(9)
        let answered = try await stubborn.value
        XCTAssertEqual(answered, .response(9))
        await loop.shutdownGracefully()
    }

    // MARK: Failures

    func testConnectFailuresInWords() {
        let timeout = ConnectionFailure(connecting: ChannelError.connectTimeout(.seconds(15)), endpoint: "mx:587",
                                        connectTimeout: .seconds(15), hint: "check the host name and port")
        XCTAssertEqual(timeout, ConnectionFailure(kind: .timedOut, message: "cannot connect to mx:587 within 15 s; check the host name and port"))

        let refused = ConnectionFailure(connecting: IOError(errnoCode: ECONNREFUSED, reason: "connect"), endpoint: "mx:143",
                                        connectTimeout: .seconds(15))
        XCTAssertEqual(refused, ConnectionFailure(kind: .connectionFailed, message: "cannot connect to mx:143: Connection refused"))

        let tls = ConnectionFailure(connecting: NIOSSLError.handshakeFailed(.sslError([])), endpoint: "mx:465",
                                    connectTimeout: .seconds(15), tlsHint: "check the port")
        XCTAssertEqual(tls.kind, .tlsFailed)
        XCTAssertTrue(tls.message.hasPrefix("the TLS handshake with mx:465 failed: "), tls.message)
        XCTAssertTrue(tls.message.hasSuffix("; check the port"), tls.message)

        XCTAssertEqual(ConnectionFailure.seconds(.milliseconds(1500)), "1.5 s")
        XCTAssertEqual(ConnectionFailure.seconds(.seconds(60)), "60 s")
    }

    func testClassifyKeepsTheClientsOwnErrorsAndMapsTheRest() {
        let own = IMAPClientError(kind: .protocolViolation, message: "own")
        let kept: IMAPClientError = ConnectionFailure.classify(own, endpoint: "mx:143")
        XCTAssertEqual(kept, own)
        let cut: IMAPClientError = ConnectionFailure.classify(NIOSSLError.uncleanShutdown, endpoint: "mx:143")
        XCTAssertEqual(cut, IMAPClientError(kind: .connectionClosed, message: "the connection to mx:143 was cut (TLS ended without its close)"))
        let hostname: IMAPClientError = ConnectionFailure.classify(NIOSSLExtraError.failedToValidateHostname, endpoint: "mx:993")
        XCTAssertEqual(hostname.kind, .certificateRejected)
    }

    func testEveryFailureKindIsAnIMAPKindOfTheSameName() {
        for kind in ClientFailureKind.allCases {
            let error = IMAPClientError(kind, message: "m")
            XCTAssertEqual(error.kind.description, kind.rawValue)
            XCTAssertEqual(error.message, "m")
        }
        XCTAssertEqual(IMAPClientError(.timedOut, message: "m").kind, .timedOut)
        XCTAssertEqual(IMAPClientError(.certificateRejected, message: "m").kind, .certificateRejected)
    }

    func testACAFileThatCannotBeReadIsTLSFailed() {
        XCTAssertThrowsError(try TLSClientContext.make(caFile: "/nonexistent/ca.pem", endpoint: "mx:993", as: IMAPClientError.self)) {
            XCTAssertEqual(($0 as? IMAPClientError)?.kind, .tlsFailed)
            XCTAssertTrue(($0 as? IMAPClientError)?.message.hasPrefix("cannot read the CA file /nonexistent/ca.pem") == true)
        }
    }

    func testEndpointsPutIPv6InBrackets() {
        XCTAssertEqual(ClientTarget.endpoint(host: "::1", port: 993), "[::1]:993")
        XCTAssertEqual(ClientTarget.endpoint(host: "[::1]", port: 993), "[::1]:993")
        XCTAssertEqual(ClientTarget.endpoint(host: "mail.example.com", port: 587), "mail.example.com:587")
    }
}
