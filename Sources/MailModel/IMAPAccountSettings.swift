/// How to reach an account's IMAP server. No secret is kept here: the password (or OAuth token) is
/// read when a sync starts, from a command's output, an environment variable, or the secret store
/// (`passwordStored`: the desktop's Secret Service or the passphrase-encrypted file).
public struct IMAPAccountSettings: Sendable, Hashable, Codable {
    public var host: String
    public var port: Int
    /// `tls` (implicit TLS, port 993) or `startTLS` (port 143, upgraded before login).
    public var security: String
    public var username: String
    /// A shell command whose first line of output is the password (like mbsync's PassCmd).
    public var passwordCommand: String?
    /// The name of an environment variable that holds the password.
    public var passwordEnvironment: String?
    /// A shell command whose first line of output is an OAuth 2 access token (XOAUTH2, Gmail).
    public var oauthTokenCommand: String?
    /// The password is in the secret store, under the account's name (added from the page).
    public var passwordStored: Bool
    /// The account signs in with OAuth 2.0 (its tokens in the secret store); nil for a password.
    public var oauth: OAuthSettings?
    /// A PEM file of extra trusted roots, for a server with a self-signed certificate.
    public var caFile: String?
    /// Mail of the last N days is synced; nil syncs everything.
    public var syncWindowDays: Int?
    /// The SMTP server that sends this account's mail (same user and credentials); nil when none was given.
    public var smtpHost: String?
    public var smtpPort: Int?
    /// `tls` (implicit TLS, port 465), `startTLS` (port 587) or `plaintext`.
    public var smtpSecurity: String?

    public init(host: String, port: Int, security: String, username: String, passwordCommand: String? = nil,
                passwordEnvironment: String? = nil, oauthTokenCommand: String? = nil, passwordStored: Bool = false, oauth: OAuthSettings? = nil, caFile: String? = nil,
                syncWindowDays: Int? = 30, smtpHost: String? = nil, smtpPort: Int? = nil, smtpSecurity: String? = nil) {
        self.host = host
        self.port = port
        self.security = security
        self.username = username
        self.passwordCommand = passwordCommand
        self.passwordEnvironment = passwordEnvironment
        self.oauthTokenCommand = oauthTokenCommand
        self.passwordStored = passwordStored
        self.oauth = oauth
        self.caFile = caFile
        self.syncWindowDays = syncWindowDays
        self.smtpHost = smtpHost
        self.smtpPort = smtpPort
        self.smtpSecurity = smtpSecurity
    }
}
