/// Turns HTML into plain text for indexing and snippets.
///
/// Drops tags, comments, `<!DOCTYPE>`/processing instructions and the content of `script`, `style`,
/// `head`, `title`, `noscript` and `template`; decodes named (common and Latin-1) and numeric character
/// references; turns block elements (p, div, br, li, tr, h1–h6, blockquote, table, …) into line breaks
/// and table cells into spaces; collapses whitespace within lines and keeps at most one blank line.
/// Linear time on any input: every scan moves forward only, and a tag or comment that never closes
/// ends the markup there (`<` with no `>` anywhere after it is kept as text).
public enum HTMLTextExtractor {
    /// The readable text of an HTML document or fragment.
    public static func plainText(from html: String) -> String {
        let b = Array(html.utf8)
        return String(decoding: plainTextBytes(b), as: UTF8.self)
    }

    private static let skipContent: Set<String> = ["script", "style", "head", "title", "noscript", "template", "xml"]
    private static let blocks: Set<String> = [
        "p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "table", "ul", "ol", "dl",
        "dt", "dd", "pre", "hr", "section", "article", "header", "footer", "nav", "aside", "main", "form",
        "fieldset", "address", "center", "figure", "figcaption", "tbody", "thead", "tfoot", "caption", "body", "html",
        "option", "details", "summary",
    ]
    private static let cells: Set<String> = ["td", "th"]

    private static let entities: [String: UInt32] = {
        var d: [String: UInt32] = [
            "amp": 38, "lt": 60, "gt": 62, "quot": 34, "apos": 39, "nbsp": 0xA0, "ensp": 0x2002, "emsp": 0x2003,
            "thinsp": 0x2009, "zwnj": 0x200C, "zwj": 0x200D, "lrm": 0x200E, "rlm": 0x200F,
            "ndash": 0x2013, "mdash": 0x2014, "lsquo": 0x2018, "rsquo": 0x2019, "sbquo": 0x201A, "ldquo": 0x201C,
            "rdquo": 0x201D, "bdquo": 0x201E, "dagger": 0x2020, "Dagger": 0x2021, "bull": 0x2022, "hellip": 0x2026,
            "permil": 0x2030, "prime": 0x2032, "Prime": 0x2033, "lsaquo": 0x2039, "rsaquo": 0x203A, "oline": 0x203E,
            "euro": 0x20AC, "trade": 0x2122, "larr": 0x2190, "uarr": 0x2191, "rarr": 0x2192, "darr": 0x2193,
            "harr": 0x2194, "minus": 0x2212, "le": 0x2264, "ge": 0x2265, "ne": 0x2260, "infin": 0x221E,
            "OElig": 0x152, "oelig": 0x153, "Scaron": 0x160, "scaron": 0x161, "Yuml": 0x178, "fnof": 0x192,
            "circ": 0x2C6, "tilde": 0x2DC, "alpha": 0x3B1, "beta": 0x3B2, "gamma": 0x3B3, "delta": 0x3B4,
            "pi": 0x3C0, "mu": 0x3BC, "sigma": 0x3C3, "omega": 0x3C9, "hearts": 0x2665, "check": 0x2713,
        ]
        // HTML 4 Latin-1 entities, U+00A0 ... U+00FF in order.
        let latin1 = [
            "nbsp", "iexcl", "cent", "pound", "curren", "yen", "brvbar", "sect", "uml", "copy", "ordf", "laquo", "not",
            "shy", "reg", "macr", "deg", "plusmn", "sup2", "sup3", "acute", "micro", "para", "middot", "cedil", "sup1",
            "ordm", "raquo", "frac14", "frac12", "frac34", "iquest", "Agrave", "Aacute", "Acirc", "Atilde", "Auml",
            "Aring", "AElig", "Ccedil", "Egrave", "Eacute", "Ecirc", "Euml", "Igrave", "Iacute", "Icirc", "Iuml", "ETH",
            "Ntilde", "Ograve", "Oacute", "Ocirc", "Otilde", "Ouml", "times", "Oslash", "Ugrave", "Uacute", "Ucirc",
            "Uuml", "Yacute", "THORN", "szlig", "agrave", "aacute", "acirc", "atilde", "auml", "aring", "aelig",
            "ccedil", "egrave", "eacute", "ecirc", "euml", "igrave", "iacute", "icirc", "iuml", "eth", "ntilde",
            "ograve", "oacute", "ocirc", "otilde", "ouml", "divide", "oslash", "ugrave", "uacute", "ucirc", "uuml",
            "yacute", "thorn", "yuml",
        ]
        for (k, name) in latin1.enumerated() { d[name] = 0xA0 + UInt32(k) }
        return d
    }()

    // HTML's byte classes (`HTMLSniffer` reads with them too).
    @inline(__always) static func isWS(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0A || c == 0x0C }
    @inline(__always) static func isAlpha(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A }
    @inline(__always) static func isAlnum(_ c: UInt8) -> Bool { isAlpha(c) || (c >= 0x30 && c <= 0x39) }

    /// Output with whitespace handling: pending spaces, newlines capped at one blank line.
    private struct Output {
        var bytes: [UInt8] = []
        var pendingSpace = false
        var newlines = 2  // treat the start as after a paragraph so leading breaks vanish

        mutating func text(_ c: UInt8) {
            if pendingSpace && newlines == 0 { bytes.append(0x20) }
            pendingSpace = false
            bytes.append(c)
            newlines = 0
        }
        mutating func space() { pendingSpace = true }
        /// `<br>`: a new line, at most one blank line in a row.
        mutating func lineBreak() {
            pendingSpace = false
            if newlines < 2 { bytes.append(0x0A); newlines += 1 }
        }
        /// Block start or end: make sure the next text starts a line.
        mutating func blockBoundary() {
            pendingSpace = false
            if newlines == 0 { bytes.append(0x0A); newlines = 1 }
        }
        mutating func scalar(_ v: UInt32) {
            if v == 0xA0 || v == 0x20 || v == 0x09 || v == 0x0A || v == 0x0D { space(); return }
            if v == 0xAD || v == 0x200B || v == 0x200C || v == 0x200D || v == 0xFEFF { return }
            if pendingSpace && newlines == 0 { bytes.append(0x20) }
            pendingSpace = false
            newlines = 0
            CharsetDecoder.appendUTF8(v == 0 ? 0xFFFD : v, to: &bytes)
        }
    }

    /// Finds `needle` (lower-case ASCII) case-insensitively at or after `from`; returns its start.
    private static func find(_ needle: [UInt8], in b: [UInt8], from: Int) -> Int? {
        let n = b.count, m = needle.count
        guard m > 0, n >= m else { return nil }
        var i = from
        let first = needle[0]
        while i <= n - m {
            if b[i] | 0x20 == first {
                var k = 1
                while k < m && (b[i + k] | 0x20) == needle[k] { k += 1 }
                if k == m { return i }
            }
            i += 1
        }
        return nil
    }

    static func plainTextBytes(_ b: [UInt8]) -> [UInt8] {
        var out = Output()
        out.bytes.reserveCapacity(b.count / 2)
        let n = b.count
        var i = 0
        // Position of the next '>' at or after the scan position; advanced monotonically.
        var gt = -1
        func nextGT(_ from: Int) -> Int? {
            if gt >= from { return gt }
            if gt == n { return nil }
            var j = max(from, gt + 1)
            while j < n && b[j] != UInt8(ascii: ">") { j += 1 }
            gt = j
            return j < n ? j : nil
        }
        var nameBuf: [UInt8] = []
        // Close tags already known to be absent after the scan position (keeps unclosed tags linear).
        var missingEndTags: Set<String> = []
        while i < n {
            let c = b[i]
            if c == UInt8(ascii: "<") && i + 1 < n {
                let d = b[i + 1]
                if d == UInt8(ascii: "!") && i + 3 < n && b[i + 2] == UInt8(ascii: "-") && b[i + 3] == UInt8(ascii: "-") {
                    // Comment: ends at "-->"; unterminated comments swallow the rest.
                    if let e = find(Array("-->".utf8), in: b, from: i + 4) { i = e + 3 } else { i = n }
                    continue
                }
                if isAlpha(d) || d == UInt8(ascii: "/") || d == UInt8(ascii: "!") || d == UInt8(ascii: "?") {
                    guard let close = nextGT(i + 1) else {
                        // No '>' anywhere after: not markup.
                        out.text(c); i += 1; continue
                    }
                    // Tag name.
                    var j = i + 1
                    let closing = d == UInt8(ascii: "/")
                    if closing { j += 1 }
                    nameBuf.removeAll(keepingCapacity: true)
                    while j < close && (isAlnum(b[j]) || b[j] == UInt8(ascii: ":")) && nameBuf.count < 16 {
                        nameBuf.append(b[j] | 0x20); j += 1
                    }
                    i = close + 1
                    if d == UInt8(ascii: "!") || d == UInt8(ascii: "?") { continue }
                    let name = String(decoding: nameBuf, as: UTF8.self)
                    if !closing && skipContent.contains(name) && b[close - 1] != UInt8(ascii: "/") {
                        // Skip to the matching close tag. An unclosed <head> only loses itself (its
                        // content may be the body in broken mail); the others swallow the rest.
                        let endTag = Array("</\(name)".utf8)
                        if !missingEndTags.contains(name), let e = find(endTag, in: b, from: i) {
                            if let g = nextGT(e) { i = g + 1 } else { i = n }
                        } else if name != "head" && name != "title" {
                            i = n
                        } else {
                            missingEndTags.insert(name)
                        }
                        continue
                    }
                    if name == "br" { out.lineBreak() } else if blocks.contains(name) { out.blockBoundary() } else if cells.contains(name) { out.space() }
                    continue
                }
                out.text(c); i += 1; continue
            }
            if c == UInt8(ascii: "&") {
                if let (value, len) = entity(b, at: i) {
                    out.scalar(value)
                    i += len
                    continue
                }
                out.text(c); i += 1; continue
            }
            if isWS(c) { out.space(); i += 1; continue }
            out.text(c)
            i += 1
        }
        while let last = out.bytes.last, last == 0x0A || last == 0x20 { out.bytes.removeLast() }
        return out.bytes
    }

    /// Decodes a character reference at `i` (which holds '&'); returns the scalar and the length consumed.
    private static func entity(_ b: [UInt8], at i: Int) -> (UInt32, Int)? {
        let n = b.count
        var j = i + 1
        guard j < n else { return nil }
        if b[j] == UInt8(ascii: "#") {
            j += 1
            var hex = false
            if j < n && (b[j] | 0x20) == UInt8(ascii: "x") { hex = true; j += 1 }
            let start = j
            var v: UInt32 = 0
            while j < n && j - start < 8 {
                let c = b[j]
                if c >= 0x30 && c <= 0x39 { v = v * (hex ? 16 : 10) + UInt32(c - 0x30) }
                else if hex, let h = TransferDecoder.hexValue(c) { v = v * 16 + UInt32(h) }
                else { break }
                j += 1
            }
            guard j > start else { return nil }
            if j < n && b[j] == UInt8(ascii: ";") { j += 1 }
            // Windows-1252 numeric references (&#150;) as browsers read them.
            if v >= 0x80 && v < 0xA0 {
                let s = CharsetDecoder.windows1252([UInt8(v)])
                v = s.unicodeScalars.first?.value ?? v
            }
            return (v, j - i)
        }
        let start = j
        while j < n && j - start < 10 && isAlnum(b[j]) { j += 1 }
        guard j > start else { return nil }
        let name = String(decoding: b[start..<j], as: UTF8.self)
        if j < n && b[j] == UInt8(ascii: ";") {
            if let v = entities[name] { return (v, j + 1 - i) }
            return nil
        }
        // Legacy references without ';' for the most common names.
        switch name {
        case "amp": return (38, j - i)
        case "lt": return (60, j - i)
        case "gt": return (62, j - i)
        case "quot": return (34, j - i)
        case "nbsp": return (0xA0, j - i)
        default: return nil
        }
    }
}
