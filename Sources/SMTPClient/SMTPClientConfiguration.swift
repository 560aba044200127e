import ClientSupport
import NIOCore
import SMTPProtocol

/// How the connection is protected.
public enum SMTPSecurity: String, Sendable, Hashable, Codable, CaseIterable {
    /// TLS from the first byte ("implicit TLS", port 465, RFC 8314).
    case tls
    /// Plaintext, then STARTTLS before anything else (ports 587 and 25); refused if the server does not offer it.
    case startTLS
    /// No TLS at all: for tests and local relays only.
    case plaintext

    var transport: ClientTarget.Security {
        switch self {
        case .tls: return .tls
        case .startTLS: return .startTLS
        case .plaintext: return .plaintext
        }
    }

    /// The usual port: 465, 587, or 25 in clear.
    public var defaultPort: Int {
        switch self {
        case .tls: return 465
        case .startTLS: return 587
        case .plaintext: return 25
        }
    }
}

public struct SMTPClientConfiguration: Sendable {
    public var host: String
    public var port: Int
    public var security: SMTPSecurity
    /// A PEM file of extra trusted roots (a self-signed server's CA), trusted on top of the
    /// system's roots. The host name (or IP address) is always verified.
    public var caFile: String?
    /// The name sent with EHLO. Default: `[127.0.0.1]`, which tells the server nothing about this machine.
    public var clientName: String
    public var connectTimeout: Duration
    /// The longest silence from the server while a reply is awaited (every read starts it again).
    /// Default: 60 s.
    public var responseTimeout: Duration
    /// The longest wait for the reply after the message's data (RFC 5321 §4.5.3.2 suggests 10 minutes:
    /// servers scan the message first). Default: 10 minutes.
    public var dataTimeout: Duration

    public init(host: String, port: Int? = nil, security: SMTPSecurity, caFile: String? = nil,
                clientName: String = "[127.0.0.1]", connectTimeout: Duration = .seconds(15),
                responseTimeout: Duration = .seconds(60), dataTimeout: Duration = .seconds(600)) {
        self.host = host
        self.port = port ?? security.defaultPort
        self.security = security
        self.caFile = caFile
        self.clientName = clientName
        self.connectTimeout = connectTimeout
        self.responseTimeout = responseTimeout
        self.dataTimeout = dataTimeout
    }

    /// `host:port`, for messages (IPv6 addresses in brackets).
    public var endpoint: String { ClientTarget.endpoint(host: host, port: port) }

    /// Where and how to connect, for the shared plumbing.
    package var target: ClientTarget {
        ClientTarget(host: host, port: port, security: security.transport, caFile: caFile, connectTimeout: TimeAmount(connectTimeout),
                     connectHint: "check the host name and port")
    }
}

/// The credentials of `SMTPConnection.authenticate`.
public enum SMTPAuthentication: Sendable {
    /// AUTH PLAIN when the server offers it, else AUTH LOGIN.
    case password(user: String, password: String)
    /// An OAuth 2.0 access token. `.automatic` (the default): AUTH OAUTHBEARER (RFC 7628) when the
    /// server offers it, else XOAUTH2 (Gmail, Outlook); neither offered is `.authenticationFailed`.
    case oauth(user: String, accessToken: String, mechanism: OAuthMechanism = .automatic)

    /// The SASL mechanism that carries an OAuth 2.0 access token.
    public enum OAuthMechanism: String, Sendable, Hashable, Codable {
        /// OAUTHBEARER when the server offers it, else XOAUTH2.
        case automatic
        /// RFC 7628's OAUTHBEARER only.
        case oauthBearer = "OAUTHBEARER"
        /// Google's and Microsoft's XOAUTH2 only.
        case xoauth2 = "XOAUTH2"
    }

    /// A token sent with OAUTHBEARER only (refused with `.authenticationFailed` when the server does not offer it).
    public static func oauthBearer(user: String, accessToken: String) -> SMTPAuthentication {
        .oauth(user: user, accessToken: accessToken, mechanism: .oauthBearer)
    }

    /// A token sent with XOAUTH2 only (refused with `.authenticationFailed` when the server does not
    /// offer it). `.oauth` picks the mechanism from the server's EHLO.
    public static func xoauth2(user: String, accessToken: String) -> SMTPAuthentication {
        .oauth(user: user, accessToken: accessToken, mechanism: .xoauth2)
    }

    var user: String {
        switch self {
        case .password(let user, _), .oauth(let user, _, _): return user
        }
    }
}

/// What one message's transaction came to: the recipients the server took and those it refused,
/// each with the server's reply. The message went to every accepted recipient.
public struct SMTPSendResult: Sendable {
    public var accepted: [SMTPAddress]
    public var rejected: [(recipient: SMTPAddress, reply: SMTPReply)]
    /// The server's reply after the data (its queue id is often in the text).
    public var finalReply: SMTPReply

    public init(accepted: [SMTPAddress], rejected: [(recipient: SMTPAddress, reply: SMTPReply)], finalReply: SMTPReply) {
        self.accepted = accepted
        self.rejected = rejected
        self.finalReply = finalReply
    }
}

extension SMTPClientConfiguration: MailClientConfiguration {}
