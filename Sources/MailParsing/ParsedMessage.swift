import Foundation

/// An address parsed from a header: display name (decoded) and the addr-spec.
public struct ParsedAddress: Hashable, Sendable {
    public var name: String?
    public var address: String
    public init(name: String?, address: String) {
        self.name = name
        self.address = address
    }
}

/// Where a message's date came from.
public enum DateSource: String, Sendable {
    /// The Date header.
    case header
    /// The newest Received header.
    case received
    /// The mbox `From ` separator line.
    case mboxFromLine
    /// Supplied by the caller (file modification time, IMAP INTERNALDATE).
    case fallback
}

/// Attachment metadata found while walking the MIME tree.
public struct ParsedAttachment: Hashable, Sendable {
    public var filename: String?
    /// Lower-cased `type/subtype`.
    public var mimeType: String
    /// Size of the decoded content in bytes.
    public var size: Int
    /// Content-ID without angle brackets.
    public var contentId: String?
    public var isInline: Bool
    public init(filename: String?, mimeType: String, size: Int, contentId: String?, isInline: Bool) {
        self.filename = filename
        self.mimeType = mimeType
        self.size = size
        self.contentId = contentId
        self.isInline = isInline
    }
}

/// Something wrong with the input that the parser worked around.
public struct MIMEDefect: Hashable, Sendable, CustomStringConvertible {
    /// A short stable code, e.g. "missing-boundary", "bad-base64", "unknown-charset", "truncated-header".
    public var code: String
    /// Human-readable detail; never message content beyond a header name or charset label.
    public var detail: String
    public init(code: String, detail: String) {
        self.code = code
        self.detail = detail
    }
    public var description: String { "\(code): \(detail)" }
}

/// A header field: name as written, value unfolded but not decoded.
public struct HeaderField: Hashable, Sendable {
    public var name: String
    public var value: String
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// The best-effort result of parsing one RFC 5322 message. Always produced, whatever the input.
public struct ParsedMessage: Sendable {
    /// Top-level header fields in order.
    public var headers: [HeaderField]
    /// Message-ID without angle brackets, or nil when absent/empty.
    public var messageId: String?
    /// In-Reply-To message ids without angle brackets (usually one): its `<...>` tokens, or a
    /// value that is nothing but bare ids; prose (`Message from a@b of 10 Jul 1997`) gives none.
    public var inReplyTo: [String]
    /// References message ids, oldest first, without angle brackets, read like `inReplyTo`.
    public var references: [String]
    public var from: [ParsedAddress]
    public var sender: ParsedAddress?
    public var to: [ParsedAddress]
    public var cc: [ParsedAddress]
    public var bcc: [ParsedAddress]
    public var replyTo: [ParsedAddress]
    /// Decoded subject (RFC 2047), whitespace-normalised; "" when absent.
    public var subject: String
    /// The message date and where it came from; nil when no source gave one.
    public var date: Date?
    public var dateSource: DateSource?
    /// The date of the newest Received header, when present.
    public var receivedDate: Date?
    /// Readable plain text: the text/plain parts, or the HTML part turned into text when there is no plain part.
    public var textBody: String
    /// The HTML body as decoded text (first text/html part; else the first text/plain part that is an
    /// HTML document, `HTMLSniffer`), or nil.
    public var htmlBody: String?
    public var attachments: [ParsedAttachment]
    public var hasAttachment: Bool
    /// About the first 100 characters of the readable body, whitespace collapsed.
    public var snippet: String
    public var defects: [MIMEDefect]
    /// Size of the raw message in bytes.
    public var size: Int

    public init(
        headers: [HeaderField] = [], messageId: String? = nil, inReplyTo: [String] = [],
        references: [String] = [], from: [ParsedAddress] = [], sender: ParsedAddress? = nil,
        to: [ParsedAddress] = [], cc: [ParsedAddress] = [], bcc: [ParsedAddress] = [],
        replyTo: [ParsedAddress] = [], subject: String = "", date: Date? = nil,
        dateSource: DateSource? = nil, receivedDate: Date? = nil, textBody: String = "",
        htmlBody: String? = nil, attachments: [ParsedAttachment] = [], hasAttachment: Bool = false,
        snippet: String = "", defects: [MIMEDefect] = [], size: Int = 0
    ) {
        self.headers = headers; self.messageId = messageId; self.inReplyTo = inReplyTo
        self.references = references; self.from = from; self.sender = sender; self.to = to
        self.cc = cc; self.bcc = bcc; self.replyTo = replyTo; self.subject = subject
        self.date = date; self.dateSource = dateSource; self.receivedDate = receivedDate
        self.textBody = textBody; self.htmlBody = htmlBody; self.attachments = attachments
        self.hasAttachment = hasAttachment; self.snippet = snippet; self.defects = defects
        self.size = size
    }

    /// The first value of a header (case-insensitive name), unfolded, undecoded.
    public func header(_ name: String) -> String? {
        headers.first { Self.sameName($0.name, name) }?.value
    }

    /// Every value of a header (case-insensitive name), in order.
    public func headers(named name: String) -> [String] {
        headers.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    /// `caseInsensitiveCompare(_:) == .orderedSame`, by bytes when both names are ASCII (they are,
    /// but for broken mail): Foundation's comparison was 1.5 % of an import.
    static func sameName(_ a: String, _ b: String) -> Bool {
        var ascii = true
        if a.utf8.count == b.utf8.count {
            for (p, q) in zip(a.utf8, b.utf8) {
                if p >= 0x80 || q >= 0x80 { ascii = false; break }
                if p == q { continue }
                let lower = p | 0x20
                guard lower == q | 0x20, (0x61...0x7A).contains(lower) else { return false }
            }
            if ascii { return true }
        } else if a.utf8.allSatisfy({ $0 < 0x80 }) && b.utf8.allSatisfy({ $0 < 0x80 }) {
            return false
        }
        return a.caseInsensitiveCompare(b) == .orderedSame
    }
}
