import Foundation
import Hummingbird
import HummingbirdTesting
import MailSearchKit
@testable import MailSearchServer
import XCTest

/// The rules that keep the local server from being a way into the mail: Host (DNS rebinding),
/// token, cross-site requests (CSRF), no CORS, refusing to start off loopback without a token.
final class SecurityTests: XCTestCase {
    var fixture: ServerFixture!

    override func setUp() async throws {
        fixture = try await ServerFixture()
    }

    override func tearDown() async throws {
        fixture = nil
    }

    // MARK: Host header

    func testForeignHostHeaderIsMisdirected() async throws {
        try await fixture.app().test(.router) { client in
            for host in ["evil.example", "evil.example:8025", "127.0.0.1.evil.example", "localhost.evil.example:8025",
                         "[::2]:8025", "0.0.0.0:8025", "localhost:80:80", "localhost:http", "", "[::1"] {
                for uri in ["/api/status", "/api/search?q=budget", "/api/nope"] {
                    let response = try await client.execute(uri: uri, method: .get, headers: .with([("Host", host)]))
                    try assertError(response, .misdirectedRequest)
                    XCTAssertFalse(String(buffer: response.body).contains("budget"), "no mail in a refused answer")
                }
            }
            let post = try await client.execute(uri: "/api/index/rebuild", method: .post, headers: .with([("Host", "evil.example")]))
            try assertError(post, .misdirectedRequest)
        }
    }

    func testLoopbackAndBoundHostNamesAreAccepted() async throws {
        try await fixture.app().test(.router) { client in
            for host in ["localhost", "localhost:8025", "LOCALHOST:8025", "127.0.0.1", "127.0.0.1:8025", "[::1]", "[::1]:8025"] {
                let response = try await client.execute(uri: "/api/status", method: .get, headers: .with([("Host", host)]))
                XCTAssertEqual(response.status, .ok, host)
            }
        }
        // A server bound to a LAN address (with a token) answers to that address, and to names
        // given with --allow-host.
        let lan = ServerConfiguration(host: "192.168.1.5", port: 8025, token: "s3cret-token-value", allowedHosts: ["mybox.local"])
        try await fixture.app(lan).test(.router) { client in
            for host in ["192.168.1.5:8025", "192.168.1.5", "mybox.local:8025", "localhost:8025"] {
                let response = try await client.execute(uri: "/api/status", method: .get,
                                                        headers: .with([("Host", host), ("Authorization", "Bearer s3cret-token-value")]))
                XCTAssertEqual(response.status, .ok, host)
            }
            let other = try await client.execute(uri: "/api/status", method: .get,
                                                 headers: .with([("Host", "192.168.1.6:8025"), ("Authorization", "Bearer s3cret-token-value")]))
            try assertError(other, .misdirectedRequest)
        }
    }

    func testHostNameParsing() {
        typealias S = SecurityMiddleware<BasicRequestContext>
        XCTAssertEqual(S.hostName(of: "localhost"), "localhost")
        XCTAssertEqual(S.hostName(of: "LocalHost:8025"), "localhost")
        XCTAssertEqual(S.hostName(of: "[::1]:8025"), "::1")
        XCTAssertEqual(S.hostName(of: "[::1]"), "::1")
        XCTAssertNil(S.hostName(of: "::1"), "IPv6 literals need brackets")
        XCTAssertNil(S.hostName(of: "localhost:"))
        XCTAssertNil(S.hostName(of: "localhost:99999"))
        XCTAssertNil(S.hostName(of: "localhost:80x"))
        XCTAssertNil(S.hostName(of: "[::1]x"))
        XCTAssertNil(S.hostName(of: ""))
    }

    // MARK: Cross-site requests (CSRF)

    func testCrossSitePostsAreForbidden() async throws {
        try await fixture.app().test(.router) { client in
            let attempts: [[(String, String)]] = [
                [("Origin", "https://evil.example"), ("Sec-Fetch-Site", "cross-site")],
                [("Origin", "https://evil.example")],
                [("Sec-Fetch-Site", "cross-site")],
                [("Sec-Fetch-Site", "same-site"), ("Origin", "http://localhost:3000")],
                [("Origin", "null")],
                [("Origin", "http://localhost.evil.example")],
                [("Sec-Fetch-Site", "same-origin"), ("Origin", "https://evil.example")],
                [("Origin", "https://localhost")],
            ]
            for headers in attempts {
                for (uri, method) in [("/api/index/rebuild", HTTPRequest.Method.post), ("/api/recent", .delete), ("/api/import", .post)] {
                    let response = try await client.execute(uri: uri, method: method, headers: .with(headers),
                                                            body: ByteBuffer(string: #"{"path": "/tmp", "account": "x"}"#))
                    try assertError(response, .forbidden)
                }
            }
            // A cross-site GET is refused as well: a search writes the recent searches.
            let get = try await client.execute(uri: "/api/search?q=injected", method: .get,
                                               headers: .with([("Sec-Fetch-Site", "cross-site"), ("Origin", "https://evil.example")]))
            try assertError(get, .forbidden)
            let suggestions = try decode(Suggestions.self, try await client.execute(uri: "/api/suggestions", method: .get))
            XCTAssertFalse(suggestions.recentSearches.contains("injected"))
        }
    }

    func testSameOriginAndScriptRequestsMayChangeState() async throws {
        try await fixture.app().test(.router) { client in
            // A page served from this origin (the authority of the router test client is "localhost").
            let sameOrigin = try await client.execute(uri: "/api/index/rebuild", method: .post,
                                                      headers: .with([("Origin", "http://localhost"), ("Sec-Fetch-Site", "same-origin")]))
            XCTAssertEqual(sameOrigin.status, .ok, String(buffer: sameOrigin.body))
            let withPort = try await client.execute(uri: "/api/recent", method: .delete,
                                                    headers: .with([("Host", "localhost:8025"), ("Origin", "http://localhost:8025")]))
            XCTAssertEqual(withPort.status, .ok, String(buffer: withPort.body))
            // The user typing the URL (Sec-Fetch-Site: none) and scripts without either header, on loopback.
            let typed = try await client.execute(uri: "/api/recent", method: .delete, headers: .with([("Sec-Fetch-Site", "none")]))
            XCTAssertEqual(typed.status, .ok)
            let curl = try await client.execute(uri: "/api/recent", method: .delete)
            XCTAssertEqual(curl.status, .ok)
        }
    }

    // MARK: Token

    func testTokenIsRequiredAndComparedExactly() async throws {
        let token = "0123456789abcdef0123456789abcdef"
        try await fixture.app(ServerConfiguration(token: token)).test(.router) { client in
            let missing = try await client.execute(uri: "/api/status", method: .get)
            try assertError(missing, .unauthorized)
            XCTAssertEqual(missing.headers[.wwwAuthenticate], "Bearer")

            var wrongSameLength = Array(token)
            wrongSameLength[wrongSameLength.count - 1] = "0"
            let rejected = [
                "Bearer " + String(wrongSameLength), "Bearer " + token.dropLast(), "Bearer " + token + "0", "Bearer ",
                "Basic " + Data("user:\(token)".utf8).base64EncodedString(), token, "Bearer " + token.uppercased(),
            ]
            for value in rejected {
                let response = try await client.execute(uri: "/api/status", method: .get, headers: .with([("Authorization", value)]))
                try assertError(response, .unauthorized)
                XCTAssertFalse(String(buffer: response.body).contains(token), "the token is never echoed")
            }
            // The token on every endpoint, not only the state-changing ones.
            for uri in ["/api/search?q=budget", "/api/suggestions", "/api/threads/1", "/api/emails/1/raw", "/api/attachments/1", "/api/nope",
                        "/api/threads/1/summary", "/api/emails/1/replies"] {
                try assertError(try await client.execute(uri: uri, method: .get), .unauthorized)
            }

            let accepted = try await client.execute(uri: "/api/status", method: .get, headers: .with([("Authorization", "Bearer " + token)]))
            XCTAssertEqual(accepted.status, .ok)
            let lowercaseScheme = try await client.execute(uri: "/api/status", method: .get, headers: .with([("Authorization", "bearer " + token)]))
            XCTAssertEqual(lowercaseScheme.status, .ok)
            // With the token, a script may POST without Origin; a browser page cannot know the token.
            let post = try await client.execute(uri: "/api/index/rebuild", method: .post, headers: .with([("Authorization", "Bearer " + token)]))
            XCTAssertEqual(post.status, .ok)
            // Without it, not even a same-origin page.
            let sameOrigin = try await client.execute(uri: "/api/index/rebuild", method: .post,
                                                      headers: .with([("Origin", "http://localhost"), ("Sec-Fetch-Site", "same-origin")]))
            try assertError(sameOrigin, .unauthorized)
            // The Host check comes first: a rebinding page gets 421 whatever it sends.
            let rebinding = try await client.execute(uri: "/api/status", method: .get,
                                                     headers: .with([("Host", "evil.example"), ("Authorization", "Bearer " + token)]))
            try assertError(rebinding, .misdirectedRequest)
        }
    }

    func testConstantTimeComparison() {
        typealias S = SecurityMiddleware<BasicRequestContext>
        let token = Array("secret-token".utf8)
        XCTAssertTrue(S.constantTimeEquals(token, token))
        XCTAssertFalse(S.constantTimeEquals(token, Array("secret-tokeN".utf8)), "same length, last byte differs")
        XCTAssertFalse(S.constantTimeEquals(token, Array("Secret-token".utf8)), "same length, first byte differs")
        XCTAssertFalse(S.constantTimeEquals(token, Array("secret-token\0".utf8)), "longer by a NUL")
        XCTAssertFalse(S.constantTimeEquals(token, Array("secret".utf8)), "a prefix")
        XCTAssertFalse(S.constantTimeEquals(token, []))
        XCTAssertTrue(S.constantTimeEquals([], []))
        // Lengths that differ by a multiple of 256 are still different.
        XCTAssertFalse(S.constantTimeEquals([UInt8](repeating: 0, count: 256), []))
        XCTAssertEqual(S.bearerToken("Bearer abc"), "abc")
        XCTAssertEqual(S.bearerToken("  bearer   abc"), "abc")
        XCTAssertNil(S.bearerToken("Basic abc"))
        XCTAssertNil(S.bearerToken("Bearer"))
    }

    // MARK: No CORS

    func testNoCORSHeadersEver() async throws {
        try await fixture.app().test(.router) { client in
            let preflight = try await client.execute(uri: "/api/index/rebuild", method: .options, headers: .with([
                ("Origin", "https://evil.example"), ("Access-Control-Request-Method", "POST"),
                ("Access-Control-Request-Headers", "authorization"),
            ]))
            try assertError(preflight, .methodNotAllowed)
            let sameOriginPreflight = try await client.execute(uri: "/api/search", method: .options)
            try assertError(sameOriginPreflight, .methodNotAllowed)
            let get = try await client.execute(uri: "/api/search?q=budget", method: .get, headers: .with([("Origin", "http://localhost")]))
            XCTAssertEqual(get.status, .ok)
            let refused = try await client.execute(uri: "/api/status", method: .get, headers: .with([("Origin", "https://evil.example")]))
            XCTAssertEqual(refused.status, .forbidden)
            for response in [preflight, sameOriginPreflight, get, refused] {
                let cors = response.headers.filter { $0.name.canonicalName.hasPrefix("access-control-") }
                XCTAssertTrue(cors.isEmpty, "\(cors)")
                XCTAssertEqual(response.headers[.xContentTypeOptions], "nosniff")
            }
        }
    }

    // MARK: Refusing to start

    func testNonLoopbackHostWithoutTokenRefusesToStart() throws {
        for host in ["0.0.0.0", "192.168.1.5", "::", "[::]", "example.com", "10.0.0.1", "128.0.0.1"] {
            let configuration = ServerConfiguration(host: host, port: 8025)
            XCTAssertFalse(configuration.isLoopback, host)
            XCTAssertThrowsError(try configuration.validate(), host) { error in
                let message = (error as? ServerConfigurationError)?.description ?? ""
                XCTAssertTrue(message.contains("without a token"), message)
            }
            XCTAssertThrowsError(try buildApplication(service: fixture.service, configuration: configuration, logger: .init(label: "t")), host)
            XCTAssertNoThrow(try ServerConfiguration(host: host, port: 8025, token: "a-long-random-token").validate(), host)
        }
        for host in ["127.0.0.1", "localhost", "::1", "[::1]", "127.1.2.3", "LOCALHOST"] {
            let configuration = ServerConfiguration(host: host)
            XCTAssertTrue(configuration.isLoopback, host)
            XCTAssertNoThrow(try configuration.validate(), host)
        }
        XCTAssertThrowsError(try ServerConfiguration(token: "").validate())
        XCTAssertThrowsError(try ServerConfiguration(token: "with space").validate())
        XCTAssertThrowsError(try ServerConfiguration(port: 70_000).validate())
        XCTAssertThrowsError(try ServerConfiguration(host: " ").validate())
        XCTAssertEqual(ServerConfiguration(host: "::1", port: 9).url(), "http://[::1]:9")
        XCTAssertEqual(ServerConfiguration().url(), "http://127.0.0.1:8025")
    }

    // MARK: Downloads

    func testContentDispositionIsSanitised() {
        XCTAssertEqual(Download.contentDisposition(filename: "report.pdf", fallback: "f"),
                       "attachment; filename=\"report.pdf\"; filename*=UTF-8''report.pdf")
        XCTAssertEqual(Download.contentDisposition(filename: "../../etc/pass\"wd;x\r\nSet-Cookie: a=b", fallback: "f"),
                       "attachment; filename=\"pass_wdxSet-Cookie: a=b\"; filename*=UTF-8''passwdxSet-Cookie%3A%20a%3Db"
                           .replacingOccurrences(of: "pass_wd", with: "passwd"))
        XCTAssertEqual(Download.contentDisposition(filename: "Résumé 2024.pdf", fallback: "f"),
                       "attachment; filename=\"R_sum_ 2024.pdf\"; filename*=UTF-8''R%C3%A9sum%C3%A9%202024.pdf")
        // A right-to-left override that would show "invoice_fdp.exe" as "invoice_exe.pdf".
        XCTAssertEqual(Download.sanitizedFilename("invoice_\u{202E}fdp.exe"), "invoice_fdp.exe")
        XCTAssertEqual(Download.sanitizedFilename("..."), nil)
        XCTAssertEqual(Download.contentDisposition(filename: nil, fallback: "attachment-7"),
                       "attachment; filename=\"attachment-7\"; filename*=UTF-8''attachment-7")
        XCTAssertEqual(Download.sanitizedFilename(String(repeating: "a", count: 300) + ".zip")?.count, 200)
        XCTAssertEqual(Download.sanitizedFilename(String(repeating: "a", count: 300) + ".zip")?.hasSuffix(".zip"), true)
        XCTAssertEqual(Download.contentType("application/zip"), "application/zip")
        XCTAssertEqual(Download.contentType("text/html"), "application/octet-stream")
        XCTAssertEqual(Download.contentType("image/svg+xml"), "application/octet-stream")
        XCTAssertEqual(Download.contentType("text/plain\r\nX: y"), "application/octet-stream")
        XCTAssertEqual(Download.contentType("weird"), "application/octet-stream")
    }
}
