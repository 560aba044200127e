import Foundation
import Hummingbird
import HummingbirdTesting
import MailSearchKit
import MailSearchServer
import XCTest

/// The server on a real port (HummingbirdTesting's `.live`): what a browser or curl would meet,
/// the Host header as it arrives off the wire included.
final class LiveServerTests: XCTestCase {
    var fixture: ServerFixture!

    override func setUp() async throws {
        fixture = try await ServerFixture()
    }

    override func tearDown() async throws {
        fixture = nil
    }

    func testHostCheckOnALivePort() async throws {
        try await fixture.app().test(.live) { client in
            let port = try XCTUnwrap(client.port)
            // The live client says Host: localhost.
            let status = try await client.execute(uri: "/api/status", method: .get)
            XCTAssertEqual(status.status, .ok)
            XCTAssertEqual(status.headers[.cacheControl], "no-store")

            // A second connection whose Host is what a DNS-rebinding page would send.
            try await TestClient.withClient(host: "127.0.0.1", port: port) { raw in
                for authority in ["evil.example", "evil.example:\(port)"] {
                    let response = try await raw.execute(TestClient.Request("/api/search?q=budget", method: .get, authority: authority))
                    XCTAssertEqual(response.status, .misdirectedRequest, authority)
                    XCTAssertFalse(String(buffer: response.body ?? ByteBuffer()).contains("Budget topic"))
                }
                for authority in ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"] {
                    let response = try await raw.execute(TestClient.Request("/api/search?q=budget", method: .get, authority: authority))
                    XCTAssertEqual(response.status, .ok, authority)
                    XCTAssertTrue(String(buffer: response.body ?? ByteBuffer()).contains("Budget topic"))
                }
                // Same-origin POST by the Host actually used, cross-site POST refused.
                let own = try await raw.execute(TestClient.Request(
                    "/api/index/rebuild", method: .post, authority: "127.0.0.1:\(port)",
                    headers: .with([("Origin", "http://127.0.0.1:\(port)"), ("Sec-Fetch-Site", "same-origin")])))
                XCTAssertEqual(own.status, .ok)
                let crossSite = try await raw.execute(TestClient.Request(
                    "/api/index/rebuild", method: .post, authority: "127.0.0.1:\(port)",
                    headers: .with([("Origin", "https://evil.example"), ("Sec-Fetch-Site", "cross-site")])))
                XCTAssertEqual(crossSite.status, .forbidden)
                // An origin on another port of this machine is another origin.
                let otherPort = try await raw.execute(TestClient.Request(
                    "/api/recent", method: .delete, authority: "127.0.0.1:\(port)",
                    headers: .with([("Origin", "http://127.0.0.1:\(port == 1 ? 2 : port - 1)")])))
                XCTAssertEqual(otherPort.status, .forbidden)
            }
        }
    }

    func testTokenOnALivePort() async throws {
        try await fixture.app(ServerConfiguration(token: "live-token-123456")).test(.live) { client in
            try assertError(try await client.execute(uri: "/api/status", method: .get), .unauthorized)
            let ok = try await client.execute(uri: "/api/status", method: .get, headers: .with([("Authorization", "Bearer live-token-123456")]))
            XCTAssertEqual(ok.status, .ok)
            let wrong = try await client.execute(uri: "/api/status", method: .get, headers: .with([("Authorization", "Bearer live-token-123457")]))
            try assertError(wrong, .unauthorized)
        }
    }
}
