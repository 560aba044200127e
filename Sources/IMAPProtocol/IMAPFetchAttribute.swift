/// An item to FETCH.
public enum IMAPFetchAttribute: Hashable, Sendable {
    case uid
    case flags
    case internalDate
    case rfc822Size
    /// CONDSTORE.
    case modSeq
    case envelope
    case bodyStructure
    /// `BODY.PEEK[section]<origin.count>` (`peek`: without setting `\Seen`) or `BODY[…]`.
    /// `section` is IMAP's section text (`""`, `HEADER`, `1.2.TEXT`,
    /// `HEADER.FIELDS (DATE FROM)`); `partial` fetches `count` bytes from `origin`.
    case body(section: String = "", peek: Bool = true, partial: IMAPPartialRange? = nil)
    case gmailMessageID
    case gmailThreadID
    case gmailLabels

    /// The whole message without setting `\Seen`: `BODY.PEEK[]`.
    public static let message = IMAPFetchAttribute.body()
}

/// `<origin.count>` of a partial fetch.
public struct IMAPPartialRange: Hashable, Sendable {
    public var origin: UInt32
    public var count: UInt32

    public init(origin: UInt32, count: UInt32) {
        self.origin = origin
        self.count = count
    }
}
