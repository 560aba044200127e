import Foundation
import Hummingbird

/// The search page's files (`Web/`, flat): embedded in the binary by SwiftPM (`.embedInCode`), or
/// read from a folder on disk with `serve --web-dir` (for working on them without a rebuild).
/// `/` is `index.html`; everything else is `/assets/NAME`.
struct WebAssets: Sendable {
    /// Every file of `Web/`. SwiftPM names each embedded file after its file name (`app.js` →
    /// `app_js`); a test checks that this list and the folder agree.
    static let embedded: [String: [UInt8]] = [
        "accounts.js": PackageResources.accounts_js,
        "api.js": PackageResources.api_js,
        "app.js": PackageResources.app_js,
        "chips.js": PackageResources.chips_js,
        "compose.js": PackageResources.compose_js,
        "dom.js": PackageResources.dom_js,
        "favicon.svg": PackageResources.favicon_svg,
        "folderpicker.js": PackageResources.folderpicker_js,
        "folders.js": PackageResources.folders_js,
        "index.html": PackageResources.index_html,
        "mailtext.js": PackageResources.mailtext_js,
        "notify.js": PackageResources.notify_js,
        "querytext.js": PackageResources.querytext_js,
        "results.js": PackageResources.results_js,
        "search.js": PackageResources.search_js,
        "settings.js": PackageResources.settings_js,
        "style.css": PackageResources.style_css,
        "sync.js": PackageResources.sync_js,
        "thread.js": PackageResources.thread_js,
        "zero.js": PackageResources.zero_js,
    ]

    /// The built-in files' ETags, hashed once (the folder's files, `--web-dir`, per request: they change).
    static let embeddedETags: [String: String] = embedded.mapValues(etag)

    /// The page's Content-Security-Policy. Scripts and style sheets only from this server, no
    /// inline script; inline style and remote images are allowed only because the mail frame
    /// (a sandboxed `srcdoc` iframe, which inherits this policy) needs them: email HTML is full of
    /// `style=""`, and "Load remote images" must be able to load them. The frame's own policy
    /// (`<meta>` in its `srcdoc`) forbids every remote load until the user asks for images.
    static let pageCSP = [
        "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: http: https:", "font-src 'self'", "connect-src 'self'", "frame-src 'self'",
        "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
    ].joined(separator: "; ")

    /// Serve from this folder instead of the embedded copies; nil for the embedded ones.
    let directory: URL?

    init(directory: String?) {
        self.directory = directory.map { URL(fileURLWithPath: $0, isDirectory: true) }
    }

    /// The media type of an asset by its extension; nil for a kind this server does not serve.
    static func contentType(of name: String) -> String? {
        switch (name as NSString).pathExtension.lowercased() {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "ico": "image/x-icon"
        default: nil
        }
    }

    /// A plain file name: letters, digits, `.`, `-`, `_`, not starting with a dot, a known kind.
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 100 && !name.hasPrefix(".") && contentType(of: name) != nil
            && name.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0)) }
    }

    func bytes(of name: String) -> [UInt8]? {
        guard Self.isValidName(name) else { return nil }
        guard let directory else { return Self.embedded[name] }
        return (try? Data(contentsOf: directory.appendingPathComponent(name))).map { [UInt8]($0) }
    }

    /// The file as a response: `no-cache` with a strong ETag, so a browser revalidates (304)
    /// instead of refetching, and never runs an old script after an upgrade.
    func response(for name: String, request: Request) throws -> Response {
        guard let bytes = bytes(of: name), let type = Self.contentType(of: name) else {
            throw APIError(.notFound, "no such file: /assets/\(name.prefix(100))")
        }
        let etag = directory == nil ? Self.embeddedETags[name] ?? Self.etag(bytes) : Self.etag(bytes)
        var headers: HTTPFields = [.contentType: type, .cacheControl: "no-cache", .eTag: etag]
        if type.hasPrefix("text/html") { headers[.contentSecurityPolicy] = Self.pageCSP }
        if request.headers[.ifNoneMatch] == etag {
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// A strong ETag: the content's hash, quoted.
    static func etag(_ bytes: [UInt8]) -> String { "\"\(String(fnv1a(bytes), radix: 16))\"" }

    /// 64-bit FNV-1a: a content hash for the ETag (not a security measure).
    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    func register(on router: Router<BasicRequestContext>) {
        router.get("/") { request, _ in try response(for: "index.html", request: request) }
        router.get("assets/:name") { request, context in
            try response(for: context.parameters.get("name") ?? "", request: request)
        }
    }
}
