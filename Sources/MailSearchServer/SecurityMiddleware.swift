import Foundation
import Hummingbird

/// The rules that keep a local server from becoming a way into the user's mail (ARCHITECTURE.md,
/// "Server"), in this order:
/// 1. `Host` must name the bound host, a loopback name (`localhost`, `127.0.0.1`, `[::1]`) or an
///    explicitly allowed name, with any port: else 421 (DNS rebinding: a page on evil.example whose
///    name now resolves to 127.0.0.1 still sends `Host: evil.example`).
/// 2. No CORS: an `OPTIONS` request (a preflight) gets 405 and never an `Access-Control-*` header,
///    so a browser never lets another origin read or send anything that needs one.
/// 3. With a token configured, every request needs `Authorization: Bearer <token>` (compared in
///    constant time): else 401.
/// 4. Cross-site requests: `Sec-Fetch-Site` other than `same-origin`/`none`, or an `Origin` other
///    than this server's own (`http://` + the Host used), is refused (403) for state-changing
///    methods, and for every method when no token vouches for the caller (a cross-site GET of a
///    search would write the recent searches). Without either header (curl, scripts) a request
///    passes: a browser always sends `Origin` on a cross-site POST, and off loopback the token
///    is required anyway.
/// 5. With an app lock set (`AppLock`), an API call needs a session the passcode opened
///    (`X-MailSearch-Session`): else 423 with `field: "passcode"`; `/api/health`, `GET /api/lock` and
///    `POST /api/lock/unlock` pass (and the OAuth callback, which its sign-in's `state` guards).
/// Rules 3, 4 and 5 do not apply to a GET of the search page (`/`, `/assets/NAME`): it holds no mail,
/// and the page asks for the token itself.
struct SecurityMiddleware<Context: RequestContext>: RouterMiddleware {
    let allowedHostNames: Set<String>
    let token: [UInt8]?
    var appLock: AppLock?

    static var secFetchSite: FieldName { FieldName("Sec-Fetch-Site")! }

    init(configuration: ServerConfiguration) {
        var names: Set<String> = ["localhost", "127.0.0.1", "::1", configuration.bareHost]
        for name in configuration.allowedHosts { names.insert(ServerConfiguration.bare(name)) }
        allowedHostNames = names
        token = configuration.token.map { Array($0.utf8) }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let hosts = try checkHost(request)
        if request.method == .options {
            throw APIError(.methodNotAllowed, "OPTIONS is not supported: this API does not do CORS",
                           hint: "call it from its own origin", headers: [.allow: "GET, POST, DELETE"])
        }
        // The page and its scripts hold no mail: a bookmark or a link from elsewhere may open
        // them, and the page asks for the token itself. Everything under /api/ is guarded.
        if request.method == .get || request.method == .head, Self.isPagePath(request.uri.path) {
            return try await next(request, context)
        }
        let hasValidToken = try checkToken(request)
        try checkOrigin(request, hosts: hosts, hasValidToken: hasValidToken)
        try checkAppLock(request)
        return try await next(request, context)
    }

    /// `/`, `/oauth/callback` or `/assets/NAME` exactly (an allowlist, so that no spelling of an /api/ path such as
    /// `//api/search` can pass for the page).
    static func isPagePath(_ path: String) -> Bool {
        // The provider's redirect back (a sign-in, carrying its unguessable state): a browser cannot add the token to it.
        if path == "/" || path == "/oauth/callback" { return true }
        guard path.hasPrefix("/assets/") else { return false }
        return WebAssets.isValidName(String(path.dropFirst("/assets/".count)))
    }

    // MARK: Host

    /// The `Host` values of the request (the authority, and any `Host` field left in the
    /// headers), when every one of them is allowed.
    func checkHost(_ request: Request) throws -> [String] {
        var values: [String] = []
        if let authority = request.head.authority { values.append(authority) }
        values.append(contentsOf: request.headers[values: FieldName("Host")!])
        guard !values.isEmpty else {
            throw APIError.badRequest("the request has no Host header")
        }
        for value in values {
            guard let name = Self.hostName(of: value), allowedHostNames.contains(name) else {
                throw APIError(.misdirectedRequest, "this server does not answer for the host in the Host header",
                               hint: "connect through http://localhost or http://127.0.0.1 (or the address it was started with)")
            }
        }
        return values
    }

    /// `name`, `name:port`, `[v6]` or `[v6]:port` → the name, lowercased, without brackets; nil
    /// when malformed.
    static func hostName(of value: String) -> String? {
        let value = value.lowercased()
        func validPort(_ port: Substring) -> Bool {
            !port.isEmpty && port.count <= 5 && port.allSatisfy { $0.isASCII && $0.isNumber } && (Int(port) ?? 0) <= 65_535
        }
        if value.hasPrefix("[") {
            guard let close = value.firstIndex(of: "]") else { return nil }
            let name = value[value.index(after: value.startIndex)..<close]
            let rest = value[value.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && validPort(rest.dropFirst())) else { return nil }
            return String(name)
        }
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        switch parts.count {
        case 1: return parts[0].isEmpty ? nil : String(parts[0])
        case 2: return !parts[0].isEmpty && validPort(parts[1]) ? String(parts[0]) : nil
        default: return nil   // an IPv6 literal must be in brackets
        }
    }

    // MARK: Token

    /// Whether the request carries the configured token; throws 401 when a token is configured
    /// and the request does not carry it. False when no token is configured.
    func checkToken(_ request: Request) throws -> Bool {
        guard let token else { return false }
        let values = request.headers[values: .authorization]
        if values.count == 1, let presented = Self.bearerToken(values[0]), Self.constantTimeEquals(Array(presented.utf8), token) {
            return true
        }
        throw APIError(.unauthorized, values.isEmpty ? "this server needs a token" : "the token is not the one this server was started with",
                       hint: "send the header Authorization: Bearer <token>", headers: [.wwwAuthenticate: "Bearer"])
    }

    static func bearerToken(_ header: String) -> Substring? {
        let trimmed = header.drop { $0 == " " }
        guard trimmed.count > 7, trimmed.prefix(7).lowercased() == "bearer " else { return nil }
        return trimmed.dropFirst(7).drop { $0 == " " }
    }

    /// Compares every byte whatever the first difference (XOR accumulation), lengths included, so
    /// the time taken tells nothing about how much of a guess was right.
    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt64(truncatingIfNeeded: a.count ^ b.count)
        let n = max(a.count, b.count)
        var i = 0
        while i < n {
            let x = i < a.count ? a[i] : 0
            let y = i < b.count ? b[i] : 0
            difference |= UInt64(x ^ y)
            i += 1
        }
        return difference == 0
    }

    // MARK: App lock

    func checkAppLock(_ request: Request) throws {
        guard let appLock, appLock.isEnabled else { return }
        let path = request.uri.path
        if path == "/oauth/callback" || path == "/api/health" || (path == "/api/lock" && request.method == .get)
            || (path == "/api/lock/unlock" && request.method == .post) { return }
        let session = request.headers[FieldName(AppLock.header)!]
        guard !appLock.allows(session: session) else { return }
        var error = APIError(HTTPResponse.Status(code: 423, reasonPhrase: "Locked"), "MailSearch is locked",
                             hint: "unlock it with your passcode")
        error.field = "passcode"
        throw error
    }

    // MARK: Cross-site requests

    func checkOrigin(_ request: Request, hosts: [String], hasValidToken: Bool) throws {
        if hasValidToken { return }
        let changesState = [.post, .put, .patch, .delete].contains(request.method)
        if let site = request.headers[Self.secFetchSite]?.lowercased(), site != "same-origin", site != "none" {
            throw APIError(.forbidden, changesState ? "cross-site requests may not change anything here" : "cross-site requests are refused",
                           hint: "use the MailSearch page this server serves, or send the token")
        }
        let origins = request.headers[values: .origin]
        guard !origins.isEmpty else { return }
        let own = Set(hosts.map { "http://" + $0.lowercased() })
        guard origins.allSatisfy({ own.contains($0.lowercased()) }) else {
            throw APIError(.forbidden, changesState ? "requests from another origin may not change anything here" : "requests from another origin are refused",
                           hint: "use the MailSearch page this server serves, or send the token")
        }
    }
}
