/// Where account passwords and OAuth tokens are kept, so that none is ever in a plain file.
///
/// Two stores, picked by `SecretStores.preferred(dataDirectory:environment:)`:
///
/// - `SecretServiceStore`: the desktop's freedesktop Secret Service (GNOME Keyring, KWallet,
///   KeePassXC…) through libsecret, loaded at run time. The desktop login unlocks it; MailSearch
///   never sees a passphrase, and the secrets are encrypted at rest by the keyring.
/// - `EncryptedFileStore`: one file, `secrets.enc` in the data directory, encrypted with AES-GCM under
///   a key derived (scrypt) from a passphrase the user types to unlock it. It is only as strong as
///   that passphrase against someone who has the file, and while it is unlocked the key is in the
///   memory of the process that unlocked it (`mailsearch serve`, for a long-running server), where
///   anyone who can read that process's memory (root, a debugger, a core dump) can take it.
///
/// Every method may block (D-Bus, a key derivation, a file written and synced): call them from a
/// thread that may wait, never from the cooperative pool.
public protocol SecretStore: Sendable {
    /// Stores `secret` under `key`, replacing what was there.
    func store(_ secret: String, for key: SecretKey) throws
    /// The secret stored under `key`, or nil when there is none.
    func secret(for key: SecretKey) throws -> String?
    /// Removes the secret stored under `key`; nothing happens when there is none.
    func delete(_ key: SecretKey) throws
    /// Which store this is.
    var kind: SecretStoreKind { get }
    /// True while the store cannot be read without a passphrase (`EncryptedFileStore` until
    /// `unlock(passphrase:)`). The Secret Service is unlocked by the desktop: always false.
    var isLocked: Bool { get }
}

/// What a secret is for.
public struct SecretPurpose: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The account's password (IMAP login, and SMTP with the same login).
    public static let password = SecretPurpose(rawValue: "password")
    /// An OAuth 2 refresh token, from which access tokens are obtained.
    public static let oauthRefreshToken = SecretPurpose(rawValue: "oauth-refresh-token")
    /// An OAuth 2 access token (XOAUTH2), short-lived.
    public static let oauthAccessToken = SecretPurpose(rawValue: "oauth-access-token")

    public var description: String { rawValue }
}

/// The name of one secret: an account and what the secret is for. In the Secret Service these
/// are the item's attributes `account` and `purpose` (schema `org.mailsearch.Account`), so that
/// `secret-tool lookup account work purpose password` finds it.
public struct SecretKey: Hashable, Sendable, Codable, CustomStringConvertible {
    public var account: String
    public var purpose: SecretPurpose

    public init(account: String, purpose: SecretPurpose) {
        self.account = account
        self.purpose = purpose
    }

    public var description: String { "\(purpose.rawValue) of account \"\(account)\"" }

    func validated() throws -> SecretKey {
        guard !account.isEmpty, !purpose.rawValue.isEmpty, !account.contains("\0"), !purpose.rawValue.contains("\0") else {
            throw SecretStoreError(.invalidKey, "an account name and a purpose must be non-empty and must not contain NUL",
                                   hint: "name the account as it is configured")
        }
        return self
    }
}

public enum SecretStoreKind: String, Sendable, Hashable, CustomStringConvertible {
    /// The desktop's Secret Service (libsecret).
    case secretService = "secret-service"
    /// `secrets.enc`, encrypted with a key derived from the user's passphrase.
    case encryptedFile = "file"

    public var description: String {
        switch self {
        case .secretService: "the desktop's Secret Service"
        case .encryptedFile: "the encrypted file"
        }
    }
}

/// Why a secret store could not do what was asked, and what to do about it. Never carries a secret.
public struct SecretStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        /// The encrypted file is locked: `unlock(passphrase:)` first.
        case locked
        /// The passphrase does not open the file (or the file was altered: AES-GCM cannot tell).
        case wrongPassphrase
        /// The file is not a secrets file of a version this build reads, or it is cut short.
        case corrupted
        /// The Secret Service (or libsecret, or a session bus) is not there.
        case unavailable
        /// The Secret Service answered with an error.
        case refused
        /// The file could not be read or written.
        case io
        /// The key or secret cannot be stored (empty, or a NUL in it).
        case invalidKey
        /// A passphrase too short to protect anything, or a setting that is not understood.
        case invalidArgument
    }

    public let kind: Kind
    /// What went wrong, as a sentence fragment (`locked: …`).
    public let message: String
    /// What to do about it.
    public let hint: String?

    public init(_ kind: Kind, _ message: String, hint: String? = nil) {
        self.kind = kind
        self.message = message
        self.hint = hint
    }

    public var description: String {
        hint.map { "\(message) (\($0))" } ?? message
    }
}
