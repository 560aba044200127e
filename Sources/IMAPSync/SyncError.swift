import Foundation

/// Why a sync could not go on: what happened, with which account, and what to do about it.
/// Never holds a password, a token or mail content.
public struct SyncError: Error, Sendable, CustomStringConvertible {
    public struct Kind: Hashable, Sendable {
        private let code: Int
        private init(_ code: Int) { self.code = code }
        /// The password or token could not be had (the command failed, the variable is unset).
        public static let credentials = Kind(1)
        /// The server refused the user name, password or token.
        public static let authentication = Kind(2)
        /// The server's certificate is not trusted.
        public static let certificate = Kind(3)
        /// The server could not be reached, or the connection dropped, after every retry.
        public static let connection = Kind(4)
        /// The server answered something the sync cannot work with.
        public static let server = Kind(5)
        /// Local storage failed (the database, the message copies).
        public static let storage = Kind(6)
    }

    public var kind: Kind
    public var message: String
    public var hint: String?

    public init(_ kind: Kind, _ message: String, hint: String? = nil) {
        self.kind = kind
        self.message = message
        self.hint = hint
    }

    public var description: String {
        hint.map { "\(message) (\($0))" } ?? message
    }
}
