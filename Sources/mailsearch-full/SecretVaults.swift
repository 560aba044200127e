import Foundation
import MailSearchKit
import SecretStore

/// The process's `SecretStore` as the service's `SecretVault`: account passwords under
/// (account name, `password`). The encrypted file is unlocked from the page, or at start with
/// `MAILSEARCH_SECRET_PASSPHRASE` (for a service manager; the variable is then as secret as the file).
final class StoreVault: SecretVault, @unchecked Sendable {
    let store: any SecretStore
    let dataDirectory: URL

    init(store: any SecretStore, dataDirectory: URL) {
        self.store = store
        self.dataDirectory = dataDirectory
    }

    /// The preferred store of the data directory (the Secret Service, else `secrets.enc`), unlocked
    /// with `MAILSEARCH_SECRET_PASSPHRASE` when that is set and the store is a file.
    static func open(dataDirectory: URL, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> StoreVault {
        let vault = StoreVault(store: try SecretStores.preferred(dataDirectory: dataDirectory, environment: environment),
                               dataDirectory: dataDirectory)
        if let passphrase = environment["MAILSEARCH_SECRET_PASSPHRASE"], !passphrase.isEmpty, !vault.isUnlocked {
            try vault.unlock(passphrase: passphrase)
        }
        return vault
    }

    func store(_ secret: String, account: String, purpose: String) throws {
        try store.store(secret, for: SecretKey(account: account, purpose: SecretPurpose(rawValue: purpose)))
    }

    func secret(account: String, purpose: String) throws -> String? {
        try store.secret(for: SecretKey(account: account, purpose: SecretPurpose(rawValue: purpose)))
    }

    func delete(account: String, purpose: String) throws {
        try store.delete(SecretKey(account: account, purpose: SecretPurpose(rawValue: purpose)))
    }

    var summary: String {
        switch store.kind {
        case .secretService: return "the desktop's Secret Service (your login keyring)"
        case .encryptedFile: return "\(EncryptedFileStore.fileName) in the data directory, encrypted with your passphrase"
        }
    }

    var isUnlocked: Bool { !store.isLocked }

    var needsNewPassphrase: Bool {
        guard let file = store as? EncryptedFileStore else { return false }
        return !file.fileExists
    }

    func unlock(passphrase: String) throws {
        guard let file = store as? EncryptedFileStore else { return }
        try file.unlock(passphrase: passphrase)
    }
}

extension StoreVault {
    /// For a command that logs in (`sync`; `send` uses `openForCommand`): opens the store when an account keeps its password or tokens
    /// there, asking for the passphrase on the terminal when the file is locked and one is at hand.
    static func register(for service: MailSearchService, dataDirectory: URL) async throws {
        guard try await service.mailbox.imapAccounts().contains(where: { $0.settings.passwordStored || $0.settings.oauth != nil }) else { return }
        service.register(secrets: try openForCommand(dataDirectory: dataDirectory))
    }

    /// The store for a command run at a terminal: opened, and asked for its passphrase when the file is
    /// locked and a terminal is at hand (`MAILSEARCH_SECRET_PASSPHRASE` otherwise).
    static func openForCommand(dataDirectory: URL) throws -> StoreVault {
        let vault = try open(dataDirectory: dataDirectory)
        if !vault.isUnlocked, isatty(STDIN_FILENO) != 0, let typed = getpass("Passphrase of \(EncryptedFileStore.fileName): ") {
            try vault.unlock(passphrase: String(cString: typed))
        }
        return vault
    }
}
