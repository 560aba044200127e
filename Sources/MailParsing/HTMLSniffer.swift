/// Whether a part labelled `text/plain` is in fact an HTML document: mail from old clients and
/// bulk senders that sent their HTML without saying so (359 of Enron's 44,715 emails: newsletters,
/// offers, forwards from web mail). Such a part is read as HTML (its text for search, snippets,
/// summaries and embeddings; the page shows it as the sanitized HTML it is) instead of showing
/// its tags as words.
///
/// Deliberately narrow: the part must *begin* with a known HTML element's tag (after white space,
/// comments and `<!…>` declarations) and hold at least `minimumTags` such tags. A person's message
/// that quotes or discusses HTML begins with their own words and stays text, however many tags it
/// pastes (the SpamAssassin lists' "Preproc erasing message" quotes 158); an address in angle
/// brackets (`<jo@example.com>`) or enriched text (`<bigger>`) is no HTML element.
public enum HTMLSniffer {
    /// Known tags a part must hold, the first one included.
    public static let minimumTags = 3
    /// How far into the part tags are counted (a long document decides within it).
    static let window = 65_536

    private static let elements: Set<String> = [
        "html", "head", "body", "meta", "title", "style", "base", "link", "p", "div", "br", "hr", "font", "center",
        "b", "i", "u", "s", "strong", "em", "small", "big", "tt", "sup", "sub", "span", "a", "img", "table", "tbody",
        "thead", "tfoot", "tr", "td", "th", "ul", "ol", "li", "dl", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6",
        "blockquote", "pre", "iframe", "form", "input", "map", "area", "caption", "col", "colgroup",
    ]

    public static func isHTMLDocument(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { isHTMLDocument(bytes: $0) }
    }

    static func isHTMLDocument(bytes b: UnsafeBufferPointer<UInt8>) -> Bool {
        let end = min(b.count, window)
        var i = 0
        // White space, comments and declarations (`<!DOCTYPE html>`, `<!-- … -->`, `<! … >`).
        while i < end {
            let c = b[i]
            if HTMLTextExtractor.isWS(c) { i += 1; continue }
            if c == 0xEF, i + 2 < end, b[i + 1] == 0xBB, b[i + 2] == 0xBF { i += 3; continue }  // a byte order mark
            guard c == UInt8(ascii: "<"), i + 1 < end, b[i + 1] == UInt8(ascii: "!") else { break }
            if i + 3 < end, b[i + 2] == UInt8(ascii: "-"), b[i + 3] == UInt8(ascii: "-") {
                guard let close = find(b, "-->", from: i + 4, end: end) else { return false }
                i = close + 3
            } else {
                guard let close = find(b, ">", from: i + 2, end: end) else { return false }
                i = close + 1
            }
        }
        guard i < end, b[i] == UInt8(ascii: "<"), elementTag(b, at: i, end: end) != nil else { return false }
        var tags = 0
        var p = i
        while p < end {
            guard let lt = find(b, "<", from: p, end: end) else { break }
            if let after = elementTag(b, at: lt, end: end) {
                tags += 1
                if tags >= minimumTags { return true }
                p = after
            } else {
                p = lt + 1
            }
        }
        return false
    }

    /// When a known element's start or end tag begins at `at` (`<p>`, `</font>`, `<br/>`,
    /// `<a href=…>`), the index just past its name; nil otherwise.
    private static func elementTag(_ b: UnsafeBufferPointer<UInt8>, at: Int, end: Int) -> Int? {
        var j = at + 1
        if j < end, b[j] == UInt8(ascii: "/") { j += 1 }
        let start = j
        while j < end, j - start <= 10, HTMLTextExtractor.isAlnum(b[j]) { j += 1 }
        guard j > start, j - start <= 10, j < end else { return nil }
        let next = b[j]
        guard next == UInt8(ascii: ">") || next == UInt8(ascii: "/") || HTMLTextExtractor.isWS(next) else { return nil }
        var name = ""
        name.unicodeScalars.reserveCapacity(j - start)
        for k in start..<j { name.unicodeScalars.append(Unicode.Scalar(b[k] | (HTMLTextExtractor.isAlpha(b[k]) ? 0x20 : 0))) }
        return elements.contains(name) ? j : nil
    }

    private static func find(_ b: UnsafeBufferPointer<UInt8>, _ needle: StaticString, from: Int, end: Int) -> Int? {
        needle.withUTF8Buffer { n -> Int? in
            guard let first = n.first else { return from }
            var i = from
            while i + n.count <= end {
                if b[i] == first {
                    var k = 1
                    while k < n.count, b[i + k] == n[k] { k += 1 }
                    if k == n.count { return i }
                }
                i += 1
            }
            return nil
        }
    }
}
