import Foundation
import Hummingbird
import HummingbirdTesting
import MailSearchKit
@testable import MailSearchServer
import XCTest

/// The app lock (001 §5.8): with a passcode set, the API answers nothing but 423 until a session the
/// passcode opened comes with the request; the data directory keeps a scrypt verifier, never the passcode.
final class AppLockTests: XCTestCase {
    var fixture: ServerFixture!

    override func setUp() async throws {
        fixture = try await ServerFixture()
    }

    override func tearDown() async throws {
        fixture = nil
    }

    static func json(_ response: TestResponse) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any], String(buffer: response.body))
    }

    func testThePasscodeLocksTheAPIUntilASessionIsOpened() async throws {
        let passcode = "tulip-4471"
        let directory = try XCTUnwrap(fixture).directory
        try await fixture.app().test(.router) { client in
            let jsonHeaders = HTTPFields.with([("Content-Type", "application/json")])
            // Off: everything answers.
            let before = try await client.execute(uri: "/api/lock", method: .get)
            XCTAssertEqual(try Self.json(before)["enabled"] as? Bool, false)
            let r1 = try await client.execute(uri: "/api/search?q=budget", method: .get)
            XCTAssertEqual(r1.status, .ok)
            let short = try await client.execute(uri: "/api/lock", method: .post, headers: jsonHeaders, body: ByteBuffer(string: #"{"passcode": "abc"}"#))
            XCTAssertEqual(short.status, .badRequest, "a passcode under 4 characters")

            // Set: the setter gets a session; the verifier on disk holds no passcode.
            let set = try await client.execute(uri: "/api/lock", method: .post, headers: jsonHeaders,
                                               body: ByteBuffer(string: #"{"passcode": "\#(passcode)"}"#))
            XCTAssertEqual(set.status, .ok, String(buffer: set.body))
            let session = try XCTUnwrap(try Self.json(set)["session"] as? String)
            let stored = try Data(contentsOf: directory.appendingPathComponent("data/app-lock.json"))
            XCTAssertNil(stored.range(of: Data(passcode.utf8)), "the passcode itself is not stored")
            let mode = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("data/app-lock.json").path)[.posixPermissions] as? Int
            XCTAssertEqual(mode, 0o600)

            // Without a session: 423 for every API call but the lock's own and the health check.
            for (uri, method) in [("/api/search?q=budget", HTTPRequest.Method.get), ("/api/status", .get), ("/api/threads/1", .get),
                                  ("/api/accounts", .get), ("/api/index/rebuild", .post), ("/api/lock", .delete), ("/api/settings", .get)] {
                let response = try await client.execute(uri: uri, method: method)
                XCTAssertEqual(response.status.code, 423, "\(method) \(uri)")
                XCTAssertEqual(try Self.json(response)["field"] as? String, "passcode")
                XCTAssertFalse(String(buffer: response.body).contains("budget"), "no mail in a locked answer")
            }
            let wrongSession = try await client.execute(uri: "/api/status", method: .get, headers: .with([("X-MailSearch-Session", "guess")]))
            XCTAssertEqual(wrongSession.status.code, 423)
            let r2 = try await client.execute(uri: "/api/health", method: .get)
            XCTAssertEqual(r2.status, .ok)
            let r3 = try await client.execute(uri: "/api/lock", method: .get)
            XCTAssertEqual(try Self.json(r3)["unlocked"] as? Bool, false)
            let r4 = try await client.execute(uri: "/", method: .get)
            XCTAssertEqual(r4.status, .ok, "the page itself opens (it asks for the passcode)")

            // The setter's session works; a wrong passcode opens nothing; the right one opens a new session.
            let withSession = HTTPFields.with([("X-MailSearch-Session", session)])
            let r5 = try await client.execute(uri: "/api/status", method: .get, headers: withSession)
            XCTAssertEqual(r5.status, .ok)
            let wrong = try await client.execute(uri: "/api/lock/unlock", method: .post, headers: jsonHeaders,
                                                 body: ByteBuffer(string: #"{"passcode": "tulip-4472"}"#))
            XCTAssertEqual(wrong.status.code, 403)
            let right = try await client.execute(uri: "/api/lock/unlock", method: .post, headers: jsonHeaders,
                                                 body: ByteBuffer(string: #"{"passcode": "\#(passcode)"}"#))
            XCTAssertEqual(right.status, .ok, String(buffer: right.body))
            let opened = try XCTUnwrap(try Self.json(right)["session"] as? String)
            XCTAssertNotEqual(opened, session)
            let searched = try await client.execute(uri: "/api/search?q=budget", method: .get, headers: .with([("X-MailSearch-Session", opened)]))
            XCTAssertEqual(searched.status, .ok)

            // Removing it needs an open session; then everything answers again.
            let removed = try await client.execute(uri: "/api/lock", method: .delete, headers: withSession)
            XCTAssertEqual(removed.status, .ok, String(buffer: removed.body))
            let r6 = try await client.execute(uri: "/api/status", method: .get)
            XCTAssertEqual(r6.status, .ok)
            XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("data/app-lock.json").path))
        }
    }

    /// A server started again is locked again (sessions live in memory), with the same passcode.
    func testARestartLocksAgain() async throws {
        try await fixture.app().test(.router) { client in
            let set = try await client.execute(uri: "/api/lock", method: .post, headers: .with([("Content-Type", "application/json")]),
                                               body: ByteBuffer(string: #"{"passcode": "9876"}"#))
            XCTAssertEqual(set.status, .ok)
        }
        try await fixture.app().test(.router) { client in
            let r7 = try await client.execute(uri: "/api/status", method: .get)
            XCTAssertEqual(r7.status.code, 423)
            let right = try await client.execute(uri: "/api/lock/unlock", method: .post, headers: .with([("Content-Type", "application/json")]),
                                                 body: ByteBuffer(string: #"{"passcode": "9876"}"#))
            XCTAssertEqual(right.status, .ok)
        }
    }
}
