import Crypto
import Foundation
import _CryptoExtras

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Secrets in one file encrypted with a key derived from the user's passphrase: the store where no
/// Secret Service answers (a server, a container, a desktop without a keyring).
///
/// The trade-off, against the Secret Service: the file is as strong as the passphrase against
/// anyone who has a copy of it (scrypt makes each guess cost ~32 MiB and tens of milliseconds, no
/// more), and while the store is unlocked the derived key is in this process's memory, readable by
/// root, a debugger or a core dump. The desktop's keyring is unlocked by the login and keeps its
/// key out of MailSearch's process.
///
/// The file (`secrets.enc`, mode 0600, replaced atomically: a temporary file, fsync, rename):
///
///     "MSSECRET"            8 bytes, magic
///     version               1 byte (1)
///     KDF                   1 byte (1 = scrypt)
///     log2(N), r, p         1 byte each (scrypt's cost; 15, 8, 1 by default)
///     salt length, salt     1 byte, then 16 random bytes (new for every passphrase)
///     nonce                 12 bytes (new for every write)
///     ciphertext, tag       AES-256-GCM of the JSON {"entries": {account: {purpose: secret}}},
///                           the header above (magic to salt) authenticated as additional data
///
/// A wrong passphrase fails GCM's tag check (`wrongPassphrase`) and never writes; a file cut short or
/// of another version is `corrupted`, never a crash. The first `unlock(passphrase:)` creates the file.
/// Writers in other processes are kept out by an `flock` on `secrets.enc.lock` beside it; threads of
/// this process by a lock of the store's own. Every write reads the file again, so that another
/// process's writes are kept.
public final class EncryptedFileStore: SecretStore, @unchecked Sendable {
    /// The file's name in the data directory.
    public static let fileName = "secrets.enc"
    /// The shortest passphrase that may create the file or replace its passphrase.
    public static let minimumPassphraseLength = 8

    /// scrypt's parameters, written in the file's header; the file is always read with its own.
    struct KeyDerivation: Sendable, Equatable {
        var log2N: UInt8
        var r: UInt8
        var p: UInt8
        /// N = 2^15, r = 8, p = 1: 32 MiB and ~0.1 s per derivation (optimised build).
        static let standard = KeyDerivation(log2N: 15, r: 8, p: 1)
        /// What a file may ask for: below it is too weak to be ours, above it a file could make
        /// the reader spend gigabytes.
        static let accepted: ClosedRange<UInt8> = 10...20
    }

    private struct Header: Equatable {
        var derivation: KeyDerivation
        var salt: [UInt8]

        static let magic = Array("MSSECRET".utf8)
        static let version: UInt8 = 1
        static let scrypt: UInt8 = 1

        var bytes: [UInt8] {
            Header.magic + [Header.version, Header.scrypt, derivation.log2N, derivation.r, derivation.p, UInt8(salt.count)] + salt
        }
    }

    private struct Payload: Codable {
        var entries: [String: [String: String]] = [:]
    }

    private struct Unlocked {
        var header: Header
        var key: SymmetricKey
    }

    public let fileURL: URL
    private let lockFileURL: URL
    private let newDerivation: KeyDerivation
    private let mutex = NSLock()
    private var unlocked: Unlocked?

    /// The store in `fileURL`, locked. Nothing is read or written until `unlock(passphrase:)`.
    public convenience init(fileURL: URL) {
        self.init(fileURL: fileURL, keyDerivation: .standard)
    }

    /// The store in `dataDirectory/secrets.enc`, locked.
    public convenience init(dataDirectory: URL) {
        self.init(fileURL: dataDirectory.appendingPathComponent(Self.fileName))
    }

    /// `keyDerivation`: the cost of a new file's key (tests use a cheaper one).
    init(fileURL: URL, keyDerivation: KeyDerivation) {
        self.fileURL = fileURL
        self.lockFileURL = fileURL.appendingPathExtension("lock")
        self.newDerivation = keyDerivation
    }

    public var kind: SecretStoreKind { .encryptedFile }

    public var isLocked: Bool {
        mutex.withLock { unlocked == nil }
    }

    /// Whether the file exists (else the first `unlock(passphrase:)` creates it).
    public var fileExists: Bool {
        FileManager.default.fileExists(atPath: fileURL.path)
    }

    /// Opens the store with `passphrase`: derives the key from it and the file's salt, and checks
    /// it by decrypting the file. When there is no file yet, creates it (empty) with this
    /// passphrase, which must be at least `minimumPassphraseLength` characters. The file is never
    /// written when the passphrase is wrong.
    public func unlock(passphrase: String) throws {
        try mutex.withLock {
            try withFileLock {
                if let data = try readFile() {
                    let (header, sealed) = try Self.parse(data, path: fileURL.path)
                    let key = try Self.deriveKey(passphrase, header: header)
                    _ = try Self.open(sealed, header: header, key: key, path: fileURL.path, unlocking: true)
                    unlocked = Unlocked(header: header, key: key)
                } else {
                    try Self.checkNew(passphrase)
                    let header = Header(derivation: newDerivation, salt: Self.randomBytes(16))
                    let state = Unlocked(header: header, key: try Self.deriveKey(passphrase, header: header))
                    try write(Payload(), with: state)
                    unlocked = state
                }
            }
        }
    }

    /// Forgets the key: until the next `unlock(passphrase:)` nothing can be read or written.
    public func lock() {
        mutex.withLock { unlocked = nil }
    }

    /// Replaces the passphrase: checks `current` against the file, then encrypts everything again
    /// under a key derived from `new` with a new salt, in one atomic replacement of the file. The
    /// store is left unlocked with the new key.
    public func changePassphrase(from current: String, to new: String) throws {
        try Self.checkNew(new)
        try mutex.withLock {
            try withFileLock {
                guard let data = try readFile() else {
                    throw SecretStoreError(.io, "there is no secrets file at \(fileURL.path) yet",
                                           hint: "unlock the store with a passphrase to create it")
                }
                let (header, sealed) = try Self.parse(data, path: fileURL.path)
                let key = try Self.deriveKey(current, header: header)
                let payload = try Self.open(sealed, header: header, key: key, path: fileURL.path, unlocking: true)
                let newHeader = Header(derivation: newDerivation, salt: Self.randomBytes(16))
                let state = Unlocked(header: newHeader, key: try Self.deriveKey(new, header: newHeader))
                try write(payload, with: state)
                unlocked = state
            }
        }
    }

    public func store(_ secret: String, for key: SecretKey) throws {
        let key = try key.validated()
        try modify { $0.entries[key.account, default: [:]][key.purpose.rawValue] = secret }
    }

    public func secret(for key: SecretKey) throws -> String? {
        let key = try key.validated()
        return try mutex.withLock {
            let state = try requireUnlocked()
            return try withFileLock { try read(with: state) }.entries[key.account]?[key.purpose.rawValue]
        }
    }

    public func delete(_ key: SecretKey) throws {
        let key = try key.validated()
        try modify { payload in
            payload.entries[key.account]?[key.purpose.rawValue] = nil
            if payload.entries[key.account]?.isEmpty == true { payload.entries[key.account] = nil }
        }
    }

    /// The keys stored, sorted by account then purpose.
    public func keys() throws -> [SecretKey] {
        try mutex.withLock {
            let state = try requireUnlocked()
            let payload = try withFileLock { try read(with: state) }
            return payload.entries.flatMap { account, purposes in
                purposes.keys.map { SecretKey(account: account, purpose: SecretPurpose(rawValue: $0)) }
            }.sorted { ($0.account, $0.purpose.rawValue) < ($1.account, $1.purpose.rawValue) }
        }
    }

    // MARK: - Reading and writing

    private func modify(_ change: (inout Payload) -> Void) throws {
        try mutex.withLock {
            let state = try requireUnlocked()
            try withFileLock {
                var payload = try read(with: state)
                change(&payload)
                try write(payload, with: state)
            }
        }
    }

    private func requireUnlocked() throws -> Unlocked {
        guard let state = unlocked else {
            throw SecretStoreError(.locked, "locked: unlock the store with your passphrase",
                                   hint: "the secrets in \(fileURL.path) are encrypted; nothing can be read or stored until it is unlocked")
        }
        return state
    }

    /// The file's entries, decrypted with the key the store was unlocked with. A file that is gone
    /// reads as empty (the next write creates it again with the same passphrase).
    private func read(with state: Unlocked) throws -> Payload {
        guard let data = try readFile() else { return Payload() }
        let (header, sealed) = try Self.parse(data, path: fileURL.path)
        guard header == state.header else {
            unlocked = nil
            throw SecretStoreError(.locked, "locked: the passphrase of \(fileURL.path) was changed by another process",
                                   hint: "unlock the store again with the new passphrase")
        }
        return try Self.open(sealed, header: header, key: state.key, path: fileURL.path, unlocking: false)
    }

    private func readFile() throws -> Data? {
        do {
            return try Data(contentsOf: fileURL)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return nil
        } catch {
            if !FileManager.default.fileExists(atPath: fileURL.path) { return nil }
            throw SecretStoreError(.io, "cannot read \(fileURL.path): \(Self.reason(error))",
                                   hint: "check that the file belongs to this user and can be read")
        }
    }

    /// Encrypts `payload` and replaces the file with it: a temporary file (mode 0600) in the same
    /// directory, written and fsynced, renamed over the file, then the directory fsynced.
    private func write(_ payload: Payload, with state: Unlocked) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let plaintext: Data
        do {
            plaintext = try encoder.encode(payload)
        } catch {
            throw SecretStoreError(.io, "cannot encode the secrets: \(error)")
        }
        let headerBytes = state.header.bytes
        let sealed: AES.GCM.SealedBox
        do {
            sealed = try AES.GCM.seal(plaintext, using: state.key, nonce: AES.GCM.Nonce(), authenticating: headerBytes)
        } catch {
            throw SecretStoreError(.io, "cannot encrypt the secrets: \(error)")
        }
        guard let combined = sealed.combined else {
            throw SecretStoreError(.io, "cannot encrypt the secrets: AES-GCM gave no combined box")
        }
        var bytes = Data(headerBytes)
        bytes.append(combined)
        try Self.replaceAtomically(fileURL, with: bytes)
    }

    /// Holds an exclusive `flock` on `secrets.enc.lock` (created, mode 0600) while `body` runs.
    private func withFileLock<T>(_ body: () throws -> T) throws -> T {
        try Self.makeDirectory(fileURL.deletingLastPathComponent())
        let fd = Glibc_open(lockFileURL.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw SecretStoreError(.io, "cannot open \(lockFileURL.path): \(String(cString: strerror(errno)))",
                                   hint: "check that the data directory can be written")
        }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw SecretStoreError(.io, "cannot lock \(lockFileURL.path): \(String(cString: strerror(errno)))")
            }
        }
        defer { _ = flock(fd, LOCK_UN) }
        return try body()
    }

    // MARK: - Format and cryptography

    private static func parse(_ data: Data, path: String) throws -> (Header, Data) {
        let bytes = [UInt8](data)
        let fixed = Header.magic.count + 6
        func corrupted(_ what: String) -> SecretStoreError {
            SecretStoreError(.corrupted, "\(path) is not a readable secrets file: \(what)",
                             hint: "restore it from a backup, or move it away and store the secrets again")
        }
        guard bytes.count >= Header.magic.count, Array(bytes[0..<Header.magic.count]) == Header.magic else {
            throw corrupted(bytes.isEmpty ? "it is empty" : "it does not start with MailSearch's mark (MSSECRET)")
        }
        guard bytes.count >= fixed else { throw corrupted("it is cut short (\(bytes.count) bytes, in its header)") }
        let version = bytes[8]
        guard version == Header.version else {
            throw SecretStoreError(.corrupted, "\(path) is a secrets file of version \(version); this MailSearch reads version \(Header.version)",
                                   hint: "use the MailSearch that wrote it, or a newer one")
        }
        guard bytes[9] == Header.scrypt else { throw corrupted("unknown key derivation \(bytes[9])") }
        let derivation = KeyDerivation(log2N: bytes[10], r: bytes[11], p: bytes[12])
        guard KeyDerivation.accepted.contains(derivation.log2N), (1...32).contains(derivation.r), (1...16).contains(derivation.p) else {
            throw corrupted("scrypt parameters out of range (log2 N = \(derivation.log2N), r = \(derivation.r), p = \(derivation.p))")
        }
        let saltLength = Int(bytes[13])
        guard (16...64).contains(saltLength) else { throw corrupted("a salt of \(saltLength) bytes") }
        let sealedStart = fixed + saltLength
        // A nonce (12) and a tag (16) at least; an empty JSON is never written, so more.
        guard bytes.count > sealedStart + 12 + 16 else {
            throw corrupted("it is cut short (\(bytes.count) bytes)")
        }
        let header = Header(derivation: derivation, salt: Array(bytes[fixed..<sealedStart]))
        return (header, Data(bytes[sealedStart...]))
    }

    private static func open(_ sealed: Data, header: Header, key: SymmetricKey, path: String, unlocking: Bool) throws -> Payload {
        let plaintext: Data
        do {
            let box = try AES.GCM.SealedBox(combined: sealed)
            plaintext = try AES.GCM.open(box, using: key, authenticating: header.bytes)
        } catch {
            if unlocking {
                throw SecretStoreError(.wrongPassphrase, "wrong passphrase: \(path) cannot be decrypted with it (or the file was altered)",
                                       hint: "type the passphrase the store was created with; the file was not changed")
            }
            throw SecretStoreError(.corrupted, "\(path) was altered since the store was unlocked: it no longer decrypts",
                                   hint: "restore it from a backup, or move it away and store the secrets again")
        }
        do {
            return try JSONDecoder().decode(Payload.self, from: plaintext)
        } catch {
            throw SecretStoreError(.corrupted, "\(path) decrypts, but what it holds is not a list of secrets",
                                   hint: "restore it from a backup, or move it away and store the secrets again")
        }
    }

    private static func deriveKey(_ passphrase: String, header: Header) throws -> SymmetricKey {
        // The same passphrase typed on another keyboard or system must give the same key.
        let bytes = Array(passphrase.precomposedStringWithCanonicalMapping.utf8)
        do {
            return try KDF.Scrypt.deriveKey(from: bytes, salt: header.salt, outputByteCount: 32,
                                            rounds: 1 << Int(header.derivation.log2N),
                                            blockSize: Int(header.derivation.r), parallelism: Int(header.derivation.p))
        } catch {
            throw SecretStoreError(.io, "cannot derive the key from the passphrase (scrypt): \(error)",
                                   hint: "the machine may be short of memory: scrypt needs \((128 * Int(header.derivation.r)) << (Int(header.derivation.log2N) - 20)) MiB")
        }
    }

    private static func checkNew(_ passphrase: String) throws {
        guard passphrase.count >= minimumPassphraseLength else {
            throw SecretStoreError(.invalidArgument, "a passphrase of \(passphrase.count) characters is too short to protect the secrets",
                                   hint: "choose one of at least \(minimumPassphraseLength) characters; the encrypted file is only as strong as its passphrase")
        }
    }

    private static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    private static func makeDirectory(_ directory: URL) throws {
        if FileManager.default.fileExists(atPath: directory.path) { return }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw SecretStoreError(.io, "cannot create \(directory.path): \(reason(error))")
        }
    }

    private static func replaceAtomically(_ url: URL, with bytes: Data) throws {
        let directory = url.deletingLastPathComponent()
        try makeDirectory(directory)
        var template = Array((directory.appendingPathComponent(".\(url.lastPathComponent).XXXXXX").path).utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw SecretStoreError(.io, "cannot create a temporary file in \(directory.path): \(String(cString: strerror(errno)))",
                                   hint: "check that the data directory can be written")
        }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var renamed = false
        defer {
            if !renamed { unlink(temporary) }
        }
        func fail(_ what: String) -> SecretStoreError {
            let reason = String(cString: strerror(errno))
            return SecretStoreError(.io, "cannot write \(url.path): \(what): \(reason)", hint: "the previous file was kept")
        }
        do {
            defer { close(fd) }
            guard fchmod(fd, 0o600) == 0 else { throw fail("chmod") }
            var offset = 0
            try bytes.withUnsafeBytes { raw in
                while offset < raw.count {
                    let written = Glibc_write(fd, raw.baseAddress! + offset, raw.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw fail("write")
                    }
                    offset += written
                }
            }
            guard fsync(fd) == 0 else { throw fail("fsync") }
        }
        guard rename(temporary, url.path) == 0 else { throw fail("rename") }
        renamed = true
        let directoryFD = Glibc_open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
        if directoryFD >= 0 {
            _ = fsync(directoryFD)
            close(directoryFD)
        }
    }

    private static func reason(_ error: Error) -> String {
        if let error = error as? CocoaError, let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError {
            return underlying.localizedDescription
        }
        return (error as NSError).localizedDescription
    }
}

// `open` and `write` are also methods' names here; these reach the C functions.
private func Glibc_open(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    open(path, flags, mode)
}

private func Glibc_write(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}
