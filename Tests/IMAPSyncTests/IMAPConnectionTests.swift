import Foundation
import IMAPProtocol
import NIOCore
import NIOSSL
import XCTest

@testable import IMAPClient

#if canImport(Glibc)
import Glibc
#endif

/// `IMAPConnection` against a real Dovecot (Tests/IMAP/dovecot.py), against fake servers on
/// local sockets (silence, garbage). The channel handler alone is in IMAPClientTests.
final class IMAPConnectionTests: XCTestCase {
    /// One Dovecot for the tests that do not kill it; started on first use, stopped in `tearDown()`.
    nonisolated(unsafe) private static var sharedServer: DovecotServer?
    private static let sharedLock = NSLock()

    private func server() throws -> DovecotServer {
        Self.sharedLock.lock()
        defer { Self.sharedLock.unlock() }
        if let server = Self.sharedServer { return server }
        let server = try DovecotServer()
        Self.sharedServer = server
        return server
    }

    override class func tearDown() {
        sharedLock.lock()
        sharedServer?.stop()
        sharedServer = nil
        sharedLock.unlock()
        super.tearDown()
    }

    private func tlsConfiguration(_ server: DovecotServer, caFile: Bool = true, responseTimeout: Duration = .seconds(30)) -> IMAPClientConfiguration {
        IMAPClientConfiguration(host: server.host, port: server.tlsPort, security: .tls, caFile: caFile ? server.caFile : nil,
                                connectTimeout: .seconds(10), responseTimeout: responseTimeout)
    }

    /// A logged-in connection to `user`'s account over implicit TLS.
    private func connectAndLogin(_ server: DovecotServer, user: String = "alice", password: String? = nil) async throws -> IMAPConnection {
        let connection = try await IMAPConnection.connect(tlsConfiguration(server))
        try await connection.login(.password(user: user, password: password ?? "\(user)-password"))
        return connection
    }

    private func makeMessage(subject: String, body: String) -> [UInt8] {
        Array("From: Carol <carol@example.com>\r\nTo: alice@example.com\r\nSubject: \(subject)\r\nMessage-ID: <\(UUID().uuidString)@example.com>\r\n\r\n\(body)\r\n".utf8)
    }

    private func expectError(_ kind: IMAPClientError.Kind, file: StaticString = #filePath, line: UInt = #line,
                             _ body: () async throws -> Void) async -> IMAPClientError? {
        do {
            try await body()
            XCTFail("expected an IMAPClientError of kind \(kind), got success", file: file, line: line)
            return nil
        } catch let error as IMAPClientError {
            XCTAssertEqual(error.kind, kind, "\(error)", file: file, line: line)
            return error
        } catch {
            XCTFail("expected an IMAPClientError of kind \(kind), got \(error)", file: file, line: line)
            return nil
        }
    }

    // MARK: TLS

    func testImplicitTLSWithCAFile() async throws {
        let server = try server()
        let connection = try await IMAPConnection.connect(tlsConfiguration(server))
        XCTAssertTrue(connection.isOpen)
        XCTAssertTrue(connection.capabilities.contains(.authPlain), "\(connection.capabilities)")
        try await connection.login(.password(user: "alice", password: "alice-password"))
        XCTAssertTrue(connection.capabilities.contains(.idle), "capabilities after login: \(connection.capabilities)")
        XCTAssertTrue(connection.capabilities.contains(.qresync))
        let noop = try await connection.run(.noop)
        XCTAssertEqual(noop.status.status, .ok)
        await connection.logout()
        XCTAssertFalse(connection.isOpen)
        await connection.close()  // idempotent
        let error = await expectError(.connectionClosed) { _ = try await connection.run(.noop) }
        XCTAssertNotNil(error)
    }

    func testStartTLSWithCAFile() async throws {
        let server = try server()
        let configuration = IMAPClientConfiguration(host: server.host, port: server.port, security: .startTLS, caFile: server.caFile,
                                                    connectTimeout: .seconds(10), responseTimeout: .seconds(30))
        let connection = try await IMAPConnection.connect(configuration)
        // Capabilities asked again over TLS: Dovecot no longer offers STARTTLS, and LOGINDISABLED is gone.
        XCTAssertFalse(connection.capabilities.contains(.startTLS), "\(connection.capabilities)")
        XCTAssertFalse(connection.capabilities.contains(.loginDisabled))
        XCTAssertTrue(connection.capabilities.contains(.authPlain))
        XCTAssertEqual(connection.sentCommands.map { $0.split(separator: " ")[1] }, ["STARTTLS", "CAPABILITY"])
        try await connection.login(.password(user: "bob", password: "bob-password"))
        let select = try await connection.run(.select(.inbox))
        XCTAssertEqual(select.status.status, .ok)
        await connection.logout()
    }

    func testTLSWithoutCAFileIsRejected() async throws {
        let server = try server()
        // connect fails in the handshake: login (the only way a password is sent) is never reached.
        let error = await expectError(.certificateRejected) {
            _ = try await IMAPConnection.connect(self.tlsConfiguration(server, caFile: false))
        }
        XCTAssertTrue(error?.message.contains("--ca-file") == true, "\(String(describing: error))")
        XCTAssertTrue(error?.message.contains("\(server.host):\(server.tlsPort)") == true)

        let startTLS = IMAPClientConfiguration(host: server.host, port: server.port, security: .startTLS, connectTimeout: .seconds(10))
        _ = await expectError(.certificateRejected) { _ = try await IMAPConnection.connect(startTLS) }
    }

    func testHostNameAndIPAddressAreVerified() async throws {
        let server = try server()
        // The certificate names localhost (a DNS SAN) and 127.0.0.1 (an IP SAN): both are checked and pass.
        let byName = IMAPClientConfiguration(host: "localhost", port: server.tlsPort, security: .tls, caFile: server.caFile,
                                             connectTimeout: .seconds(10))
        do {
            let connection = try await IMAPConnection.connect(byName)
            await connection.close()
        } catch let error as IMAPClientError where error.kind == .connectionFailed {
            // localhost resolving to ::1 first with Dovecot on 127.0.0.1 only is not what this test is about.
        }
        let wrongName = IMAPClientConfiguration(host: "127.0.0.1", port: server.tlsPort, security: .tls,
                                                caFile: server.caFile, connectTimeout: .seconds(10))
        let connection = try await IMAPConnection.connect(wrongName)  // the IP SAN is checked and matches
        await connection.close()
    }

    // MARK: Login

    func testLoginWithAuthenticatePlain() async throws {
        let server = try server()
        let connection = try await IMAPConnection.connect(tlsConfiguration(server))
        try await connection.login(.password(user: "alice", password: "alice-password"))
        XCTAssertTrue(connection.sentCommands.contains { $0.hasSuffix("AUTHENTICATE (1 part)") }, "\(connection.sentCommands)")
        XCTAssertTrue(connection.sentCommands.contains { $0.contains(" ID ") }, "ID is sent when offered: \(connection.sentCommands)")
        await connection.logout()

        // Without SASL-IR the credentials go after a `+`.
        let second = try await IMAPConnection.connect(tlsConfiguration(server))
        second.hideCapabilities([.saslIR])
        try await second.login(.password(user: "alice", password: "alice-password"))
        XCTAssertTrue(second.sentCommands.contains { $0.hasSuffix("AUTHENTICATE (2 parts)") }, "\(second.sentCommands)")
        _ = try await second.run(.noop)
        await second.logout()
    }

    func testLoginWithLOGINWhenAuthPlainIsNotOffered() async throws {
        let server = try server()
        let connection = try await IMAPConnection.connect(tlsConfiguration(server))
        connection.hideCapabilities([.authPlain])  // as if the server offered no AUTH=PLAIN
        try await connection.login(.password(user: "alice", password: "alice-password"))
        XCTAssertTrue(connection.sentCommands.contains { $0.hasSuffix("LOGIN (1 part)") }, "\(connection.sentCommands)")
        XCTAssertFalse(connection.sentCommands.contains { $0.contains("AUTHENTICATE") })
        let select = try await connection.run(.select(.inbox))
        XCTAssertEqual(select.status.status, .ok)
        await connection.logout()
    }

    func testWrongPasswordFailsWithServerText() async throws {
        let server = try server()
        for hidden: Set<IMAPCapability> in [[], [.authPlain]] {
            let connection = try await IMAPConnection.connect(tlsConfiguration(server))
            connection.hideCapabilities(hidden)
            let started = ContinuousClock.now
            let error = await expectError(.authenticationFailed) {
                try await connection.login(.password(user: "alice", password: "not-the-password"))
            }
            XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
            XCTAssertEqual(error?.message, "the server \(server.host):\(server.tlsPort) refused the user name or password for alice")
            XCTAssertTrue(error?.serverText?.contains("Authentication failed") == true, "\(String(describing: error))")
            XCTAssertEqual(error?.code, .other(name: "AUTHENTICATIONFAILED", arguments: nil))
            XCTAssertFalse(error?.description.contains("not-the-password") == true)
            XCTAssertTrue(connection.isOpen, "a refused login leaves the connection usable")
            await connection.logout()
        }
    }

    // MARK: Mailboxes and messages

    func testSelectGivesUIDValidityUIDNextAndHighestModSeq() async throws {
        let server = try server()
        try server.createMailbox(user: "bob", mailbox: "Select")
        let uid = try server.append(user: "bob", mailbox: "Select", message: makeMessage(subject: "one", body: "1"))
        try server.addFlags(user: "bob", mailbox: "Select", uids: [uid], flags: ["\\Seen"])
        let expected = try server.status(user: "bob", mailbox: "Select")
        let connection = try await connectAndLogin(server, user: "bob")
        let enable = try await connection.run(.enable([.qresync]))
        XCTAssertTrue(enable.untagged.contains(.enabled([.qresync])), "\(enable.untagged)")
        let select = try await connection.run(.select(IMAPMailboxName("Select"), .condStore))
        let codes = select.untagged.compactMap { response -> IMAPResponseCode? in
            if case .status(let status) = response { return status.code }
            return nil
        }
        XCTAssertTrue(codes.contains(.uidValidity(UInt32(expected["uidvalidity"] as! Int))), "\(codes)")
        XCTAssertTrue(codes.contains(.uidNext(UInt32(expected["uidnext"] as! Int))), "\(codes)")
        XCTAssertTrue(codes.contains(.highestModSeq(UInt64(expected["highestmodseq"] as! Int))), "\(codes)")
        XCTAssertTrue(select.untagged.contains(.exists(1)))
        XCTAssertEqual(select.status.code, .readWrite)

        // QRESYNC select reports what changed since a mod-sequence.
        let uidValidity = UInt32(expected["uidvalidity"] as! Int)
        _ = try await connection.run(.unselect)
        let resync = try await connection.run(.select(IMAPMailboxName("Select"), .qresync(uidValidity: uidValidity, modSeq: 1)))
        XCTAssertEqual(resync.status.status, .ok)
        XCTAssertTrue(resync.untagged.contains { if case .fetch = $0 { true } else { false } }, "\(resync.untagged)")
        await connection.logout()
    }

    func testSearchAndFetchAreByteExact() async throws {
        let server = try server()
        try server.createMailbox(mailbox: "Fetch")
        let plain = makeMessage(subject: "plain", body: "Hello Alice.")
        // 8-bit: Latin-1 bytes and UTF-8 bytes, unencoded, as some mailers send them.
        var eightBit = Array("From: x@example.com\r\nSubject: =?utf-8?q?caf=C3=A9?=\r\nContent-Type: text/plain; charset=iso-8859-1\r\n\r\n".utf8)
        eightBit += [0x63, 0x61, 0x66, 0xE9, 0x20, 0xFF, 0x80, 0x0D, 0x0A] + Array("naïve 日本語\r\n".utf8)
        var large = Array("From: big@example.com\r\nSubject: large\r\n\r\n".utf8)
        var line = 0
        while large.count < 3 << 20 {
            large += Array(String(format: "%07d the quick brown fox jumps over the lazy dog {5}\r\n", line).utf8)
            line += 1
        }
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let uid1 = try server.append(mailbox: "Fetch", message: plain, flags: ["\\Flagged"], date: date)
        let uid2 = try server.append(mailbox: "Fetch", message: eightBit)
        let uid3 = try server.append(mailbox: "Fetch", message: large, flags: ["\\Seen", "$Label1"])
        let messages = [uid1: plain, uid2: eightBit, uid3: large]

        let connection = try await connectAndLogin(server)
        _ = try await connection.run(.select(IMAPMailboxName("Fetch")))
        let search = try await connection.run(.uidSearch([.all]))
        XCTAssertEqual(search.untagged, [.search([uid1, uid2, uid3], highestModSeq: nil)])
        let esearch = try await connection.run(.uidSearch([.uid(IMAPSequenceSet(numbers: [uid2, uid3]))], returning: [.all, .count]))
        XCTAssertTrue(esearch.untagged.contains { if case .esearch = $0 { true } else { false } }, "\(esearch.untagged)")

        let fetch = try await connection.run(.uidFetch(.from(1), [.uid, .flags, .internalDate, .rfc822Size, .message]))
        let fetched = fetch.untagged.compactMap { response -> IMAPFetchResponse? in
            if case .fetch(let f) = response { return f }
            return nil
        }
        XCTAssertEqual(fetched.map(\.uid), [uid1, uid2, uid3])
        for message in fetched {
            let uid = try XCTUnwrap(message.uid)
            let expected = try XCTUnwrap(messages[uid])
            XCTAssertEqual(message.body(), expected, "UID \(uid): the body is not byte for byte the message")
            XCTAssertEqual(message.size, UInt64(expected.count))
        }
        XCTAssertEqual(fetched[0].internalDate, date)
        XCTAssertEqual(Set(fetched[0].flags ?? []).subtracting([.recent]), [.flagged])
        XCTAssertEqual(Set(fetched[2].flags ?? []).subtracting([.recent]), [.seen, IMAPFlag("$Label1")])
        await connection.logout()
    }

    func testAppendWithSynchronisingLiteralAndWithLiteralPlus() async throws {
        let server = try server()
        try server.createMailbox(mailbox: "Appended")
        let connection = try await connectAndLogin(server)
        XCTAssertTrue(connection.capabilities.contains(.literalPlus))
        let first = makeMessage(subject: "synchronising", body: "sent after a +")
        let second = makeMessage(subject: "literal+", body: "sent at once")

        connection.hideCapabilities([.literalPlus])
        let sync = try await connection.run(.append(IMAPMailboxName("Appended"), flags: [.seen], message: first))
        XCTAssertTrue(connection.sentCommands.last?.hasSuffix("APPEND (2 parts)") == true, "\(connection.sentCommands)")
        guard case .appendUID(_, let uids1)? = sync.status.code else { return XCTFail("no APPENDUID: \(sync.status)") }

        connection.hideCapabilities([])
        let plus = try await connection.run(.append(IMAPMailboxName("Appended"), message: second))
        XCTAssertTrue(connection.sentCommands.last?.hasSuffix("APPEND (1 part)") == true, "\(connection.sentCommands)")
        guard case .appendUID(_, let uids2)? = plus.status.code else { return XCTFail("no APPENDUID: \(plus.status)") }

        _ = try await connection.run(.examine(IMAPMailboxName("Appended")))
        let fetch = try await connection.run(.uidFetch(.from(1), [.uid, .flags, .message]))
        let bodies = Dictionary(uniqueKeysWithValues: fetch.untagged.compactMap { response -> (UInt32, [UInt8])? in
            if case .fetch(let f) = response, let uid = f.uid, let body = f.body() { return (uid, body) }
            return nil
        })
        XCTAssertEqual(bodies[uids1.ranges[0].lowerBound], first)
        XCTAssertEqual(bodies[uids2.ranges[0].lowerBound], second)

        // A refused APPEND (no such mailbox) is a commandFailed with TRYCREATE, and the connection goes on.
        let error = await expectError(.commandFailed) {
            _ = try await connection.run(.append(IMAPMailboxName("Missing"), message: first))
        }
        XCTAssertEqual(error?.code, .tryCreate)
        _ = try await connection.run(.noop)
        await connection.logout()
    }

    // MARK: IDLE

    func testIdleSeesDeliveredMessage() async throws {
        let server = try server()
        try server.createMailbox(user: "bob", mailbox: "Idle")
        let connection = try await connectAndLogin(server, user: "bob")
        _ = try await connection.run(.select(IMAPMailboxName("Idle")))
        let idling = Task {
            try await connection.idle(for: .seconds(20)) { response in
                if case .exists = response { return true }
                return false
            }
        }
        try await Task.sleep(for: .milliseconds(300))  // IDLE under way
        let delivered = ContinuousClock.now
        try server.deliver(user: "bob", message: makeMessage(subject: "new", body: "wake up"), mailbox: "Idle")
        let responses = try await idling.value
        XCTAssertLessThan(ContinuousClock.now - delivered, .seconds(2), "EXISTS came too late")
        XCTAssertTrue(responses.contains(.exists(1)), "\(responses)")
        let noop = try await connection.run(.noop)
        XCTAssertEqual(noop.status.status, .ok)
        await connection.logout()
    }

    func testIdleEndsPromptlyOnCancellationAndTheConnectionGoesOn() async throws {
        let server = try server()
        let connection = try await connectAndLogin(server)
        _ = try await connection.run(.select(.inbox))
        let idling = Task { try await connection.idle(for: .seconds(120)) { _ in false } }
        try await Task.sleep(for: .milliseconds(500))
        let cancelled = ContinuousClock.now
        idling.cancel()
        _ = try await idling.value
        XCTAssertLessThan(ContinuousClock.now - cancelled, .seconds(2))
        XCTAssertTrue(connection.isOpen)
        let noop = try await connection.run(.noop)
        XCTAssertEqual(noop.status.status, .ok)

        // A duration that passes ends IDLE too.
        let started = ContinuousClock.now
        _ = try await connection.idle(for: .milliseconds(300)) { _ in false }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(3))
        await connection.logout()
    }

    func testRunCancellationClosesTheConnectionPromptly() async throws {
        let fake = try FakeServer { client in
            client.send("* OK [CAPABILITY IMAP4rev1] fake\r\n")
            client.waitForClose()  // answers nothing
        }
        let connection = try await IMAPConnection.connect(fake.configuration(responseTimeout: .seconds(60)))
        let running = Task { try await connection.run(.noop) }
        try await Task.sleep(for: .milliseconds(200))
        let cancelled = ContinuousClock.now
        running.cancel()
        do {
            _ = try await running.value
            XCTFail("a cancelled command must throw")
        } catch let error as IMAPClientError {
            XCTAssertEqual(error.kind, .cancelled)
        }
        XCTAssertLessThan(ContinuousClock.now - cancelled, .seconds(1))
        XCTAssertFalse(connection.isOpen)
    }

    // MARK: Failures

    func testServerKilledMidFetchIsConnectionClosed() async throws {
        let server = try DovecotServer(users: ["carol": "carol-password"])
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imap-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let filler = String(repeating: "Lorem ipsum dolor sit amet, consectetur adipiscing elit.\r\n", count: 1500)
        var paths: [String] = []
        // 600 messages of 87 KB (52 MB): more than the kernel buffers and the client reads in the
        // time a kill takes, so the kill lands mid-FETCH even on a fast, idle machine.
        for i in 0..<600 {
            let path = directory.appendingPathComponent("\(i).eml").path
            try Data(makeMessage(subject: "message \(i)", body: filler)).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        try server.writeMessages(user: "carol", mailbox: "INBOX", paths: paths)
        let connection = try await connectAndLogin(server, user: "carol")
        _ = try await connection.run(.select(.inbox))
        let fetching = Task { try await connection.run(.uidFetch(.from(1), [.uid, .message])) }
        try await Task.sleep(for: .milliseconds(10))
        let killed = ContinuousClock.now
        try server.kill()
        do {
            let response = try await fetching.value
            XCTFail("the FETCH finished before the kill (\(response.untagged.count) responses): make it larger")
        } catch let error as IMAPClientError {
            XCTAssertEqual(error.kind, .connectionClosed, "\(error)")
        }
        // What the kernel already buffered is still read (megabytes, in a debug build): then the end.
        XCTAssertLessThan(ContinuousClock.now - killed, .seconds(10))
        XCTAssertFalse(connection.isOpen)
        await connection.logout()  // never throws, even now
    }

    func testSilentServerTimesOut() async throws {
        let fake = try FakeServer { client in
            client.send("* OK [CAPABILITY IMAP4rev1 IDLE] fake\r\n")
            client.waitForClose()
        }
        let connection = try await IMAPConnection.connect(fake.configuration(responseTimeout: .milliseconds(500)))
        let started = ContinuousClock.now
        let error = await expectError(.timedOut) { _ = try await connection.run(.noop) }
        let elapsed = ContinuousClock.now - started
        XCTAssertGreaterThanOrEqual(elapsed, .milliseconds(450))
        XCTAssertLessThan(elapsed, .seconds(2))
        XCTAssertTrue(error?.message.contains("127.0.0.1:\(fake.port)") == true, "\(String(describing: error))")
        XCTAssertFalse(connection.isOpen)

        // No greeting at all: connect itself times out.
        let mute = try FakeServer { client in client.waitForClose() }
        _ = await expectError(.timedOut) { _ = try await IMAPConnection.connect(mute.configuration(responseTimeout: .milliseconds(300))) }
    }

    func testSlowLiteralDoesNotTimeOutWhileBytesFlow() async throws {
        let fake = try FakeServer { client in
            client.send("* OK [CAPABILITY IMAP4rev1] fake\r\n")
            guard client.readLine() != nil else { return }
            client.send("* 1 FETCH (UID 5 BODY[] {20}\r\n")
            for _ in 0..<10 {  // 2 bytes every 150 ms: 1.5 s in all, longer than the 400 ms timeout
                Thread.sleep(forTimeInterval: 0.15)
                client.send("ab")
            }
            client.send(")\r\nA1 OK done\r\n")
            client.waitForClose()
        }
        let connection = try await IMAPConnection.connect(fake.configuration(responseTimeout: .milliseconds(400)))
        let response = try await connection.run(.uidFetch(IMAPSequenceSet(5...5), [.uid, .message]))
        guard case .fetch(let fetch) = response.untagged.first else { return XCTFail("\(response.untagged)") }
        XCTAssertEqual(fetch.body(), Array(String(repeating: "ab", count: 10).utf8))
        await connection.close()
    }

    func testXOAuth2RefusalAnswersTheErrorChallenge() async throws {
        let lines = LockedLines()
        let fake = try FakeServer { client in
            client.send("* OK [CAPABILITY IMAP4rev1 SASL-IR AUTH=XOAUTH2] fake\r\n")
            guard let first = client.readLine() else { return }
            lines.append(first)
            client.send("+ eyJzdGF0dXMiOiI0MDEiLCJzY2hlbWVzIjoiQmVhcmVyIn0=\r\n")
            guard let second = client.readLine() else { return }
            lines.append(second)
            client.send("A1 NO [AUTHENTICATIONFAILED] Invalid credentials (Failure)\r\n")
            client.waitForClose()
        }
        let connection = try await IMAPConnection.connect(fake.configuration())
        let error = await expectError(.authenticationFailed) {
            try await connection.login(.xoauth2(user: "alice@example.com", accessToken: "ya29.secret-token"))
        }
        XCTAssertEqual(error?.serverText, "Invalid credentials (Failure)")
        XCTAssertFalse(error?.description.contains("ya29") == true)
        XCTAssertEqual(lines.values.count, 2)
        XCTAssertTrue(lines.values.first?.hasPrefix("A1 AUTHENTICATE XOAUTH2 ") == true)
        XCTAssertEqual(lines.values.last, "", "the error challenge is answered with an empty line")
        await connection.close()
    }

    func testConcurrentCommandsTakeTurns() async throws {
        let server = try server()
        let connection = try await connectAndLogin(server)
        _ = try await connection.run(.select(.inbox))
        try await withThrowingTaskGroup(of: IMAPStatusResponse.Status.self) { group in
            for i in 0..<20 {
                group.addTask { try await connection.run(i.isMultiple(of: 2) ? .noop : .status(.inbox, [.messages])).status.status }
            }
            for try await status in group { XCTAssertEqual(status, .ok) }
        }
        await connection.logout()
    }

    func testConnectionRefusedIsConnectionFailed() async throws {
        let fake = try FakeServer { _ in }
        let configuration = fake.configuration()
        fake.stopListening()
        _ = await expectError(.connectionFailed) { _ = try await IMAPConnection.connect(configuration) }
    }

    func testHarnessFailureIsAnErrorWithItsMessage() throws {
        let started = Date()
        XCTAssertThrowsError(try DovecotServer(users: ["not a user name": "pw"])) { error in
            XCTAssertTrue("\(error)".contains("letters, digits"), "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 20)
    }

    func testIdleHasNoResponseTimeout() async throws {
        let fake = try FakeServer { client in
            client.send("* OK [CAPABILITY IMAP4rev1 IDLE] fake\r\n")
            guard client.readLine()?.hasSuffix("IDLE") == true else { return }
            client.send("+ idling\r\n")
            guard client.readLine() == "DONE" else { return }
            client.send("* 3 EXISTS\r\nA1 OK Idle completed\r\n")
            client.waitForClose()
        }
        let connection = try await IMAPConnection.connect(fake.configuration(responseTimeout: .milliseconds(200)))
        let responses = try await connection.idle(for: .milliseconds(800)) { _ in false }
        XCTAssertEqual(responses, [.exists(3)])
        await connection.close()
    }

    func testHostileServersAreProtocolViolations() async throws {
        let scripts: [(String, @Sendable (FakeServer.Client) -> Void)] = [
            ("garbage", { client in
                client.send("* OK [CAPABILITY IMAP4rev1] fake\r\n")
                _ = client.readLine()
                client.send(")))) \u{01}\u{02} garbage ((((\r\n")
                client.waitForClose()
            }),
            ("endless line", { client in
                client.send("* OK [CAPABILITY IMAP4rev1] fake\r\n")
                _ = client.readLine()
                let chunk = String(repeating: "a", count: 64 * 1024)
                client.send("* OK ")
                for _ in 0..<40 where client.send(chunk) {}
                client.waitForClose()
            }),
            ("huge literal", { client in
                client.send("* OK [CAPABILITY IMAP4rev1] fake\r\n")
                _ = client.readLine()
                client.send("* 1 FETCH (BODY[] {99999999999999999999}\r\n")
                client.waitForClose()
            }),
            ("unbalanced list", { client in
                client.send("* OK [CAPABILITY IMAP4rev1] fake\r\n")
                _ = client.readLine()
                client.send("* 1 FETCH (UID 4 FLAGS (\\Seen\r\n")
                client.waitForClose()
            }),
            ("wrong tag", { client in
                client.send("* OK [CAPABILITY IMAP4rev1] fake\r\n")
                _ = client.readLine()
                client.send("Z99 OK done\r\n")
                client.waitForClose()
            }),
        ]
        for (name, script) in scripts {
            let fake = try FakeServer(script)
            let connection = try await IMAPConnection.connect(fake.configuration(responseTimeout: .seconds(10)))
            let started = ContinuousClock.now
            let error = await expectError(.protocolViolation) { _ = try await connection.run(.noop) }
            XCTAssertNotNil(error, name)
            XCTAssertLessThan(ContinuousClock.now - started, .seconds(3), name)
            XCTAssertFalse(connection.isOpen, name)
        }

        // A greeting that is garbage fails connect the same way.
        let badGreeting = try FakeServer { client in
            client.send("hello there\r\n")
            client.waitForClose()
        }
        let error = await expectError(.protocolViolation) { _ = try await IMAPConnection.connect(badGreeting.configuration()) }
        XCTAssertTrue(error?.message.contains("at its byte") == true, "\(String(describing: error))")
    }

    func testByeGreetingAndMissingSTARTTLS() async throws {
        let bye = try FakeServer { client in
            client.send("* BYE [UNAVAILABLE] Too many connections\r\n")
        }
        let error = await expectError(.connectionClosed) { _ = try await IMAPConnection.connect(bye.configuration()) }
        XCTAssertEqual(error?.serverText, "Too many connections")

        let noStartTLS = try FakeServer { client in
            client.send("* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN] no TLS here\r\n")
            client.waitForClose()
        }
        var configuration = noStartTLS.configuration()
        configuration.security = .startTLS
        _ = await expectError(.tlsFailed) { _ = try await IMAPConnection.connect(configuration) }

        // BYE while a command waits, then close: connectionClosed with the server's words.
        let byeLater = try FakeServer { client in
            client.send("* OK [CAPABILITY IMAP4rev1] fake\r\n")
            _ = client.readLine()
            client.send("* BYE Server shutting down\r\n")
        }
        let connection = try await IMAPConnection.connect(byeLater.configuration())
        let closed = await expectError(.connectionClosed) { _ = try await connection.run(.noop) }
        XCTAssertEqual(closed?.serverText, "Server shutting down")
    }

    func testUnsolicitedResponsesComeWithTheNextCommand() async throws {
        let fake = try FakeServer { client in
            client.send("* OK [CAPABILITY IMAP4rev1] fake\r\n")
            _ = client.readLine()
            client.send("A1 OK noop\r\n* 4 EXISTS\r\n* 2 EXPUNGE\r\n")
            _ = client.readLine()
            client.send("* 1 FETCH (UID 7 FLAGS (\\Seen))\r\nA2 OK noop\r\n")
            client.waitForClose()
        }
        let connection = try await IMAPConnection.connect(fake.configuration())
        let first = try await connection.run(.noop)
        XCTAssertEqual(first.untagged, [])
        try await Task.sleep(for: .milliseconds(100))
        let second = try await connection.run(.noop)
        XCTAssertEqual(second.untagged.count, 3)
        XCTAssertEqual(Array(second.untagged.prefix(2)), [.exists(4), .expunge(2)])
        await connection.close()
    }
}

/// A TCP server on 127.0.0.1 that runs a script for each connection on a thread of its own:
/// for servers Dovecot will not play (silent, hostile).
final class FakeServer: @unchecked Sendable {
    final class Client: @unchecked Sendable {
        let fd: Int32
        private var buffer: [UInt8] = []

        init(fd: Int32) { self.fd = fd }

        /// Sends text; false when the client is gone.
        @discardableResult
        func send(_ text: String) -> Bool {
            let bytes = Array(text.utf8)
            var offset = 0
            while offset < bytes.count {
                let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
                if n <= 0 { return false }
                offset += n
            }
            return true
        }

        /// The next line without its CRLF; nil when the client closed.
        func readLine() -> String? {
            while true {
                if let lf = buffer.firstIndex(of: 0x0A) {
                    var line = Array(buffer[..<lf])
                    buffer.removeSubrange(...lf)
                    if line.last == 0x0D { line.removeLast() }
                    return String(decoding: line, as: UTF8.self)
                }
                var chunk = [UInt8](repeating: 0, count: 4096)
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
                if n <= 0 { return nil }
                buffer += chunk[..<n]
            }
        }

        /// Reads (and ignores) until the client closes.
        func waitForClose() {
            while readLine() != nil {}
        }
    }

    let port: Int
    private let listener: Int32

    init(_ script: @escaping @Sendable (Client) -> Void) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0, listen(fd, 8) == 0 else { throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        let listener = self.listener
        Thread {
            while true {
                let fd = accept(listener, nil, nil)
                if fd < 0 { return }
                Thread {
                    script(Client(fd: fd))
                    close(fd)
                }.start()
            }
        }.start()
    }

    deinit {
        stopListening()
    }

    private let stopped = NSLock()
    private var isStopped = false

    /// Closes the listening socket: later connections are refused.
    func stopListening() {
        stopped.lock()
        defer { stopped.unlock() }
        guard !isStopped else { return }
        isStopped = true
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    func configuration(responseTimeout: Duration = .seconds(5)) -> IMAPClientConfiguration {
        IMAPClientConfiguration(host: "127.0.0.1", port: port, security: .plaintext, connectTimeout: .seconds(5),
                                responseTimeout: responseTimeout, clientID: nil)
    }
}

/// Lines a fake server read, for the test to look at.
final class LockedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) {
        lock.lock()
        lines.append(line)
        lock.unlock()
    }

    var values: [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }
}
