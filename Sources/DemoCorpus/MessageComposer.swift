/// Turns a `MessageDraft` into RFC 5322 / MIME bytes (LF line endings).
enum MessageComposer {
    /// The message bytes and its plain-text body (kept for quoting in replies).
    static func compose(_ draft: MessageDraft, seed: UInt64) -> (raw: [UInt8], text: [UInt8]) {
        let text = renderText(draft.blocks)
        var out: [UInt8] = []
        out.reserveCapacity(text.count * (draft.withHTML ? 3 : 1) + 1_024 + (draft.attachment?.data.count ?? 0) * 2)

        out.append("MIME-Version: 1.0\nDate: ")
        out.appendRFC5322Date(draft.unixSeconds, offsetMinutes: draft.offsetMinutes)
        out.append("\nMessage-ID: <")
        out.append(contentsOf: draft.messageId)
        out.append(">\n")
        if let parent = draft.inReplyTo {
            out.append("In-Reply-To: <")
            out.append(contentsOf: parent)
            out.append(">\nReferences:")
            for (i, reference) in draft.references.enumerated() {
                out.append(i == 0 ? " <" : "\n <")
                out.append(contentsOf: reference)
                out.append(UInt8(ascii: ">"))
            }
            out.append(10)
        }
        out.append("Subject: ")
        if draft.subject.isASCII {
            out.append(contentsOf: draft.subject)
        } else {
            // Leading ASCII words ("Re: Trip to") stay readable; the rest becomes encoded words.
            let firstNonASCII = draft.subject.firstIndex { $0 >= 0x80 } ?? 0
            let plainEnd = draft.subject[..<firstNonASCII].lastIndex(of: 32).map { $0 + 1 } ?? 0
            out.append(contentsOf: draft.subject[..<plainEnd])
            out.appendEncodedWords(Array(draft.subject[plainEnd...]), qEncoding: false, firstLineUsed: 9 + plainEnd)
        }
        out.append("\nFrom: ")
        out.append(contentsOf: draft.from.headerMailbox)
        out.append("\nTo: ")
        if let list = draft.toList {
            out.append(contentsOf: list.name.isASCII ? list.name : Array("list".utf8))
            out.append(" <")
            out.append(contentsOf: list.address)
            out.append(UInt8(ascii: ">"))
        } else {
            appendMailboxes(draft.to, to: &out, column: 4)
        }
        out.append(10)
        if !draft.cc.isEmpty {
            out.append("Cc: ")
            appendMailboxes(draft.cc, to: &out, column: 4)
            out.append(10)
        }
        if let list = draft.toList {
            out.append("List-Id: ")
            out.append(contentsOf: list.name)
            out.append(" <")
            out.append(contentsOf: list.listId)
            out.append(">\nList-Post: <mailto:")
            out.append(contentsOf: list.address)
            out.append(">\nPrecedence: list\n")
        }
        if let unsubscribe = draft.listUnsubscribe {
            out.append("List-Unsubscribe: <")
            out.append(contentsOf: unsubscribe)
            out.append(">\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\n")
        }

        let hash = DemoRandom.hash(seed, UInt64(draft.index))
        if let attachment = draft.attachment {
            var boundary: [UInt8] = Array("=_mixed_".utf8)
            boundary.appendHex(hash, digits: 16)
            out.append("Content-Type: multipart/mixed; boundary=\"")
            out.append(contentsOf: boundary)
            out.append("\"\n\nThis is a multi-part message in MIME format.\n\n--")
            out.append(contentsOf: boundary)
            out.append(10)
            appendBody(draft, text: text, hash: hash, to: &out)
            out.append("\n--")
            out.append(contentsOf: boundary)
            out.append(10)
            appendAttachment(attachment, rfc2231: draft.rfc2231Name, to: &out)
            out.append("\n--")
            out.append(contentsOf: boundary)
            out.append("--\n")
        } else {
            appendBody(draft, text: text, hash: hash, to: &out)
        }
        return (out, text)
    }

    private static func appendMailboxes(_ people: [Person], to out: inout [UInt8], column: Int) {
        var column = column
        for (i, person) in people.enumerated() {
            if i > 0 {
                if column + person.headerMailbox.count > 76 {
                    out.append(",\n ")
                    column = 1
                } else {
                    out.append(", ")
                    column += 2
                }
            }
            out.append(contentsOf: person.headerMailbox)
            column += person.headerMailbox.count
        }
    }

    /// The body: a text part, or text and HTML alternatives. Starts with its Content-Type header.
    private static func appendBody(_ draft: MessageDraft, text: [UInt8], hash: UInt64, to out: inout [UInt8]) {
        if draft.withHTML {
            var boundary: [UInt8] = Array("=_alt_".utf8)
            boundary.appendHex(hash, digits: 16)
            out.append("Content-Type: multipart/alternative; boundary=\"")
            out.append(contentsOf: boundary)
            out.append("\"\n\n--")
            out.append(contentsOf: boundary)
            out.append(10)
            appendTextPart(text, quotedPrintable: draft.quotedPrintableText, to: &out)
            out.append("\n--")
            out.append(contentsOf: boundary)
            out.append("\nContent-Type: text/html; charset=\"UTF-8\"\nContent-Transfer-Encoding: quoted-printable\n\n")
            out.appendQuotedPrintable(renderHTML(draft.blocks, title: draft.subject))
            out.append("\n--")
            out.append(contentsOf: boundary)
            out.append("--\n")
        } else {
            appendTextPart(text, quotedPrintable: draft.quotedPrintableText, to: &out)
        }
    }

    private static func appendTextPart(_ text: [UInt8], quotedPrintable: Bool, to out: inout [UInt8]) {
        if text.isASCII {
            out.append("Content-Type: text/plain; charset=\"us-ascii\"\nContent-Transfer-Encoding: 7bit\n\n")
            out.append(contentsOf: text)
        } else if quotedPrintable {
            out.append("Content-Type: text/plain; charset=\"UTF-8\"\nContent-Transfer-Encoding: quoted-printable\n\n")
            out.appendQuotedPrintable(text)
        } else {
            out.append("Content-Type: text/plain; charset=\"UTF-8\"\nContent-Transfer-Encoding: 8bit\n\n")
            out.append(contentsOf: text)
        }
    }

    private static func appendAttachment(_ attachment: AttachmentFactory.Attachment, rfc2231: Bool,
                                         to out: inout [UInt8]) {
        out.append("Content-Type: ")
        out.append(attachment.contentType)
        out.append("; name=\"")
        if attachment.fileName.isASCII {
            out.append(contentsOf: attachment.fileName)
        } else {
            out.appendEncodedWords(attachment.fileName, qEncoding: true, firstLineUsed: 40)
        }
        out.append("\"\nContent-Disposition: attachment;\n")
        if attachment.fileName.isASCII && !rfc2231 {
            out.append(" filename=\"")
            out.append(contentsOf: attachment.fileName)
            out.append("\"\n")
        } else {
            var encoded: [UInt8] = []
            encoded.appendRFC2231Value(attachment.fileName)
            if encoded.count <= 40 {
                out.append(" filename*=")
                out.append(contentsOf: encoded)
                out.append(10)
            } else {
                // RFC 2231 continuations, never splitting a %XX escape.
                var start = 0
                var section = 0
                while start < encoded.count {
                    var end = min(start + 30, encoded.count)
                    if end < encoded.count {
                        if encoded[end - 1] == UInt8(ascii: "%") { end -= 1 }
                        else if end >= 2 && encoded[end - 2] == UInt8(ascii: "%") { end -= 2 }
                    }
                    out.append(" filename*")
                    out.appendDecimal(section)
                    out.append("*=")
                    out.append(contentsOf: encoded[start..<end])
                    out.append(end < encoded.count ? ";\n" : "\n")
                    start = end
                    section += 1
                }
            }
        }
        out.append("Content-Transfer-Encoding: base64\n\n")
        out.appendBase64Lines(attachment.data)
    }

    // MARK: Rendering

    static func renderText(_ blocks: [BodyBlock]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(1_024)
        for (i, block) in blocks.enumerated() {
            if i > 0 { out.append(10) }
            switch block {
            case .prose(let text):
                out.appendWrapped(text)
            case .lines(let text):
                out.append(contentsOf: text)
                out.append(10)
            case .quote(let attribution, let text):
                out.appendWrapped(attribution)
                appendQuoted(text, to: &out)
            case .link(let label, let url):
                out.append(contentsOf: label)
                out.append(": ")
                out.append(contentsOf: url)
                out.append(10)
            case .heading(let text):
                out.append(contentsOf: text)
                out.append(10)
            case .footer(let text, let unsubscribe):
                out.appendWrapped(text)
                out.append("Unsubscribe: ")
                out.append(contentsOf: unsubscribe)
                out.append(10)
            }
        }
        return out
    }

    /// Quotes `text` with `> `, dropping what was already quoted twice and stopping after 40 lines.
    private static func appendQuoted(_ text: [UInt8], to out: inout [UInt8]) {
        var lines = 0
        var start = 0
        while start < text.count && lines < 40 {
            var end = start
            while end < text.count && text[end] != 10 { end += 1 }
            let line = text[start..<end]
            start = end + 1
            let depth = line.prefix { $0 == UInt8(ascii: ">") || $0 == 32 }.filter { $0 == UInt8(ascii: ">") }.count
            if depth >= 2 { continue }
            if line.isEmpty {
                out.append(UInt8(ascii: ">"))
            } else if line.first == UInt8(ascii: ">") {
                out.append(UInt8(ascii: ">"))
                out.append(contentsOf: line)
            } else {
                out.append("> ")
                out.append(contentsOf: line)
            }
            out.append(10)
            lines += 1
        }
    }

    static func renderHTML(_ blocks: [BodyBlock], title: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(2_048)
        out.append("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>")
        out.appendHTMLEscaped(title)
        out.append("</title>\n</head>\n<body style=\"font-family: Arial, Helvetica, sans-serif; font-size: 14px;\">\n")
        for block in blocks {
            switch block {
            case .prose(let text):
                out.append("<p>")
                out.appendHTMLEscaped(text)
                out.append("</p>\n")
            case .lines(let text):
                out.append("<p>")
                appendHTMLLines(text, to: &out)
                out.append("</p>\n")
            case .quote(let attribution, let text):
                out.append("<div class=\"quote\">")
                out.appendHTMLEscaped(attribution)
                out.append("<br>\n<blockquote style=\"margin:0 0 0 .8ex;border-left:1px solid #ccc;padding-left:1ex\">")
                appendHTMLLines(text, to: &out)
                out.append("</blockquote>\n</div>\n")
            case .link(let label, let url):
                out.append("<p><a href=\"")
                out.appendHTMLEscaped(url)
                out.append("?utm_source=newsletter&amp;utm_medium=email\" style=\"color:#1a73e8\">")
                out.appendHTMLEscaped(label)
                out.append("</a>&nbsp;&rarr;</p>\n")
            case .heading(let text):
                out.append("<h1 style=\"font-size: 22px;\">")
                out.appendHTMLEscaped(text)
                out.append("</h1>\n")
            case .footer(let text, let unsubscribe):
                out.append("<hr>\n<p style=\"font-size: 11px; color: #888888;\">")
                out.appendHTMLEscaped(text)
                out.append("<br>\n&copy; All rights reserved &middot; <a href=\"")
                out.appendHTMLEscaped(unsubscribe)
                out.append("\">Unsubscribe</a></p>\n")
            }
        }
        out.append("</body>\n</html>\n")
        return out
    }

    private static func appendHTMLLines(_ text: [UInt8], to out: inout [UInt8]) {
        var start = 0
        var first = true
        while start <= text.count {
            var end = start
            while end < text.count && text[end] != 10 { end += 1 }
            if !first { out.append("<br>\n") }
            first = false
            out.appendHTMLEscaped(text[start..<end])
            start = end + 1
        }
    }
}
