/// A mailbox name as the server spells it on the wire, with its readable form.
///
/// Commands must send back exactly the bytes the server listed (a name that does not decode
/// cleanly must still be selectable), so the raw bytes are the identity; `name` is for people.
public struct IMAPMailboxName: Hashable, Sendable, CustomStringConvertible {
    /// The name on the wire: modified UTF-7, or UTF-8 from a server that accepts it (RFC 6855).
    public let raw: [UInt8]

    /// The name from its wire bytes.
    public init(raw: [UInt8]) {
        self.raw = raw
    }

    /// The name for a readable `name`, encoded in modified UTF-7.
    public init(_ name: String) {
        raw = ModifiedUTF7.encode(name)
    }

    public static let inbox = IMAPMailboxName(raw: Array("INBOX".utf8))

    /// The readable name: modified UTF-7 decoded; bytes that are not (8-bit names from servers
    /// that send UTF-8, or broken encodings) read as UTF-8 with replacement characters.
    public var name: String {
        ModifiedUTF7.decode(raw) ?? String(decoding: raw, as: UTF8.self)
    }

    /// INBOX is case-insensitive (RFC 3501 §5.1): `inbox` and `Inbox` name the same mailbox.
    public var isInbox: Bool {
        raw.count == 5 && String(decoding: raw, as: UTF8.self).uppercased() == "INBOX"
    }

    public var description: String { name }
}
