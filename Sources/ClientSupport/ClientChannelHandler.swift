import NIOCore
import NIOSSL

/// What a client's protocol layer gives the shared channel handler: the framing and parsing of its
/// responses, how its STARTTLS is answered, and its errors. The rest (the silence timer, STARTTLS's
/// switch, failures, the response queue) is `ClientChannelHandler`'s.
public protocol ClientDialect {
    /// One complete response (an IMAP response, an SMTP reply).
    associatedtype Response: Sendable
    associatedtype Failure: ClientError
    /// What tells the answer to STARTTLS (IMAP: its command's tag; SMTP: nothing, `Void`).
    associatedtype StartTLSKey: Sendable

    /// Added to TLS handshake failures (what to check, e.g. the port), nil for nothing.
    static var tlsHint: String? { get }

    /// Framing from the first byte; `endpoint` (`host:port`) is for messages.
    init(endpoint: String)

    /// Bytes read (never empty).
    mutating func append(_ bytes: [UInt8])

    /// The next complete response, nil when more bytes are needed; throws when the server broke
    /// the grammar (the message names the endpoint).
    mutating func nextResponse() throws(Failure) -> Response?

    /// Forgets the bytes buffered: STARTTLS's yes was read, what follows it was sent in clear.
    mutating func discardBuffered()

    /// Whether `response` answers the STARTTLS sent with `key`: nil when it does not, else whether TLS starts.
    static func answersStartTLS(_ response: Response, key: StartTLSKey) -> Bool?

    /// Every response, in order, before it is handed out (for the reason the server gives when it then closes).
    mutating func note(_ response: Response)

    /// The error when the server closed the connection (with its last words, when it gave any).
    func closedByServer() -> Failure
}

/// What a connection asks of its channel handler, written with `channel.writeAndFlush`.
public enum ClientOutbound<Key: Sendable>: Sendable {
    /// Writes bytes, then expects the server to speak within `responseTimeout` of silence (nil: no
    /// limit). `waitingFor` names the command for the timeout's message (never an argument).
    case send([UInt8], responseTimeout: TimeAmount?, waitingFor: String)
    /// Changes the response timeout without writing (nil: none, e.g. between commands or while idling).
    case setResponseTimeout(TimeAmount?, waitingFor: String)
    /// The response that answers `request.key` answers STARTTLS: when it says yes, everything received
    /// after it is dropped and TLS starts (a `NIOSSLClientHandler` at the front of the pipeline).
    case startTLS(StartTLSRequest<Key>)

    /// Stops the silence timer (between commands).
    public static var disarm: Self { .setResponseTimeout(nil, waitingFor: "") }
}

/// Cuts the server's bytes into responses (`Dialect`) and hands them to a `ClientResponseQueue`;
/// watches the silence timer on the event loop's clock; switches to TLS after STARTTLS's yes. Any
/// framing or grammar error, timeout or connection error ends the queue with the client's error
/// and closes the channel.
public final class ClientChannelHandler<Dialect: ClientDialect>: ChannelDuplexHandler {
    public typealias InboundIn = ByteBuffer
    public typealias OutboundIn = ClientOutbound<Dialect.StartTLSKey>
    public typealias OutboundOut = ByteBuffer
    public typealias Queue = ClientResponseQueue<Dialect.Response, Dialect.Failure>

    private let queue: Queue
    /// `host:port`, for messages.
    private let endpoint: String
    private var dialect: Dialect
    private var state = ClientChannelStateMachine<Dialect.StartTLSKey>()
    private var silence = SilenceTimer()
    /// The timeout armed when the channel becomes active, nil for none.
    private let greetingTimeout: TimeAmount?
    /// The silence timer's one scheduled check.
    private var check: Scheduled<Void>?

    /// Whether the silence timer runs now (read on the event loop; for tests that move a testing
    /// loop's clock only once the client has caught up with what it was sent).
    public var silenceTimerIsArmed: Bool {
        if case .armed = silence.state { return true }
        return false
    }

    /// - Parameter greetingTimeout: the silence allowed before the greeting, from when the channel is active.
    public init(queue: Queue, endpoint: String, greetingTimeout: TimeAmount? = nil) {
        self.queue = queue
        self.endpoint = endpoint
        self.dialect = Dialect(endpoint: endpoint)
        self.greetingTimeout = greetingTimeout
    }

    public func channelActive(context: ChannelHandlerContext) {
        armForGreeting(context: context)
        context.fireChannelActive()
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { armForGreeting(context: context) }
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
    }

    // MARK: Inbound

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !state.isFailed else { return }
        var buffer = unwrapInboundIn(data)
        silence.activity(now: context.eventLoop.now)
        guard let bytes = buffer.readBytes(length: buffer.readableBytes), !bytes.isEmpty else { return }
        dialect.append(bytes)
        while true {
            let response: Dialect.Response
            do {
                guard let next = try dialect.nextResponse() else { return }
                response = next
            } catch {
                fail(context, error)
                return
            }
            dialect.note(response)
            switch state.responseReceived(answersStartTLS: { Dialect.answersStartTLS(response, key: $0) }) {
            case .deliver:
                queue.push(response)
            case .startTLSAndDeliver(let tlsContext, let serverHostname):
                // Whatever came after the yes was sent before TLS: an injection, never read.
                dialect.discardBuffered()
                do {
                    try TLSClientContext.addHandler(to: context.pipeline.syncOperations, context: tlsContext, serverHostname: serverHostname)
                } catch {
                    fail(context, classify(error))
                    return
                }
                queue.push(response)
                return
            }
        }
    }

    public func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(context, classify(error))
    }

    public func channelInactive(context: ChannelHandlerContext) {
        fail(context, dialect.closedByServer(), close: false)
        context.fireChannelInactive()
    }

    // MARK: Outbound

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .send(let bytes, let responseTimeout, let waitingFor):
            guard !state.isFailed else {
                promise?.fail(queue.failure ?? Dialect.Failure(.connectionClosed, message: "the connection to \(endpoint) is closed"))
                return
            }
            arm(responseTimeout, waitingFor: waitingFor, context: context)
            // A large command or message going out is progress too: the silence counts from when it was written.
            let written = promise ?? context.eventLoop.makePromise()
            let eventLoop = context.eventLoop
            written.futureResult.assumeIsolated().whenSuccess { [self] in silence.activity(now: eventLoop.now) }
            context.write(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: written)
        case .setResponseTimeout(let responseTimeout, let waitingFor):
            arm(responseTimeout, waitingFor: waitingFor, context: context)
            promise?.succeed(())
        case .startTLS(let request):
            switch state.startTLSRequested(request) {
            case .awaitAnswer, .ignore:
                promise?.succeed(())
            case .refuse:
                promise?.fail(Dialect.Failure(.tlsFailed, message: "STARTTLS was asked again on \(endpoint), where it is under way or done"))
            }
        }
    }

    // MARK: Silence timer

    private func armForGreeting(context: ChannelHandlerContext) {
        guard let greetingTimeout, case .disarmed = silence.state else { return }
        arm(greetingTimeout, waitingFor: "waiting for the greeting", context: context)
    }

    private func arm(_ timeout: TimeAmount?, waitingFor: String, context: ChannelHandlerContext) {
        perform(silence.arm(timeout, waitingFor: waitingFor, now: context.eventLoop.now), context: context)
    }

    private func perform(_ action: SilenceTimer.Action, context: ChannelHandlerContext) {
        switch action {
        case .none:
            break
        case .cancel:
            check?.cancel()
            check = nil
        case .schedule(let deadline):
            check?.cancel()
            check = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
                check = nil
                perform(silence.fired(now: context.eventLoop.now), context: context)
            }
        case .expired(let timeout, let waitingFor):
            fail(context, Dialect.Failure(
                .timedOut,
                message: "the server \(endpoint) sent nothing for \(ConnectionFailure.seconds(timeout)) while \(waitingFor); the connection was closed"))
        }
    }

    // MARK: Failure

    private func fail(_ context: ChannelHandlerContext, _ error: Dialect.Failure, close: Bool = true) {
        guard state.failed() else { return }
        perform(silence.stop(), context: context)
        queue.fail(error)
        if close { context.close(promise: nil) }
    }

    private func classify(_ error: any Error) -> Dialect.Failure {
        ConnectionFailure.classify(error, endpoint: endpoint, tlsHint: Dialect.tlsHint)
    }
}
