import Foundation
import SMTPProtocol

/// A mailbox in a header: an optional display name and a checked address.
public struct MailboxAddress: Hashable, Sendable {
    public var name: String?
    public var address: SMTPAddress

    public init(name: String? = nil, address: SMTPAddress) {
        self.name = name
        self.address = address
    }

    /// `Name <local@domain>`, `<local@domain>` or `local@domain`, read leniently (the address is checked).
    /// CR, LF, NUL or any other control character anywhere in `text` is refused: typed input never
    /// becomes a second line, in the envelope or in a header.
    public init(parsing text: String) throws(SMTPEncodingError) {
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || (0x80...0x9F).contains($0.value) }) {
            let kind = text.contains("\r") ? "a carriage return" : text.contains("\n") ? "a line feed"
                : text.contains("\0") ? "a NUL byte" : "a control character"
            throw SMTPEncodingError(kind: .lineBreakOrControl, message: "the address \(SMTPAddress.shown(text)) contains \(kind)")
        }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasSuffix(">"), let open = trimmed.lastIndex(of: "<") {
            var name = trimmed[..<open].trimmingCharacters(in: .whitespaces)
            if name.count >= 2, name.hasPrefix("\""), name.hasSuffix("\"") {
                name = String(name.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
            }
            self.init(name: name.isEmpty ? nil : name, address: try SMTPAddress(String(trimmed[open...])))
        } else {
            self.init(name: nil, address: try SMTPAddress(trimmed))
        }
    }
}

/// A file attached to an outgoing message.
public struct OutgoingAttachment: Hashable, Sendable {
    /// The name the recipient sees (any Unicode; paths are cut to their last component).
    public var filename: String
    /// `type/subtype`; `application/octet-stream` when unknown.
    public var mimeType: String
    public var content: [UInt8]

    public init(filename: String, mimeType: String = "application/octet-stream", content: [UInt8]) {
        self.filename = filename
        self.mimeType = mimeType
        self.content = content
    }
}

/// How the text parts are written.
public enum TextTransferEncoding: String, Sendable, Hashable, Codable {
    /// Quoted-printable for anything that is not short-lined ASCII: 7-bit clean, any server.
    case quotedPrintable
    /// UTF-8 bytes as they are (lines over 998 bytes still go quoted-printable): for servers with 8BITMIME.
    case eightBit
}

/// What to send: the headers' content, the text (and optional HTML) and the attachments.
/// `MessageBuilder` turns it into bytes.
public struct OutgoingMessage: Sendable {
    public var from: MailboxAddress
    public var to: [MailboxAddress]
    public var cc: [MailboxAddress]
    /// Envelope recipients only: never written into the headers.
    public var bcc: [MailboxAddress]
    public var replyTo: [MailboxAddress]
    public var subject: String
    public var date: Date
    /// The time zone the Date header is written in. Default: the system's.
    public var timeZone: TimeZone
    /// Without angle brackets; nil: one is generated in the sender's domain.
    public var messageID: String?
    /// The Message-ID being answered (without angle brackets).
    public var inReplyTo: String?
    /// The thread's Message-IDs, oldest first (without angle brackets).
    public var references: [String]
    public var textBody: String
    /// An HTML alternative of the text (multipart/alternative).
    public var htmlBody: String?
    public var attachments: [OutgoingAttachment]
    public var textEncoding: TextTransferEncoding

    public init(
        from: MailboxAddress, to: [MailboxAddress] = [], cc: [MailboxAddress] = [], bcc: [MailboxAddress] = [],
        replyTo: [MailboxAddress] = [], subject: String = "", date: Date = Date(), timeZone: TimeZone = .current,
        messageID: String? = nil, inReplyTo: String? = nil, references: [String] = [], textBody: String = "",
        htmlBody: String? = nil, attachments: [OutgoingAttachment] = [], textEncoding: TextTransferEncoding = .quotedPrintable
    ) {
        self.from = from
        self.to = to
        self.cc = cc
        self.bcc = bcc
        self.replyTo = replyTo
        self.subject = subject
        self.date = date
        self.timeZone = timeZone
        self.messageID = messageID
        self.inReplyTo = inReplyTo
        self.references = references
        self.textBody = textBody
        self.htmlBody = htmlBody
        self.attachments = attachments
        self.textEncoding = textEncoding
    }

    /// In-Reply-To and References for an answer to a message with `messageID` and `references`
    /// (RFC 5322 §3.6.4): the parent's References (or, without them, its In-Reply-To when it names
    /// one message) followed by the parent's own Message-ID. Long chains keep the first id and the
    /// last ones, so the header stays bounded.
    public static func replyHeaders(parentMessageID: String, parentReferences: [String], parentInReplyTo: [String] = [],
                                    limit: Int = 20) -> (inReplyTo: String, references: [String]) {
        var chain = parentReferences.isEmpty && parentInReplyTo.count == 1 ? parentInReplyTo : parentReferences
        chain.removeAll { $0 == parentMessageID }
        chain.append(parentMessageID)
        if chain.count > limit, limit >= 2 {
            chain = [chain[0]] + chain.suffix(limit - 1)
        }
        return (parentMessageID, chain)
    }

    /// Every envelope recipient (To, Cc, Bcc), each address once, in that order.
    public var envelopeRecipients: [SMTPAddress] {
        var seen = Set<String>()
        return (to + cc + bcc).map(\.address).filter { seen.insert($0.address.lowercased()).inserted }
    }
}
