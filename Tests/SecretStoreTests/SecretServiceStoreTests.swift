import Foundation
@testable import SecretStore
import XCTest

/// The Secret Service store against a real one: Debian's gnome-keyring-daemon on a private
/// dbus-daemon that this class starts (in a temporary HOME, so the user's own keyrings are never
/// touched), with `DBUS_SESSION_BUS_ADDRESS` set in this process before libsecret first connects.
/// What the store writes is read back with `secret-tool` (libsecret-tools), another client.
///
/// Without dbus-daemon or gnome-keyring-daemon the tests are skipped, unless
/// MAILSEARCH_REQUIRE_SECRET_SERVICE=1 (make test sets it), when they fail.
final class SecretServiceStoreTests: XCTestCase {
    nonisolated(unsafe) private static var keyring: PrivateKeyring?
    nonisolated(unsafe) private static var keyringError: String?

    override class func setUp() {
        super.setUp()
        do {
            keyring = try PrivateKeyring.start()
        } catch {
            keyringError = "\(error)"
        }
    }

    override class func tearDown() {
        keyring?.stop()
        keyring = nil
        super.tearDown()
    }

    private func requireKeyring() throws -> PrivateKeyring {
        if let keyring = Self.keyring { return keyring }
        let why = Self.keyringError ?? "not started"
        if ProcessInfo.processInfo.environment["MAILSEARCH_REQUIRE_SECRET_SERVICE"] == "1" {
            throw PrivateKeyring.Failure(description: "MAILSEARCH_REQUIRE_SECRET_SERVICE=1, but no Secret Service could be started: \(why)")
        }
        throw XCTSkip("no Secret Service could be started (\(why)); MAILSEARCH_REQUIRE_SECRET_SERVICE=1 makes this a failure")
    }

    func testAvailableOnThePrivateBus() throws {
        let keyring = try requireKeyring()
        XCTAssertEqual(SecretServiceStore.availability(environment: keyring.environment), .available)
        XCTAssertTrue(SecretServiceStore.available())
    }

    func testRoundTripThroughTheService() throws {
        let keyring = try requireKeyring()
        let store = try SecretServiceStore()
        XCTAssertEqual(store.kind, .secretService)
        XCTAssertFalse(store.isLocked)
        let key = SecretKey(account: "work", purpose: .password)
        XCTAssertNil(try store.secret(for: key))
        try store.store("hunter2-ü-😀", for: key)
        XCTAssertEqual(try store.secret(for: key), "hunter2-ü-😀")

        // Another client of the service sees it: it really is in the keyring.
        XCTAssertEqual(try keyring.secretTool(["lookup", "account", "work", "purpose", "password"]).output, "hunter2-ü-😀")
        let search = try keyring.secretTool(["search", "--all", "account", "work"], mergingErrors: true).output
        XCTAssertTrue(search.contains("label = MailSearch: password of account \"work\""), search)
        XCTAssertTrue(search.contains("schema = org.mailsearch.Account"), search)
        XCTAssertTrue(search.contains("attribute.purpose = password"), search) // secret-tool prints attributes on standard error

        // Replaced, not added.
        try store.store("second", for: key)
        XCTAssertEqual(try store.secret(for: key), "second")
        let items = try keyring.secretTool(["search", "--all", "account", "work"]).output
        XCTAssertEqual(items.components(separatedBy: "label = ").count - 1, 1, items)

        try store.delete(key)
        XCTAssertNil(try store.secret(for: key))
        XCTAssertNotEqual(try keyring.secretTool(["lookup", "account", "work", "purpose", "password"]).status, 0)
        try store.delete(key) // nothing there: no error
    }

    func testDeleteKeepsTheOtherEntries() throws {
        _ = try requireKeyring()
        let store = try SecretServiceStore()
        let refresh = SecretKey(account: "gmail", purpose: .oauthRefreshToken)
        let access = SecretKey(account: "gmail", purpose: .oauthAccessToken)
        let other = SecretKey(account: "gmail-2", purpose: .oauthRefreshToken)
        try store.store("refresh", for: refresh)
        try store.store("access", for: access)
        try store.store("other", for: other)
        try store.delete(access)
        XCTAssertNil(try store.secret(for: access))
        XCTAssertEqual(try store.secret(for: refresh), "refresh")
        XCTAssertEqual(try store.secret(for: other), "other")
        try store.delete(refresh)
        try store.delete(other)
    }

    func testWhatSecretToolStoresUnderOtherAttributesIsNotOurs() throws {
        let keyring = try requireKeyring()
        // secret-tool's items have the schema org.freedesktop.Secret.Generic: ours match on the schema too.
        XCTAssertEqual(try keyring.secretTool(["store", "--label=foreign", "account", "foreign", "purpose", "password"], input: "theirs").status, 0)
        let store = try SecretServiceStore()
        XCTAssertNil(try store.secret(for: SecretKey(account: "foreign", purpose: .password)))
    }

    func testConcurrentStoresFromTwoThreads() throws {
        _ = try requireKeyring()
        let store = try SecretServiceStore()
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            for index in 0..<10 {
                do {
                    try store.store("s\(thread)-\(index)", for: SecretKey(account: "c\(thread)-\(index)", purpose: .password))
                } catch {
                    XCTFail("store failed: \(error)")
                }
            }
        }
        for thread in 0..<2 {
            for index in 0..<10 {
                let key = SecretKey(account: "c\(thread)-\(index)", purpose: .password)
                XCTAssertEqual(try store.secret(for: key), "s\(thread)-\(index)")
                try store.delete(key)
            }
        }
    }

    func testPreferredPicksTheSecretServiceWhenItAnswers() throws {
        let keyring = try requireKeyring()
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("secret-store-preferred-\(UUID().uuidString)")
        XCTAssertEqual(try SecretStores.preferred(dataDirectory: data, environment: keyring.environment).kind, .secretService)
        var forced = keyring.environment
        forced["MAILSEARCH_SECRET_STORE"] = "file"
        XCTAssertEqual(try SecretStores.preferred(dataDirectory: data, environment: forced).kind, .encryptedFile)
        forced["MAILSEARCH_SECRET_STORE"] = "secret-service"
        XCTAssertEqual(try SecretStores.preferred(dataDirectory: data, environment: forced).kind, .secretService)
        XCTAssertFalse(FileManager.default.fileExists(atPath: data.path), "choosing a store writes nothing")
    }
}

/// dbus-daemon and gnome-keyring-daemon (its secrets component, its login keyring created and
/// unlocked with a password on standard input), in a temporary directory; stopped by `stop()`.
final class PrivateKeyring: @unchecked Sendable {
    let directory: URL
    let address: String
    let environment: [String: String]
    private let bus: Process
    private let keyring: Process
    private let previousAddress: String?

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") + ["/usr/bin", "/usr/sbin", "/bin"] {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    static func start() throws -> PrivateKeyring {
        guard let dbusDaemon = executable("dbus-daemon") else { throw Failure(description: "dbus-daemon is not installed (Debian package dbus)") }
        guard let keyringDaemon = executable("gnome-keyring-daemon") else {
            throw Failure(description: "gnome-keyring-daemon is not installed (Debian package gnome-keyring)")
        }
        guard executable("secret-tool") != nil else { throw Failure(description: "secret-tool is not installed (Debian package libsecret-tools)") }
        guard executable("dbus-send") != nil else { throw Failure(description: "dbus-send is not installed (Debian package dbus)") }
        return try PrivateKeyring(dbusDaemon: dbusDaemon, keyringDaemon: keyringDaemon)
    }

    private init(dbusDaemon: String, keyringDaemon: String) throws {
        // A short path: a unix socket's path must fit in 108 bytes.
        directory = URL(fileURLWithPath: "/tmp/ms-keyring-\(UUID().uuidString.prefix(8))")
        let fileManager = FileManager.default
        for sub in ["home", "data", "config", "cache", "run"] {
            try fileManager.createDirectory(at: directory.appendingPathComponent(sub), withIntermediateDirectories: true,
                                            attributes: [.posixPermissions: 0o700])
        }
        let socket = directory.appendingPathComponent("bus").path
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = directory.appendingPathComponent("home").path
        environment["XDG_DATA_HOME"] = directory.appendingPathComponent("data").path
        environment["XDG_CONFIG_HOME"] = directory.appendingPathComponent("config").path
        environment["XDG_CACHE_HOME"] = directory.appendingPathComponent("cache").path
        environment["XDG_RUNTIME_DIR"] = directory.appendingPathComponent("run").path
        environment.removeValue(forKey: "DISPLAY")
        environment.removeValue(forKey: "WAYLAND_DISPLAY")
        environment.removeValue(forKey: "GNOME_KEYRING_CONTROL")

        bus = Process()
        bus.executableURL = URL(fileURLWithPath: dbusDaemon)
        bus.arguments = ["--session", "--nofork", "--nopidfile", "--print-address=1", "--address=unix:path=\(socket)"]
        bus.environment = environment
        let busOutput = Pipe()
        bus.standardOutput = busOutput
        bus.standardError = FileHandle.nullDevice
        bus.standardInput = FileHandle.nullDevice
        try bus.run()
        let line = Self.firstLine(of: busOutput.fileHandleForReading, timeout: 10)
        guard let line, line.hasPrefix("unix:") else {
            bus.terminate()
            try? fileManager.removeItem(at: directory)
            throw Failure(description: "dbus-daemon printed no address (\(line ?? "nothing in 10 s"))")
        }
        address = line
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        self.environment = environment

        keyring = Process()
        keyring.executableURL = URL(fileURLWithPath: keyringDaemon)
        keyring.arguments = ["--foreground", "--unlock", "--components=secrets"]
        keyring.environment = environment
        let password = Pipe()
        keyring.standardInput = password
        keyring.standardOutput = FileHandle.nullDevice
        keyring.standardError = FileHandle.nullDevice
        do {
            try keyring.run()
        } catch {
            bus.terminate()
            try? fileManager.removeItem(at: directory)
            throw error
        }
        // The login keyring's password (created with it, in the temporary HOME), then end of input.
        password.fileHandleForWriting.write(Data("mailsearch-test-keyring".utf8))
        try? password.fileHandleForWriting.close()

        // Ready when it owns org.freedesktop.secrets (asking the service itself could have D-Bus start another).
        let deadline = Date().addingTimeInterval(20)
        var owned = false
        while Date() < deadline, keyring.isRunning {
            let result = try Self.run("dbus-send", ["--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                    "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.secrets"], environment: environment)
            if result.output.contains("boolean true") {
                owned = true
                break
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        previousAddress = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"]
        guard owned else {
            let running = keyring.isRunning
            keyring.terminate()
            bus.terminate()
            try? fileManager.removeItem(at: directory)
            throw Failure(description: running ? "gnome-keyring-daemon did not take org.freedesktop.secrets in 20 s"
                : "gnome-keyring-daemon exited (status \(keyring.terminationStatus)) before it took org.freedesktop.secrets")
        }
        // libsecret (glib) reads the bus's address from this process's environment when it first connects.
        setenv("DBUS_SESSION_BUS_ADDRESS", address, 1)
    }

    func stop() {
        for process in [keyring, bus] where process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        if let previousAddress {
            setenv("DBUS_SESSION_BUS_ADDRESS", previousAddress, 1)
        } else {
            unsetenv("DBUS_SESSION_BUS_ADDRESS")
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// secret-tool run against the private bus: its status and standard output.
    func secretTool(_ arguments: [String], input: String? = nil, mergingErrors: Bool = false) throws -> (status: Int32, output: String) {
        try Self.run("secret-tool", arguments, environment: environment, input: input, mergingErrors: mergingErrors)
    }

    static func run(_ tool: String, _ arguments: [String], environment: [String: String], input: String? = nil,
                    mergingErrors: Bool = false) throws -> (status: Int32, output: String) {
        guard let path = executable(tool) else { throw Failure(description: "\(tool) is not installed") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = mergingErrors ? output : FileHandle.nullDevice
        let stdin = Pipe()
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try? stdin.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    private static func firstLine(of handle: FileHandle, timeout: TimeInterval) -> String? {
        final class Box: @unchecked Sendable { var line: String? }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var bytes = Data()
            while true {
                let chunk = handle.readData(ofLength: 1)
                if chunk.isEmpty || chunk == Data("\n".utf8) { break }
                bytes.append(chunk)
            }
            box.line = String(decoding: bytes, as: UTF8.self)
            done.signal()
        }
        guard done.wait(timeout: .now() + timeout) == .success else { return nil }
        return box.line
    }
}

/// The keyring and its bus going away while the process runs (a desktop session ending, a keyring
/// restarted): calls fail with `unavailable`, never hang, and the process lives on. Run in a child
/// process (this test binary again, with only this test), because afterwards libsecret cannot reach
/// any bus in that process. (It passes without CSecret's exit-on-close safeguard too: gio's SIGTERM
/// comes only from a main loop, which nothing here runs.)
final class SecretServiceBusLossTests: XCTestCase {
    static let childVariable = "MAILSEARCH_SECRET_BUS_LOSS_CHILD"

    func testLosingTheBusNeitherStopsTheProcessNorLeavesItStuck() throws {
        if ProcessInfo.processInfo.environment[Self.childVariable] == "1" { return try child() }
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["SecretStoreTests.SecretServiceBusLossTests/testLosingTheBusNeitherStopsTheProcessNorLeavesItStuck"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.childVariable] = "1"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let collected = DispatchQueue(label: "bus-loss-output")
        nonisolated(unsafe) var data = Data()
        let reading = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let all = output.fileHandleForReading.readDataToEndOfFile()
            collected.sync { data = all }
            reading.signal()
        }
        if reading.wait(timeout: .now() + 120) == .timedOut {
            process.terminate()
            XCTFail("the child test gave no answer in 120 s")
            return
        }
        process.waitUntilExit()
        let text = collected.sync { String(decoding: data, as: UTF8.self) }
        XCTAssertEqual(process.terminationReason, .exit, "the child was stopped by a signal: \(text)")
        XCTAssertEqual(process.terminationStatus, 0, text)
        XCTAssertTrue(text.contains("Executed 1 test, with 0 failures"), text)
        if text.contains("skipped") { throw XCTSkip("the child skipped: no Secret Service could be started") }
    }

    private func child() throws {
        let keyring: PrivateKeyring
        do {
            keyring = try PrivateKeyring.start()
        } catch {
            if ProcessInfo.processInfo.environment["MAILSEARCH_REQUIRE_SECRET_SERVICE"] == "1" { throw error }
            throw XCTSkip("no Secret Service could be started (\(error))")
        }
        let store = try SecretServiceStore()
        let key = SecretKey(account: "bus-loss", purpose: .password)
        try store.store("before", for: key)
        XCTAssertEqual(try store.secret(for: key), "before")
        keyring.stop()
        Thread.sleep(forTimeInterval: 1) // time for gio to see the connection closed (and, by default, raise SIGTERM)
        XCTAssertThrowsError(try store.secret(for: key)) { error in
            XCTAssertEqual((error as? SecretStoreError)?.kind, .unavailable, "\(error)")
        }
        XCTAssertThrowsError(try store.store("after", for: key))
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertFalse(SecretServiceStore.available(environment: keyring.environment))
    }
}
