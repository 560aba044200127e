/// Why a framed response could not be read. The frame is known to be complete, so the stream
/// can go on; whether the connection can, depends on what the response was for.
public struct IMAPParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Offset in the response's bytes where reading stopped.
    public var offset: Int
    /// What was expected there; never the server's bytes.
    public var message: String

    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }

    public var description: String { "cannot parse IMAP response at byte \(offset): \(message)" }
}
