/// A command ready for the wire, cut where the client must wait for the server.
///
/// Send `parts[0]`; before each later part, wait for a continuation request (`+ …`). If the
/// server answers with the command's tagged response instead (a NO or BAD refusing a
/// synchronising literal or an AUTHENTICATE step), the command is over: send nothing more of it.
/// Most commands have one part; a synchronising literal or SASL without SASL-IR adds one.
public struct IMAPEncodedCommand: Hashable, Sendable, CustomStringConvertible {
    public var tag: String
    /// The command's name (`LOGIN`, `UID FETCH`), for logs: the parts may hold a password.
    public var name: String
    public var parts: [[UInt8]]

    /// `A7 UID FETCH`: safe to log, unlike the bytes.
    public var description: String { "\(tag) \(name)" }

    /// All parts joined: what a transcript shows once the continuations came.
    public var bytes: [UInt8] { parts.flatMap { $0 } }
}
