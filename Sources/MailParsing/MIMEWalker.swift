/// Walks one message's MIME tree, collecting readable text, the first HTML part, attachments and defects.
///
/// Rules (documented for the importer):
/// - A leaf is an attachment when its Content-Disposition is `attachment`, or it has a filename
///   (`filename` or `name` parameter) and is not explicitly `inline`, or it is not `text/*`.
/// - `text/html` leaves that are not attachments feed `htmlBody` (the first one) and, when a
///   `multipart/alternative` has no plain alternative or the message has no plain part at all, the text.
///   A `text/plain` leaf that is an HTML document (`HTMLSniffer`) is text like any plain part, but
///   its text is that of the HTML, and it is the HTML shown when no leaf is `text/html` (with a defect).
/// - In `multipart/alternative` the first alternative holding plain text wins; otherwise the last one.
/// - `message/rfc822` (and `message/global`) parts shown inline are parsed and their readable text is
///   appended to the body; with Content-Disposition `attachment` they are attachments instead.
/// - Preambles and epilogues are not text.
final class MIMEWalker {
    enum Segment {
        case plain(String)
        case html(String)
    }

    static let maxDepth = 32
    static let maxParts = 5_000

    let decoder = CharsetDecoder()
    var defects: [MIMEDefect] = []
    var attachments: [ParsedAttachment] = []
    /// With `capturesContent`, each attachment's decoded bytes, in the order of `attachments`.
    var attachmentContents: [[UInt8]] = []
    var capturesContent = false
    var htmlBody: String? = nil
    /// The first `text/plain` leaf that is an HTML document: the HTML shown when no part is `text/html`.
    var sniffedHTMLBody: String? = nil
    var partCount = 0
    private var reportedPartCap = false
    private var reportedDepthCap = false

    func defect(_ code: String, _ detail: String) {
        if defects.count < 200 { defects.append(MIMEDefect(code: code, detail: detail)) }
    }

    private static func bytes(_ b: UnsafeBufferPointer<UInt8>, _ r: Range<Int>) -> [UInt8] {
        r.isEmpty ? [] : Array(UnsafeBufferPointer(rebasing: b[r]))
    }

    /// Walks an entity whose headers are `headers` and whose body is `body` in `b`.
    func walk(_ b: UnsafeBufferPointer<UInt8>, headers: HeaderBlock, body: Range<Int>, depth: Int, defaultType: String) -> [Segment] {
        partCount += 1
        if partCount > MIMEWalker.maxParts {
            if !reportedPartCap {
                reportedPartCap = true
                defect("too-many-parts", "more than \(MIMEWalker.maxParts) MIME parts; the rest is ignored")
            }
            return []
        }
        var type = defaultType
        var ct = MIMEHeaderValue(bytes: [], decoder: decoder)
        if let h = headers.first("content-type", in: b) {
            ct = MIMEHeaderValue(bytes: h.value, decoder: decoder)
            if ct.malformed { defect("malformed-parameter", "Content-Type") }
            let slash = ct.value.firstIndex(of: "/")
            if let slash, slash != ct.value.startIndex, ct.value.index(after: slash) != ct.value.endIndex {
                type = ct.value
            } else {
                defect("invalid-content-type", "Content-Type value is not type/subtype")
            }
        }
        var disposition: MIMEHeaderValue? = nil
        if let h = headers.first("content-disposition", in: b) {
            disposition = MIMEHeaderValue(bytes: h.value, decoder: decoder)
        }

        if type.hasPrefix("multipart/") {
            if depth >= MIMEWalker.maxDepth {
                if !reportedDepthCap {
                    reportedDepthCap = true
                    defect("nesting-too-deep", "multipart nesting deeper than \(MIMEWalker.maxDepth); inner parts ignored")
                }
                return []
            }
            guard let boundary = ct.parameters["boundary"], !boundary.isEmpty else {
                defect("missing-boundary-parameter", type)
                return leaf(b, headers: headers, body: body, type: "text/plain", ct: ct, disposition: disposition)
            }
            guard let parts = splitMultipart(b, body: body, boundary: Array(boundary.utf8)) else {
                defect("boundary-not-found", type)
                return leaf(b, headers: headers, body: body, type: "text/plain", ct: ct, disposition: disposition)
            }
            let childDefault = type == "multipart/digest" ? "message/rfc822" : "text/plain"
            if type == "multipart/alternative" {
                var chosen: [Segment]? = nil
                var lastHTML: [Segment]? = nil
                for part in parts {
                    let hb = HeaderBlock(b, start: part.lowerBound, end: part.upperBound, defects: &defects)
                    let segs = walk(b, headers: hb, body: hb.bodyStart..<part.upperBound, depth: depth + 1, defaultType: childDefault)
                    if chosen == nil && segs.contains(where: { if case .plain = $0 { return true } else { return false } }) {
                        chosen = segs.filter { if case .plain = $0 { return true } else { return false } }
                    } else if segs.contains(where: { if case .html = $0 { return true } else { return false } }) {
                        lastHTML = segs
                    }
                }
                if let chosen { return chosen }
                if let lastHTML {
                    return lastHTML.map { seg in
                        if case .html(let h) = seg { return .plain(HTMLTextExtractor.plainText(from: h)) }
                        return seg
                    }
                }
                return []
            }
            var segments: [Segment] = []
            for part in parts {
                let hb = HeaderBlock(b, start: part.lowerBound, end: part.upperBound, defects: &defects)
                segments.append(contentsOf: walk(b, headers: hb, body: hb.bodyStart..<part.upperBound, depth: depth + 1, defaultType: childDefault))
            }
            return segments
        }

        if type == "message/rfc822" || type == "message/global" {
            let dispValue = disposition?.value ?? ""
            let cte = transferEncoding(headers, b)
            var content = MIMEWalker.bytes(b, body)
            if cte == "base64" || cte == "quoted-printable" { content = decodeTransfer(content, encoding: cte) }
            if dispValue == "attachment" || depth >= MIMEWalker.maxDepth {
                let filename = disposition?.parameters["filename"] ?? ct.parameters["name"]
                let cid = headers.first("content-id", in: b).map { MessageIDParser.ids($0.value, bare: .words).first ?? "" }
                attachments.append(ParsedAttachment(filename: filename, mimeType: type, size: content.count,
                                                    contentId: cid.flatMap { $0.isEmpty ? nil : $0 }, isInline: false))
                if capturesContent { attachmentContents.append(content) }
                return []
            }
            return content.withUnsafeBufferPointer { inner -> [Segment] in
                let hb = HeaderBlock(inner, start: 0, end: inner.count, defects: &defects)
                return walk(inner, headers: hb, body: hb.bodyStart..<inner.count, depth: depth + 1, defaultType: "text/plain")
            }
        }
        return leaf(b, headers: headers, body: body, type: type, ct: ct, disposition: disposition)
    }

    private func transferEncoding(_ headers: HeaderBlock, _ b: UnsafeBufferPointer<UInt8>) -> String {
        guard let h = headers.first("content-transfer-encoding", in: b) else { return "" }
        var out: [UInt8] = []
        for c in h.value {
            if c == UInt8(ascii: "(") || c == UInt8(ascii: ";") { break }
            if c > 0x20 && c != UInt8(ascii: "\"") && c != UInt8(ascii: "'") { out.append(c >= 0x41 && c <= 0x5A ? c | 0x20 : c) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private func decodeTransfer(_ raw: [UInt8], encoding: String) -> [UInt8] {
        switch encoding {
        case "base64":
            let r = TransferDecoder.decodeBase64(raw)
            if !r.clean { defect("bad-base64", "invalid characters or truncated base64 data") }
            return r.bytes
        case "quoted-printable":
            let r = TransferDecoder.decodeQuotedPrintable(raw)
            if !r.clean { defect("bad-quoted-printable", "malformed escape kept literally") }
            return r.bytes
        case "", "7bit", "8bit", "binary", "7-bit", "8-bit", "none":
            return raw
        default:
            defect("unknown-transfer-encoding", String(encoding.prefix(40)))
            return raw
        }
    }

    private func leaf(_ b: UnsafeBufferPointer<UInt8>, headers: HeaderBlock, body: Range<Int>, type: String,
                      ct: MIMEHeaderValue, disposition: MIMEHeaderValue?) -> [Segment] {
        let cte = transferEncoding(headers, b)
        let isText = type.hasPrefix("text/")
        let dispValue = disposition?.value ?? ""
        var filename = disposition?.parameters["filename"] ?? ct.parameters["name"]
        if let f = filename, f.isEmpty { filename = nil }
        let isAttachment = dispValue == "attachment" || !isText || (filename != nil && dispValue != "inline")
        if isAttachment {
            let size: Int
            if cte == "base64" {
                size = TransferDecoder.base64DecodedLength(UnsafeBufferPointer(rebasing: b[body]))
            } else if cte != "quoted-printable" {
                size = body.count
            } else {
                size = decodeTransfer(MIMEWalker.bytes(b, body), encoding: cte).count
            }
            let cid = headers.first("content-id", in: b).flatMap { MessageIDParser.ids($0.value, bare: .words).first }
            attachments.append(ParsedAttachment(filename: filename, mimeType: type, size: size,
                                                contentId: cid, isInline: dispValue == "inline"))
            if capturesContent { attachmentContents.append(decodeTransfer(MIMEWalker.bytes(b, body), encoding: cte)) }
            return []
        }
        var content = decodeTransfer(MIMEWalker.bytes(b, body), encoding: cte)
        let charset = ct.parameters["charset"]
        let label = CharsetDecoder.normalizedLabel(charset)
        if !CharsetDecoder.isASCIIIncompatible(label) { TextNormalizer.normalizeLineEndings(&content) }
        let decoded = decoder.decode(content, charset: charset)
        if !decoded.exact { defect("charset-fallback", String((label.isEmpty ? "undeclared" : label).prefix(40))) }
        var text = decoded.text
        if CharsetDecoder.isASCIIIncompatible(label) && text.utf8.contains(0x0D) {
            var u = Array(text.utf8)
            TextNormalizer.normalizeLineEndings(&u)
            text = String(decoding: u, as: UTF8.self)
        }
        if type == "text/html" {
            if htmlBody == nil { htmlBody = text }
            return [.html(text)]
        }
        if type == "text/plain", HTMLSniffer.isHTMLDocument(text) {
            // HTML sent as plain text (old clients, bulk senders): read as the HTML it is.
            defect("html-in-text-plain", "a text/plain part that is an HTML document, read as HTML")
            if sniffedHTMLBody == nil { sniffedHTMLBody = text }
            return [.plain(HTMLTextExtractor.plainText(from: text))]
        }
        return [.plain(text)]
    }

    /// Ranges of the body parts between boundary delimiter lines; nil when no delimiter is found.
    /// A missing close delimiter ends the last part at the end of the body (with a defect).
    func splitMultipart(_ b: UnsafeBufferPointer<UInt8>, body: Range<Int>, boundary: [UInt8]) -> [Range<Int>]? {
        var parts: [Range<Int>] = []
        let end = body.upperBound
        var p = body.lowerBound
        var partStart: Int? = nil
        var prevLineEnd = p  // end (before its line break) of the previous line
        let bl = boundary.count
        var closed = false
        while p < end {
            let (e, next) = LineBreaks.line(in: b, from: p, end: end)
            if e - p >= bl + 2 && b[p] == UInt8(ascii: "-") && b[p + 1] == UInt8(ascii: "-") {
                var match = true
                for k in 0..<bl where b[p + 2 + k] != boundary[k] { match = false; break }
                if match {
                    var q = p + 2 + bl
                    var isClose = false
                    if q + 2 <= e && b[q] == UInt8(ascii: "-") && b[q + 1] == UInt8(ascii: "-") {
                        isClose = true
                        q += 2
                    }
                    var onlySpace = true
                    while q < e { if b[q] != 0x20 && b[q] != 0x09 { onlySpace = false; break }; q += 1 }
                    if onlySpace {
                        if let s = partStart {
                            parts.append(s..<max(s, prevLineEnd))
                            if parts.count >= MIMEWalker.maxParts { return parts }
                        }
                        if isClose {
                            closed = true
                            partStart = nil
                            break
                        }
                        partStart = next
                    }
                }
            }
            prevLineEnd = e
            p = next
        }
        if parts.isEmpty && partStart == nil && !closed { return nil }
        if let s = partStart {
            defect("missing-close-boundary", "multipart body ends without its close delimiter")
            parts.append(s..<max(s, end))
        }
        return parts
    }
}
