/// A value of IMAP's generic data syntax: what the parser keeps for things it does not model
/// (an unknown FETCH item, ENVELOPE, BODYSTRUCTURE, an ID field list), so that nothing the
/// server sends is an error merely for being unexpected.
public indirect enum IMAPValue: Hashable, Sendable {
    /// An atom or number, including flags (`\Seen`) and section-bearing names (`BODY[1.2]`).
    case atom(String)
    /// A quoted string or a literal, unescaped.
    case string([UInt8])
    case `nil`
    /// A parenthesised list.
    case list([IMAPValue])

    /// The text of an atom or string (strings read as UTF-8), else nil.
    public var text: String? {
        switch self {
        case .atom(let s): return s
        case .string(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .nil, .list: return nil
        }
    }
}
