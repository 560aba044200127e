import ClientSupport
import IMAPProtocol
import NIOCore
import NIOSSL

/// The channel handler of an IMAP connection: the shared `ClientChannelHandler` (silence timer,
/// STARTTLS's switch, failures) with IMAP's framing and parsing.
typealias IMAPChannelHandler = ClientChannelHandler<IMAPDialect>

/// What `IMAPConnection` asks of its channel handler; STARTTLS's answer is the tagged response with its tag.
typealias IMAPOutbound = ClientOutbound<String>

/// The responses the channel handler read, in order, for the one task that consumes them.
typealias ResponseQueue = ClientResponseQueue<IMAPResponse, IMAPClientError>

extension ClientOutbound where Key == String {
    /// The next tagged response with `tag` answers STARTTLS: when it is OK, everything received
    /// after it is dropped and TLS starts.
    static func startTLS(tag: String, context: NIOSSLContext, serverHostname: String?) -> Self {
        .startTLS(StartTLSRequest(key: tag, context: context, serverHostname: serverHostname))
    }
}

/// IMAP for the shared channel handler: cuts the server's bytes into responses
/// (`IMAPResponseFramer`) and parses them (`IMAPResponseParser`); STARTTLS is answered by the
/// tagged response with its tag (TLS starts on OK); a connection closed after a `* BYE` gives the
/// server's words.
package struct IMAPDialect: ClientDialect {
    package typealias Response = IMAPResponse
    package typealias Failure = IMAPClientError
    package typealias StartTLSKey = String

    package static var tlsHint: String? { nil }

    /// `host:port`, for messages.
    private let endpoint: String
    private var framer = IMAPResponseFramer()
    /// Bytes received since the connection (or TLS) started, for error offsets.
    private var received = 0
    /// The server's last `* BYE`, for the message when the connection then closes.
    private var bye: IMAPStatusResponse?

    package init(endpoint: String) {
        self.endpoint = endpoint
    }

    package mutating func append(_ bytes: [UInt8]) {
        framer.append(bytes)
        received += bytes.count
    }

    package mutating func nextResponse() throws(IMAPClientError) -> IMAPResponse? {
        let frame: [UInt8]
        do {
            guard let next = try framer.nextResponse() else { return nil }
            frame = next
        } catch {
            throw IMAPClientError(kind: .protocolViolation, message: "the server \(endpoint) broke IMAP's framing: \(error.description)")
        }
        do {
            return try IMAPResponseParser.parse(frame)
        } catch {
            let end = received - framer.bufferedByteCount
            throw IMAPClientError(
                kind: .protocolViolation,
                message: "the server \(endpoint) sent a response that cannot be parsed (the \(frame.count)-byte response "
                    + "ending near byte \(end) of the stream, at its byte \(error.offset)): \(error.message)")
        }
    }

    package mutating func discardBuffered() {
        framer = IMAPResponseFramer()
        received = 0
    }

    package static func answersStartTLS(_ response: IMAPResponse, key tag: String) -> Bool? {
        guard case .tagged(let answered, let status) = response, answered == tag else { return nil }
        return status.status == .ok
    }

    package mutating func note(_ response: IMAPResponse) {
        if case .untagged(.status(let status)) = response, status.status == .bye {
            bye = status
        }
    }

    package func closedByServer() -> IMAPClientError {
        guard let bye else { return IMAPClientError(kind: .connectionClosed, message: "the connection to \(endpoint) was closed") }
        return IMAPClientError(kind: .connectionClosed, message: "the server \(endpoint) ended the connection (BYE)",
                               serverText: bye.text, code: bye.code)
    }
}
