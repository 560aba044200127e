import XCTest
@testable import HTMLSanitizer

/// Attack vectors written from public knowledge: the OWASP XSS filter evasion cheat sheet,
/// DOMPurify's fixtures and published mXSS bypasses, plus the spec's table (001 §5.4.3) and
/// every way an email can load something remote (CSS, srcset, backgrounds, media, preloads).
/// Each is sanitized with remote images blocked and allowed; the output is parsed again and every
/// element and attribute checked (`OutputVerifier`), the tags' markup searched for known payloads,
/// and the output must be stable: sanitizing it again gives it back.
final class XSSVectorTests: XCTestCase {
    /// The vectors live in Tests/Fixtures/xss-vectors.json, shared with the browser tests
    /// (Tests/Browser), which open each one as an email in the web UI. `REMOTE_HOST` stands for
    /// a remote host: here a made-up one, there a local server that counts every request.
    static let fixtureURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()        // HTMLSanitizerTests
        .deletingLastPathComponent()        // Tests
        .appendingPathComponent("Fixtures/xss-vectors.json")
    static let remoteHost = "evil.example"

    static let vectors: [String] = {
        do {
            let data = try Data(contentsOf: fixtureURL)
            return try JSONDecoder().decode([String].self, from: data)
                .map { $0.replacingOccurrences(of: "REMOTE_HOST", with: remoteHost) }
        } catch {
            XCTFail("cannot read the XSS vectors from \(fixtureURL.path): \(error)")
            return []
        }
    }()

    func testEveryVectorIsNeutralised() {
        XCTAssertGreaterThanOrEqual(Self.vectors.count, 60)
        for vector in Self.vectors {
            for allowRemoteImages in [false, true] {
                let options = SanitizeOptions(allowRemoteImages: allowRemoteImages)
                let result = HTMLSanitizer.sanitize(vector, options: options)
                let problems = OutputVerifier.problems(in: result.html, allowRemoteImages: allowRemoteImages)
                XCTAssertEqual(problems, [], "\(vector) → \(result.html)")
                let markup = OutputVerifier.tags(of: result.html).joined(separator: " ").lowercased()
                for forbidden in ["<script", "javascript:", "vbscript:", "expression(", "<iframe", "<object", "<embed",
                                  "<form", "<meta", "<base", "<link", "<svg", "<math", "<style", "srcset", "<input",
                                  "<button", "<textarea", "<select", "<applet", "<frame", "<noscript", "<template"]
                where markup.contains(forbidden) {
                    XCTFail("\(forbidden) in \(result.html) from \(vector)")
                }
                // Attribute names only: a title may well say "onerror=" (escaped, inside its quotes).
                let names = markup.replacingOccurrences(of: #""[^"]*""#, with: "\"\"", options: .regularExpression)
                if names.range(of: #"\son[a-z]+\s*="#, options: .regularExpression) != nil {
                    XCTFail("event handler in \(result.html) from \(vector)")
                }
                let again = HTMLSanitizer.sanitize(result.html, options: options)
                if result.remoteImagesBlocked == 0 {
                    XCTAssertEqual(again.html, result.html, "not stable: \(vector)")
                }
                XCTAssertEqual(again.trackersBlocked, 0, vector)
            }
        }
    }

    func testScriptTextNeverBecomesMarkup() {
        let result = HTMLSanitizer.sanitize("<xmp><script>alert(1)</script></xmp>")
        XCTAssertEqual(result.html, "&lt;script&gt;alert(1)&lt;/script&gt;")
        XCTAssertEqual(HTMLSanitizer.sanitize("<plaintext><b>x</b>").html, "&lt;b&gt;x&lt;/b&gt;")
    }

    func testQuotedAttributeStaysOneAttribute() {
        let result = HTMLSanitizer.sanitize("<p title=\"&quot; onmouseover=&quot;alert(1)\">x</p>")
        XCTAssertEqual(result.html, "<p title=\"&quot; onmouseover=&quot;alert(1)\">x</p>")
    }

    func testDisallowedLinksKeepTheirTextOnly() {
        for href in ["javascript:alert(1)", "jav&#x09;ascript:alert(1)", "data:text/html,x", "/api/index/rebuild", "#top", "x"] {
            XCTAssertEqual(HTMLSanitizer.sanitize("<a href=\"\(href)\">click</a>").html, "<a>click</a>", href)
        }
    }

    func testDeepNestingIsBoundedAndDoesNotCrash() {
        let depth = 20_000
        let html = String(repeating: "<div>", count: depth) + "deep" + String(repeating: "</div>", count: depth)
        let result = HTMLSanitizer.sanitize(html)
        XCTAssertTrue(result.html.contains("deep"))
        XCTAssertEqual(result.html.components(separatedBy: "<div>").count - 1, HTMLSanitizer.maximumDepth)
        XCTAssertFalse(result.isEmpty)
    }
}
