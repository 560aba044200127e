import Foundation
import IMAPClient
import IMAPProtocol
import SMTPClient
import SMTPProtocol
import XCTest

/// Logging in with an OAuth 2.0 access token, OAUTHBEARER (RFC 7628) and XOAUTH2, against real
/// peers: the authorization server of Tests/IMAP/oauth_server.py (Authlib) issues, expires and
/// revokes tokens, and Dovecot (dovecot.py with its oauth2 passdb) asks it about every token by
/// RFC 7662 introspection, for IMAP and for the submission service. Authlib or Dovecot missing is a
/// failure (the servers' init throws), never a skip. A few fake servers check the bytes on the wire.
final class OAuthLoginTests: XCTestCase {
    /// One authorization server and one Dovecot for the class; started on first use.
    nonisolated(unsafe) private static var shared: (oauth: OAuthServer, dovecot: DovecotServer)?
    private static let sharedLock = NSLock()

    private func servers() throws -> (oauth: OAuthServer, dovecot: DovecotServer) {
        Self.sharedLock.lock()
        defer { Self.sharedLock.unlock() }
        if let shared = Self.shared { return shared }
        let oauth = try OAuthServer()
        let dovecot: DovecotServer
        do {
            dovecot = try DovecotServer(submission: true, oauthIntrospectionURL: oauth.dovecotIntrospectionURL)
        } catch {
            oauth.stop()
            throw error
        }
        Self.shared = (oauth, dovecot)
        return (oauth, dovecot)
    }

    override class func tearDown() {
        sharedLock.lock()
        shared?.dovecot.stop()
        shared?.oauth.stop()
        shared = nil
        sharedLock.unlock()
        super.tearDown()
    }

    private func imapConfiguration(_ dovecot: DovecotServer, _ security: IMAPSecurity) -> IMAPClientConfiguration {
        IMAPClientConfiguration(host: dovecot.host, port: security == .tls ? dovecot.tlsPort : dovecot.port, security: security,
                                caFile: dovecot.caFile, connectTimeout: .seconds(10), responseTimeout: .seconds(10))
    }

    private func smtpConfiguration(_ dovecot: DovecotServer, _ security: SMTPSecurity) throws -> SMTPClientConfiguration {
        let port = try XCTUnwrap(security == .tls ? dovecot.submissionsPort : dovecot.submissionPort)
        return SMTPClientConfiguration(host: "127.0.0.1", port: port, security: security, caFile: dovecot.caFile,
                                       connectTimeout: .seconds(10), responseTimeout: .seconds(10))
    }

    /// How many times Dovecot's log says `user` logged in with `method` (`Login: user=<alice>, method=OAUTHBEARER`).
    private func logins(_ dovecot: DovecotServer, user: String = "alice", method: String) throws -> Int {
        let path = try XCTUnwrap(dovecot.info["log"] as? String)
        let log = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return log.components(separatedBy: "\n").filter { $0.contains("Login: user=<\(user)>, method=\(method),") }.count
    }

    /// Waits (at most 3 s: the log process writes a little after the login) for `count` such logins.
    private func waitForLogins(_ dovecot: DovecotServer, method: String, count: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let deadline = Date().addingTimeInterval(3)
        while try logins(dovecot, method: method) < count, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        XCTAssertEqual(try logins(dovecot, method: method), count, "Dovecot's log of \(method) logins", file: file, line: line)
    }

    private func expectIMAPError(_ kind: IMAPClientError.Kind, file: StaticString = #filePath, line: UInt = #line,
                                 _ body: () async throws -> Void) async -> IMAPClientError? {
        do {
            try await body()
            XCTFail("expected an IMAPClientError of kind \(kind), got success", file: file, line: line)
        } catch let error as IMAPClientError {
            XCTAssertEqual(error.kind, kind, "\(error)", file: file, line: line)
            return error
        } catch {
            XCTFail("expected an IMAPClientError of kind \(kind), got \(error)", file: file, line: line)
        }
        return nil
    }

    private func expectSMTPError(_ kind: SMTPClientError.Kind, file: StaticString = #filePath, line: UInt = #line,
                                 _ body: () async throws(SMTPClientError) -> Void) async -> SMTPClientError? {
        do {
            try await body()
            XCTFail("expected an SMTPClientError of kind \(kind), got success", file: file, line: line)
            return nil
        } catch {
            XCTAssertEqual(error.kind, kind, "\(error)", file: file, line: line)
            return error
        }
    }

    private func message(_ subject: String) -> [UInt8] {
        Array(("From: alice@example.org\r\nTo: bob@example.com\r\nSubject: \(subject)\r\n"
               + "Message-ID: <\(UUID().uuidString)@example.org>\r\n\r\nSent with a bearer token.\r\n").utf8)
    }

    // MARK: IMAP

    func testIMAPLoginWithOAuthBearerAndXOAuth2OnTLSAndSTARTTLS() async throws {
        let (oauth, dovecot) = try servers()
        let token = try oauth.issueTokens(user: "alice").accessToken
        for (mechanism, method) in [(IMAPAuthentication.OAuthMechanism.oauthBearer, "OAUTHBEARER"), (.xoauth2, "XOAUTH2")] {
            for security in [IMAPSecurity.tls, .startTLS] {
                let before = try logins(dovecot, method: method)
                let connection = try await IMAPConnection.connect(imapConfiguration(dovecot, security))
                XCTAssertTrue(connection.capabilities.isSuperset(of: [.authOAuthBearer, .authXOAuth2]), "\(connection.capabilities)")
                try await connection.login(.oauth(user: "alice", accessToken: token, mechanism: mechanism))
                let select = try await connection.run(.select(.inbox))
                XCTAssertEqual(select.status.status, .ok, "\(method) over \(security)")
                await connection.logout()
                try waitForLogins(dovecot, method: method, count: before + 1)
            }
        }
    }

    func testIMAPOAuthPicksOAuthBearerWhenTheServerOffersIt() async throws {
        let (oauth, dovecot) = try servers()
        let token = try oauth.issueTokens(user: "alice").accessToken
        let bearer = try logins(dovecot, method: "OAUTHBEARER"), xoauth2 = try logins(dovecot, method: "XOAUTH2")
        let connection = try await IMAPConnection.connect(imapConfiguration(dovecot, .tls))
        try await connection.login(.oauth(user: "alice", accessToken: token))
        _ = try await connection.run(.select(.inbox))
        await connection.logout()
        try waitForLogins(dovecot, method: "OAUTHBEARER", count: bearer + 1)
        XCTAssertEqual(try logins(dovecot, method: "XOAUTH2"), xoauth2)
    }

    /// Expired (expire_now), past its lifetime, revoked: each mechanism gets the server's JSON error,
    /// answers it, and gets the NO at once; the same connection then logs in with the password.
    func testIMAPRefusedTokensAreAuthenticationFailedWithTheOAuthStatus() async throws {
        let (oauth, dovecot) = try servers()
        let expired = try oauth.issueTokens(user: "alice").accessToken
        XCTAssertTrue(try oauth.expireNow(expired))
        let revoked = try oauth.issueTokens(user: "alice").accessToken
        XCTAssertTrue(try oauth.revoke(revoked))
        try oauth.setAccessLifetime(1)
        let shortLived: String
        do {
            shortLived = try oauth.issueTokens(user: "alice").accessToken
        } catch {
            try oauth.setAccessLifetime(3600)
            throw error
        }
        try oauth.setAccessLifetime(3600)
        let bobs = try oauth.issueTokens(user: "bob").accessToken
        try await Task.sleep(for: .milliseconds(1300))
        XCTAssertEqual(try oauth.introspect(shortLived)["active"] as? Bool, false)

        for (name, token) in [("expired", expired), ("past its lifetime", shortLived), ("revoked", revoked), ("bob's", bobs)] {
            for mechanism in [IMAPAuthentication.OAuthMechanism.oauthBearer, .xoauth2] {
                for security in [IMAPSecurity.tls, .startTLS] {
                    let started = Date()
                    let connection = try await IMAPConnection.connect(imapConfiguration(dovecot, security))
                    let error = await expectIMAPError(.authenticationFailed) {
                        try await connection.login(.oauth(user: "alice", accessToken: token, mechanism: mechanism))
                    }
                    let context = "\(name) token, \(mechanism), \(security): \(String(describing: error))"
                    XCTAssertEqual(error?.code, .other(name: "AUTHENTICATIONFAILED", arguments: nil), context)
                    XCTAssertNotNil(error?.oauthStatus, context)
                    XCTAssertEqual(error?.oauth?.status, mechanism == .oauthBearer ? "invalid_token" : "401", context)
                    // Dovecot 2.3 sends {"status":"invalid_token"} for OAUTHBEARER, {"status":"401","schemes":"bearer","scope":"mail"} for XOAUTH2.
                    XCTAssertEqual(error?.oauth?.schemes, mechanism == .oauthBearer ? nil : "bearer", context)
                    XCTAssertFalse("\(String(describing: error))".contains(token), "the token is never in an error")
                    XCTAssertTrue(connection.isOpen, context)
                    // Not authenticated, still usable: the password logs in on the same connection.
                    try await connection.login(.password(user: "alice", password: "alice-password"))
                    let select = try await connection.run(.select(.inbox))
                    XCTAssertEqual(select.status.status, .ok, context)
                    await connection.logout()
                    XCTAssertLessThan(Date().timeIntervalSince(started), 5, context)
                }
            }
        }
    }

    func testPasswordsStillWorkWithPLAINAndAreNotBearerTokens() async throws {
        let (_, dovecot) = try servers()
        let plain = try logins(dovecot, method: "PLAIN")
        let connection = try await IMAPConnection.connect(imapConfiguration(dovecot, .tls))
        XCTAssertTrue(connection.capabilities.contains(.authPlain))
        try await connection.login(.password(user: "alice", password: "alice-password"))
        let select = try await connection.run(.select(.inbox))
        XCTAssertEqual(select.status.status, .ok)
        await connection.logout()
        try waitForLogins(dovecot, method: "PLAIN", count: plain + 1)

        let other = try await IMAPConnection.connect(imapConfiguration(dovecot, .startTLS))
        let error = await expectIMAPError(.authenticationFailed) {
            try await other.login(.oauth(user: "alice", accessToken: "alice-password"))
        }
        XCTAssertNotNil(error?.oauthStatus)
        await other.logout()
    }

    // MARK: SMTP

    func testSMTPAuthWithOAuthBearerAndXOAuth2SendsTheMessage() async throws {
        let (oauth, dovecot) = try servers()
        let token = try oauth.issueTokens(user: "alice").accessToken
        let delivered = try dovecot.status(user: "bob")["messages"] as? Int ?? -1
        var sent = 0
        let cases: [(SMTPAuthentication.OAuthMechanism, String)] = [(.oauthBearer, "OAUTHBEARER"), (.xoauth2, "XOAUTH2"), (.automatic, "OAUTHBEARER")]
        for (mechanism, method) in cases {
            for security in [SMTPSecurity.startTLS, .tls] {
                let before = try logins(dovecot, method: method)
                let connection = try await SMTPConnection.connect(try smtpConfiguration(dovecot, security))
                XCTAssertTrue(connection.capabilities.authMechanisms.isSuperset(of: ["OAUTHBEARER", "XOAUTH2", "PLAIN"]))
                try await connection.authenticate(.oauth(user: "alice", accessToken: token, mechanism: mechanism))
                let result = try await connection.send(message: message("\(method) over \(security)"),
                                                       from: try SMTPAddress("alice@example.org"), to: [try SMTPAddress("bob@example.com")])
                XCTAssertEqual(result.accepted.map(\.address), ["bob@example.com"])
                sent += 1
                await connection.quit()
                XCTAssertTrue(connection.sentCommands.contains("AUTH \(method)"), "\(connection.sentCommands)")
                try waitForLogins(dovecot, method: method, count: before + 1)
            }
        }
        let deadline = Date().addingTimeInterval(10)
        while try dovecot.status(user: "bob")["messages"] as? Int ?? -1 < delivered + sent, Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        XCTAssertEqual(try dovecot.status(user: "bob")["messages"] as? Int, delivered + sent)
    }

    func testSMTPRefusedTokensAreAuthenticationFailedWithTheOAuthStatus() async throws {
        let (oauth, dovecot) = try servers()
        let expired = try oauth.issueTokens(user: "alice").accessToken
        XCTAssertTrue(try oauth.expireNow(expired))
        let revoked = try oauth.issueTokens(user: "alice").accessToken
        XCTAssertTrue(try oauth.revoke(revoked))
        for (name, token) in [("expired", expired), ("revoked", revoked)] {
            for mechanism in [SMTPAuthentication.OAuthMechanism.oauthBearer, .xoauth2] {
                for security in [SMTPSecurity.startTLS, .tls] {
                    let started = Date()
                    let connection = try await SMTPConnection.connect(try smtpConfiguration(dovecot, security))
                    let error = await expectSMTPError(.authenticationFailed) { () async throws(SMTPClientError) in
                        try await connection.authenticate(.oauth(user: "alice", accessToken: token, mechanism: mechanism))
                    }
                    let context = "\(name) token, \(mechanism), \(security): \(String(describing: error))"
                    XCTAssertEqual(error?.reply?.code, 535, context)
                    XCTAssertEqual(error?.oauth?.status, mechanism == .oauthBearer ? "invalid_token" : "401", context)
                    // Dovecot 2.3 sends {"status":"invalid_token"} for OAUTHBEARER, {"status":"401","schemes":"bearer","scope":"mail"} for XOAUTH2.
                    XCTAssertEqual(error?.oauth?.schemes, mechanism == .oauthBearer ? nil : "bearer", context)
                    XCTAssertFalse("\(String(describing: error))".contains(token), "the token is never in an error")
                    // The session goes on: the password logs in and a message goes.
                    try await connection.authenticate(.password(user: "alice", password: "alice-password"))
                    let result = try await connection.send(message: message("after a refused token"),
                                                           from: try SMTPAddress("alice@example.org"), to: [try SMTPAddress("bob@example.com")])
                    XCTAssertEqual(result.accepted.count, 1, context)
                    await connection.quit()
                    XCTAssertLessThan(Date().timeIntervalSince(started), 5, context)
                }
            }
        }
    }

    // MARK: The harness

    func testMissingAuthlibIsAFailureWithItsMessage() throws {
        // python3 -S leaves site-packages (and Authlib) out: the server cannot start, and says why.
        XCTAssertThrowsError(try OAuthServer(python: ["python3", "-S"])) { error in
            XCTAssertTrue("\(error)".contains("Authlib is not importable"), "\(error)")
            XCTAssertTrue("\(error)".contains("install-deps.sh"), "\(error)")
        }
    }

    // MARK: The bytes on the wire (fake servers)

    /// OAUTHBEARER's initial response (GS2 header, host, port) without SASL-IR, the server's error
    /// challenge answered with a lone ^A (RFC 7628 §3.2.3), and its JSON in the error.
    func testOAuthBearerWireFormatAndErrorChallenge() async throws {
        let lines = LockedLines()
        let json = #"{"status":"invalid_token","schemes":"bearer","scope":"mail","openid-configuration":"https://example.com/.well-known/openid-configuration"}"#
        let fake = try FakeServer { client in
            client.send("* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN AUTH=XOAUTH2 AUTH=OAUTHBEARER] fake\r\n")
            for answer in ["+ \r\n", "+ \(Data(json.utf8).base64EncodedString())\r\n",
                           "A1 NO [AUTHENTICATIONFAILED] Authentication failed\r\n"] {
                guard let line = client.readLine() else { return }
                lines.append(line)
                client.send(answer)
            }
            client.waitForClose()
        }
        let configuration = fake.configuration()
        let connection = try await IMAPConnection.connect(configuration)
        let error = await expectIMAPError(.authenticationFailed) {
            try await connection.login(.oauth(user: "a=b,c@example.com", accessToken: "ya29.secret-token"))
        }
        XCTAssertEqual(lines.values.count, 3)
        XCTAssertEqual(lines.values.first, "A1 AUTHENTICATE OAUTHBEARER")
        let initial = lines.values.count > 1 ? Data(base64Encoded: lines.values[1]).map { String(decoding: $0, as: UTF8.self) } : nil
        XCTAssertEqual(initial, "n,a=a=3Db=2Cc@example.com,\u{01}host=127.0.0.1\u{01}port=\(configuration.port)\u{01}"
                       + "auth=Bearer ya29.secret-token\u{01}\u{01}")
        XCTAssertEqual(lines.values.last, "AQ==", "the error challenge is answered with ^A")
        XCTAssertEqual(error?.oauth, IMAPClientError.OAuthError(status: "invalid_token", schemes: "bearer", scope: "mail",
                                                                openIDConfiguration: "https://example.com/.well-known/openid-configuration"))
        XCTAssertEqual(error?.serverText, "Authentication failed")
        XCTAssertFalse(error?.description.contains("ya29") == true)
        await connection.close()
    }

    func testOAuthFallsBackToXOAuth2AndFailsClearlyWithNeither() async throws {
        let lines = LockedLines()
        let xoauth2Only = try FakeServer { client in
            client.send("* OK [CAPABILITY IMAP4rev1 SASL-IR AUTH=XOAUTH2] fake\r\n")
            guard let first = client.readLine() else { return }
            lines.append(first)
            client.send("+ eyJzdGF0dXMiOiI0MDEiLCJzY2hlbWVzIjoiQmVhcmVyIn0=\r\n")
            guard let second = client.readLine() else { return }
            lines.append(second)
            client.send("+ again\r\n")  // a server asking twice gets `*`, then says NO
            guard let third = client.readLine() else { return }
            lines.append(third)
            client.send("A1 BAD Authentication cancelled\r\n")
            client.waitForClose()
        }
        let connection = try await IMAPConnection.connect(xoauth2Only.configuration())
        let error = await expectIMAPError(.authenticationFailed) {
            try await connection.login(.oauth(user: "alice@example.com", accessToken: "tok"))
        }
        XCTAssertTrue(lines.values.first?.hasPrefix("A1 AUTHENTICATE XOAUTH2 ") == true, "\(lines.values)")
        XCTAssertEqual(Array(lines.values.dropFirst()), ["", "*"])
        XCTAssertEqual(error?.oauthStatus, "401")
        XCTAssertEqual(error?.oauth?.schemes, "Bearer")
        await connection.close()

        let plainOnly = try FakeServer { client in
            client.send("* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN] fake\r\n")
            while let line = client.readLine() {
                lines.append(line)
                client.send("\(line.prefix(while: { $0 != " " })) BAD unexpected\r\n")
            }
        }
        let before = lines.values.count
        for authentication in [IMAPAuthentication.oauth(user: "alice", accessToken: "tok"), .oauthBearer(user: "alice", accessToken: "tok"),
                               .xoauth2(user: "alice", accessToken: "tok")] {
            let connection = try await IMAPConnection.connect(plainOnly.configuration())
            let error = await expectIMAPError(.authenticationFailed) { try await connection.login(authentication) }
            XCTAssertTrue(error?.message.contains("cannot log in with an OAuth access token (it offers PLAIN)") == true, "\(String(describing: error))")
            XCTAssertNil(error?.oauthStatus)
            await connection.close()
        }
        XCTAssertEqual(lines.values.count, before, "nothing is sent to a server offering no token mechanism")
    }
}
