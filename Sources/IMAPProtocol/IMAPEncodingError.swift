/// Why a command could not be written. Never carries the offending value: it may be a password.
public struct IMAPEncodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Kind: Hashable, Sendable {
        private let code: Int
        private init(_ code: Int) { self.code = code }

        /// A NUL byte, which no IMAP string (quoted or literal) can carry.
        public static let nulByte = Kind(1)
        /// A value that must be an atom (a capability name, a flag, a section) holds other bytes.
        public static let invalidAtom = Kind(2)
        /// A value that is out of range or empty where it may not be (an empty UID set, a
        /// SASL field holding its separator).
        public static let invalidArgument = Kind(3)
    }

    public var kind: Kind
    /// The command and argument at fault: "LOGIN password".
    public var field: String
    public var message: String

    public var description: String { "cannot send IMAP \(field): \(message)" }
}
