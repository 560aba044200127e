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

    /// The JSON error of OAUTHBEARER and XOAUTH2 (RFC 7628 §3.2.2): `{"status":…,"schemes":…,"scope":…}`.
    /// Never holds the token.
    public struct OAuthError: Sendable, Hashable {
        /// `invalid_token`, `insufficient_scope`, or an HTTP status such as `401` (XOAUTH2 servers).
        public var status: String?
        /// The HTTP authentication schemes the server takes (`bearer`).
        public var schemes: String?
        /// The scope a token needs (`https://mail.google.com/`).
        public var scope: String?
        /// Where the server's OpenID Connect discovery document is, when it said.
        public var openIDConfiguration: String?

        public init(status: String? = nil, schemes: String? = nil, scope: String? = nil, openIDConfiguration: String? = nil) {
            self.status = status
            self.schemes = schemes
            self.scope = scope
            self.openIDConfiguration = openIDConfiguration
        }

        /// The challenge's text (base64 of a JSON object); nil when it is not one. Values holding
        /// `secret` (the token, should a server echo it) are left out.
        init?(challenge: String, hiding secret: String) {
            guard let data = Data(base64Encoded: challenge.trimmingCharacters(in: .whitespaces)),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { return nil }
            func field(_ name: String) -> String? {
                let value: String? = switch object[name] {
                case let text as String: text
                case let number as NSNumber: number.stringValue
                default: nil
                }
                guard let value, secret.isEmpty || !value.contains(secret) else { return nil }
                return value
            }
            self.init(status: field("status"), schemes: field("schemes"), scope: field("scope"),
                      openIDConfiguration: field("openid-configuration"))
        }
    }

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
