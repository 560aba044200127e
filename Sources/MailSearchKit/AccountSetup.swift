import MailModel

/// Where passwords added from the page are kept: the desktop's Secret Service, or a file encrypted
/// with the user's passphrase (`SecretStore`). Set by the process (`register(secrets:)`); a
/// password is never written into mail.sqlite, a log or an answer.
public protocol SecretVault: Sendable {
    func storePassword(_ password: String, account: String) throws
    /// nil when there is none; throws when the store cannot be read now (locked, unreachable).
    func password(account: String) throws -> String?
    func deletePassword(account: String) throws
    /// What it is, for the page and the CLI ("the desktop's Secret Service", "secrets.enc, encrypted with your passphrase").
    var summary: String { get }
    /// Whether it can be read and written now (an encrypted file waits for its passphrase).
    var isUnlocked: Bool { get }
    /// The encrypted file does not exist yet: the first passphrase given creates it.
    var needsNewPassphrase: Bool { get }
    /// Unlocks an encrypted file (a first passphrase creates it); nothing for the Secret Service.
    func unlock(passphrase: String) throws
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
