import MailModel

/// Where passwords added from the page are kept: the desktop's Secret Service, or a file encrypted
/// with the user's passphrase (`SecretStore`). Set by the process (`register(secrets:)`); a
/// password is never written into mail.sqlite, a log or an answer.
public protocol SecretVault: Sendable {
    /// `purpose`: `password`, `oauth-tokens` (the JSON of an account's OAuth tokens), `oauth-client-secret`.
    func store(_ secret: String, account: String, purpose: String) throws
    /// nil when there is none; throws when the store cannot be read now (locked, unreachable).
    func secret(account: String, purpose: String) throws -> String?
    func delete(account: String, purpose: String) throws
    /// What it is, for the page and the CLI ("the desktop's Secret Service", "secrets.enc, encrypted with your passphrase").
    var summary: String { get }
    /// Whether it can be read and written now (an encrypted file waits for its passphrase).
    var isUnlocked: Bool { get }
    /// The encrypted file does not exist yet: the first passphrase given creates it.
    var needsNewPassphrase: Bool { get }
    /// Unlocks an encrypted file (a first passphrase creates it); nothing for the Secret Service.
    func unlock(passphrase: String) throws
}

extension SecretVault {
    public func storePassword(_ password: String, account: String) throws { try store(password, account: account, purpose: "password") }
    public func password(account: String) throws -> String? { try secret(account: account, purpose: "password") }
    public func deletePassword(account: String) throws { try delete(account: account, purpose: "password") }

    /// Every secret of the account (its password, its OAuth tokens and client secret).
    public func deleteAll(account: String) throws {
        for purpose in ["password", "oauth-tokens", "oauth-client-secret"] { try delete(account: account, purpose: purpose) }
    }
}

/// What the server needs of the sync layer to set accounts up from the page (IMAPSync's
/// `SyncSupervisor` provides it): trying servers, and starting and stopping an account's sync.
public protocol AccountConnector: Sendable {
    /// Tries the IMAP login (and the SMTP login when the settings name a server) with `password`,
    /// or with what the settings say to read when it is nil.
    func check(accountName: String, settings: IMAPAccountSettings, password: String?) async -> AccountCheck
    /// The account was added or changed: its sync starts, or starts again with the new settings.
    func accountChanged(named name: String) async
    /// The account is being removed: its sync stops before its mail is deleted.
    func accountRemoved(named name: String) async
    /// Starts an OAuth 2.0 sign-in (authorization code + PKCE, loopback redirect): the address to open
    /// in the person's browser. The account is added (or signed in again) by `completeOAuth`.
    func beginOAuth(_ request: OAuthSignIn) async throws -> String
    /// The provider's redirect came back: the code is exchanged, the servers tried with the token,
    /// the tokens kept in the secret store and the account saved and synced.
    func completeOAuth(state: String, code: String?, error: String?, errorDescription: String?) async -> OAuthOutcome
}

/// A sign-in the page asked for: the account as it will be saved, and where the provider sends the person back.
public struct OAuthSignIn: Sendable {
    public var name: String
    public var address: String
    public var displayName: String?
    /// Its `oauth` says the provider's endpoints and the client id.
    public var settings: IMAPAccountSettings
    public var clientSecret: String?
    /// `http://127.0.0.1:PORT/oauth/callback`: this server (RFC 8252 §7.3).
    public var redirectURI: String
    /// The account exists and signs in again (its grant was revoked or expired).
    public var again: Bool

    public init(name: String, address: String, displayName: String?, settings: IMAPAccountSettings, clientSecret: String?,
                redirectURI: String, again: Bool) {
        self.name = name
        self.address = address
        self.displayName = displayName
        self.settings = settings
        self.clientSecret = clientSecret
        self.redirectURI = redirectURI
        self.again = again
    }
}

/// How a sign-in ended, for the page the provider sent the person back to.
public struct OAuthOutcome: Sendable, Codable {
    public var ok: Bool
    public var account: String?
    public var message: String
    public var check: AccountCheck?

    public init(ok: Bool, account: String?, message: String, check: AccountCheck? = nil) {
        self.ok = ok
        self.account = account
        self.message = message
        self.check = check
    }
}

extension MailSearchService {
    /// The secret store of this process (nil: none, and passwords cannot be added from the page).
    public func register(secrets: any SecretVault) {
        core.secrets.set(secrets)
    }

    public var secrets: (any SecretVault)? { core.secrets.value }

    public func register(accountConnector: any AccountConnector) {
        core.accountConnector.set(accountConnector)
    }

    public var accountConnector: (any AccountConnector)? { core.accountConnector.value }
}
