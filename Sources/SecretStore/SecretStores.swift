import Foundation

/// Picks where secrets are kept.
///
/// The Secret Service when one answers on the session bus (a desktop session), else the encrypted
/// file `secrets.enc` in the data directory. `MAILSEARCH_SECRET_STORE=secret-service` or `=file`
/// forces one: a forced Secret Service that does not answer is an error, never a silent fall back
/// to the file.
///
/// The trade-off between them:
///
/// - The Secret Service is unlocked with the desktop login. MailSearch never holds its key nor asks
///   for a passphrase, and the keyring encrypts the secrets at rest; but while the keyring is
///   unlocked, any program of the same user on the same session bus can read them.
/// - The encrypted file (AES-256-GCM, the key derived with scrypt from a passphrase) is as strong
///   as the passphrase against whoever gets a copy of it, and while it is unlocked the key is in
///   the memory of the process that unlocked it: for `mailsearch serve`, for as long as it runs.
///   The user must type the passphrase after every start of that process.
public enum SecretStores {
    /// The variable that forces a store: `file` or `secret-service`.
    public static let environmentVariable = "MAILSEARCH_SECRET_STORE"

    /// The store to use. An `EncryptedFileStore` comes back locked: unlock it with the user's
    /// passphrase (`(store as? EncryptedFileStore)?.unlock(passphrase:)`; `isLocked` says whether
    /// it is needed).
    public static func preferred(dataDirectory: URL,
                                 environment: [String: String] = ProcessInfo.processInfo.environment) throws -> any SecretStore {
        switch try forcedKind(environment) {
        case .encryptedFile?:
            return EncryptedFileStore(dataDirectory: dataDirectory)
        case .secretService?:
            if case .unavailable(let reason) = SecretServiceStore.availability(environment: environment) {
                throw SecretStoreError(.unavailable, "\(environmentVariable)=secret-service, but the Secret Service cannot be used: \(reason)",
                                       hint: "start the desktop's keyring, or set \(environmentVariable)=file to use the encrypted file")
            }
            return try SecretServiceStore()
        case nil:
            if SecretServiceStore.available(environment: environment), let store = try? SecretServiceStore() {
                return store
            }
            return EncryptedFileStore(dataDirectory: dataDirectory)
        }
    }

    /// The kind `MAILSEARCH_SECRET_STORE` asks for, nil when it is unset or empty.
    static func forcedKind(_ environment: [String: String]) throws -> SecretStoreKind? {
        guard let value = environment[environmentVariable]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else {
            return nil
        }
        switch value.lowercased() {
        case "file", "encrypted-file": return .encryptedFile
        case "secret-service", "secretservice", "libsecret": return .secretService
        default:
            throw SecretStoreError(.invalidArgument, "\(environmentVariable)=\(value) is not a secret store",
                                   hint: "set it to file or secret-service, or unset it to choose on its own")
        }
    }
}
