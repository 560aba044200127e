import Foundation
import Hummingbird
import Logging
import MailSearchKit

/// The outermost middleware: every error becomes `{"error", "hint"}` with its status, every
/// response gets the headers that keep a browser from sniffing, framing or caching it, and each
/// request is logged as method, path (ids only: never the query string, which holds the search
/// text), status and time. Email content never reaches a log line.
struct ResponseMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            response = Self.errorResponse(error, request: request, logger: context.logger)
        }
        Self.addCommonHeaders(&response, path: request.uri.path)
        let elapsed = ContinuousClock.now - start
        let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        context.logger.info("request", metadata: [
            "method": "\(request.method.rawValue)",
            "path": "\(Self.loggablePath(request.uri.path))",
            "status": "\(response.status.code)",
            "ms": "\(String(format: "%.1f", ms))",
        ])
        return response
    }

    static func errorResponse(_ error: any Error, request: Request, logger: Logger) -> Response {
        switch error {
        case let error as APIError:
            return error.response()
        case let error as ServiceError:
            return APIError(error).response()
        case let error as HTTPError where error.status == .notFound:
            return APIError(.notFound, "no such endpoint: \(request.method.rawValue) \(loggablePath(request.uri.path))",
                            hint: "the search page is at /; the API is under /api/: search, suggestions, recent, mailboxes, threads/{id}, emails/{id}, emails/{id}/html, emails/{id}/raw, attachments/{id}, status, index/rebuild, import, accounts, storage, export, caches/clear").response()
        case let error as HTTPError:
            return APIError(error.status, error.body ?? error.status.reasonPhrase, headers: error.headers).response()
        default:
            // The detail goes to the log (errors of the store and the index carry no mail: GRDB
            // hides statement arguments), the client gets a generic message.
            logger.error("request failed", metadata: [
                "path": "\(loggablePath(request.uri.path))",
                "error": "\(String(describing: error).prefix(500))",
            ])
            return APIError(.internalServerError, "the server failed to answer this request",
                            hint: "the server's log has the details").response()
        }
    }

    static func addCommonHeaders(_ response: inout Response, path: String) {
        // No CORS, ever: whatever a handler set, no Access-Control-* header leaves.
        let cors = response.headers.filter { $0.name.canonicalName.hasPrefix("access-control-") }.map(\.name)
        for name in cors { response.headers[name] = nil }
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[FieldName("X-Frame-Options")!] = "DENY"
        response.headers[FieldName("Referrer-Policy")!] = "no-referrer"
        if response.headers[.contentSecurityPolicy] == nil {
            response.headers[.contentSecurityPolicy] = "default-src 'none'; frame-ancestors 'none'"
        }
        if path.hasPrefix("/api/") || path == "/api" {
            response.headers[.cacheControl] = "no-store"
        }
    }

    /// At most 200 characters of the path, non-printable bytes escaped.
    static func loggablePath(_ path: String) -> String {
        String(path.prefix(200).unicodeScalars.map { (0x20...0x7E).contains($0.value) ? Character($0) : "?" })
    }
}
