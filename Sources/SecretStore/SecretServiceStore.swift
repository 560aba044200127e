import CSecret
import Foundation

/// Secrets in the desktop's freedesktop Secret Service (GNOME Keyring, KWallet, KeePassXC…),
/// through Debian's libsecret-1.so.0 loaded with `dlopen` when first used: nothing links against it,
/// so a process on a machine without libsecret, or without a session bus, starts all the same and
/// this store says it is unavailable.
///
/// Each secret is an item in the default collection (the login keyring) with the schema
/// `org.mailsearch.Account` and the attributes `account` and `purpose`: `secret-tool lookup account
/// work purpose password` reads it, and the desktop's keyring manager shows it as "MailSearch:
/// password of account "work"". The desktop login unlocks the collection; a locked one makes the
/// service ask the user (a prompt on the desktop), and a call waits for the answer.
///
/// When the session bus goes away while the process runs, the process is not stopped (gio's shared
/// connection may raise SIGTERM then; CSecret turns that off), and every call fails with
/// `unavailable` ("lost the session bus") until the process is started again: gio keeps handing
/// libsecret the closed connection.
///
/// The trade-off, against `EncryptedFileStore`: the keyring's key never enters MailSearch's process,
/// and no passphrase is typed into MailSearch; but any program of the same user on the same session
/// bus can ask the service for the secret while the keyring is unlocked.
public final class SecretServiceStore: SecretStore, @unchecked Sendable {
    /// The library opened: Debian's package libsecret-1-0.
    public static let libraryName = "libsecret-1.so.0"
    /// The schema of every item.
    public static let schemaName = "org.mailsearch.Account"

    /// Whether a Secret Service can be used, and if not, why.
    public enum Availability: Sendable, Equatable {
        case available
        case unavailable(String)

        public var isAvailable: Bool { self == .available }
    }

    private let library: LibSecret
    /// libsecret's synchronous calls each run a main context of their own; one at a time is plenty
    /// for a few secrets, and keeps glib's singletons out of races.
    private let mutex = NSLock()

    /// Opens libsecret. Throws `unavailable` when it cannot be loaded; it does not check for a
    /// service (see `availability(environment:)`): a call without one throws `unavailable`.
    public init() throws {
        self.library = try Self.loadedLibrary.get()
    }

    init(libraryName: String) throws {
        self.library = try Self.load(libraryName).get()
    }

    public var kind: SecretStoreKind { .secretService }
    public var isLocked: Bool { false }

    /// Whether a Secret Service answers on the session bus: libsecret can be loaded, a session bus
    /// is named (`DBUS_SESSION_BUS_ADDRESS`, or the socket `$XDG_RUNTIME_DIR/bus`), and a trial
    /// lookup does not fail (with "no such service", or any other error). The lookup may start the
    /// service through D-Bus activation, as any client would.
    public static func availability(environment: [String: String] = ProcessInfo.processInfo.environment) -> Availability {
        availability(environment: environment, libraryName: libraryName)
    }

    /// `availability(environment:).isAvailable`.
    public static func available(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        availability(environment: environment).isAvailable
    }

    static func availability(environment: [String: String], libraryName: String) -> Availability {
        let store: SecretServiceStore
        do {
            store = libraryName == Self.libraryName ? try SecretServiceStore() : try SecretServiceStore(libraryName: libraryName)
        } catch {
            return .unavailable((error as? SecretStoreError)?.message ?? "\(error)")
        }
        if let missing = missingSessionBus(environment) { return .unavailable(missing) }
        do {
            _ = try store.secret(for: SecretKey(account: "mailsearch-availability-probe", purpose: .password))
            return .available
        } catch {
            return .unavailable((error as? SecretStoreError)?.message ?? "\(error)")
        }
    }

    /// Why no session bus can be reached from `environment`, or nil. glib reads the process's own
    /// environment: `environment` is a check made before asking it, not a setting passed to it.
    static func missingSessionBus(_ environment: [String: String]) -> String? {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return nil }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty,
           FileManager.default.fileExists(atPath: runtime + "/bus") {
            return nil
        }
        return "no session bus: DBUS_SESSION_BUS_ADDRESS is not set (no desktop session, or a server without one)"
    }

    public func store(_ secret: String, for key: SecretKey) throws {
        let key = try key.validated()
        guard !secret.contains("\0") else {
            throw SecretStoreError(.invalidKey, "a secret must not contain NUL", hint: "the Secret Service stores text")
        }
        let label = "MailSearch: \(key)"
        try call("store the \(key)") { error in
            ms_secret_store(library.pointer, key.account, key.purpose.rawValue, label, secret, error)
        }
    }

    public func secret(for key: SecretKey) throws -> String? {
        let key = try key.validated()
        var found: UnsafeMutablePointer<CChar>?
        try call("look up the \(key)") { error in
            ms_secret_lookup(library.pointer, key.account, key.purpose.rawValue, &found, error)
        }
        guard let found else { return nil }
        defer { ms_secret_free(library.pointer, found) }
        return String(cString: found)
    }

    public func delete(_ key: SecretKey) throws {
        let key = try key.validated()
        try call("delete the \(key)") { error in
            ms_secret_clear(library.pointer, key.account, key.purpose.rawValue, error)
        }
    }

    private func call(_ what: String, _ body: (UnsafeMutablePointer<ms_secret_error>) -> Int32) throws {
        var error = ms_secret_error()
        let ok = mutex.withLock { body(&error) }
        if ok != 0 { return }
        throw Self.translate(error, what: what)
    }

    /// A GError in words: what failed and what to do.
    static func translate(_ error: ms_secret_error, what: String) -> SecretStoreError {
        let domain = withUnsafeBytes(of: error.domain) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let message = withUnsafeBytes(of: error.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return translate(domain: domain, code: Int(error.code), message: message, what: what)
    }

    /// GError's domain (its quark's name), code and message in words.
    static func translate(domain: String, code: Int, message: String, what: String) -> SecretStoreError {
        switch domain {
        case "g-dbus-error-quark" where [2, 3].contains(code), // SERVICE_UNKNOWN, NAME_HAS_NO_OWNER
             "g-dbus-error-quark" where message.contains("org.freedesktop.secrets"):
            return SecretStoreError(.unavailable, "no Secret Service on the session bus: \(message)",
                                    hint: "start the desktop's keyring (gnome-keyring-daemon, KWallet, KeePassXC), or use the encrypted file (MAILSEARCH_SECRET_STORE=file)")
        case "g-io-error-quark" where [1, 18, 39].contains(code), // NOT_FOUND (no socket), CLOSED, CONNECTION_REFUSED
             "g-dbus-error-quark" where [6, 11, 15].contains(code): // BAD_ADDRESS, NO_SERVER, DISCONNECTED
            return SecretStoreError(.unavailable, "cannot reach the session bus: \(message)",
                                    hint: "check DBUS_SESSION_BUS_ADDRESS, or use the encrypted file (MAILSEARCH_SECRET_STORE=file)")
        case "g-io-error-quark" where code == 24, "g-dbus-error-quark" where [4, 12].contains(code): // TIMED_OUT, NO_REPLY, TIMEOUT
            return SecretStoreError(.refused, "Secret Service refused: no answer in time to \(what) (\(message))",
                                    hint: "the keyring may be waiting for a prompt on the desktop; answer it and try again")
        case "g-io-error-quark" where code == 19: // CANCELLED: a prompt dismissed
            return SecretStoreError(.refused, "Secret Service refused: the request to \(what) was cancelled (\(message))",
                                    hint: "accept the desktop's prompt to unlock the keyring")
        case "mailsearch-bus-closed":
            return SecretStoreError(.unavailable, "lost the session bus: the desktop session ended or its bus was restarted, and libsecret cannot connect again within one process",
                                    hint: "restart MailSearch to reach the Secret Service of the current session, or use the encrypted file (MAILSEARCH_SECRET_STORE=file)")
        case "mailsearch-libsecret-missing":
            return SecretStoreError(.unavailable, "libsecret cannot be loaded: \(message)",
                                    hint: "install Debian's libsecret-1-0, or use the encrypted file (MAILSEARCH_SECRET_STORE=file)")
        case "secret-error-quark" where code == 2: // SECRET_ERROR_IS_LOCKED
            return SecretStoreError(.refused, "Secret Service refused to \(what): the keyring is locked (\(message))",
                                    hint: "unlock the keyring on the desktop (log in again, or with its keyring manager)")
        default:
            return SecretStoreError(.refused, "Secret Service refused to \(what): \(message.isEmpty ? "no reason given" : message) [\(domain) \(code)]",
                                    hint: "see the keyring's own log (journalctl --user, or the desktop's keyring manager)")
        }
    }

    private static func load(_ name: String) -> Result<LibSecret, SecretStoreError> {
        var error = ms_secret_error()
        guard let library = ms_libsecret_open(name, &error) else {
            return .failure(translate(error, what: "load \(name)"))
        }
        return .success(LibSecret(pointer: library))
    }

    /// Loaded once per process, on first use; never unloaded.
    private static let loadedLibrary: Result<LibSecret, SecretStoreError> = load(libraryName)
}

/// A loaded libsecret (CSecret's table of its functions): never freed, used under the store's lock.
private struct LibSecret: @unchecked Sendable {
    let pointer: OpaquePointer
}
