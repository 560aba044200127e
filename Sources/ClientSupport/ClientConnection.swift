import MailModel
import NIOCore
import NIOPosix
import NIOSSL

/// Where and how a mail client connects.
public struct ClientTarget: Sendable {
    public enum Security: Sendable, Equatable {
        /// TLS from the first byte.
        case tls
        /// Plaintext, then STARTTLS before anything else.
        case startTLS
        /// No TLS at all.
        case plaintext
    }

    /// A host name, an IP address, or an IPv6 address in brackets.
    public var host: String
    public var port: Int
    public var security: Security
    /// A PEM file of extra trusted roots.
    public var caFile: String?
    public var connectTimeout: TimeAmount
    /// Added to the failures to connect (what to check, e.g. the host name and port); nil for nothing.
    public var connectHint: String?

    public init(host: String, port: Int, security: Security, caFile: String?, connectTimeout: TimeAmount, connectHint: String? = nil) {
        self.host = host
        self.port = port
        self.security = security
        self.caFile = caFile
        self.connectTimeout = connectTimeout
        self.connectHint = connectHint
    }

    /// `host:port`, for messages (IPv6 addresses in brackets).
    public static func endpoint(host: String, port: Int) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    public var endpoint: String { Self.endpoint(host: host, port: port) }

    /// The host to connect to: an IPv6 address without its brackets.
    var address: String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }
}

/// One connection's plumbing, what the IMAP and SMTP connections share: the channel (with a
/// `ClientChannelHandler` of the client's dialect), its response queue, one operation at a time
/// (`TaskGate`), the session's state (`ClientSessionStateMachine`), and the sent commands' names.
/// Every error is the client's own (`Dialect.Failure`).
public final class ClientConnection<Dialect: ClientDialect>: Sendable {
    public typealias Failure = Dialect.Failure
    public typealias Response = Dialect.Response
    public typealias Queue = ClientResponseQueue<Response, Failure>
    public typealias Outbound = ClientOutbound<Dialect.StartTLSKey>

    public let channel: any Channel
    public let queue: Queue
    /// `host:port`, for messages.
    public let endpoint: String
    /// The TLS to start after STARTTLS (nil unless the security is `.startTLS`), and the name it verifies.
    private let startTLSContext: NIOSSLContext?
    private let serverHostname: String?
    private let gate = TaskGate()
    private let locked = LockedBox(State())

    private struct State {
        var session = ClientSessionStateMachine()
        /// The last commands sent, names only (never arguments): for tests and debugging.
        var sent: [String] = []
    }

    /// A connection on a channel whose pipeline ends with a `ClientChannelHandler` on `queue`
    /// (`connect` makes both; tests give an embedded channel).
    public init(channel: any Channel, queue: Queue, endpoint: String, startTLSContext: NIOSSLContext? = nil, serverHostname: String? = nil) {
        self.channel = channel
        self.queue = queue
        self.endpoint = endpoint
        self.startTLSContext = startTLSContext
        self.serverHostname = serverHostname
    }

    deinit {
        // A connection dropped without close() must not keep its socket.
        channel.close(promise: nil)
    }

    // MARK: Connecting

    /// Connects within the connect timeout (TCP, and TLS at once for `.tls`), with the silence timer
    /// armed for the greeting (`greetingTimeout`), then runs `start` (the greeting, STARTTLS, …);
    /// when `start` throws, the connection is closed. The TLS context is made first: a CA file that
    /// cannot be read is `.tlsFailed` before any connection.
    public static func connect<Connection>(
        to target: ClientTarget, greetingTimeout: TimeAmount?, eventLoopGroup: any EventLoopGroup,
        start: (ClientConnection) async throws(Failure) -> Connection
    ) async throws(Failure) -> Connection {
        let endpoint = target.endpoint
        let tlsContext: NIOSSLContext? = target.security == .plaintext ? nil : try TLSClientContext.make(caFile: target.caFile, endpoint: endpoint, as: Failure.self)
        let host = target.address
        let serverHostname = TLSClientContext.serverHostname(for: host)
        let implicitTLS = target.security == .tls ? tlsContext : nil
        let queue = Queue()
        let bootstrap = ClientBootstrap(group: eventLoopGroup)
            .connectTimeout(target.connectTimeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if let implicitTLS {
                        try TLSClientContext.addHandler(to: pipeline, context: implicitTLS, serverHostname: serverHostname)
                    }
                    try pipeline.addHandler(ClientChannelHandler<Dialect>(queue: queue, endpoint: endpoint, greetingTimeout: greetingTimeout))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: host, port: target.port).get()
        } catch {
            throw ConnectionFailure(connecting: error, endpoint: endpoint, connectTimeout: target.connectTimeout,
                                    tlsHint: Dialect.tlsHint, hint: target.connectHint).error(as: Failure.self)
        }
        if isSelfConnection(channel) {
            // A port of this machine with no server on it, in the range the kernel hands out for
            // outgoing connections, can be given as this connection's own port: TCP then connects
            // the socket to itself, and the greeting never comes. Nobody listens there: refused.
            try? await channel.close()
            throw Failure(.connectionFailed, message: "cannot connect to \(endpoint): nothing listens there (Connection refused)"
                          + (target.connectHint.map { "; " + $0 } ?? ""))
        }
        let connection = ClientConnection(channel: channel, queue: queue, endpoint: endpoint,
                                          startTLSContext: target.security == .startTLS ? tlsContext : nil, serverHostname: serverHostname)
        do {
            return try await start(connection)
        } catch {
            await connection.close()
            throw error
        }
    }

    // MARK: State

    /// The session's state now.
    public var session: ClientSessionStateMachine { locked.withLockedValue { $0.session } }

    /// Logged in (or greeted with IMAP's PREAUTH).
    public var isAuthenticated: Bool { session.isAuthenticated }

    /// Runs a transition of the session's state machine.
    @discardableResult
    public func transition<T>(_ body: (inout ClientSessionStateMachine) -> T) -> T {
        locked.withLockedValue { body(&$0.session) }
    }

    /// False once the connection is closed, by either side, or failed.
    public var isOpen: Bool {
        channel.isActive && queue.failure == nil && !session.isClosed
    }

    /// Throws why the connection ended, if it has.
    public func checkOpen() throws(Failure) {
        if let failure = queue.failure { throw failure }
    }

    /// Records a command sent (its name only: safe to log); the last 50 are kept.
    public func record(_ name: String) {
        locked.withLockedValue { state in
            state.sent.append(name)
            if state.sent.count > 50 { state.sent.removeFirst() }
        }
    }

    /// The last commands sent (at most 50), names only.
    public var sentCommands: [String] { locked.withLockedValue { $0.sent } }

    // MARK: One operation at a time

    /// Runs `body` when the operations asked before it are done.
    public func withGate<T>(_ body: () async throws(Failure) -> T) async throws(Failure) -> T {
        guard await gate.acquire() else {
            throw Failure(.cancelled, message: "cancelled while waiting for an earlier command on \(endpoint) to finish")
        }
        defer { gate.release() }
        return try await body()
    }

    /// The end of a session: `farewell` (LOGOUT, QUIT: best effort, bounded by its own timeout) when
    /// the connection is open and no other operation is under way, then close. When one is, closes at
    /// once (that operation then fails with `.connectionClosed`).
    public func finish(_ farewell: () async -> Void) async {
        if isOpen, gate.tryAcquire() {
            await farewell()
            gate.release()
        }
        await close()
    }

    /// Closes the connection now. Idempotent; an operation under way fails with `.connectionClosed`.
    public func close() async {
        let action = transition { $0.closeRequested() }
        queue.fail(Failure(.connectionClosed, message: "the connection to \(endpoint) was closed by the client"))
        guard action == .closeChannel else { return }
        channel.close(promise: nil)  // fails only when already closed, which is what was asked
        do {
            try await channel.closeFuture.get()
        } catch {
            // closeFuture never fails.
        }
    }

    // MARK: Writing and reading

    /// Writes bytes, then expects the server within `responseTimeout` of silence (nil: no limit).
    public func send(_ bytes: [UInt8], responseTimeout: TimeAmount?, waitingFor: String) async throws(Failure) {
        try await write(.send(bytes, responseTimeout: responseTimeout, waitingFor: waitingFor))
    }

    /// Stops the silence timer. Needs no round trip: writes reach the handler in order, and on a
    /// closed channel there is nothing left to disarm.
    public func disarm() {
        channel.write(Outbound.disarm, promise: nil)
    }

    /// The next response that answers `key` answers STARTTLS: on its yes, TLS starts before
    /// anything after it is read. Send STARTTLS after this.
    public func requestStartTLS(key: Dialect.StartTLSKey) async throws(Failure) {
        guard let startTLSContext, transition({ $0.startTLSRequested() }) == .send else {
            throw Failure(.tlsFailed, message: "cannot start TLS with \(endpoint) now (\(session.state))")
        }
        try await write(.startTLS(StartTLSRequest(key: key, context: startTLSContext, serverHostname: serverHostname)))
    }

    public func write(_ message: Outbound) async throws(Failure) {
        do {
            try await channel.writeAndFlush(message).get()
        } catch {
            throw queue.failure ?? classify(error)
        }
    }

    /// The next response; cancellation closes the connection (a command is under way) and throws `.cancelled`.
    public func next(waitingFor: String) async throws(Failure) -> Response {
        switch try await queue.next(on: channel.eventLoop, cancellable: true) {
        case .response(let response):
            return response
        case .cancelled, .deadline:
            throw await abandon(Failure(.cancelled, message: "cancelled while waiting for \(waitingFor) from \(endpoint); the connection was closed"))
        }
    }

    /// The connection cannot go on (the server broke the protocol, the task was cancelled mid-command):
    /// the queue ends with `error`, the connection closes; returns `error` to throw.
    public func abandon(_ error: Failure) async -> Failure {
        queue.fail(error)
        await close()
        return error
    }

    /// An error from NIO or NIOSSL as the client's error.
    public func classify(_ error: any Error) -> Failure {
        ConnectionFailure.classify(error, endpoint: endpoint, tlsHint: Dialect.tlsHint)
    }
}

/// A client's configuration, as far as connecting goes.
package protocol MailClientConfiguration: Sendable {
    var target: ClientTarget { get }
    /// The longest silence while a response is awaited; the greeting's too.
    var responseTimeout: Duration { get }
}

/// A client's connection on a `ClientConnection` (`IMAPConnection`, `SMTPConnection`): what `open`
/// needs to make one and bring it to where it is usable. `package`: none of it is the clients' API.
package protocol MailClientConnection: Sendable {
    associatedtype Dialect: ClientDialect
    associatedtype Configuration: MailClientConfiguration

    init(configuration: Configuration, session: ClientConnection<Dialect>)

    /// The greeting, and what the session needs before it is usable (STARTTLS, EHLO, capabilities).
    func start() async throws(Dialect.Failure)
}

extension MailClientConnection {
    /// Connects (the greeting timed like any response), then `start`; the connection is closed
    /// when `start` throws.
    package static func open(_ configuration: Configuration, eventLoopGroup: any EventLoopGroup) async throws(Dialect.Failure) -> Self {
        try await ClientConnection<Dialect>.connect(
            to: configuration.target, greetingTimeout: TimeAmount(configuration.responseTimeout), eventLoopGroup: eventLoopGroup
        ) { session async throws(Dialect.Failure) in
            let connection = Self(configuration: configuration, session: session)
            try await connection.start()
            return connection
        }
    }
}

/// Whether the channel's local and remote ends are the same address and port: a TCP
/// self-connection (a connect to a port of this machine nobody listens on, given as its own port).
func isSelfConnection(_ channel: any Channel) -> Bool {
    guard let local = channel.localAddress, let remote = channel.remoteAddress else { return false }
    return local == remote
}
