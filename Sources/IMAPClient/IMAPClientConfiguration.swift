import ClientSupport
import IMAPProtocol
import NIOCore

/// How the connection is protected.
public enum IMAPSecurity: String, Sendable, Hashable, Codable {
    /// TLS from the first byte (port 993).
    case tls
    /// Plaintext, then STARTTLS before anything else (port 143); refused if the server does not offer it.
    case startTLS
    /// No TLS at all: for tests and local servers only.
    case plaintext

    var transport: ClientTarget.Security {
        switch self {
        case .tls: return .tls
        case .startTLS: return .startTLS
        case .plaintext: return .plaintext
        }
    }
}

public struct IMAPClientConfiguration: Sendable {
    public var host: String
    public var port: Int
    public var security: IMAPSecurity
    /// A PEM file of extra trusted roots (a self-signed server's CA), trusted on top of the
    /// system's roots. The host name (or IP address) is always verified.
    public var caFile: String?
    public var connectTimeout: Duration
    /// The longest silence from the server while a command is outstanding (not a total: every
    /// read of bytes, even in the middle of a large literal, starts it again). Not applied while idling.
    public var responseTimeout: Duration
    /// Sent with ID after login when the server offers ID; nil sends nothing.
    public var clientID: [String: String]?

    public init(
        host: String,
        port: Int,
        security: IMAPSecurity,
        caFile: String? = nil,
        connectTimeout: Duration = .seconds(15),
        responseTimeout: Duration = .seconds(60),
        clientID: [String: String]? = ["name": "MailSearch"]
    ) {
        self.host = host
        self.port = port
        self.security = security
        self.caFile = caFile
        self.connectTimeout = connectTimeout
        self.responseTimeout = responseTimeout
        self.clientID = clientID
    }

    /// `host:port`, for messages (IPv6 addresses in brackets).
    var endpoint: String { ClientTarget.endpoint(host: host, port: port) }

    /// Where and how to connect, for the shared plumbing.
    package var target: ClientTarget {
        ClientTarget(host: host, port: port, security: security.transport, caFile: caFile, connectTimeout: TimeAmount(connectTimeout))
    }
}

/// The credentials of `IMAPConnection.login`.
public enum IMAPAuthentication: Sendable {
    /// AUTHENTICATE PLAIN when the server offers it, else LOGIN.
    case password(user: String, password: String)
    /// An OAuth 2.0 access token. `.automatic` (the default): AUTHENTICATE OAUTHBEARER (RFC 7628)
    /// when the server offers it, else XOAUTH2 (Gmail, Outlook); neither offered is `.authenticationFailed`.
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
    public static func oauthBearer(user: String, accessToken: String) -> IMAPAuthentication {
        .oauth(user: user, accessToken: accessToken, mechanism: .oauthBearer)
    }

    /// A token sent with XOAUTH2 only (refused with `.authenticationFailed` when the server does not
    /// offer it). `.oauth` picks the mechanism from the server's capabilities.
    public static func xoauth2(user: String, accessToken: String) -> IMAPAuthentication {
        .oauth(user: user, accessToken: accessToken, mechanism: .xoauth2)
    }

    public var user: String {
        switch self {
        case .password(let user, _), .oauth(let user, _, _): return user
        }
    }
}

/// What a command got: every untagged response before its tagged one (including unsolicited
/// ones that arrived since the previous command, first), and the tagged status.
public struct IMAPCommandResponse: Sendable {
    public var untagged: [IMAPUntaggedResponse]
    public var status: IMAPStatusResponse

    public init(untagged: [IMAPUntaggedResponse], status: IMAPStatusResponse) {
        self.untagged = untagged
        self.status = status
    }
}

extension IMAPClientConfiguration: MailClientConfiguration {}
