import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real Dovecot for a test: `python3 Tests/IMAP/dovecot.py --control` run as a child process,
/// driven by one JSON request a line on its standard input (see `CONTROL_HELP` in dovecot.py).
///
/// Dovecot or python3 missing makes `init` throw with the harness's own message: a test fails,
/// it never skips. `stop()` (or deinit) closes the harness's standard input, which stops Dovecot
/// and removes its directory; a test process that dies takes its Dovecot with it the same way.
/// Every request is synchronous and requests are serialised (one lock), so the helper may be
/// called from any thread or task.
final class DovecotServer: @unchecked Sendable {
    struct HarnessError: Error, CustomStringConvertible {
        var message: String
        var description: String { "Dovecot harness: \(message)" }
    }

    let host: String
    let port: Int
    let tlsPort: Int
    let caFile: String
    /// With `submission: true`: the SMTP ports (STARTTLS and implicit TLS); nil otherwise.
    let submissionPort: Int?
    let submissionsPort: Int?
    /// The full description line the harness printed (dir, log, users, separator…).
    let info: [String: Any]

    /// The longest a request may take before the helper gives up on the harness.
    static let requestTimeout: TimeInterval = 120

    private let harness: Harness
    private let lock = NSLock()

    /// The repository's root: three levels up from this file (Tests/IMAPSyncTests/DovecotServer.swift).
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// With `submission`, also an SMTP server (`submissionPort`: STARTTLS, `submissionsPort`: implicit
    /// TLS, SIZE `maxMailSize`) that delivers into the users' INBOX (see dovecot.py). With
    /// `oauthIntrospectionURL` (`OAuthServer.dovecotIntrospectionURL`), IMAP and submission also take
    /// OAuth 2.0 bearer tokens (XOAUTH2 and OAUTHBEARER), checked there by RFC 7662 introspection.
    init(users: [String: String] = ["alice": "alice-password", "bob": "bob-password"], submission: Bool = false,
         maxMailSize: Int = 2_000_000, oauthIntrospectionURL: String? = nil) throws {
        let script = Self.repositoryRoot.appendingPathComponent("Tests/IMAP/dovecot.py").path
        var arguments = ["python3", script, "--control"]
        if submission { arguments += ["--submission", "--max-mail-size", String(maxMailSize)] }
        if let oauthIntrospectionURL { arguments += ["--oauth-introspection-url", oauthIntrospectionURL] }
        for name in users.keys.sorted() {
            arguments += ["--user", "\(name):\(users[name] ?? "")"]
        }
        let harness = try Harness(name: "dovecot.py", arguments: arguments, directory: Self.repositoryRoot)
        let line: String
        do {
            guard let first = try harness.readLine(timeout: Self.requestTimeout) else {
                throw HarnessError(message: "dovecot.py exited (status \(harness.waitForExit())) before describing the server: "
                                   + harness.stderrText.waitForText())
            }
            line = first
        } catch {
            harness.shutDown()
            throw error
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let host = object["host"] as? String, let port = object["port"] as? Int,
              let tlsPort = object["tls_port"] as? Int, let caFile = object["ca_file"] as? String
        else {
            harness.shutDown()
            throw HarnessError(message: "unexpected description line from dovecot.py: \(line.prefix(500))")
        }
        self.harness = harness
        self.info = object
        self.host = host
        self.port = port
        self.tlsPort = tlsPort
        self.caFile = caFile
        self.submissionPort = object["submission_port"] as? Int
        self.submissionsPort = object["submissions_port"] as? Int
    }

    deinit {
        stop()
    }

    /// Stops Dovecot (EOF on the harness's standard input) and waits for the harness to exit.
    func stop() {
        lock.lock()
        defer { lock.unlock() }
        harness.shutDown()
    }

    // MARK: Requests

    @discardableResult
    func append(user: String = "alice", mailbox: String = "INBOX", message: [UInt8], flags: [String] = [], date: Date? = nil) throws -> UInt32 {
        var request: [String: Any] = ["op": "append", "user": user, "mailbox": mailbox,
                                      "data_base64": Data(message).base64EncodedString(), "flags": flags]
        // dovecot.py hands `date` to imaplib.Time2Internaldate: a number is Unix seconds.
        if let date { request["date"] = date.timeIntervalSince1970 }
        let result = try call(request)
        guard let uid = result as? Int, let value = UInt32(exactly: uid) else {
            throw HarnessError(message: "append returned no UID (\(String(describing: result)))")
        }
        return value
    }

    func deliver(user: String = "alice", message: [UInt8], mailbox: String = "INBOX") throws {
        try call(["op": "deliver", "user": user, "mailbox": mailbox, "data_base64": Data(message).base64EncodedString()])
    }

    func writeMessages(user: String = "alice", mailbox: String, paths: [String]) throws {
        try call(["op": "write_messages", "user": user, "mailbox": mailbox, "paths": paths])
    }

    func expunge(user: String = "alice", mailbox: String = "INBOX", uids: [UInt32]) throws {
        try call(["op": "expunge", "user": user, "mailbox": mailbox, "uids": uids.map { Int($0) }])
    }

    func addFlags(user: String = "alice", mailbox: String = "INBOX", uids: [UInt32], flags: [String]) throws {
        try call(["op": "add_flags", "user": user, "mailbox": mailbox, "uids": uids.map { Int($0) }, "flags": flags])
    }

    func removeFlags(user: String = "alice", mailbox: String = "INBOX", uids: [UInt32], flags: [String]) throws {
        try call(["op": "remove_flags", "user": user, "mailbox": mailbox, "uids": uids.map { Int($0) }, "flags": flags])
    }

    func setUIDValidity(user: String = "alice", mailbox: String, value: UInt32) throws {
        try call(["op": "set_uidvalidity", "user": user, "mailbox": mailbox, "value": Int(value)])
    }

    func createMailbox(user: String = "alice", mailbox: String) throws {
        try call(["op": "create_mailbox", "user": user, "mailbox": mailbox])
    }

    /// `messages`, `recent`, `uidnext`, `uidvalidity`, `unseen`, `highestmodseq` (numbers) through doveadm.
    func status(user: String = "alice", mailbox: String = "INBOX") throws -> [String: Any] {
        let result = try call(["op": "status", "user": user, "mailbox": mailbox])
        guard let dictionary = result as? [String: Any] else {
            throw HarnessError(message: "status returned \(String(describing: result))")
        }
        return dictionary
    }

    /// SIGKILL every Dovecot process (connections die mid-command); `restart()` serves the same data again.
    func kill() throws {
        try call(["op": "kill"])
    }

    /// Starts Dovecot again (stopping it first if it runs), same ports, same data.
    func restart() throws {
        try call(["op": "restart"])
    }

    /// `doveadm -c dovecot.conf ARGS…`; its standard output.
    func doveadm(_ args: [String]) throws -> String {
        let result = try call(["op": "doveadm", "args": args])
        return result as? String ?? ""
    }

    // MARK: Plumbing

    /// Sends one request and returns its `result`, or throws the harness's `error` text.
    @discardableResult
    private func call(_ request: [String: Any]) throws -> Any? {
        lock.lock()
        defer { lock.unlock() }
        return try harness.call(request, timeout: Self.requestTimeout)
    }
}

/// A harness process (dovecot.py, oauth_server.py) and its pipes. Not locked: its owner serialises every use.
final class Harness {
    private let process = Process()
    private let stdinPipe = Pipe()
    private let stdoutPipe = Pipe()
    private let stderrPipe = Pipe()
    private var stdoutBuffer: [UInt8] = []
    private(set) var stopped = false
    let stderrText = StderrCollector()
    /// The script's name, for messages.
    let name: String

    init(name: String, arguments: [String], directory: URL) throws {
        self.name = name
        // A write to a harness that died must be an error, not a SIGPIPE that kills the test run.
        signal(SIGPIPE, SIG_IGN)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        do {
            try process.run()
        } catch {
            throw DovecotServer.HarnessError(message: "cannot run \(arguments.joined(separator: " ")): \(error)")
        }
        stderrText.drain(stderrPipe.fileHandleForReading)
    }

    /// Sends one JSON request (`{"op": …}`) and returns its `result`, or throws the harness's `error` text.
    func call(_ request: [String: Any], timeout: TimeInterval) throws -> Any? {
        let op = request["op"] as? String ?? "?"
        guard !stopped else { throw DovecotServer.HarnessError(message: "\(op): the \(name) server was stopped") }
        var data = try JSONSerialization.data(withJSONObject: request)
        data.append(UInt8(ascii: "\n"))
        try writeAll(data)
        guard let line = try readLine(timeout: timeout) else {
            throw DovecotServer.HarnessError(message: "\(op): \(name) exited: " + stderrText.currentText())
        }
        guard let answer = try? JSONSerialization.jsonObject(with: Data(line.utf8), options: [.fragmentsAllowed]) as? [String: Any] else {
            throw DovecotServer.HarnessError(message: "\(op): unexpected answer from \(name): \(line.prefix(500))")
        }
        guard answer["ok"] as? Bool == true else {
            throw DovecotServer.HarnessError(message: "\(op) failed: \(answer["error"] as? String ?? line)")
        }
        let result = answer["result"]
        return result is NSNull ? nil : result
    }

    func waitForExit() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }

    func writeAll(_ data: Data) throws {
        let fd = stdinPipe.fileHandleForWriting.fileDescriptor
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count {
                let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw DovecotServer.HarnessError(message: "cannot write to \(name) (errno \(errno)): " + stderrText.currentText())
                }
                offset += n
            }
        }
    }

    /// The next line of the harness's standard output, nil at EOF; throws after `timeout` seconds.
    func readLine(timeout: TimeInterval) throws -> String? {
        let fd = stdoutPipe.fileHandleForReading.fileDescriptor
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = stdoutBuffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: stdoutBuffer[..<newline], as: UTF8.self)
                stdoutBuffer.removeSubrange(...newline)
                return line
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else {
                throw DovecotServer.HarnessError(message: "no answer from \(name) within \(Int(timeout)) s")
            }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32(min(remaining, 1) * 1000))
            if ready < 0 {
                if errno == EINTR { continue }
                throw DovecotServer.HarnessError(message: "poll on \(name)'s output failed (errno \(errno))")
            }
            if ready == 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw DovecotServer.HarnessError(message: "cannot read \(name)'s output (errno \(errno))")
            }
            if n == 0 {
                if stdoutBuffer.isEmpty { return nil }
                let line = String(decoding: stdoutBuffer, as: UTF8.self)
                stdoutBuffer = []
                return line
            }
            stdoutBuffer.append(contentsOf: chunk[..<n])
        }
    }

    /// Closes the harness's standard input (Dovecot stops, its directory goes) and waits for it to exit.
    func shutDown() {
        guard !stopped else { return }
        stopped = true
        do {
            try stdinPipe.fileHandleForWriting.close()
        } catch {
            // Closing fails only if already closed: the harness sees EOF either way.
        }
        if process.isRunning {
            process.waitUntilExit()
        }
    }
}

/// Collects the harness's standard error on a thread of its own (so that it never blocks on a full pipe).
final class StderrCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var bytes: [UInt8] = []
    private let done = DispatchSemaphore(value: 0)

    func drain(_ handle: FileHandle) {
        let thread = Thread { [self] in
            let fd = handle.fileDescriptor
            var chunk = [UInt8](repeating: 0, count: 16384)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
                if n < 0, errno == EINTR { continue }
                if n <= 0 { break }
                lock.lock()
                bytes.append(contentsOf: chunk[..<n])
                if bytes.count > 256 * 1024 { bytes.removeFirst(bytes.count - 128 * 1024) }
                lock.unlock()
            }
            done.signal()
        }
        thread.start()
    }

    /// Standard error so far.
    func currentText() -> String {
        lock.lock()
        defer { lock.unlock() }
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "(nothing on standard error)" : String(text.suffix(4000))
    }

    /// Standard error once the harness closed it (at most 5 s).
    func waitForText() -> String {
        _ = done.wait(timeout: .now() + 5)
        return currentText()
    }
}
