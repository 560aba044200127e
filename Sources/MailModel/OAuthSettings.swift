/// How an account signs in with OAuth 2.0 (001 §5.1.3; RFC 6749, RFC 7636 PKCE, RFC 8252 for native
/// apps): the provider's endpoints and the user's own client id. No token is here: the tokens are in
/// the secret store under the account's name.
public struct OAuthSettings: Sendable, Codable, Hashable {
    /// `google`, `microsoft`, or `custom` (endpoints given by hand).
    public var provider: String
    /// The OAuth client the user registered with the provider (a desktop / native app).
    public var clientId: String
    public var authorizeURL: String
    public var tokenURL: String
    public var revokeURL: String?
    public var scope: String
    /// A client secret was given (kept in the secret store: Google's desktop clients have one).
    public var hasClientSecret: Bool

    public init(provider: String, clientId: String, authorizeURL: String, tokenURL: String, revokeURL: String? = nil,
                scope: String, hasClientSecret: Bool = false) {
        self.provider = provider
        self.clientId = clientId
        self.authorizeURL = authorizeURL
        self.tokenURL = tokenURL
        self.revokeURL = revokeURL
        self.scope = scope
        self.hasClientSecret = hasClientSecret
    }
}

/// The providers whose endpoints MailSearch knows. The user brings their own client id: MailSearch
/// has no client of its own registered with anyone, and nothing is sent anywhere but the provider.
public struct OAuthProvider: Sendable, Codable, Hashable {
    public var id: String
    public var name: String
    public var authorizeURL: String
    public var tokenURL: String
    public var revokeURL: String?
    public var scope: String
    /// How to get a client id, in words for the page.
    public var clientIdHelp: String

    public static let all: [OAuthProvider] = [
        OAuthProvider(
            id: "google", name: "Google", authorizeURL: "https://accounts.google.com/o/oauth2/v2/auth",
            tokenURL: "https://oauth2.googleapis.com/token", revokeURL: "https://oauth2.googleapis.com/revoke",
            scope: "https://mail.google.com/",
            clientIdHelp: "Google Cloud console → APIs & Services → Credentials → Create credentials → OAuth client ID → Desktop app; "
                + "copy its client ID and client secret (a desktop app's secret is not confidential). Add your address as a test user "
                + "of the consent screen."),
        OAuthProvider(
            id: "microsoft", name: "Microsoft", authorizeURL: "https://login.microsoftonline.com/common/oauth2/v2.0/authorize",
            tokenURL: "https://login.microsoftonline.com/common/oauth2/v2.0/token", revokeURL: nil,
            scope: "https://outlook.office.com/IMAP.AccessAsUser.All https://outlook.office.com/SMTP.Send offline_access",
            clientIdHelp: "Microsoft Entra admin center → App registrations → New registration (any account type), platform "
                + "\"Mobile and desktop applications\" with the redirect URI http://localhost; API permissions: IMAP.AccessAsUser.All, "
                + "SMTP.Send, offline_access; copy the Application (client) ID."),
    ]

    public static func named(_ id: String) -> OAuthProvider? { all.first { $0.id == id.lowercased() } }
}
