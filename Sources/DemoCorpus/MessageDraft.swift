/// One part of a message body, rendered both as plain text and as HTML.
enum BodyBlock {
    /// A paragraph, word-wrapped in text, `<p>` in HTML.
    case prose([UInt8])
    /// Lines kept as they are (closings, signatures, details, forwarded messages).
    case lines([UInt8])
    /// A quoted earlier message under its attribution line.
    case quote(attribution: [UInt8], text: [UInt8])
    case link(label: [UInt8], url: [UInt8])
    case heading([UInt8])
    /// Small print with an unsubscribe link.
    case footer([UInt8], unsubscribe: [UInt8])
}

/// Everything a message is made of, before it becomes bytes.
struct MessageDraft {
    var index: Int
    var messageId: [UInt8]
    var unixSeconds: Int64
    var offsetMinutes: Int
    var from: Person
    var to: [Person] = []
    var toList: MailingList?
    var cc: [Person] = []
    var subject: [UInt8]
    var inReplyTo: [UInt8]?
    var references: [[UInt8]] = []
    var listUnsubscribe: [UInt8]?
    var blocks: [BodyBlock] = []
    var withHTML = false
    var attachment: AttachmentFactory.Attachment?
    /// Whether a non-ASCII text part uses quoted-printable rather than 8bit.
    var quotedPrintableText = false
    /// Whether the attachment's name is given as an RFC 2231 parameter even when it is ASCII.
    var rfc2231Name = false
}
