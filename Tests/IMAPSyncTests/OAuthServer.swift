import Foundation

/// A real OAuth 2.0 authorization server for a test: `python3 Tests/IMAP/oauth_server.py --control`
/// (Authlib) run as a child process, driven by one JSON request a line (see `CONTROL_HELP` in
/// oauth_server.py). Give `dovecotIntrospectionURL` to `DovecotServer(oauthIntrospectionURL:)` and
/// Dovecot asks this server about every bearer token (RFC 7662 introspection).
///
/// Authlib or python3 missing makes `init` throw with the harness's own message: a test fails, it
/// never skips (scripts/install-deps.sh installs Authlib). `stop()` (or deinit) closes the harness's
/// standard input, which stops the server. Requests are serialised (one lock).
final class OAuthServer: @unchecked Sendable {
    /// `http://127.0.0.1:PORT`.
    let issuer: String
    let port: Int
    /// The introspection endpoint with the "dovecot" client's credentials in it, for dovecot.py.
    let dovecotIntrospectionURL: String
    /// The full description line the harness printed (token_url, revoke_url, users…).
    let info: [String: Any]

    /// An access token and what came with it.
    struct Tokens {
        var accessToken: String
        var refreshToken: String?
        var expiresIn: Int?
    }

    private let harness: Harness
    private let lock = NSLock()

    /// `accessLifetime`: seconds an access token lives (the server's `--access-lifetime`). `python`:
    /// the interpreter and its options (tests: `["python3", "-S"]` hides the installed Authlib).
    init(users: [String: String] = ["alice": "alice-password", "bob": "bob-password"], accessLifetime: Int = 3600,
         python: [String] = ["python3"]) throws {
        let script = DovecotServer.repositoryRoot.appendingPathComponent("Tests/IMAP/oauth_server.py").path
        var arguments = python + [script, "--control", "--access-lifetime", String(accessLifetime)]
        for name in users.keys.sorted() {
            arguments += ["--user", "\(name):\(users[name] ?? "")"]
        }
        let harness = try Harness(name: "oauth_server.py", arguments: arguments, directory: DovecotServer.repositoryRoot)
        let line: String
        do {
            guard let first = try harness.readLine(timeout: DovecotServer.requestTimeout) else {
                throw DovecotServer.HarnessError(message: "oauth_server.py exited (status \(harness.waitForExit())) before describing the server: "
                                                 + harness.stderrText.waitForText())
            }
            line = first
        } catch {
            harness.shutDown()
            throw error
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let issuer = object["issuer"] as? String, let port = object["port"] as? Int,
              let introspection = object["dovecot_introspection_url"] as? String
        else {
            harness.shutDown()
            throw DovecotServer.HarnessError(message: "unexpected description line from oauth_server.py: \(line.prefix(500))")
        }
        self.harness = harness
        self.info = object
        self.issuer = issuer
        self.port = port
        self.dovecotIntrospectionURL = introspection
    }

    deinit {
        stop()
    }

    /// Stops the server (EOF on the harness's standard input) and waits for the harness to exit.
    func stop() {
        lock.lock()
        defer { lock.unlock() }
        harness.shutDown()
    }

    // MARK: Requests

    /// A token pair for `user` as if the browser's sign-in had happened (the server's `issue_tokens`).
    func issueTokens(user: String = "alice", scope: String = "imap smtp") throws -> Tokens {
        let result = try call(["op": "issue_tokens", "user": user, "scope": scope])
        guard let object = result as? [String: Any], let access = object["access_token"] as? String else {
            throw DovecotServer.HarnessError(message: "issue_tokens returned no access token")
        }
        return Tokens(accessToken: access, refreshToken: object["refresh_token"] as? String, expiresIn: object["expires_in"] as? Int)
    }

    /// As the revocation endpoint (RFC 7009): a refresh token takes its whole grant along. False if unknown.
    @discardableResult
    func revoke(_ token: String) throws -> Bool {
        try call(["op": "revoke", "token": token]) as? Bool ?? false
    }

    /// The token is past its lifetime from now on. False if unknown.
    @discardableResult
    func expireNow(_ token: String) throws -> Bool {
        try call(["op": "expire_now", "token": token]) as? Bool ?? false
    }

    /// What Dovecot is told about the token (`active`, `username`…).
    func introspect(_ token: String) throws -> [String: Any] {
        try call(["op": "introspect", "token": token]) as? [String: Any] ?? [:]
    }

    /// Seconds the access tokens issued from now on live.
    func setAccessLifetime(_ seconds: Int) throws {
        try call(["op": "set", "access_lifetime": seconds])
    }

    @discardableResult
    private func call(_ request: [String: Any]) throws -> Any? {
        lock.lock()
        defer { lock.unlock() }
        return try harness.call(request, timeout: DovecotServer.requestTimeout)
    }
}
