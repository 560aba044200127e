import Foundation

/// The composer's basic formatting (spec 001 §5.5.1: bold, italic, links), written in the text
/// itself — `*bold*`, `_italic_`, `[label](https://example.com)` — and sent as an HTML
/// alternative next to the text as typed. The HTML is built from escaped text only: nothing the
/// user types becomes markup but these three forms, and links are http, https or mailto.
public enum BasicFormatting {
    /// The HTML alternative of `text`, or nil when the text uses none of the forms (then the
    /// message is plain text alone). Lines starting with `>` become a blockquote.
    public static func html(_ text: String) -> String? {
        let lines = text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
        var formatted = false
        var out = ""
        var quoting = false
        for (index, raw) in lines.enumerated() {
            var line = Substring(raw)
            let quoted = line.hasPrefix(">")
            if quoted != quoting {
                out += quoted ? "<blockquote>" : "</blockquote>"
                quoting = quoted
            }
            if quoted {
                line = line.dropFirst()
                if line.hasPrefix(" ") { line = line.dropFirst() }
            }
            // Quoted text is someone else's plain text: shown as it is, never read as formatting.
            let (html, changed) = quoted ? (escape(String(line)), false) : inline(String(line))
            formatted = formatted || changed
            out += html
            if index < lines.count - 1 { out += "<br>\n" }
        }
        if quoting { out += "</blockquote>" }
        guard formatted else { return nil }
        return "<!doctype html><html><head><meta charset=\"utf-8\"></head><body><div>\(out)</div></body></html>\n"
    }

    /// One line: escaped, with `[label](url)`, `*bold*` and `_italic_` turned into markup.
    static func inline(_ line: String) -> (String, Bool) {
        var out = ""
        var changed = false
        var rest = Substring(line)
        var previous: Character?
        while !rest.isEmpty {
            if rest.first == "[", let link = link(rest) {
                out += "<a href=\"\(escape(link.url))\">\(escape(link.label))</a>"
                previous = ")"
                rest = rest[link.end...]
                changed = true
                continue
            }
            // A marker counts at a word's edge only: snake_case_names and 2*3*4 stay as they are.
            if let marker = rest.first, marker == "*" || marker == "_", !(previous.map(isWordCharacter) ?? false),
               let span = span(rest, marker: marker), !(span.end < rest.endIndex && isWordCharacter(rest[span.end])) {
                let tag = marker == "*" ? "strong" : "em"
                out += "<\(tag)>\(escape(String(span.inner)))</\(tag)>"
                previous = marker
                rest = rest[span.end...]
                changed = true
                continue
            }
            previous = rest.first
            out += escape(String(rest.first!))
            rest = rest.dropFirst()
        }
        return (out, changed)
    }

    /// `[label](url)` at the start of `text`, the URL http, https or mailto and without spaces.
    private static func link(_ text: Substring) -> (label: String, url: String, end: Substring.Index)? {
        guard let close = text.firstIndex(of: "]"), text.index(after: close) < text.endIndex,
              text[text.index(after: close)] == "(" else { return nil }
        let label = text[text.index(after: text.startIndex)..<close]
        let urlStart = text.index(close, offsetBy: 2)
        guard !label.isEmpty, !label.contains("["), let paren = text[urlStart...].firstIndex(of: ")") else { return nil }
        let url = String(text[urlStart..<paren])
        let lower = url.lowercased()
        guard !url.contains(where: { $0.isWhitespace || $0 == "\"" || $0 == "<" || $0 == ">" }),
              lower.hasPrefix("https://") || lower.hasPrefix("http://") || lower.hasPrefix("mailto:") else { return nil }
        return (String(label), url, text.index(after: paren))
    }

    /// `*inner*` or `_inner_` at the start of `text`: not empty, not starting or ending with a space.
    private static func span(_ text: Substring, marker: Character) -> (inner: Substring, end: Substring.Index)? {
        let start = text.index(after: text.startIndex)
        guard start < text.endIndex, let close = text[start...].firstIndex(of: marker) else { return nil }
        let inner = text[start..<close]
        guard !inner.isEmpty, inner.first?.isWhitespace == false, inner.last?.isWhitespace == false else { return nil }
        return (inner, text.index(after: close))
    }

    private static func isWordCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
