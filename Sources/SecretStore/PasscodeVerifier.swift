import Crypto
import Foundation
import _CryptoExtras

/// What is kept of an app-lock passcode (001 §5.8 "App lock"): a random salt and the scrypt key derived
/// from the passcode with it — never the passcode. `matches` derives again and compares in constant time.
public struct PasscodeVerifier: Codable, Sendable, Equatable {
    public var salt: [UInt8]
    public var key: [UInt8]
    public var log2N: Int
    public var r: Int
    public var p: Int

    public static let minimumLength = 4

    /// A verifier for a new passcode (scrypt N=2^15, r=8, p=1, as the password file).
    public static func make(passcode: String, log2N: Int = 15) throws -> PasscodeVerifier {
        guard passcode.count >= minimumLength else {
            throw SecretStoreError(.invalidArgument, "a passcode needs at least \(minimumLength) characters")
        }
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return PasscodeVerifier(salt: salt, key: try derive(passcode, salt: salt, log2N: log2N, r: 8, p: 1), log2N: log2N, r: 8, p: 1)
    }

    public func matches(_ passcode: String) -> Bool {
        guard let candidate = try? Self.derive(passcode, salt: salt, log2N: log2N, r: r, p: p), candidate.count == key.count else {
            return false
        }
        var difference: UInt8 = 0
        for (a, b) in zip(candidate, key) { difference |= a ^ b }
        return difference == 0
    }

    static func derive(_ passcode: String, salt: [UInt8], log2N: Int, r: Int, p: Int) throws -> [UInt8] {
        guard (10...20).contains(log2N), (1...16).contains(r), (1...4).contains(p) else {
            throw SecretStoreError(.corrupted, "the app lock's stored cost is out of range")
        }
        let bytes = Array(passcode.precomposedStringWithCanonicalMapping.utf8)
        let key = try KDF.Scrypt.deriveKey(from: bytes, salt: salt, outputByteCount: 32, rounds: 1 << log2N, blockSize: r, parallelism: p)
        return key.withUnsafeBytes { Array($0) }
    }
}
