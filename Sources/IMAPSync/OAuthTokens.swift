import ClientSupport
import Crypto
import Foundation
import MailModel
import MailSearchKit

/// An account's OAuth 2.0 tokens, kept as JSON in the secret store (purpose `oauth-tokens`).
public struct OAuthTokens: Codable, Sendable, Equatable {
    public var accessToken: String
    public var refreshToken: String?
    public var expiresAt: Date

    public init(accessToken: String, refreshToken: String?, expiresAt: Date) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
    }
}

/// Why a token could not be had.
public struct OAuthError: Error, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The grant is gone (revoked, expired, the password changed): the person must sign in again.
        case signInAgain
        /// The provider answered with an error other than that, or something that is not OAuth.
        case provider
        /// The provider could not be reached.
        case network
    }

    public var kind: Kind
    public var message: String
    public var description: String { message }
}

/// PKCE (RFC 7636): a random verifier and its S256 challenge.
public struct PKCE: Sendable {
    public let verifier: String
    public var challenge: String { Self.base64URL(Array(SHA256.hash(data: Array(verifier.utf8)))) }

    public init() {
        var generator = SystemRandomNumberGenerator()
        verifier = Self.base64URL((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// A random `state` value (128 bits).
    public static func randomState() -> String {
        var generator = SystemRandomNumberGenerator()
        return base64URL((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// The provider's token endpoint (RFC 6749 §4.1.3 and §6): a code for tokens, a refresh token for a
/// new access token.
public enum OAuthTokenEndpoint {
    public static func exchange(code: String, verifier: String, redirectURI: String, settings: OAuthSettings,
                                clientSecret: String?) async throws -> OAuthTokens {
        var form = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
                    ("client_id", settings.clientId), ("code_verifier", verifier)]
        if let clientSecret { form.append(("client_secret", clientSecret)) }
        return try await request(settings.tokenURL, form: form, keeping: nil)
    }

    public static func refresh(_ refreshToken: String, settings: OAuthSettings, clientSecret: String?) async throws -> OAuthTokens {
        var form = [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", settings.clientId)]
        if let clientSecret { form.append(("client_secret", clientSecret)) }
        // A provider that does not rotate refresh tokens sends none back: the old one stays.
        return try await request(settings.tokenURL, form: form, keeping: refreshToken)
    }

    static func request(_ endpoint: String, form: [(String, String)], keeping refreshToken: String?) async throws -> OAuthTokens {
        guard let url = URL(string: endpoint) else {
            throw OAuthError(kind: .provider, message: "the token endpoint \(endpoint) is not an address")
        }
        let answer: HTTPFormPost.Answer
        do {
            answer = try await HTTPFormPost.post(url, form: form)
        } catch {
            throw OAuthError(kind: .network, message: "cannot reach \(url.host ?? endpoint): \(error)")
        }
        struct Body: Decodable {
            var access_token: String?
            var refresh_token: String?
            var expires_in: Double?
            var error: String?
            var error_description: String?
        }
        guard let body = try? JSONDecoder().decode(Body.self, from: Data(answer.body)) else {
            throw OAuthError(kind: .provider, message: "\(url.host ?? endpoint) answered \(answer.status) without OAuth JSON")
        }
        if let error = body.error {
            let words = body.error_description.map { "\(error): \($0)" } ?? error
            // invalid_grant: the refresh token or code is revoked, expired or used (RFC 6749 §5.2).
            throw OAuthError(kind: error == "invalid_grant" ? .signInAgain : .provider, message: "\(url.host ?? endpoint) refused: \(words)")
        }
        guard (200..<300).contains(answer.status), let access = body.access_token, !access.isEmpty else {
            throw OAuthError(kind: .provider, message: "\(url.host ?? endpoint) answered \(answer.status) without an access token")
        }
        return OAuthTokens(accessToken: access, refreshToken: body.refresh_token ?? refreshToken,
                           expiresAt: Date().addingTimeInterval(body.expires_in ?? 3600))
    }
}

/// The access tokens of the process's OAuth accounts: read from the secret store, refreshed a minute
/// before they expire (or at once when a server refused one), one refresh at a time per account
/// (a provider that rotates refresh tokens would revoke the grant on a second use of the old one).
public actor OAuthSessions {
    public static let shared = OAuthSessions()
    public static let purpose = "oauth-tokens"
    public static let clientSecretPurpose = "oauth-client-secret"
    /// How long before its expiry a token is replaced.
    static let margin: TimeInterval = 60

    private var refreshing: [String: Task<OAuthTokens, any Error>] = [:]

    /// A valid access token of `account`. `refused`: the server just refused `refused` (expired early,
    /// revoked): a new one is asked for unless another refresh has already replaced it.
    public func accessToken(account: String, settings: OAuthSettings, secrets: (any SecretVault)?,
                            refused: String? = nil) async throws -> String {
        guard let secrets else {
            throw OAuthError(kind: .provider, message: "the tokens of account \"\(account)\" are in the secret store, which this process has not opened")
        }
        if let task = refreshing[account] { return try await task.value.accessToken }
        let tokens = try Self.read(account: account, secrets: secrets)
        let fresh = tokens.expiresAt.timeIntervalSinceNow > Self.margin
        if fresh, refused == nil || refused != tokens.accessToken { return tokens.accessToken }
        guard let refreshToken = tokens.refreshToken else {
            throw OAuthError(kind: .signInAgain, message: "the access of account \"\(account)\" expired and the provider gave no refresh token")
        }
        let clientSecret = settings.hasClientSecret ? try secrets.secret(account: account, purpose: Self.clientSecretPurpose) : nil
        let task = Task {
            let renewed = try await OAuthTokenEndpoint.refresh(refreshToken, settings: settings, clientSecret: clientSecret)
            try secrets.store(try Self.encode(renewed), account: account, purpose: Self.purpose)
            return renewed
        }
        refreshing[account] = task
        defer { refreshing[account] = nil }
        return try await task.value.accessToken
    }

    static func read(account: String, secrets: any SecretVault) throws -> OAuthTokens {
        guard let text = try secrets.secret(account: account, purpose: purpose),
              let tokens = try? JSONDecoder().decode(OAuthTokens.self, from: Data(text.utf8)) else {
            throw OAuthError(kind: .signInAgain, message: "the secret store holds no sign-in for account \"\(account)\"")
        }
        return tokens
    }

    public static func encode(_ tokens: OAuthTokens) throws -> String {
        String(decoding: try JSONEncoder().encode(tokens), as: UTF8.self)
    }
}
