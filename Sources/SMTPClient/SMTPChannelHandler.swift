import ClientSupport
import NIOCore
import NIOSSL
import SMTPProtocol

/// What `SMTPConnection` asks of its channel handler, written with `channel.writeAndFlush`.
enum SMTPOutbound: Sendable {
    /// Writes bytes, then expects the server to speak within `responseTimeout` of silence.
    /// `waitingFor` names the command for the timeout's message (never an argument).
    case send([UInt8], responseTimeout: TimeAmount, waitingFor: String)
    /// Stops the silence timer (between commands).
    case disarm
    /// The next reply answers STARTTLS: when it is 220, everything received after it is dropped
    /// and TLS starts (a `NIOSSLClientHandler` at the front of the pipeline).
    case startTLS(context: NIOSSLContext, serverHostname: String?)
}

/// Cuts the server's bytes into replies (`SMTPReplyFramer`) and hands them to an
/// `SMTPReplyQueue`; watches the response timeout; switches to TLS after STARTTLS's 220. A framing
/// error, a timeout or a connection error ends the queue with an `SMTPClientError` and closes the channel.
final class SMTPChannelHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = SMTPOutbound
    typealias OutboundOut = ByteBuffer

    private let queue: SMTPReplyQueue
    private let endpoint: String
    private var framer = SMTPReplyFramer()
    private var failed = false
    private var pendingStartTLS: (context: NIOSSLContext, serverHostname: String?)?
    /// The last reply, for the message when the server then closes (a 421 says why).
    private var lastReply: SMTPReply?

    private var timeout: TimeAmount?
    private var waitingFor = ""
    /// The event loop's time of the last bytes read or written (its clock: virtual in tests).
    private var lastActivity = NIODeadline.uptimeNanoseconds(0)
    private var timer: Scheduled<Void>?

    init(queue: SMTPReplyQueue, endpoint: String, greetingTimeout: TimeAmount) {
        self.queue = queue
        self.endpoint = endpoint
        self.timeout = greetingTimeout
        self.waitingFor = "waiting for the greeting"
    }

    func channelActive(context: ChannelHandlerContext) {
        if let timeout { arm(timeout, waitingFor: waitingFor, context: context) }
        context.fireChannelActive()
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive, let timeout { arm(timeout, waitingFor: waitingFor, context: context) }
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        var buffer = unwrapInboundIn(data)
        lastActivity = context.eventLoop.now
        guard let bytes = buffer.readBytes(length: buffer.readableBytes), !bytes.isEmpty else { return }
        framer.append(bytes)
        while true {
            let reply: SMTPReply
            do {
                guard let next = try framer.nextReply() else { return }
                reply = next
            } catch {
                fail(context, SMTPClientError(kind: .protocolViolation, message: "the server \(endpoint) broke SMTP's reply format: \(error.description)"))
                return
            }
            lastReply = reply
            if let startTLS = pendingStartTLS {
                pendingStartTLS = nil
                if reply.code == 220 {
                    // Whatever came after the 220 was sent before TLS: an injection, never read.
                    framer.reset()
                    do {
                        let tls = try NIOSSLClientHandler(context: startTLS.context, serverHostname: startTLS.serverHostname)
                        try context.pipeline.syncOperations.addHandler(tls, position: .first)
                    } catch {
                        fail(context, SMTPChannelHandler.classify(error, endpoint: endpoint))
                        return
                    }
                    queue.push(reply)
                    return
                }
            }
            queue.push(reply)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(context, SMTPChannelHandler.classify(error, endpoint: endpoint))
    }

    func channelInactive(context: ChannelHandlerContext) {
        let error: SMTPClientError
        if let lastReply, lastReply.code == 421 {
            error = SMTPClientError(kind: .connectionClosed, message: "the server \(endpoint) closed the connection (421)", reply: lastReply)
        } else {
            error = SMTPClientError(kind: .connectionClosed, message: "the connection to \(endpoint) was closed by the server")
        }
        fail(context, error, close: false)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    // MARK: Outbound

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .send(let bytes, let responseTimeout, let waitingFor):
            guard !failed else {
                promise?.fail(queue.failure ?? SMTPClientError(kind: .connectionClosed, message: "the connection to \(endpoint) is closed"))
                return
            }
            arm(responseTimeout, waitingFor: waitingFor, context: context)
            // A large message going out is progress too: the silence counts from when it was written.
            let written = promise ?? context.eventLoop.makePromise()
            let eventLoop = context.eventLoop
            written.futureResult.assumeIsolated().whenSuccess { [self] in lastActivity = eventLoop.now }
            context.write(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: written)
        case .disarm:
            timeout = nil
            timer?.cancel()
            timer = nil
            promise?.succeed(())
        case .startTLS(let tlsContext, let serverHostname):
            pendingStartTLS = (tlsContext, serverHostname)
            promise?.succeed(())
        }
    }

    // MARK: Timeout

    private func arm(_ responseTimeout: TimeAmount, waitingFor: String, context: ChannelHandlerContext) {
        timeout = responseTimeout
        self.waitingFor = waitingFor
        lastActivity = context.eventLoop.now
        timer?.cancel()
        schedule(at: lastActivity + responseTimeout, context: context)
    }

    private func schedule(at deadline: NIODeadline, context: ChannelHandlerContext) {
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            timerFired(context: context)
        }
    }

    private func timerFired(context: ChannelHandlerContext) {
        timer = nil
        guard let timeout, !failed else { return }
        let deadline = lastActivity + timeout
        if deadline > context.eventLoop.now {
            schedule(at: deadline, context: context)
            return
        }
        fail(context, SMTPClientError(
            kind: .timedOut,
            message: "the server \(endpoint) sent nothing for \(SMTPChannelHandler.seconds(timeout)) while \(waitingFor); the connection was closed"))
    }

    // MARK: Failure

    private func fail(_ context: ChannelHandlerContext, _ error: SMTPClientError, close: Bool = true) {
        guard !failed else { return }
        failed = true
        timeout = nil
        timer?.cancel()
        timer = nil
        queue.fail(error)
        if close { context.close(promise: nil) }
    }

    static func seconds(_ amount: TimeAmount) -> String {
        let seconds = Double(amount.nanoseconds) / 1e9
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }

    /// An error from NIO or NIOSSL as an `SMTPClientError` (the messages of both carry no secrets).
    static func classify(_ error: any Error, endpoint: String) -> SMTPClientError {
        if let error = error as? SMTPClientError { return error }
        let failure = ConnectionFailure(error, endpoint: endpoint, tlsHint: "check the port and --tls (465: implicit, 587: starttls)")
        switch failure.kind {
        case .certificateRejected: return SMTPClientError(kind: .certificateRejected, message: failure.message)
        case .tlsFailed: return SMTPClientError(kind: .tlsFailed, message: failure.message)
        case .connectionClosed: return SMTPClientError(kind: .connectionClosed, message: failure.message)
        }
    }
}
