import ClientSupport
import Foundation
import IMAPProtocol

/// Why an IMAP operation failed. `message` says what happened and to which `host:port`; it never
/// holds a password, a token or mail content. The server's own words, when it gave any, are in
/// `serverText` (and its bracketed response code in `code`).
public struct IMAPClientError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What kind of failure. A struct, not an enum, so that adding a kind breaks no `switch`.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// TCP could not connect (refused, unreachable, unknown host).
        public static let connectionFailed = Kind("connectionFailed")
        /// TLS could not be set up: the handshake failed, the server does not offer STARTTLS,
        /// the CA file cannot be read.
        public static let tlsFailed = Kind("tlsFailed")
        /// The server's certificate is not signed by a trusted root or does not name the host.
        public static let certificateRejected = Kind("certificateRejected")
        /// The server refused the credentials (for a token: `oauth` holds its reason), or offers no
        /// mechanism the client can use for them.
        public static let authenticationFailed = Kind("authenticationFailed")
        /// A command got NO or BAD (or could not be written).
        public static let commandFailed = Kind("commandFailed")
        /// No connection within the connect timeout, or the server stayed silent for longer
        /// than the response timeout while a command was outstanding.
        public static let timedOut = Kind("timedOut")
        /// The connection ended (BYE, reset, closed by the client).
        public static let connectionClosed = Kind("connectionClosed")
        /// The server's bytes broke IMAP's grammar or the framer's limits, or it answered out of turn.
        public static let protocolViolation = Kind("protocolViolation")
        /// The task was cancelled.
        public static let cancelled = Kind("cancelled")
    }

    public var kind: Kind
    public var message: String
    public var serverText: String?
    public var code: IMAPResponseCode?
    /// For a refused OAuth 2.0 token: the error the server sent as a SASL challenge before its NO.
    public var oauth: OAuthError?

    public init(kind: Kind, message: String, serverText: String? = nil, code: IMAPResponseCode? = nil, oauth: OAuthError? = nil) {
        self.kind = kind
        self.message = message
        self.serverText = serverText
        self.code = code
        self.oauth = oauth
    }

    /// The `status` of the server's OAuth error (`invalid_token`, `401`…): set means the token
    /// itself was refused (expired, revoked, for another user), so refresh it or sign in again.
    public var oauthStatus: String? { oauth?.status }

    /// The server's JSON error for a refused OAuth token (RFC 7628 §3.2.2).
    public typealias OAuthError = SASLOAuthError

    public var description: String {
        guard let serverText, !serverText.isEmpty else { return message }
        return "\(message) (the server said: \(serverText))"
    }
}

extension IMAPClientError: ClientError {
    /// A failure the shared plumbing found (`ClientSupport`), as the kind of the same name.
    public init(_ kind: ClientFailureKind, message: String) {
        self.init(kind: Kind(kind), message: message)
    }
}

extension IMAPClientError.Kind {
    init(_ failure: ClientFailureKind) { self.init(failure.rawValue) }
}

extension SASLOAuthError {
    /// The error of a challenge sent after the token; nil when it is not one.
    init?(challenge: String, hiding secret: String) {
        guard let json = Data(base64Encoded: challenge.trimmingCharacters(in: .whitespaces)) else { return nil }
        self.init(json: json, hiding: secret)
    }
}
