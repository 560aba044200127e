import ClientSupport
import NIOCore
import NIOSSL
import SMTPProtocol

/// The channel handler of an SMTP connection: the shared `ClientChannelHandler` (silence timer,
/// STARTTLS's switch, failures) with SMTP's reply framing.
typealias SMTPChannelHandler = ClientChannelHandler<SMTPDialect>

/// What `SMTPConnection` asks of its channel handler; STARTTLS's answer is the next reply, whatever it is.
typealias SMTPOutbound = ClientOutbound<Void>

/// The replies the channel handler read, in order, for the one task that consumes them.
typealias SMTPReplyQueue = ClientResponseQueue<SMTPReply, SMTPClientError>

extension ClientOutbound where Key == Void {
    /// The next reply answers STARTTLS: when it is 220, everything received after it is dropped
    /// and TLS starts.
    static func startTLS(context: NIOSSLContext, serverHostname: String?) -> Self {
        .startTLS(StartTLSRequest(key: (), context: context, serverHostname: serverHostname))
    }
}

/// SMTP for the shared channel handler: cuts the server's bytes into replies (`SMTPReplyFramer`);
/// STARTTLS is answered by the next reply (TLS starts on 220); a connection closed after a 421
/// gives the server's reply.
package struct SMTPDialect: ClientDialect {
    package typealias Response = SMTPReply
    package typealias Failure = SMTPClientError
    package typealias StartTLSKey = Void

    package static var tlsHint: String? { "check the port and --tls (465: implicit, 587: starttls)" }

    private let endpoint: String
    private var framer = SMTPReplyFramer()
    /// The last reply, for the message when the server then closes (a 421 says why).
    private var lastReply: SMTPReply?

    package init(endpoint: String) {
        self.endpoint = endpoint
    }

    package mutating func append(_ bytes: [UInt8]) {
        framer.append(bytes)
    }

    package mutating func nextResponse() throws(SMTPClientError) -> SMTPReply? {
        do {
            return try framer.nextReply()
        } catch {
            throw SMTPClientError(kind: .protocolViolation, message: "the server \(endpoint) broke SMTP's reply format: \(error.description)")
        }
    }

    package mutating func discardBuffered() {
        framer.reset()
    }

    package static func answersStartTLS(_ reply: SMTPReply, key: Void) -> Bool? {
        reply.code == 220
    }

    package mutating func note(_ reply: SMTPReply) {
        lastReply = reply
    }

    package func closedByServer() -> SMTPClientError {
        guard let lastReply, lastReply.code == 421 else {
            return SMTPClientError(kind: .connectionClosed, message: "the connection to \(endpoint) was closed by the server")
        }
        return SMTPClientError(kind: .connectionClosed, message: "the server \(endpoint) closed the connection (421)", reply: lastReply)
    }
}
