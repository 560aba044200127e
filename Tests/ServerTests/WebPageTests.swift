import Foundation
import Hummingbird
import HummingbirdTesting
import MailSearchKit
@testable import MailSearchServer
import XCTest

/// The search page's files: served from the binary with a strict CSP, revalidated by ETag, open
/// without the token (they hold no mail) while /api/ stays guarded. The page's behaviour in a
/// browser: Tests/Browser.
final class WebPageTests: XCTestCase {
    var fixture: ServerFixture!

    override func setUp() async throws {
        fixture = try await ServerFixture()
    }

    override func tearDown() async throws {
        fixture = nil
    }

    /// Every file of Sources/MailSearchServer/Web is built in, and nothing else is listed.
    func testEveryWebFileIsEmbedded() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/MailSearchServer/Web")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }
        XCTAssertEqual(Set(files), Set(WebAssets.embedded.keys), "list the file in WebAssets.embedded")
        for name in files {
            XCTAssertTrue(WebAssets.isValidName(name), "\(name): a plain name of a served kind")
            XCTAssertTrue(WebAssets.embedded[name] == [UInt8](try Data(contentsOf: folder.appendingPathComponent(name))),
                          "\(name): the binary has an old copy; rebuild")
        }
    }

    func testThePageHasAStrictPolicyAndItsFilesAreRevalidated() async throws {
        try await fixture.app().test(.router) { client in
            let page = try await client.execute(uri: "/", method: .get)
            XCTAssertEqual(page.status, .ok)
            XCTAssertEqual(page.headers[.contentType], "text/html; charset=utf-8")
            XCTAssertEqual(Data(buffer: page.body), Data(WebAssets.embedded["index.html"]!))
            let csp = try XCTUnwrap(page.headers[.contentSecurityPolicy])
            let directives = Dictionary(csp.split(separator: ";").map { part -> (String, String) in
                let words = part.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
                return (String(words[0]), words.count > 1 ? String(words[1]) : "")
            }, uniquingKeysWith: { a, _ in a })
            XCTAssertEqual(directives["default-src"], "'self'")
            XCTAssertEqual(directives["script-src"], "'self'", "no inline script, no eval")
            XCTAssertEqual(directives["object-src"], "'none'")
            XCTAssertEqual(directives["frame-ancestors"], "'none'")
            XCTAssertEqual(page.headers[FieldName("X-Frame-Options")!], "DENY")

            for name in WebAssets.embedded.keys {
                let response = try await client.execute(uri: "/assets/\(name)", method: .get)
                XCTAssertEqual(response.status, .ok, name)
                XCTAssertEqual(response.headers[.contentType], WebAssets.contentType(of: name), name)
                XCTAssertEqual(response.headers[.cacheControl], "no-cache", name)
                let etag = try XCTUnwrap(response.headers[.eTag], name)
                let again = try await client.execute(uri: "/assets/\(name)", method: .get, headers: .with([("If-None-Match", etag)]))
                XCTAssertEqual(again.status, .notModified, name)
                XCTAssertEqual(again.body.readableBytes, 0)
            }
            let script = try await client.execute(uri: "/assets/app.js", method: .get)
            XCTAssertEqual(script.headers[.contentType], "text/javascript; charset=utf-8", "modules need a JavaScript type under nosniff")
        }
    }

    func testOnlyPlainNamesOfServedKinds() async throws {
        try await fixture.app().test(.router) { client in
            for uri in ["/assets/missing.js", "/assets/.hidden.js", "/assets/..%2Findex.html", "/assets/index.html%00.js",
                        "/assets/WebAssets.swift", "/assets/", "/index.html", "/assets/a/b.js"] {
                let response = try await client.execute(uri: uri, method: .get)
                XCTAssertEqual(response.status, .notFound, uri)
                XCTAssertFalse(String(buffer: response.body).contains("<html"), uri)
            }
        }
        for name in ["app.js", "style.css", "index.html", "icon-16.svg"] { XCTAssertTrue(WebAssets.isValidName(name), name) }
        for name in ["", ".js", "a/b.js", "a.swift", "a b.js", "ä.js", "..", "x.html/"] { XCTAssertFalse(WebAssets.isValidName(name), name) }
    }

    /// A bookmark or a link may open the page, with or without a token configured; the API
    /// behind it still needs the token and refuses cross-site callers, however the path is spelt.
    func testThePageIsOpenButTheAPIStaysGuarded() async throws {
        let token = "0123456789abcdef0123456789abcdef"
        let crossSite: HTTPFields = .with([("Sec-Fetch-Site", "cross-site"), ("Origin", "https://evil.example")])
        try await fixture.app(ServerConfiguration(token: token)).test(.router) { client in
            let page = try await client.execute(uri: "/", method: .get)
            XCTAssertEqual(page.status, .ok)
            let script = try await client.execute(uri: "/assets/app.js", method: .get, headers: crossSite)
            XCTAssertEqual(script.status, .ok)
            for uri in ["/api/search?q=budget", "//api/search?q=budget", "/api//search?q=budget", "/api/mailboxes"] {
                try assertError(try await client.execute(uri: uri, method: .get), .unauthorized)
            }
            try assertError(try await client.execute(uri: "/", method: .post), .unauthorized)
            try assertError(try await client.execute(uri: "/", method: .get, headers: .with([("Host", "evil.example")])), .misdirectedRequest)
        }
        try await fixture.app().test(.router) { client in
            let linked = try await client.execute(uri: "/", method: .get, headers: crossSite)
            XCTAssertEqual(linked.status, .ok)
            for uri in ["/api/search?q=budget", "//api/search?q=budget", "/api/mailboxes", "/api/recent"] {
                try assertError(try await client.execute(uri: uri, method: .get, headers: crossSite), .forbidden)
            }
        }
    }

    /// `--web-dir`: the files come from the folder (so the page can be worked on without a rebuild).
    func testAWebDirectoryReplacesTheBuiltInFiles() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("web-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("<!doctype html><title>dev</title>".utf8).write(to: folder.appendingPathComponent("index.html"))
        try Data("export const x = 1;".utf8).write(to: folder.appendingPathComponent("extra.js"))
        try await fixture.app(ServerConfiguration(webDirectory: folder.path)).test(.router) { client in
            let page = try await client.execute(uri: "/", method: .get)
            XCTAssertEqual(String(buffer: page.body), "<!doctype html><title>dev</title>")
            let extra = try await client.execute(uri: "/assets/extra.js", method: .get)
            XCTAssertEqual(String(buffer: extra.body), "export const x = 1;")
            let missing = try await client.execute(uri: "/assets/app.js", method: .get)
            XCTAssertEqual(missing.status, .notFound)
        }
        XCTAssertThrowsError(try ServerConfiguration(webDirectory: folder.appendingPathComponent("nope").path).validate())
    }
}
