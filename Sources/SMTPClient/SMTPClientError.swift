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

        /// A 334 challenge's JSON object; nil when it is not one. Values holding `secret` (the
        /// token, should a server echo it) are left out.
        init?(challenge: SMTPReply, hiding secret: String) {
            guard let text = SMTPSASL.decodeChallenge(challenge),
                  let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
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
