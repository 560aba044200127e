/// The server's bytes broke SMTP's reply grammar (RFC 5321 §4.2) or the framer's limits. Never
/// holds more than a short excerpt of what was received.
public struct SMTPProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Kind: Hashable, Sendable {
        private let code: Int
        private init(_ code: Int) { self.code = code }

        /// A line does not start with a three-digit code and a space or hyphen.
        public static let malformedLine = Kind(1)
        /// A multi-line reply whose lines carry different codes.
        public static let inconsistentCode = Kind(2)
        /// A line, or a reply's line count, above the framer's limits.
        public static let tooLong = Kind(3)
    }

    public var kind: Kind
    public var message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

/// Why a command or an address could not be written. Never carries a password or token.
public struct SMTPEncodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Kind: Hashable, Sendable {
        private let code: Int
        private init(_ code: Int) { self.code = code }

        /// CR, LF or NUL (or another control character) where a command must stay one line.
        public static let lineBreakOrControl = Kind(1)
        /// Not a mailbox `local@domain`: empty parts, spaces, brackets, no `@`.
        public static let invalidAddress = Kind(2)
        /// An argument SMTP cannot carry (too long, empty where required).
        public static let invalidArgument = Kind(3)
    }

    public var kind: Kind
    public var message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
