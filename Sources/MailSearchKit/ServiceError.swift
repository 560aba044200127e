import Foundation

/// What went wrong in a service call, in words for the user, with what to do about it. Each
/// front end maps `kind` to its own terms (an HTTP status, a CLI exit code).
public struct ServiceError: Error, Sendable, CustomStringConvertible, Equatable {
    public enum Kind: String, Sendable, Codable {
        /// The request itself is wrong (a bad parameter, a query too long).
        case invalidRequest
        /// No such email, thread, attachment, account or folder.
        case notFound
        /// The data exists but cannot be produced now (a message's source file is gone).
        case unavailable
        /// Something is already running that this would collide with (a second import).
        case conflict
        /// Over a size limit (an attachment, a message larger than the server takes).
        case tooLarge
    }

    public var kind: Kind
    public var message: String
    public var hint: String?

    public init(_ kind: Kind, _ message: String, hint: String? = nil) {
        self.kind = kind
        self.message = message
        self.hint = hint
    }

    public var description: String { hint.map { "\(message) (\($0))" } ?? message }

    static func invalid(_ message: String, hint: String? = nil) -> ServiceError { ServiceError(.invalidRequest, message, hint: hint) }
    static func notFound(_ message: String, hint: String? = nil) -> ServiceError { ServiceError(.notFound, message, hint: hint) }
}
