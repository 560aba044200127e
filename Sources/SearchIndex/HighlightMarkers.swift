import MailModel

/// FTS5 `highlight()`/`snippet()` wrap matches in two control characters that never occur in
/// indexed text (the indexer removes them); this turns the marked text into plain text plus
/// UTF-16 ranges.
public enum HighlightMarkers {
    public static let open = "\u{2}"
    public static let close = "\u{3}"

    public static func extract(_ marked: String, field: HighlightRange.Field) -> (text: String, ranges: [HighlightRange]) {
        var text = ""
        var ranges: [HighlightRange] = []
        var utf16Offset = 0
        var start: Int?
        var lastWasSpace = false
        for scalar in marked.unicodeScalars {
            // Line breaks and runs of white space become one space: snippets are one line.
            if scalar.properties.isWhitespace {
                if lastWasSpace { continue }
                lastWasSpace = true
                text.unicodeScalars.append(" ")
                utf16Offset += 1
                continue
            }
            lastWasSpace = false
            if scalar == "\u{2}" {
                start = utf16Offset
            } else if scalar == "\u{3}" {
                if let s = start, utf16Offset > s { ranges.append(HighlightRange(field: field, start: s, length: utf16Offset - s)) }
                start = nil
            } else {
                text.unicodeScalars.append(scalar)
                utf16Offset += scalar.utf16.count
            }
        }
        return (text, ranges)
    }

    /// Removes marker characters from text about to be indexed.
    public static func clean(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0 == "\u{2}" || $0 == "\u{3}" }) else { return text }
        var out = ""
        out.unicodeScalars.append(contentsOf: text.unicodeScalars.filter { $0 != "\u{2}" && $0 != "\u{3}" })
        return out
    }
}
