/// One word of a server's CAPABILITY list (`IMAP4rev1`, `IDLE`, `AUTH=PLAIN`, `X-GM-EXT-1`).
///
/// Capability names are case-insensitive (RFC 3501 §7.2.1), so the value is kept upper-cased:
/// `Set<IMAPCapability>` then answers "does the server offer X" however the server spelled it.
public struct IMAPCapability: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The capability, upper-cased (`AUTH=XOAUTH2`, `LITERAL+`).
    public let rawValue: String

    public init(_ name: String) {
        rawValue = name.uppercased()
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    public var description: String { rawValue }

    /// The SASL mechanism of an `AUTH=` capability (`PLAIN`, `XOAUTH2`), else nil.
    public var authenticationMechanism: String? {
        rawValue.hasPrefix("AUTH=") ? String(rawValue.dropFirst(5)) : nil
    }

    public static let imap4rev1: IMAPCapability = "IMAP4rev1"
    public static let startTLS: IMAPCapability = "STARTTLS"
    /// LOGIN is refused until TLS is up (RFC 3501 §6.2.3).
    public static let loginDisabled: IMAPCapability = "LOGINDISABLED"
    public static let authPlain: IMAPCapability = "AUTH=PLAIN"
    public static let authXOAuth2: IMAPCapability = "AUTH=XOAUTH2"
    /// RFC 7628's OAuth 2.0 mechanism.
    public static let authOAuthBearer: IMAPCapability = "AUTH=OAUTHBEARER"
    /// An initial response may travel with AUTHENTICATE (RFC 4959), saving a round trip.
    public static let saslIR: IMAPCapability = "SASL-IR"
    /// Non-synchronising literals `{N+}` of any size (RFC 7888).
    public static let literalPlus: IMAPCapability = "LITERAL+"
    /// Non-synchronising literals of at most 4096 bytes (RFC 7888).
    public static let literalMinus: IMAPCapability = "LITERAL-"
    public static let id: IMAPCapability = "ID"
    public static let enable: IMAPCapability = "ENABLE"
    public static let idle: IMAPCapability = "IDLE"
    public static let condStore: IMAPCapability = "CONDSTORE"
    public static let qresync: IMAPCapability = "QRESYNC"
    public static let uidPlus: IMAPCapability = "UIDPLUS"
    public static let esearch: IMAPCapability = "ESEARCH"
    public static let specialUse: IMAPCapability = "SPECIAL-USE"
    public static let listExtended: IMAPCapability = "LIST-EXTENDED"
    public static let listStatus: IMAPCapability = "LIST-STATUS"
    public static let move: IMAPCapability = "MOVE"
    public static let unselect: IMAPCapability = "UNSELECT"
    public static let binary: IMAPCapability = "BINARY"
    /// Gmail's extensions: X-GM-MSGID, X-GM-THRID, X-GM-LABELS, X-GM-RAW.
    public static let gmailExtensions: IMAPCapability = "X-GM-EXT-1"
}
