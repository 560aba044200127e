import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `mailsearch serve` as a user runs it: refuses an unsafe address, prints its URL, answers over
/// TCP, stops cleanly on SIGTERM and SIGINT.
final class ServeCommandTests: CLITestCase {
    func testNonLoopbackWithoutTokenRefusesToStart() throws {
        for host in ["0.0.0.0", "192.168.1.5", "::"] {
            let r = try mailsearch(["serve", "--host", host, "--port", "0"])
            XCTAssertNotEqual(r.status, 0, host)
            XCTAssertTrue(r.stderr.contains("without a token"), r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("data/mail.sqlite").path),
                           "refused before opening the mailbox")
        }
    }

    func testServesThenStopsGracefullyOnSignals() throws {
        let mbox = try writeMbox(count: 20)
        XCTAssertEqual(try mailsearch(["import", mbox, "--account", "demo"]).status, 0)
        for signal in [SIGTERM, SIGINT] {
            let process = try start(["serve", "--port", "0"])
            let line = readLine(process, timeout: 60)
            guard let url = line.split(separator: " ").first(where: { $0.hasPrefix("http://127.0.0.1:") }),
                  let port = Int(url.split(separator: ":").last ?? "") else {
                process.terminate()
                return XCTFail("no URL in \"\(line)\"")
            }
            XCTAssertTrue(line.hasPrefix("MailSearch is serving http://127.0.0.1:"), line)

            let search = try http(port: port, "GET /api/search?q=budget&limit=2 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n")
            XCTAssertTrue(search.hasPrefix("HTTP/1.1 200"), search)
            XCTAssertTrue(search.contains("\"conversationCount\":4"), search)
            let rebinding = try http(port: port, "GET /api/status HTTP/1.1\r\nHost: evil.example:\(port)\r\n")
            XCTAssertTrue(rebinding.hasPrefix("HTTP/1.1 421"), rebinding)
            let csrf = try http(port: port, "POST /api/index/rebuild HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: https://evil.example\r\nContent-Length: 0\r\n")
            XCTAssertTrue(csrf.hasPrefix("HTTP/1.1 403"), csrf)

            kill(process.processIdentifier, signal)
            process.waitForExitOrKill(after: 30)
            XCTAssertEqual(process.terminationReason, .exit, "signal \(signal)")
            XCTAssertEqual(process.terminationStatus, 0, "signal \(signal)")
            let log = String(decoding: (process.standardError as! Pipe).fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            XCTAssertTrue(log.contains("path=/api/search"), log)
            XCTAssertFalse(log.contains("budget"), "the search text never reaches the log")
        }
    }

    func testTokenFromTheEnvironment() throws {
        let process = try start(["serve", "--port", "0"], environment: ["MAILSEARCH_TOKEN": "env-token-0123456789"])
        defer { process.waitForExitOrKill(after: 10) }
        let line = readLine(process, timeout: 60)
        guard let port = line.split(separator: ":").last.flatMap({ Int($0.prefix { $0.isNumber }) }) else {
            return XCTFail("no URL in \"\(line)\"")
        }
        let without = try http(port: port, "GET /api/status HTTP/1.1\r\nHost: localhost\r\n")
        XCTAssertTrue(without.hasPrefix("HTTP/1.1 401"), without)
        let with = try http(port: port, "GET /api/status HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer env-token-0123456789\r\n")
        XCTAssertTrue(with.hasPrefix("HTTP/1.1 200"), with)
        // A second server on the same port says it cannot listen, and exits non-zero.
        let second = try mailsearch(["serve", "--port", "\(port)"])
        XCTAssertNotEqual(second.status, 0)
        XCTAssertTrue(second.stderr.contains("cannot listen on http://127.0.0.1:\(port)"), second.stderr)
        kill(process.processIdentifier, SIGTERM)
    }

    // MARK: Helpers

    func start(_ arguments: [String], environment: [String: String]) throws -> Process {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["MAILSEARCH_DATA_DIR"] = work.appendingPathComponent("data").path
        env["MAILSEARCH_MODEL_DIR"] = work.appendingPathComponent("no-model").path
        for (k, v) in environment { env[k] = v }
        process.environment = env
        process.standardOutput = Pipe()
        process.standardError = Pipe()
        try process.run()
        return process
    }

    /// The first line the process prints (empty if it exits or stays silent).
    func readLine(_ process: Process, timeout: TimeInterval) -> String {
        let handle = (process.standardOutput as! Pipe).fileHandleForReading
        var data = Data()
        let deadline = Date().addingTimeInterval(timeout)
        while !data.contains(10), Date() < deadline {
            var pfd = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 200) >= 0 else { break }
            if pfd.revents & Int16(POLLIN | POLLHUP) != 0 {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                data += chunk
            }
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
    }

    /// Sends one HTTP/1.1 request (head lines given; `Connection: close` added) to 127.0.0.1:port
    /// and returns the whole answer.
    func http(port: Int, _ head: String) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = Array((head + "Connection: close\r\n\r\n").utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var answer = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            answer += buffer[0..<n]
        }
        return String(decoding: answer, as: UTF8.self)
    }
}

extension Process {
    /// Waits for the process, killing it after `seconds`.
    func waitForExitOrKill(after seconds: TimeInterval) {
        let deadline = Date().addingTimeInterval(seconds)
        while isRunning && Date() < deadline { usleep(50_000) }
        if isRunning { kill(processIdentifier, SIGKILL) }
        waitUntilExit()
    }
}
