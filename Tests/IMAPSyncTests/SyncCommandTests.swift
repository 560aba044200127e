import Foundation
import GRDB
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `mailsearch account add`, `account list`, `sync` and `serve`'s background sync as a user runs
/// them: the built binary (`.build/debug/mailsearch`, or $MAILSEARCH_BINARY) against a real Dovecot.
final class SyncCommandTests: XCTestCase {
    var work: URL!
    var server: DovecotServer!

    /// The variable that holds the account's password in the children's environment.
    static let passwordVariable = "MS_TEST_IMAP_PASSWORD"
    static let password = "alice-password"

    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["MAILSEARCH_BINARY"] { return URL(fileURLWithPath: path) }
        return DovecotServer.repositoryRoot.appendingPathComponent(".build/debug/mailsearch")
    }

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary.path) else {
            throw XCTSkip("no built binary at \(Self.binary.path); run `swift build` first")
        }
        signal(SIGPIPE, SIG_IGN)
        work = FileManager.default.temporaryDirectory.appendingPathComponent("synccli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        server?.stop()
        server = nil
        if let work { try? FileManager.default.removeItem(at: work) }
    }

    // MARK: Tests

    func testAccountAddChecksTheLoginThenSyncMakesMailSearchable() throws {
        server = try DovecotServer()
        try appendMessages(0..<300)

        // A refused password: a clear error naming the server, and nothing saved.
        let refused = try mailsearch(addArguments(), environment: [Self.passwordVariable: "not-the-password"])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("\(server.host):\(server.tlsPort)"), "names the server: \(refused.stderr)")
        XCTAssertTrue(refused.stderr.contains("not saved"), "says the account was not saved: \(refused.stderr)")
        XCTAssertFalse(refused.stderr.contains("not-the-password"), "never shows the password")
        XCTAssertEqual(try accountList().count, 0, "no account after a refused login")

        // The right password: the account is added and printed.
        let added = try mailsearch(addArguments())
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertTrue(added.stdout.contains("Added account \"work\""), added.stdout)
        XCTAssertTrue(added.stdout.contains("alice"), added.stdout)
        let listed = try accountList()
        XCTAssertEqual(listed.count, 1)
        XCTAssertEqual(listed.first?["name"] as? String, "work")
        XCTAssertEqual(listed.first?["kind"] as? String, "imap")
        XCTAssertEqual(listed.first?["emails"] as? Int, 0)
        XCTAssertNil(listed.first?["lastSync"], "never synced yet")
        let settings = listed.first?["imap"] as? [String: Any]
        XCTAssertEqual(settings?["passwordEnvironment"] as? String, Self.passwordVariable)
        XCTAssertNil(settings?["syncWindowDays"], "--sync-window all")

        // The same name again: refused, and still one account.
        let again = try mailsearch(addArguments())
        XCTAssertNotEqual(again.status, 0)
        XCTAssertTrue(again.stderr.contains("exists already"), again.stderr)
        XCTAssertEqual(try accountList().count, 1)

        // sync --json: one summary per account.
        let sync = try mailsearch(["sync", "--json"])
        XCTAssertEqual(sync.status, 0, sync.stderr)
        let summaries = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(sync.stdout.utf8)) as? [[String: Any]],
                                      sync.stdout)
        XCTAssertEqual(summaries.count, 1)
        XCTAssertEqual(summaries.first?["account"] as? String, "work")
        XCTAssertEqual(summaries.first?["newEmails"] as? Int, 300)
        XCTAssertEqual((summaries.first?["failures"] as? [Any])?.count, 0)

        let afterSync = try accountList()
        XCTAssertEqual(afterSync.first?["emails"] as? Int, 300)
        XCTAssertNotNil(afterSync.first?["lastSync"] as? String, "lastSync is set after a sync")

        for n in [0, 137, 299] {
            XCTAssertEqual(try searchSubjects(Self.word(n)), [Self.subject(n)], "message \(n)")
        }

        // Every synced email has its category when the command ends, as after an import.
        let stats = try mailsearch(["stats", "--json"])
        let statsObject = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
        let categories = try XCTUnwrap(statsObject["categories"] as? [String: Int], stats.stdout)
        XCTAssertEqual(categories["uncategorized"], 0, "\(categories)")
        XCTAssertEqual(categories.values.reduce(0, +), 300)

        // Again: nothing new.
        let second = try mailsearch(["sync", "work", "--json"])
        XCTAssertEqual(second.status, 0, second.stderr)
        let secondSummary = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(second.stdout.utf8)) as? [[String: Any]])?.first)
        XCTAssertEqual(secondSummary["newEmails"] as? Int, 0)

        // Without --json, and standard error no terminal: plain progress lines, the last one where
        // the folder ended (not where it was when a line was last due).
        try appendMessages(300..<305)
        let third = try mailsearch(["sync", "work"])
        XCTAssertEqual(third.status, 0, third.stderr)
        let inboxLines = third.stderr.split(separator: "\n").filter { $0.hasPrefix("work INBOX:") }
        XCTAssertTrue(inboxLines.last?.hasPrefix("work INBOX: 5/5 msgs") ?? false, third.stderr)
    }

    func testSyncKilledWithSIGKILLResumesWithNoDuplicateAndNoGap() throws {
        server = try DovecotServer()
        let total = 1500
        try appendMessages(0..<total)
        XCTAssertEqual(try mailsearch(addArguments()).status, 0)

        // Killed once the first batches are stored (the engine stores 250 a batch, newest first).
        let process = try start(["sync"])
        let database = work.appendingPathComponent("data/mail.sqlite").path
        let deadline = Date().addingTimeInterval(300)
        var seen = 0
        while process.isRunning, Date() < deadline {
            seen = emailCount(database)
            if seen >= 200 { break }
            usleep(20_000)
        }
        XCTAssertTrue(process.isRunning, "the sync ended (\(seen) emails) before it could be killed; \(process.stderrText)")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)
        let afterKill = emailCount(database)
        XCTAssertGreaterThanOrEqual(afterKill, 200)
        XCTAssertLessThan(afterKill, total, "killed mid-sync")

        let resumed = try mailsearch(["sync", "--json"])
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        let summary = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(resumed.stdout.utf8)) as? [[String: Any]])?.first,
                                    resumed.stdout)
        let newEmails = try XCTUnwrap(summary["newEmails"] as? Int)
        print("SIGKILL after \(afterKill) emails were stored; the second run stored \(newEmails), linked \(summary["linked"] ?? "?")")
        XCTAssertEqual(newEmails + afterKill, total, "the second run stores exactly what the first did not")

        let queue = try DatabaseQueue(path: database, configuration: Self.readOnly)
        try queue.read { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM emails"), total)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(DISTINCT messageId) FROM emails"), total)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM imap_messages"), total)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(DISTINCT emailId) FROM imap_messages"), total)
            let expected = Set((0..<total).map { "sync\($0)@cli.example.com" })
            XCTAssertEqual(Set(try String.fetchAll(db, sql: "SELECT messageId FROM emails")), expected)
        }
        let status = try mailsearch(["index", "status", "--json"])
        XCTAssertEqual(status.status, 0, status.stderr)
        let index = (try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])?["keywordIndex"] as? [String: Any]
        XCTAssertEqual(index?["indexedEmails"] as? Int, total, status.stdout)
        XCTAssertEqual(index?["missing"] as? Int, 0, status.stdout)
        // The newest (first batch, before the kill), around the kill, and the oldest (after it).
        for n in [total - 1, total - 200, total - afterKill, total - afterKill - 1, 700, 0] {
            XCTAssertEqual(try searchSubjects(Self.word(n)), [Self.subject(n)], "message \(n)")
        }
    }

    func testSyncWithoutSuchAccountOrWithoutIMAPAccountsFails() throws {
        let none = try mailsearch(["sync"])
        XCTAssertNotEqual(none.status, 0)
        XCTAssertTrue(none.stderr.contains("no IMAP account"), none.stderr)
        XCTAssertTrue(none.stderr.contains("account add"), "says how to add one: \(none.stderr)")

        let missing = try mailsearch(["sync", "nosuchaccount"])
        XCTAssertNotEqual(missing.status, 0)
        XCTAssertTrue(missing.stderr.contains("no account named \"nosuchaccount\""), missing.stderr)
        XCTAssertTrue(missing.stderr.contains("account list"), "says how to see the accounts: \(missing.stderr)")

        // An account imported from files has nothing to sync.
        let mbox = work.appendingPathComponent("mail.mbox")
        let text = "From a@example.com Mon Mar  4 14:11:14 2024\n" + String(decoding: Self.message(1), as: UTF8.self)
            .replacingOccurrences(of: "\r\n", with: "\n") + "\n"
        try Data(text.utf8).write(to: mbox)
        let imported = try mailsearch(["import", mbox.path, "--account", "files"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let onlyImported = try mailsearch(["sync"])
        XCTAssertNotEqual(onlyImported.status, 0)
        XCTAssertTrue(onlyImported.stderr.contains("no IMAP account"), onlyImported.stderr)
        let notIMAP = try mailsearch(["sync", "files"])
        XCTAssertNotEqual(notIMAP.status, 0)
        XCTAssertTrue(notIMAP.stderr.contains("imported"), notIMAP.stderr)
    }

    func testServeSyncsInTheBackgroundAndShowsDeliveredMailWithinThreeSeconds() throws {
        server = try DovecotServer()
        try appendMessages(0..<20)
        XCTAssertEqual(try mailsearch(addArguments()).status, 0)

        let process = try start(["serve", "--port", "0", "--no-background-embedding"])
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
        let line = try process.waitForStdoutLine(timeout: 60)
        guard let url = line.split(separator: " ").first(where: { $0.hasPrefix("http://127.0.0.1:") }),
              let port = Int(url.split(separator: ":").last ?? "") else {
            return XCTFail("no URL in \"\(line)\"; \(process.stderrText)")
        }

        // The account's sync shows in the status and reaches `listening` (IDLE) after its first pass.
        var state: String?
        var status: [String: Any] = [:]
        let started = Date()
        while Date().timeIntervalSince(started) < 30 {
            status = try json(http(port: port, "/api/status")) as? [String: Any] ?? [:]
            let sync = status["sync"] as? [[String: Any]] ?? []
            // Empty only until the background sync's task has started.
            XCTAssertTrue(sync.isEmpty || sync.map { $0["account"] as? String } == ["work"], "\(status)")
            state = sync.first?["state"] as? String
            if state == "listening" { break }
            usleep(100_000)
        }
        XCTAssertEqual(state, "listening", "\(status)")
        let listening = Date().timeIntervalSince(started)
        XCTAssertLessThan(listening, 10, "listening within a few seconds")
        XCTAssertEqual(status["emails"] as? Int, 20)

        let delivered = Date()
        try server.deliver(message: Self.message(5000, body: "Delivered while serving: the wombat ledger."))
        var found = false
        while !found, Date().timeIntervalSince(delivered) < 10 {
            let page = try json(http(port: port, "/api/search?q=\(Self.word(5000))&record=0&mode=keyword")) as? [String: Any]
            found = (page?["results"] as? [[String: Any]])?.contains { $0["subject"] as? String == Self.subject(5000) } ?? false
            if !found { usleep(100_000) }
        }
        let elapsed = Date().timeIntervalSince(delivered)
        print("listening \(listening) s after start; delivered mail searchable after \(elapsed) s")
        XCTAssertTrue(found, "the delivered message never became searchable; \(process.stderrText)")
        XCTAssertLessThan(elapsed, 3, "searchable \(elapsed) s after delivery")

        kill(process.processIdentifier, SIGTERM)
        process.waitForExit(orKillAfter: 30)
        XCTAssertEqual(process.terminationReason, .exit, "stopped by SIGTERM, not killed")
        XCTAssertEqual(process.terminationStatus, 0, process.stderrText)
    }

    // MARK: Mail

    static func word(_ n: Int) -> String {
        // Four letters from n, all the same length: no word is a prefix of another.
        var letters = ""
        var value = n
        for _ in 0..<4 {
            letters = String(UnicodeScalar(UInt8(97 + value % 26))) + letters
            value /= 26
        }
        return "qx" + letters + "word"
    }

    static func subject(_ n: Int) -> String { "Synced report \(n)" }

    static func message(_ n: Int, body: String? = nil) -> [UInt8] {
        let day = 1 + n % 28
        let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun"][(n / 28) % 6]
        var text = "From: Sender \(n % 7) <sender\(n % 7)@example.com>\r\nTo: alice@example.com\r\n"
        text += "Subject: \(subject(n))\r\n"
        text += "Date: \(day) \(month) 2025 \(String(format: "%02d:%02d", n % 24, n % 60)):00 +0000\r\n"
        text += "Message-ID: <sync\(n)@cli.example.com>\r\n\r\n"
        text += "\(body ?? "Body of message \(n).") The word \(word(n)) is in this message only.\r\n"
        return Array(text.utf8)
    }

    /// Messages `range` straight into alice's INBOX (fast: no IMAP APPEND).
    func appendMessages(_ range: Range<Int>) throws {
        let directory = work.appendingPathComponent("eml-\(range.lowerBound)-\(range.upperBound)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let paths = try range.map { n -> String in
            let path = directory.appendingPathComponent("\(n).eml").path
            try Data(Self.message(n)).write(to: URL(fileURLWithPath: path))
            return path
        }
        for chunk in stride(from: 0, to: paths.count, by: 500) {
            try server.writeMessages(mailbox: "INBOX", paths: Array(paths[chunk..<min(chunk + 500, paths.count)]))
        }
    }

    func addArguments(name: String = "work") -> [String] {
        ["account", "add", name, "--imap", "\(server.host):\(server.tlsPort)", "--user", "alice",
         "--password-env", Self.passwordVariable, "--ca-file", server.caFile, "--sync-window", "all"]
    }

    // MARK: Running the binary

    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static let readOnly: Configuration = {
        var configuration = Configuration()
        configuration.readonly = true
        return configuration
    }()

    /// Emails in the data directory's mail.sqlite now (0 before it exists or is set up).
    func emailCount(_ path: String) -> Int {
        guard FileManager.default.fileExists(atPath: path),
              let queue = try? DatabaseQueue(path: path, configuration: Self.readOnly) else { return 0 }
        return (try? queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM emails") ?? 0 }) ?? 0
    }

    func accountList() throws -> [[String: Any]] {
        let list = try mailsearch(["account", "list", "--json"])
        XCTAssertEqual(list.status, 0, list.stderr)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]], list.stdout)
    }

    func searchSubjects(_ text: String) throws -> [String] {
        let search = try mailsearch(["search", text, "--json", "--no-history"])
        XCTAssertEqual(search.status, 0, search.stderr)
        let page = try JSONSerialization.jsonObject(with: Data(search.stdout.utf8)) as? [String: Any]
        return (page?["results"] as? [[String: Any]] ?? []).compactMap { $0["subject"] as? String }
    }

    /// Runs the binary and waits (at most 10 minutes).
    func mailsearch(_ arguments: [String], environment: [String: String] = [:]) throws -> Outcome {
        let process = try start(arguments, environment: environment)
        process.waitForExit(orKillAfter: 600)
        return Outcome(status: process.terminationStatus, stdout: process.stdoutText, stderr: process.stderrText)
    }

    /// Starts the binary with the test's data directory, no model, and the password in its
    /// environment (unless `environment` says otherwise); its output goes to files.
    func start(_ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess {
        var env = ProcessInfo.processInfo.environment
        env["MAILSEARCH_DATA_DIR"] = work.appendingPathComponent("data").path
        env["MAILSEARCH_MODEL_DIR"] = work.appendingPathComponent("no-model").path
        env[Self.passwordVariable] = Self.password
        for (key, value) in environment { env[key] = value }
        return try ChildProcess(binary: Self.binary, arguments: arguments, environment: env,
                                outputDirectory: work.appendingPathComponent("out-\(UUID().uuidString)"))
    }

    // MARK: HTTP

    func json(_ response: String) throws -> Any {
        guard response.hasPrefix("HTTP/1.1 200"), let split = response.range(of: "\r\n\r\n") else {
            throw NSError(domain: "SyncCommandTests", code: 1, userInfo: [NSLocalizedDescriptionKey: "not a 200: \(response.prefix(500))"])
        }
        var body = String(response[split.upperBound...])
        if response[..<split.lowerBound].lowercased().contains("transfer-encoding: chunked") { body = LoopbackHTTP.dechunk(body) }
        return try JSONSerialization.jsonObject(with: Data(body.utf8))
    }

    /// GET `path` from 127.0.0.1:port (no Origin header) and returns the whole answer.
    func http(port: Int, _ path: String) throws -> String {
        try LoopbackHTTP.exchange(port: port, path: path, timeout: 30)
    }
}

/// A child process whose standard output and error go to files (no pipe to fill up and block it).
final class ChildProcess: @unchecked Sendable {
    let process = Process()
    let stdoutURL: URL
    let stderrURL: URL

    init(binary: URL, arguments: [String], environment: [String: String], outputDirectory: URL) throws {
        try FileManager.default.createDirectory(at: outputDirectory, withIntermediateDirectories: true)
        stdoutURL = outputDirectory.appendingPathComponent("stdout")
        stderrURL = outputDirectory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process.executableURL = binary
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        try process.run()
    }

    var processIdentifier: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }
    var terminationStatus: Int32 { process.terminationStatus }
    var terminationReason: Process.TerminationReason { process.terminationReason }
    func waitUntilExit() { process.waitUntilExit() }

    var stdoutText: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    var stderrText: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    /// Waits for the process, killing it (SIGKILL) after `seconds`.
    func waitForExit(orKillAfter seconds: TimeInterval) {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// The first line of standard output, once printed (throws after `timeout` or if the process exits first).
    func waitForStdoutLine(timeout: TimeInterval) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let text = stdoutText
            if let newline = text.firstIndex(of: "\n") { return String(text[..<newline]) }
            if !process.isRunning { break }
            usleep(50_000)
        }
        throw NSError(domain: "ChildProcess", code: 1, userInfo: [
            NSLocalizedDescriptionKey: "no line on standard output (running: \(process.isRunning)); stderr: \(stderrText.suffix(2000))",
        ])
    }
}
