import Foundation
import Hummingbird
import SecretStore

/// The page's app lock (001 §5.8): with a passcode set, every API call but a few needs a session that
/// the passcode opened (`X-MailSearch-Session`), so that a person at an unlocked computer, or another
/// local program, cannot read the mail through the server. `app-lock.json` in the data directory holds
/// the passcode's scrypt verifier (`PasscodeVerifier`), never the passcode. Sessions live in memory: a
/// restart locks again, and one idle for `idleLimit` ends.
final class AppLock: @unchecked Sendable {
    static let fileName = "app-lock.json"
    static let header = "X-MailSearch-Session"
    static let idleLimit: TimeInterval = 12 * 3600

    let file: URL
    private let lock = NSLock()
    private var verifier: PasscodeVerifier?
    private var sessions: [String: Date] = [:]
    private var failures = 0

    init(dataDirectory: URL) {
        file = dataDirectory.appendingPathComponent(Self.fileName)
        if let data = try? Data(contentsOf: file) { verifier = try? JSONDecoder().decode(PasscodeVerifier.self, from: data) }
    }

    var isEnabled: Bool { lock.withLock { verifier != nil } }

    /// Whether a request with this session may go on (always, without a passcode set).
    func allows(session: String?) -> Bool {
        lock.withLock {
            guard verifier != nil else { return true }
            guard let session, let used = sessions[session], Date().timeIntervalSince(used) < Self.idleLimit else { return false }
            sessions[session] = Date()
            return true
        }
    }

    /// A new session for the right passcode. Wrong ones are answered more and more slowly (one second
    /// per failure after the third, at most 30), so that guessing takes long.
    func unlock(passcode: String) async throws -> String {
        let (current, delay) = lock.withLock { (verifier, failures > 2 ? min(30, failures - 2) : 0) }
        guard let current else { throw APIError(.conflict, "there is no app lock to open", hint: "set a passcode in Settings") }
        if delay > 0 { try await Task.sleep(for: .seconds(delay)) }
        guard current.matches(passcode) else {
            lock.withLock { failures += 1 }
            var error = APIError(HTTPResponse.Status(code: 403, reasonPhrase: "Forbidden"), "that is not the passcode")
            error.field = "passcode"
            throw error
        }
        return lock.withLock {
            failures = 0
            let session = SessionToken.random()
            sessions[session] = Date()
            return session
        }
    }

    /// Sets (or changes) the passcode; the sessions open now stay open. Written before it counts.
    func set(passcode: String) throws -> String {
        let made: PasscodeVerifier
        do {
            made = try PasscodeVerifier.make(passcode: passcode)
        } catch {
            var failure = APIError.badRequest("\(error)")
            failure.field = "passcode"
            throw failure
        }
        let data = try JSONEncoder().encode(made)
        try data.write(to: file, options: .atomic)
        _ = try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        return lock.withLock {
            verifier = made
            let session = SessionToken.random()
            sessions[session] = Date()
            return session
        }
    }

    /// Removes the lock (the request already carries an open session).
    func remove() throws {
        if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
        lock.withLock {
            verifier = nil
            sessions = [:]
        }
    }
}

/// A random session token (128 bits, URL-safe).
enum SessionToken {
    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
