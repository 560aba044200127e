import ClientSupport
import Foundation
import SMTPProtocol

/// Why sending failed. `message` says what happened, with which `host:port`, and what to do; it
/// never holds a password, a token or message content. The server's own reply, when it gave
/// one, is in `reply`.
public struct SMTPClientError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure. A struct, not an enum, so that adding a kind breaks no `switch`.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// TCP could not connect (refused, unreachable, unknown host).
        public static let connectionFailed = Kind("connectionFailed")
        /// TLS could not be set up: the handshake failed, the server does not offer STARTTLS, the CA file cannot be read.
        public static let tlsFailed = Kind("tlsFailed")
        /// The server's certificate is not signed by a trusted root or does not name the host.
        public static let certificateRejected = Kind("certificateRejected")
        /// The server refused the credentials (for a token: `oauth` holds its reason), or offers no
        /// mechanism the client can use.
        public static let authenticationFailed = Kind("authenticationFailed")
        /// The message is larger than the server's SIZE: refused before anything was sent.
        public static let messageTooLarge = Kind("messageTooLarge")
        /// The message needs an extension the server does not offer (8BITMIME, SMTPUTF8).
        public static let unsupported = Kind("unsupported")
        /// MAIL FROM was refused.
        public static let senderRejected = Kind("senderRejected")
        /// Every RCPT TO was refused: nothing was sent (`rejected` lists each with its reply).
        public static let recipientsRejected = Kind("recipientsRejected")
        /// DATA, or the message after it, was refused.
        public static let messageRejected = Kind("messageRejected")
        /// Another command got a failure reply.
        public static let commandFailed = Kind("commandFailed")
        /// No connection within the connect timeout, or the server stayed silent too long.
        public static let timedOut = Kind("timedOut")
        /// The connection ended (421, reset, closed).
        public static let connectionClosed = Kind("connectionClosed")
        /// The server's bytes broke SMTP's reply grammar, or it answered out of turn.
        public static let protocolViolation = Kind("protocolViolation")
        /// An address or argument could not be sent (a line break in an address).
        public static let invalidArgument = Kind("invalidArgument")
        /// The task was cancelled.
        public static let cancelled = Kind("cancelled")
    }

    public var kind: Kind
    public var message: String
    public var reply: SMTPReply?
    /// For `.recipientsRejected`: every refused recipient with the server's reply.
    public var rejected: [(recipient: SMTPAddress, reply: SMTPReply)]
    /// For a refused OAuth 2.0 token: the error the server sent as a 334 challenge before its 5xx.
    public var oauth: OAuthError?

    public init(kind: Kind, message: String, reply: SMTPReply? = nil, rejected: [(recipient: SMTPAddress, reply: SMTPReply)] = [],
                oauth: OAuthError? = nil) {
        self.kind = kind
        self.message = message
        self.reply = reply
        self.rejected = rejected
        self.oauth = oauth
    }

    /// The `status` of the server's OAuth error (`invalid_token`, `401`…): set means the token
    /// itself was refused (expired, revoked, for another user), so refresh it or sign in again.
    public var oauthStatus: String? { oauth?.status }

    /// The server's JSON error for a refused OAuth token (RFC 7628 §3.2.2).
    public typealias OAuthError = SASLOAuthError

    public var description: String {
        guard let reply else { return message }
        return "\(message) (the server said: \(reply))"
    }
}

extension SMTPClientError: ClientError {
    /// A failure the shared plumbing found (`ClientSupport`), as the kind of the same name.
    public init(_ kind: ClientFailureKind, message: String) {
        self.init(kind: Kind(kind), message: message)
    }
}

extension SMTPClientError.Kind {
    init(_ failure: ClientFailureKind) { self.init(failure.rawValue) }
}

extension SASLOAuthError {
    /// The error of a challenge sent after the token; nil when it is not one.
    init?(challenge: SMTPReply, hiding secret: String) {
        guard let text = SMTPSASL.decodeChallenge(challenge) else { return nil }
        let json = Data(text.utf8)
        self.init(json: json, hiding: secret)
    }
}
