import Foundation

/// The JSON error a server sends when it refuses an OAuth token in OAUTHBEARER or XOAUTH2 (RFC 7628
/// §3.2.2): `{"status":…,"schemes":…,"scope":…}`. Both clients' errors carry it (`IMAPClientError.OAuthError`,
/// `SMTPClientError.OAuthError`). Never holds the token.
public struct SASLOAuthError: Sendable, Hashable {
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

    /// The challenge's JSON object (already decoded from base64); nil when it is not one. Values
    /// holding `secret` (the token, should a server echo it) are left out.
    public init?(json: Data, hiding secret: String) {
        guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else { return nil }
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
