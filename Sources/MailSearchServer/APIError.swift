import Foundation
import Hummingbird
import MailSearchKit

/// An error the API answers with: an HTTP status and `{"error": …, "hint": …}`.
public struct APIError: Error, Sendable, CustomStringConvertible {
    public var status: HTTPResponse.Status
    public var message: String
    public var hint: String?
    /// Extra response headers (`WWW-Authenticate`, `Allow`).
    public var headers: HTTPFields
    /// The form field the error is about (the accounts form), sent as `field` when set.
    public var field: String?

    public init(_ status: HTTPResponse.Status, _ message: String, hint: String? = nil, headers: HTTPFields = [:]) {
        self.status = status
        self.message = message
        self.hint = hint
        self.headers = headers
    }

    public var description: String { "\(status.code) \(message)" }

    /// The service's typed errors in HTTP terms.
    init(_ error: ServiceError) {
        let status: HTTPResponse.Status
        switch error.kind {
        case .invalidRequest: status = .badRequest
        case .notFound: status = .notFound
        case .unavailable: status = .serviceUnavailable
        case .conflict: status = .conflict
        case .tooLarge: status = .contentTooLarge
        }
        self.init(status, error.message, hint: error.hint)
    }

    static func badRequest(_ message: String, hint: String? = nil, field: String? = nil) -> APIError {
        var error = APIError(.badRequest, message, hint: hint)
        error.field = field
        return error
    }

    /// The body: `hint` is always present (null when there is none), so clients see one shape.
    struct Body: Encodable {
        var error: String
        var hint: String?
        var field: String?

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(error, forKey: .error)
            try c.encode(hint, forKey: .hint)
            try c.encodeIfPresent(field, forKey: .field)
        }

        enum CodingKeys: String, CodingKey { case error, hint, field }
    }

    func response() -> Response {
        var response = JSON.response(Body(error: message, hint: hint, field: field), status: status)
        for field in headers { response.headers.append(field) }
        return response
    }
}
