import ClientSupport
import IMAPProtocol
import NIOCore
import NIOSSL

/// What `IMAPConnection` asks of its channel handler, written with `channel.writeAndFlush`.
enum IMAPOutbound: Sendable {
    /// Writes bytes, then expects the server to speak within `responseTimeout` of silence
    /// (nil: no limit). `waitingFor` names the command for the timeout's message (safe to log).
    case send([UInt8], responseTimeout: TimeAmount?, waitingFor: String)
    /// Changes the response timeout without writing (nil: none, e.g. while idling or between commands).
    case setResponseTimeout(TimeAmount?, waitingFor: String)
    /// The next tagged response with `tag` answers STARTTLS: when it is OK, everything received
    /// after it is dropped and TLS starts (a `NIOSSLClientHandler` at the front of the pipeline).
    case startTLS(tag: String, context: NIOSSLContext, serverHostname: String?)
}

/// Cuts the server's bytes into responses (`IMAPResponseFramer`), parses them
/// (`IMAPResponseParser`) and hands them to a `ResponseQueue`; watches the response timeout;
/// switches to TLS after STARTTLS's OK. Any framing or parse error, timeout or connection error
/// ends the queue with an `IMAPClientError` and closes the channel.
final class IMAPChannelHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = IMAPOutbound
    typealias OutboundOut = ByteBuffer

    private let queue: ResponseQueue
    /// `host:port`, for messages.
    private let endpoint: String
    private var framer = IMAPResponseFramer()
    /// Bytes received since the connection (or TLS) started, for error offsets.
    private var received = 0
    private var failed = false
    private var pendingStartTLS: (tag: String, context: NIOSSLContext, serverHostname: String?)?
    /// The server's last `* BYE`, for the message when the connection then closes.
    private var bye: IMAPStatusResponse?

    private var timeout: TimeAmount?
    private var waitingFor = ""
    private var lastActivity = NIODeadline.now()
    private var timer: Scheduled<Void>?

    init(queue: ResponseQueue, endpoint: String) {
        self.queue = queue
        self.endpoint = endpoint
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        var buffer = unwrapInboundIn(data)
        lastActivity = .now()
        guard let bytes = buffer.readBytes(length: buffer.readableBytes), !bytes.isEmpty else { return }
        framer.append(bytes)
        received += bytes.count
        while true {
            let frame: [UInt8]
            do {
                guard let next = try framer.nextResponse() else { return }
                frame = next
            } catch {
                fail(context, IMAPClientError(kind: .protocolViolation, message: "the server \(endpoint) broke IMAP's framing: \(error.description)"))
                return
            }
            let response: IMAPResponse
            do {
                response = try IMAPResponseParser.parse(frame)
            } catch {
                let end = received - framer.bufferedByteCount
                fail(context, IMAPClientError(
                    kind: .protocolViolation,
                    message: "the server \(endpoint) sent a response that cannot be parsed (the \(frame.count)-byte response "
                        + "ending near byte \(end) of the stream, at its byte \(error.offset)): \(error.message)"))
                return
            }
            if case .untagged(.status(let status)) = response, status.status == .bye {
                bye = status
            }
            if let startTLS = pendingStartTLS, case .tagged(let tag, let status) = response, tag == startTLS.tag {
                pendingStartTLS = nil
                if status.status == .ok {
                    // Whatever came after the OK was sent before TLS: an injection, never read.
                    framer = IMAPResponseFramer()
                    received = 0
                    do {
                        let tls = try NIOSSLClientHandler(context: startTLS.context, serverHostname: startTLS.serverHostname)
                        try context.pipeline.syncOperations.addHandler(tls, position: .first)
                    } catch {
                        fail(context, IMAPChannelHandler.classify(error, endpoint: endpoint))
                        return
                    }
                    queue.push(response)
                    return
                }
            }
            queue.push(response)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(context, IMAPChannelHandler.classify(error, endpoint: endpoint))
    }

    func channelInactive(context: ChannelHandlerContext) {
        let error: IMAPClientError
        if let bye {
            error = IMAPClientError(kind: .connectionClosed, message: "the server \(endpoint) ended the connection (BYE)",
                                    serverText: bye.text, code: bye.code)
        } else {
            error = IMAPClientError(kind: .connectionClosed, message: "the connection to \(endpoint) was closed")
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
                promise?.fail(queue.failure ?? IMAPClientError(kind: .connectionClosed, message: "the connection to \(endpoint) is closed"))
                return
            }
            arm(responseTimeout, waitingFor: waitingFor, context: context)
            // A large APPEND going out is progress too: the silence is counted from when it was written.
            let written = promise ?? context.eventLoop.makePromise()
            written.futureResult.assumeIsolated().whenSuccess { [self] in lastActivity = .now() }
            context.write(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: written)
        case .setResponseTimeout(let responseTimeout, let waitingFor):
            if !failed { arm(responseTimeout, waitingFor: waitingFor, context: context) }
            promise?.succeed(())
        case .startTLS(let tag, let tlsContext, let serverHostname):
            pendingStartTLS = (tag, tlsContext, serverHostname)
            promise?.succeed(())
        }
    }

    // MARK: Timeout

    private func arm(_ responseTimeout: TimeAmount?, waitingFor: String, context: ChannelHandlerContext) {
        timeout = responseTimeout
        self.waitingFor = waitingFor
        lastActivity = .now()
        timer?.cancel()
        timer = nil
        if let responseTimeout { schedule(at: lastActivity + responseTimeout, context: context) }
    }

    private func schedule(at deadline: NIODeadline, context: ChannelHandlerContext) {
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            timerFired(context: context)
        }
    }

    /// Reads only record their time; the timer checks it when it fires, and waits again if bytes came since.
    private func timerFired(context: ChannelHandlerContext) {
        timer = nil
        guard let timeout, !failed else { return }
        let deadline = lastActivity + timeout
        if deadline > .now() {
            schedule(at: deadline, context: context)
            return
        }
        fail(context, IMAPClientError(
            kind: .timedOut,
            message: "the server \(endpoint) sent nothing for \(IMAPChannelHandler.seconds(timeout)) while \(waitingFor); the connection was closed"))
    }

    // MARK: Failure

    private func fail(_ context: ChannelHandlerContext, _ error: IMAPClientError, close: Bool = true) {
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

    /// An error from NIO or NIOSSL as an `IMAPClientError` (the messages of both carry no secrets).
    static func classify(_ error: any Error, endpoint: String) -> IMAPClientError {
        if let error = error as? IMAPClientError { return error }
        let failure = ConnectionFailure(error, endpoint: endpoint)
        switch failure.kind {
        case .certificateRejected: return IMAPClientError(kind: .certificateRejected, message: failure.message)
        case .tlsFailed: return IMAPClientError(kind: .tlsFailed, message: failure.message)
        case .connectionClosed: return IMAPClientError(kind: .connectionClosed, message: failure.message)
        }
    }
}
