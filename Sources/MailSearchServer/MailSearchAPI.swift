import Foundation
import Hummingbird
import Logging
import MailModel
import MailSearchKit
import SearchEngine

/// Builds the `mailsearch serve` application: the JSON API over `service`, behind the security
/// rules of `SecurityMiddleware`. Throws `ServerConfigurationError` for a configuration it
/// refuses (a non-loopback host without a token).
public func buildApplication(service: MailSearchService, configuration: ServerConfiguration, logger: Logger,
                             onServerRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in })
    throws -> some ApplicationProtocol {
    try configuration.validate()
    let router = buildRouter(service: service, configuration: configuration)
    return Application(
        router: router,
        configuration: ApplicationConfiguration(address: .hostname(configuration.bareHost, port: configuration.port),
                                                serverName: nil),
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
        logger: logger)
}

/// The router alone (middleware and routes), for tests that need no server.
public func buildRouter(service: MailSearchService, configuration: ServerConfiguration) -> Router<BasicRequestContext> {
    let router = Router(context: BasicRequestContext.self)
    router.add(middleware: ResponseMiddleware())
    // The app lock (Settings): its passcode's verifier in the data directory.
    let appLock = service.configuration.readOnly ? nil : AppLock(dataDirectory: service.configuration.dataDirectory.url)
    var security = SecurityMiddleware<BasicRequestContext>(configuration: configuration)
    security.appLock = appLock
    router.add(middleware: security)
    MailSearchAPI(service: service, markReadOnOpen: configuration.markReadOnOpen, appLock: appLock).register(on: router)
    WebAssets(directory: configuration.webDirectory).register(on: router)
    return router
}

/// The endpoints, all under `/api/`. The service runs its blocking work (SQLite reads, file reads,
/// a rebuild) on its own pool, never on Swift's cooperative threads.
struct MailSearchAPI: Sendable {
    let service: MailSearchService
    /// Opening a conversation (`GET /api/threads/{id}`) marks it read.
    var markReadOnOpen = true
    /// The app lock's passcode and sessions (nil read-only).
    var appLock: AppLock?
    let rebuilding = LockedBox(false)  // whether a rebuild started through the API is running

    /// The body of `POST /api/recent`.
    struct RecentBody: Decodable {
        var query: String
    }

    /// The body of `POST /api/import`.
    struct ImportBody: Decodable {
        var path: String
        var account: String
        var folder: String?
    }

    func register(on router: Router<BasicRequestContext>) {
        let api = router.group("api")
        // Liveness: answered by the server alone, touching no database (a monitor's check).
        api.get("health") { _, _ in JSON.response(["ok": true]) }
        api.get("search") { request, _ in try await search(request) }
        api.get("suggestions") { _, _ in JSON.response(try await service.search.suggestions()) }
        api.post("recent") { request, _ in
            let body = try await Self.jsonBody(RecentBody.self, request, example: #"{"query": "budget report"}"#)
            try await service.search.recordSearch(body.query)
            return JSON.response(try await service.search.suggestions())
        }
        api.get("mailboxes") { _, _ in JSON.response(try await service.search.mailboxes()) }
        api.delete("recent") { _, _ in
            try await service.search.clearRecentSearches()
            return JSON.response(try await service.search.suggestions())
        }
        api.get("threads/:id") { request, context in
            let id = try Self.id(context)
            // `?read=0` opens without marking read (a preview, a script).
            let markRead = markReadOnOpen && request.uri.queryParameters.get("read") != "0"
            let thread = try await service.reader.thread(id: id)
            // The answer shows the conversation as it was opened (its unread messages open on
            // the page); the mailbox has it read from now on.
            if markRead, !service.configuration.readOnly, thread.thread.unreadCount > 0 {
                _ = try await service.mailbox.perform(.markRead, threadId: id)
            }
            return JSON.response(thread)
        }
        api.get("threads/:id/summary") { _, context in
            let id = try Self.id(context)
            return JSON.response(try await service.insights.threadSummary(threadId: id))
        }
        api.get("emails/:id/replies") { _, context in
            let id = try Self.id(context)
            return JSON.response(try await service.insights.replySuggestions(emailId: id))
        }
        api.get("emails/:id") { request, context in
            let id = try Self.id(context)
            let html = try Self.flag(request, "html")
            return JSON.response(try await service.reader.email(id: id, includeHTML: html))
        }
        api.get("emails/:id/html") { request, context in
            let id = try Self.id(context)
            let images = try Self.flag(request, "images")
            return JSON.response(try await service.reader.safeHTML(emailId: id, allowRemoteImages: images))
        }
        api.get("emails/:id/cid/:cid") { _, context in
            let id = try Self.id(context)
            let cid = (context.parameters.get("cid") ?? "").removingPercentEncoding ?? ""
            let image = try await service.reader.inlineImage(emailId: id, contentId: cid)
            return Response(status: .ok, headers: [
                .contentType: image.info.mimeType.lowercased(),
                .contentSecurityPolicy: "sandbox; default-src 'none'",
            ], body: ResponseBody(byteBuffer: ByteBuffer(bytes: image.data)))
        }
        api.get("emails/:id/raw") { _, context in
            let id = try Self.id(context)
            let data = try await service.reader.rawMessage(emailId: id)
            return Response(status: .ok, headers: [
                .contentType: "message/rfc822",
                .contentDisposition: "attachment; filename=\"email-\(id).eml\"",
                .contentSecurityPolicy: "sandbox; default-src 'none'",
            ], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        }
        api.get("attachments/:id") { _, context in
            let id = try Self.id(context)
            let download = try await service.reader.attachment(id: id)
            var headers: HTTPFields = [
                .contentType: Download.contentType(download.info.mimeType),
                .contentDisposition: Download.contentDisposition(filename: download.info.filename, fallback: "attachment-\(id)"),
                .contentSecurityPolicy: "sandbox; default-src 'none'",
            ]
            // 001 §5.4.2: the warning is in the metadata (EmailDetail.attachments); repeated here
            // for a client that only sees the download.
            if let warning = download.info.warning { headers[FieldName("X-MailSearch-Warning")!] = warning }
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: download.data)))
        }
        api.get("status") { _, _ in JSON.response(try await service.status()) }
        api.post("index/rebuild") { _, _ in
            // Synchronous: 200 with the status once the index is whole again (a second request
            // meanwhile gets 409). Searches keep answering while it runs.
            guard rebuilding.withLockedValue({ running in defer { running = true }; return !running }) else {
                throw APIError(.conflict, "a rebuild is already running", hint: "wait for it to finish")
            }
            defer { rebuilding.set(false) }
            try await service.rebuild()
            return JSON.response(try await service.status())
        }
        api.post("import") { request, _ in
            let body = try await Self.importBody(request)
            try await service.mailbox.startImport(path: body.path, account: body.account, folder: body.folder)
            return JSON.response(try await service.status(), status: .accepted)
        }
        registerCategories(on: api)
        registerActions(on: api)
        registerCompose(on: api)
        registerAccounts(on: api)
        registerAppLock(on: api)
        registerData(on: api)
        router.get("oauth/callback") { request, _ in try await oauthCallback(request) }
        // Anything else under /api/ falls through to the router's 404, which ResponseMiddleware
        // words as JSON.
    }

    // MARK: Search

    func search(_ request: Request) async throws -> Response {
        let query = try QueryString(request.uri.query)
        guard let text = query["q"] else {
            throw APIError.badRequest("the search text is missing", hint: "pass it as ?q=…")
        }
        var searchRequest = SearchRequest(text: text, scope: query["scope"], cursor: query["cursor"])
        if let limit = query["limit"] {
            guard let value = Int(limit) else { throw APIError.badRequest("limit must be a whole number (got \"\(limit.prefix(20))\")") }
            searchRequest.limit = value
        }
        if let mode = query["mode"] {
            guard let value = SearchMode(rawValue: mode.lowercased()) else {
                throw APIError.badRequest("mode must be hybrid, keyword or semantic (got \"\(mode.prefix(20))\")")
            }
            searchRequest.mode = value
        }
        if let record = query["record"] {
            // Search as you type sends record=0 for each keystroke and records the query it settles on.
            guard let value = ["1": true, "true": true, "0": false, "false": false][record.lowercased()] else {
                throw APIError.badRequest("record must be 0 or 1 (got \"\(record.prefix(20))\")")
            }
            searchRequest.recordHistory = value
        }
        if let floor = query["minSimilarity"] {
            guard let value = Double(floor) else { throw APIError.badRequest("minSimilarity must be a number (got \"\(floor.prefix(20))\")") }
            searchRequest.minimumSimilarity = value
        }
        return JSON.response(try await service.search.search(searchRequest))
    }

    // MARK: Parameters

    static func id(_ context: BasicRequestContext) throws -> Int64 {
        let text = context.parameters.get("id") ?? ""
        guard let id = Int64(text) else {
            throw APIError.badRequest("the id must be a whole number (got \"\(text.prefix(20))\")")
        }
        return id
    }

    static func flag(_ request: Request, _ name: String) throws -> Bool {
        guard let value = try QueryString(request.uri.query)[name] else { return false }
        switch value.lowercased() {
        case "", "1", "true", "yes": return true
        case "0", "false", "no": return false
        default: throw APIError.badRequest("\(name) must be true or false")
        }
    }

    static func importBody(_ request: Request) async throws -> ImportBody {
        let body = try await jsonBody(ImportBody.self, request, example: #"{"path": "…", "account": "…", "folder": null}"#)
        guard !body.path.isEmpty, !body.account.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw APIError.badRequest("path and account must not be empty")
        }
        return body
    }

    /// A JSON body of at most `limit` bytes (default 64 KB). JSON only: an HTML form cannot send one across sites
    /// without a preflight (which this server refuses).
    static func jsonBody<T: Decodable>(_ type: T.Type, _ request: Request, example: String, limit: Int = 64 * 1024) async throws -> T {
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        guard contentType.hasPrefix("application/json") else {
            throw APIError(.unsupportedMediaType, "the body must be JSON", hint: "send Content-Type: application/json and \(example)")
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limit)
        } catch {
            throw APIError(.contentTooLarge, "the body is larger than \(limit / 1024) KB")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch {
            throw APIError.badRequest("the body must be \(example)")
        }
    }
}

/// A query string as a form sends it: `+` is a space, `%XX` escapes; the first of repeated keys.
struct QueryString {
    private var values: [String: String] = [:]

    init(_ query: String?) throws {
        guard let query, !query.isEmpty else { return }
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = Self.decode(parts[0]), let value = Self.decode(parts.count > 1 ? parts[1] : "") else {
                throw APIError.badRequest("the query string is not validly percent-encoded")
            }
            if values[key] == nil { values[key] = value }
        }
    }

    subscript(key: String) -> String? { values[key] }

    static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
