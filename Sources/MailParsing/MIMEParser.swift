import Foundation

/// Parses one RFC 5322 / MIME message into a `ParsedMessage`.
///
/// Never throws, never traps, and works in time and memory proportional to the message size:
/// multipart nesting is capped at 32 levels and 5,000 parts (a defect is recorded when a cap is hit).
/// See `MIMEWalker` for the body and attachment rules. The message date comes from, in order:
/// the Date header, the newest Received header, the mbox `From ` line, the caller's fallback.
public enum MIMEParser {
    /// Parses `bytes`. `fallbackDate` is used when neither the Date header nor a Received header
    /// gives a date (pass the mbox `From ` line date or a file time); `dateSource` is then `.fallback`.
    public static func parse(_ bytes: [UInt8], fallbackDate: Date? = nil) -> ParsedMessage {
        parse(bytes, mboxFromLineDate: nil, fallbackDate: fallbackDate)
    }

    /// Parses `bytes`, with the date of the mbox `From ` line the message came from (`dateSource`
    /// `.mboxFromLine`) tried before `fallbackDate`. A `From ` line at the start of `bytes` is skipped
    /// and its date used when `mboxFromLineDate` is nil.
    public static func parse(_ bytes: [UInt8], mboxFromLineDate: Date?, fallbackDate: Date?) -> ParsedMessage {
        bytes.withUnsafeBufferPointer { b in
            parseBuffer(b, mboxFromLineDate: mboxFromLineDate, fallbackDate: fallbackDate)
        }
    }

    /// Every attachment of a message with its decoded content, in the order `parse` lists them
    /// (an attachment download reads the message again; the store keeps metadata only).
    public static func attachmentContents(_ bytes: [UInt8]) -> [(attachment: ParsedAttachment, content: [UInt8])] {
        let walker = MIMEWalker()
        walker.capturesContent = true
        let parsed = bytes.withUnsafeBufferPointer { parseBuffer($0, mboxFromLineDate: nil, fallbackDate: nil, walker: walker) }
        return Array(zip(parsed.attachments, walker.attachmentContents))
    }

    private static func parseBuffer(_ b: UnsafeBufferPointer<UInt8>, mboxFromLineDate: Date?, fallbackDate: Date?,
                                    walker: MIMEWalker = MIMEWalker()) -> ParsedMessage {
        var msg = ParsedMessage()
        msg.size = b.count
        if b.isEmpty {
            walker.defect("empty-message", "no bytes")
        }
        let hb = HeaderBlock(b, start: 0, end: b.count, defects: &walker.defects)
        if hb.fields.isEmpty && !b.isEmpty { walker.defect("no-headers", "message has no header fields") }

        var headers: [HeaderField] = []
        headers.reserveCapacity(hb.fields.count)
        var dateValue: [UInt8]? = nil
        var newestReceived: Date? = nil
        var subjectRaw: String? = nil
        var nameBuf: [UInt8] = []
        for f in hb.fields {
            nameBuf.removeAll(keepingCapacity: true)
            for k in f.nameStart..<f.nameEnd { nameBuf.append(b[k]) }
            let name = String(decoding: nameBuf, as: UTF8.self)
            let value = CharsetDecoder.isASCII(f.value)
                ? String(decoding: f.value, as: UTF8.self)
                : CharsetDecoder.decodeUTF8OrFallback(f.value).text
            headers.append(HeaderField(name: name, value: value))
            for k in nameBuf.indices where nameBuf[k] >= 0x41 && nameBuf[k] <= 0x5A { nameBuf[k] |= 0x20 }
            switch String(decoding: nameBuf, as: UTF8.self) {
            case "date":
                if dateValue == nil { dateValue = f.value }
            case "received":
                if let semi = f.value.lastIndex(of: UInt8(ascii: ";")) {
                    let d = f.value[(semi + 1)...].withUnsafeBufferPointer { MailDateParser.parse(bytes: $0) }
                    if let d, newestReceived.map({ d > $0 }) ?? true { newestReceived = d }
                }
            case "subject":
                if subjectRaw == nil { subjectRaw = value }
            case "from":
                if msg.from.isEmpty { msg.from = AddressParser.parseList(value, decoder: walker.decoder) }
            case "sender":
                if msg.sender == nil { msg.sender = AddressParser.parseList(value, decoder: walker.decoder).first }
            case "to":
                msg.to += AddressParser.parseList(value, decoder: walker.decoder)
            case "cc":
                msg.cc += AddressParser.parseList(value, decoder: walker.decoder)
            case "bcc":
                msg.bcc += AddressParser.parseList(value, decoder: walker.decoder)
            case "reply-to":
                if msg.replyTo.isEmpty { msg.replyTo = AddressParser.parseList(value, decoder: walker.decoder) }
            case "message-id":
                if msg.messageId == nil { msg.messageId = MessageIDParser.ids(f.value, bare: .words).first }
            case "in-reply-to":
                if msg.inReplyTo.isEmpty { msg.inReplyTo = MessageIDParser.ids(f.value, bare: .idList) }
            case "references":
                if msg.references.isEmpty { msg.references = MessageIDParser.ids(f.value, bare: .idList) }
            default:
                break
            }
        }
        msg.headers = headers
        if let s = subjectRaw {
            msg.subject = TextNormalizer.collapseWhitespace(EncodedWordDecoder.decode(s, using: walker.decoder))
        }

        // Date, with its fallbacks.
        msg.receivedDate = newestReceived
        var headerDate: Date? = nil
        if let dv = dateValue {
            headerDate = dv.withUnsafeBufferPointer { MailDateParser.parse(bytes: $0) }
            if headerDate == nil { walker.defect("unparseable-date", "Date header") }
        }
        var fromLineDate = mboxFromLineDate
        if fromLineDate == nil, let r = hb.fromLine {
            fromLineDate = MboxReader.fromLineDate(UnsafeBufferPointer(rebasing: b[r]))
        }
        if let d = headerDate {
            msg.date = d; msg.dateSource = .header
        } else if let d = newestReceived {
            msg.date = d; msg.dateSource = .received
        } else if let d = fromLineDate {
            msg.date = d; msg.dateSource = .mboxFromLine
        } else if let d = fallbackDate {
            msg.date = d; msg.dateSource = .fallback
        }

        // Body.
        let segments = walker.walk(b, headers: hb, body: hb.bodyStart..<b.count, depth: 0, defaultType: "text/plain")
        var plain: [String] = []
        var html: [String] = []
        for s in segments {
            switch s {
            case .plain(let t): plain.append(t)
            case .html(let h): html.append(h)
            }
        }
        if !plain.isEmpty {
            msg.textBody = plain.count == 1 ? plain[0] : plain.joined(separator: "\n")
        } else if !html.isEmpty {
            msg.textBody = html.map { HTMLTextExtractor.plainText(from: $0) }.joined(separator: "\n")
        }
        msg.htmlBody = walker.htmlBody ?? walker.sniffedHTMLBody
        msg.attachments = walker.attachments
        msg.hasAttachment = walker.attachments.contains { !($0.isInline && $0.contentId != nil) }
        msg.snippet = TextNormalizer.snippet(msg.textBody)
        msg.defects = walker.defects
        return msg
    }
}
