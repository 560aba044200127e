import Foundation
import SMTPProtocol

/// Why a message could not be built. Says which field is at fault; never holds the body.
public struct MessageBuildError: Error, Hashable, Sendable, CustomStringConvertible {
    public var field: String
    public var message: String

    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { "\(field): \(message)" }
}

/// A message ready for SMTP: its bytes (CRLF line ends), its Message-ID and its envelope.
public struct BuiltMessage: Sendable {
    public var bytes: [UInt8]
    /// Without angle brackets.
    public var messageID: String
    public var sender: SMTPAddress
    /// To, Cc and Bcc, each address once.
    public var recipients: [SMTPAddress]
    /// The bytes are not all 7-bit: send with BODY=8BITMIME.
    public var requires8BitMIME: Bool
    /// An address (in the envelope or a header) is not ASCII: send with SMTPUTF8.
    public var requiresSMTPUTF8: Bool
}

/// Outgoing mail as RFC 5322 + MIME bytes. Pure: no I/O; the randomness (boundaries and the
/// generated Message-ID) comes from `randomBytes`, so tests can fix it.
///
/// Structure: a text/plain part (UTF-8; 7bit when it is short-lined ASCII, else quoted-printable,
/// or 8bit when asked); with HTML, multipart/alternative of the text and the HTML; with
/// attachments, multipart/mixed of that and each attachment in base64. Headers: Date, From,
/// To, Cc, Reply-To, Subject (RFC 2047 when not ASCII), Message-ID, In-Reply-To, References,
/// MIME-Version. Bcc is never written.
public struct MessageBuilder: Sendable {
    public var randomBytes: @Sendable (Int) -> [UInt8]
    /// Written as User-Agent; nil writes none.
    public var userAgent: String?

    public init(userAgent: String? = "MailSearch",
                randomBytes: @escaping @Sendable (Int) -> [UInt8] = { count in
                    var generator = SystemRandomNumberGenerator()
                    return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
                }) {
        self.userAgent = userAgent
        self.randomBytes = randomBytes
    }

    /// `requireRecipients: false` builds a draft (the copy kept in the Drafts folder), which may have none yet.
    public func build(_ message: OutgoingMessage, requireRecipients: Bool = true) throws(MessageBuildError) -> BuiltMessage {
        let recipients = message.envelopeRecipients
        guard !recipients.isEmpty || !requireRecipients else {
            throw MessageBuildError(field: "To", message: "a message needs at least one recipient (To, Cc or Bcc)")
        }
        let messageID = try message.messageID.map { id throws(MessageBuildError) in try Self.checkedID(id, field: "Message-ID") }
            ?? generatedMessageID(domain: message.from.address.domain)
        let inReplyTo = try message.inReplyTo.map { id throws(MessageBuildError) in try Self.checkedID(id, field: "In-Reply-To") }
        var references: [String] = []
        for id in message.references { references.append(try Self.checkedID(id, field: "References")) }

        var head = ""
        head += HeaderEncoder.field("Date", Self.rfc5322Date(message.date, timeZone: message.timeZone))
        head += HeaderEncoder.field("From", HeaderEncoder.mailbox(message.from))
        if !message.to.isEmpty { head += HeaderEncoder.field("To", HeaderEncoder.addressList(message.to)) }
        if !message.cc.isEmpty { head += HeaderEncoder.field("Cc", HeaderEncoder.addressList(message.cc)) }
        if !message.replyTo.isEmpty { head += HeaderEncoder.field("Reply-To", HeaderEncoder.addressList(message.replyTo)) }
        head += HeaderEncoder.field("Subject", HeaderEncoder.unstructured(message.subject))
        head += HeaderEncoder.field("Message-ID", "<\(messageID)>")
        if let inReplyTo { head += HeaderEncoder.field("In-Reply-To", "<\(inReplyTo)>") }
        if !references.isEmpty { head += HeaderEncoder.field("References", references.map { "<\($0)>" }.joined(separator: " ")) }
        if let userAgent { head += HeaderEncoder.field("User-Agent", HeaderEncoder.unstructured(userAgent)) }
        head += "MIME-Version: 1.0\r\n"

        var body = textPart(message.textBody, subtype: "plain", encoding: message.textEncoding)
        if let html = message.htmlBody {
            body = multipart("alternative", [body, textPart(html, subtype: "html", encoding: message.textEncoding)])
        }
        if !message.attachments.isEmpty {
            var parts = [body]
            for attachment in message.attachments { parts.append(try attachmentPart(attachment)) }
            body = multipart("mixed", parts)
        }
        var bytes = Array(head.utf8) + body.headers + [13, 10] + body.content
        if !bytes.suffix(2).elementsEqual([13, 10]) { bytes += [13, 10] }
        let addresses = [message.from] + message.to + message.cc + message.bcc + message.replyTo
        return BuiltMessage(
            bytes: bytes, messageID: messageID, sender: message.from.address, recipients: recipients,
            requires8BitMIME: SMTPDataEncoder.requires8Bit(bytes),
            requiresSMTPUTF8: addresses.contains { $0.address.requiresSMTPUTF8 })
    }

    // MARK: Parts

    /// A MIME entity: its header lines (each ending in CRLF) and its content, exactly (a text that
    /// ends with a line break ends with CRLF; the CRLF before a boundary belongs to the boundary).
    private struct Part {
        var headers: [UInt8]
        var content: [UInt8]
    }

    private func textPart(_ text: String, subtype: String, encoding: TextTransferEncoding) -> Part {
        let lines = QuotedPrintable.splitLines(Array(text.utf8))
        let ascii = text.utf8.allSatisfy { $0 < 0x80 }
        let longest = lines.map(\.count).max() ?? 0
        let transfer: String
        let content: [UInt8]
        if ascii && longest <= 78 && !lines.contains(where: { $0.first == UInt8(ascii: "F") || $0.last == UInt8(ascii: " ") }) {
            transfer = "7bit"
            content = Array(lines.joined(separator: [13, 10]))
        } else if encoding == .eightBit && longest <= 998 {
            transfer = "8bit"
            content = Array(lines.joined(separator: [13, 10]))
        } else {
            transfer = "quoted-printable"
            content = QuotedPrintable.encode(Array(text.utf8))
        }
        let headers = "Content-Type: text/\(subtype); charset=utf-8\r\nContent-Transfer-Encoding: \(transfer)\r\n"
        return Part(headers: Array(headers.utf8), content: content)
    }

    private func attachmentPart(_ attachment: OutgoingAttachment) throws(MessageBuildError) -> Part {
        let type = attachment.mimeType.lowercased()
        let pieces = type.split(separator: "/", omittingEmptySubsequences: false)
        let token: (Substring) -> Bool = { piece in
            !piece.isEmpty && piece.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "!#$&^_.+-".contains($0)) }
        }
        guard pieces.count == 2, token(pieces[0]), token(pieces[1]) else {
            throw MessageBuildError(field: "attachment \(attachment.filename)", message: "\"\(attachment.mimeType.prefix(60))\" is not a MIME type (type/subtype)")
        }
        // The name only: no directories, no control characters.
        var name = HeaderEncoder.sanitized(attachment.filename)
        if let slash = name.lastIndex(where: { $0 == "/" || $0 == "\\" }) { name = String(name[name.index(after: slash)...]) }
        if name.trimming(" ").isEmpty { name = "attachment" }
        let headers = HeaderEncoder.fold("Content-Type: \(type); \(HeaderEncoder.parameter("name", name))") + "\r\n"
            + HeaderEncoder.fold("Content-Disposition: attachment; \(HeaderEncoder.parameter("filename", name))") + "\r\n"
            + "Content-Transfer-Encoding: base64\r\n"
        let encoded = Array(Base64.encode(attachment.content).utf8)
        var content: [UInt8] = []
        content.reserveCapacity(encoded.count + encoded.count / 38 + 2)
        var index = 0
        while index < encoded.count {
            if index > 0 { content += [13, 10] }
            content += encoded[index..<min(index + 76, encoded.count)]
            index += 76
        }
        return Part(headers: Array(headers.utf8), content: content)
    }

    private func multipart(_ subtype: String, _ parts: [Part]) -> Part {
        // Random, named after the subtype (an inner part's boundary never equals the outer one), and
        // counted up in the unlikely case that the content holds it.
        let random = hex(randomBytes(12))
        var attempt = 0
        var boundary = "=_MailSearch_\(subtype)_\(random)"
        while parts.contains(where: { Self.contains($0.content, Array(boundary.utf8)) }) {
            attempt += 1
            boundary = "=_MailSearch_\(subtype)_\(random)_\(attempt)"
        }
        var content: [UInt8] = []
        for part in parts {
            content += Array("--\(boundary)\r\n".utf8) + part.headers + [13, 10] + part.content + [13, 10]
        }
        content += Array("--\(boundary)--\r\n".utf8)
        return Part(headers: Array((HeaderEncoder.fold("Content-Type: multipart/\(subtype); boundary=\"\(boundary)\"") + "\r\n").utf8),
                    content: content)
    }

    // MARK: Identity and dates

    /// A new Message-ID in the sender's domain (without angle brackets), fixed when a draft is
    /// made so that every attempt to send it carries the same one.
    public func newMessageID(domain: String) -> String {
        generatedMessageID(domain: domain)
    }

    private func generatedMessageID(domain: String) -> String {
        // A domain that is ASCII and not an address literal, else a placeholder (RFC 5322's id-right).
        let usable = domain.utf8.allSatisfy { $0 < 0x80 } && !domain.hasPrefix("[") ? domain : "mailsearch.invalid"
        return "\(hex(randomBytes(16)))@\(usable)"
    }

    private func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }

    /// A Message-ID without angle brackets: printable ASCII, no spaces or brackets, one `@`.
    static func checkedID(_ id: String, field: String) throws(MessageBuildError) -> String {
        var value = id.trimming(" ")
        if value.hasPrefix("<") && value.hasSuffix(">") && value.count >= 2 { value = String(value.dropFirst().dropLast()) }
        guard !value.isEmpty, value.utf8.count <= 250,
              value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: ">") }),
              value.contains("@")
        else {
            throw MessageBuildError(field: field, message: "\"\(HeaderEncoder.sanitized(String(id.prefix(80))))\" is not a message id (id@domain, printable ASCII)")
        }
        return value
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<start + needle.count].elementsEqual(needle) { return true }
        }
        return false
    }

    /// `Wed, 25 Nov 2026 12:12:16 +0100` (RFC 5322 §3.3) in `timeZone`.
    public static func rfc5322Date(_ date: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: date)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let offset = timeZone.secondsFromGMT(for: date) / 60
        let sign = offset < 0 ? "-" : "+"
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(days[(c.weekday ?? 1) - 1]), \(c.day ?? 1) \(months[(c.month ?? 1) - 1]) \(c.year ?? 1970) "
            + "\(two(c.hour ?? 0)):\(two(c.minute ?? 0)):\(two(c.second ?? 0)) \(sign)\(two(abs(offset) / 60))\(two(abs(offset) % 60))"
    }
}
