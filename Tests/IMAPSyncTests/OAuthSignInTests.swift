import Foundation
import SecretStore
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// OAuth 2.0 sign-in as a person does it from the page, against real peers: Tests/IMAP/oauth_server.py
/// (authorization code + PKCE, loopback redirect, rotating refresh tokens, revocation) and a Dovecot
/// whose IMAP and submission check the bearer tokens by introspection. The browser's part (opening
/// the provider's page, Allow, following the redirect) is done over HTTP here.
final class OAuthSignInTests: XCTestCase {
    var api: AccountsAPITests!
    var oauth: OAuthServer?
    let passphrase = "correct horse battery"

    override func setUpWithError() throws {
        api = AccountsAPITests(name: "helper") { _ in }
        try api.setUpWithError()
    }

    override func tearDownWithError() throws {
        try api.tearDownWithError()
        oauth?.stop()
    }

    func testSignInSyncsRefreshesAndAsksToSignInAgainWhenRevoked() throws {
        let oauth = try OAuthServer(accessLifetime: 3)
        self.oauth = oauth
        let server = try DovecotServer(submission: true, oauthIntrospectionURL: oauth.dovecotIntrospectionURL)
        api.server = server
        for n in 0..<3 { _ = try server.append(message: SyncCommandTests.message(n)) }
        try api.startServe(environment: ["MAILSEARCH_SECRET_STORE": "file"])
        XCTAssertEqual(try api.request("POST", "/api/secrets/unlock", ["passphrase": passphrase]).0, 200)

        // Deny on the consent page: nothing is saved, and the page says why.
        let denied = try signIn(start: startForm(oauth: oauth, server: server), decision: "deny")
        XCTAssertEqual(denied.status, 200, "a page for a person, saying why")
        XCTAssertTrue(denied.body.contains("access was not allowed"), denied.body)
        XCTAssertEqual(try api.accountNames(), [])

        // Allow: the code comes back to serve, is exchanged with the PKCE verifier, the servers take the token.
        let allowed = try signIn(start: startForm(oauth: oauth, server: server), decision: "allow")
        XCTAssertEqual(allowed.status, 200, allowed.body)
        XCTAssertTrue(allowed.body.contains("Signed in"), allowed.body)
        XCTAssertEqual(try api.accountNames(), ["oauth-work"])
        let info = try XCTUnwrap(try api.account("oauth-work"))
        XCTAssertEqual((info["imap"] as? [String: Any])?["credential"] as? String, "oauth")
        XCTAssertTrue(try api.waitFor(seconds: 30) { try self.api.emails(of: "oauth-work") == 3 }, api.serve?.stderrText ?? "")
        let (_, replayed) = try rawGet(port: api.port, allowed.callbackPath)
        XCTAssertTrue(replayed.contains("unknown"), "a callback works once: \(replayed)")

        // The tokens are in secrets.enc, not in mail.sqlite.
        let tokens = try storedTokens()
        let access = try XCTUnwrap(tokens["accessToken"] as? String)
        let refresh = try XCTUnwrap(tokens["refreshToken"] as? String)
        let data = api.work.appendingPathComponent("data")
        for file in try FileManager.default.contentsOfDirectory(atPath: data.path) where file.hasPrefix("mail.sqlite") {
            let bytes = try Data(contentsOf: data.appendingPathComponent(file))
            XCTAssertNil(bytes.range(of: Data(access.utf8)), "\(file) holds the access token")
            XCTAssertNil(bytes.range(of: Data(refresh.utf8)), "\(file) holds the refresh token")
        }

        // The access token expires (3 s): a sync refreshes it first, and the rotated refresh token is kept.
        sleep(4)
        try server.deliver(message: SyncCommandTests.message(100))
        let synced = try api.cli(["sync", "oauth-work", "--quiet"])
        XCTAssertEqual(synced.status, 0, synced.stderr)
        let renewed = try storedTokens()
        XCTAssertNotEqual(renewed["accessToken"] as? String, access, "a new access token")
        XCTAssertNotEqual(renewed["refreshToken"] as? String, refresh, "the provider rotated the refresh token and the new one was kept")

        // The grant is revoked at the provider: the next login is refused, the refresh fails, and the
        // account says to sign in again (no retry loop of logins).
        XCTAssertTrue(try oauth.revoke(try XCTUnwrap(renewed["refreshToken"] as? String)))
        let refused = try api.cli(["sync", "oauth-work", "--quiet"])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("sign in again"), refused.stderr)

        // Sign in again from the page: the same account, synced again.
        let id = try XCTUnwrap(info["id"] as? Int)
        let again = try signIn(start: ["accountId": id], decision: "allow")
        XCTAssertEqual(again.status, 200, again.body)
        XCTAssertTrue(again.body.contains("Signed in again"), again.body)
        XCTAssertEqual(try api.accountNames(), ["oauth-work"])
        let resynced = try api.cli(["sync", "oauth-work", "--quiet"])
        XCTAssertEqual(resynced.status, 0, resynced.stderr)
    }

    // MARK: The browser's part

    func startForm(oauth: OAuthServer, server: DovecotServer) -> [String: Any] {
        [
            "account": [
                "name": "oauth-work", "email": "alice@example.com", "username": "alice",
                "imapHost": server.host, "imapPort": server.tlsPort, "imapSecurity": "tls", "caFile": server.caFile,
                "smtpHost": server.host, "smtpPort": server.submissionPort ?? 0, "smtpSecurity": "startTLS",
            ] as [String: Any],
            "provider": "custom", "clientId": "mailsearch", "authorizeURL": oauth.issuer + "/authorize",
            "tokenURL": oauth.issuer + "/token", "scope": "imap smtp",
        ]
    }

    /// Starts a sign-in through the API, answers the provider's consent page, and follows the redirect
    /// back to serve: serve's answer (status and page) and the callback's path.
    func signIn(start: [String: Any], decision: String) throws -> (status: Int, body: String, callbackPath: String) {
        let (status, started) = try api.request("POST", "/api/accounts/oauth/start", start)
        XCTAssertEqual(status, 200, "\(started)")
        let address = try XCTUnwrap(URL(string: try XCTUnwrap((started as? [String: Any])?["authorizationURL"] as? String)))
        XCTAssertTrue(address.query?.contains("code_challenge_method=S256") == true, address.absoluteString)
        let providerPort = try XCTUnwrap(address.port)
        var path = address.path
        if let query = address.query { path += "?" + query }
        let (pageStatus, page) = try rawGet(port: providerPort, path)
        XCTAssertEqual(pageStatus, 200, page)
        let requestId = try XCTUnwrap(page.range(of: #"name="request_id" value="([^"]+)""#, options: .regularExpression)
            .map { String(page[$0]).components(separatedBy: "value=\"")[1].dropLast() }, page)
        let form = "request_id=\(requestId)&decision=\(decision)&username=alice"
        let (redirectStatus, headers, _) = try raw(port: providerPort, method: "POST", path: "/authorize",
                                                   contentType: "application/x-www-form-urlencoded", body: Data(form.utf8))
        XCTAssertEqual(redirectStatus, 302, headers)
        let location = try XCTUnwrap(headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("location:") }
            .map { $0.dropFirst("location:".count).trimmingCharacters(in: .whitespaces) }, headers)
        let back = try XCTUnwrap(URL(string: location))
        XCTAssertEqual(back.host, "127.0.0.1")
        XCTAssertEqual(back.port, api.port, "the provider sends the person back to serve")
        let callback = back.path + "?" + (back.query ?? "")
        let (answer, body) = try rawGet(port: api.port, callback)
        return (answer, body, callback)
    }

    func storedTokens() throws -> [String: Any] {
        let store = EncryptedFileStore(dataDirectory: api.work.appendingPathComponent("data"))
        try store.unlock(passphrase: passphrase)
        let text = try XCTUnwrap(try store.secret(for: SecretKey(account: "oauth-work", purpose: SecretPurpose(rawValue: "oauth-tokens"))))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    func rawGet(port: Int, _ path: String) throws -> (Int, String) {
        let answer = try LoopbackHTTP.request(port: port, path: path)
        return (answer.status, answer.body)
    }

    /// One HTTP/1.1 request to 127.0.0.1:port; the status, the header block and the body.
    func raw(port: Int, method: String, path: String, contentType: String?, body: Data) throws -> (Int, String, String) {
        let answer = try LoopbackHTTP.request(port: port, method: method, path: path, contentType: contentType, body: body)
        return (answer.status, answer.head, answer.body)
    }
}
