/// Why the framer refused the server's bytes. After this error the stream cannot be cut into
/// responses again (where the refused literal ends is unknown): the connection must be closed.
public struct IMAPFramingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Which limit was crossed. A struct, not an enum, so that adding a kind breaks no `switch`.
    public struct Kind: Hashable, Sendable {
        private let code: Int
        private init(_ code: Int) { self.code = code }

        /// A literal announced more bytes than `Limits.maxLiteralSize` (or more than fit in a number).
        public static let literalTooLarge = Kind(1)
        /// A line (outside literals) grew past `Limits.maxLineLength` without a CRLF.
        public static let lineTooLong = Kind(2)
        /// One response's lines and literals together grew past `Limits.maxResponseSize`.
        public static let responseTooLarge = Kind(3)
    }

    public var kind: Kind
    /// Offset in the stream (bytes since the connection started) of the response that failed.
    public var streamOffset: Int
    /// What happened, with the limit; never the server's bytes.
    public var message: String

    public var description: String {
        "IMAP response at byte \(streamOffset) of the stream refused: \(message). The connection must be closed."
    }
}
