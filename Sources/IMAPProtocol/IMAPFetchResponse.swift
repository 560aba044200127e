import Foundation

/// One `* n FETCH (…)` response: a message's sequence number and the items the server sent.
public struct IMAPFetchResponse: Hashable, Sendable {
    public var sequenceNumber: UInt32
    public var items: [IMAPFetchItem]

    public init(sequenceNumber: UInt32, items: [IMAPFetchItem]) {
        self.sequenceNumber = sequenceNumber
        self.items = items
    }

    public var uid: UInt32? {
        items.lazy.compactMap { if case .uid(let v) = $0 { v } else { nil } }.first
    }

    public var flags: [IMAPFlag]? {
        items.lazy.compactMap { if case .flags(let v) = $0 { v } else { nil } }.first
    }

    public var internalDate: Date? {
        items.lazy.compactMap { if case .internalDate(let v) = $0 { v } else { nil } }.first
    }

    public var size: UInt64? {
        items.lazy.compactMap { if case .rfc822Size(let v) = $0 { v } else { nil } }.first
    }

    public var modSeq: UInt64? {
        items.lazy.compactMap { if case .modSeq(let v) = $0 { v } else { nil } }.first
    }

    /// The bytes of `BODY[section]` (`""` for the whole message, as BODY.PEEK[] and RFC822
    /// return it); nil when the item is absent or NIL.
    public func body(section: String = "") -> [UInt8]? {
        for case .body(let s, _, let data) in items where s.uppercased() == section.uppercased() {
            return data
        }
        return nil
    }

    public var gmailMessageID: UInt64? {
        items.lazy.compactMap { if case .gmailMessageID(let v) = $0 { v } else { nil } }.first
    }

    public var gmailThreadID: UInt64? {
        items.lazy.compactMap { if case .gmailThreadID(let v) = $0 { v } else { nil } }.first
    }

    public var gmailLabels: [String]? {
        items.lazy.compactMap { if case .gmailLabels(let v) = $0 { v } else { nil } }.first
    }
}

/// One item of a FETCH response.
public enum IMAPFetchItem: Hashable, Sendable {
    case uid(UInt32)
    case flags([IMAPFlag])
    case internalDate(Date)
    case rfc822Size(UInt64)
    /// CONDSTORE's per-message mod-sequence: `MODSEQ (12345)`.
    case modSeq(UInt64)
    /// `BODY[section]<origin>` (also `BINARY[…]`; `RFC822`, `RFC822.HEADER` and `RFC822.TEXT`
    /// arrive as sections `""`, `HEADER` and `TEXT`). `section` is the text between the brackets
    /// as the server wrote it; `origin` is the offset of a partial fetch; `data` is nil for NIL.
    case body(section: String, origin: UInt32?, data: [UInt8]?)
    case gmailMessageID(UInt64)
    case gmailThreadID(UInt64)
    /// Gmail's labels, modified UTF-7 decoded; system labels keep their backslash (`\Important`).
    case gmailLabels([String])
    /// Any other item (ENVELOPE, BODYSTRUCTURE, a vendor's), or a known one whose value had an
    /// unexpected shape (an INTERNALDATE that is not a date): its name, upper-cased, and value.
    case other(name: String, value: IMAPValue)
}
