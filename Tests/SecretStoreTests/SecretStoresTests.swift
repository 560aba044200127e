import Foundation
@testable import SecretStore
import XCTest

/// Choosing a store without a Secret Service, libsecret loaded at run time only, and the errors' words.
final class SecretStoresTests: XCTestCase {
    private let data = URL(fileURLWithPath: "/nonexistent/mailsearch-data")

    func testWithoutASessionBusTheFileIsChosen() throws {
        let environment = ["PATH": "/usr/bin:/bin"]
        guard case .unavailable(let why) = SecretServiceStore.availability(environment: environment) else {
            return XCTFail("a Secret Service without a session bus")
        }
        XCTAssertTrue(why.contains("DBUS_SESSION_BUS_ADDRESS"), why)
        let store = try SecretStores.preferred(dataDirectory: data, environment: environment)
        XCTAssertEqual(store.kind, .encryptedFile)
        XCTAssertTrue(store.isLocked)
        XCTAssertEqual((store as? EncryptedFileStore)?.fileURL.path, "/nonexistent/mailsearch-data/secrets.enc")
    }

    func testForcingAStore() throws {
        XCTAssertEqual(try SecretStores.preferred(dataDirectory: data, environment: ["MAILSEARCH_SECRET_STORE": "file"]).kind, .encryptedFile)
        do {
            _ = try SecretStores.preferred(dataDirectory: data, environment: ["MAILSEARCH_SECRET_STORE": "secret-service"])
            XCTFail("a forced Secret Service without a bus must be an error, not the file")
        } catch let error as SecretStoreError {
            XCTAssertEqual(error.kind, .unavailable)
            XCTAssertTrue(error.description.contains("MAILSEARCH_SECRET_STORE=file"), "\(error)")
        }
        XCTAssertThrowsError(try SecretStores.preferred(dataDirectory: data, environment: ["MAILSEARCH_SECRET_STORE": "pass"])) { error in
            XCTAssertEqual((error as? SecretStoreError)?.kind, .invalidArgument)
        }
    }

    func testAMissingLibsecretIsUnavailableNotACrash() {
        guard case .unavailable(let why) = SecretServiceStore.availability(environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"],
                                                                          libraryName: "libsecret-missing-for-test.so.0") else {
            return XCTFail("available without its library")
        }
        XCTAssertTrue(why.contains("libsecret cannot be loaded"), why)
        XCTAssertThrowsError(try SecretServiceStore(libraryName: "libsecret-missing-for-test.so.0")) { error in
            XCTAssertEqual((error as? SecretStoreError)?.kind, .unavailable)
            XCTAssertTrue("\(error)".contains("libsecret-1-0"), "\(error)")
        }
    }

    /// The binary must start where libsecret is not installed: it is not among the libraries the
    /// test executable (which links SecretStore) needs, nor is glib.
    func testLibsecretIsNotLinked() throws {
        guard let readelf = PrivateKeyring.executable("readelf") else { throw XCTSkip("readelf (binutils) is not installed") }
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: readelf)
        process.arguments = ["-d", executable]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let needed = text.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        XCTAssertFalse(needed.isEmpty, text)
        XCTAssertFalse(needed.contains { $0.contains("libsecret") || $0.contains("libglib") || $0.contains("libgio") }, needed.joined(separator: "\n"))
    }

    func testServiceErrorsSayWhatToDo() {
        func error(_ domain: String, _ code: Int, _ message: String) -> SecretStoreError {
            SecretServiceStore.translate(domain: domain, code: code, message: message, what: "store the password of account \"work\"")
        }
        let missing = error("g-dbus-error-quark", 2, "The name org.freedesktop.secrets was not provided by any .service files")
        XCTAssertEqual(missing.kind, .unavailable)
        XCTAssertTrue(missing.description.contains("no Secret Service on the session bus"), missing.description)
        let locked = error("secret-error-quark", 2, "Cannot create an item in a locked collection")
        XCTAssertEqual(locked.kind, .refused)
        XCTAssertTrue(locked.description.hasPrefix("Secret Service refused to store the password of account \"work\": the keyring is locked"), locked.description)
        let other = error("g-dbus-error-quark", 9, "Access denied")
        XCTAssertEqual(other.kind, .refused)
        XCTAssertTrue(other.description.contains("Secret Service refused to store the password of account \"work\": Access denied"), other.description)
    }
}
