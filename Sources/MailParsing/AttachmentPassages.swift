import Foundation

/// The passages of an attachment's text that semantic search embeds: paragraphs packed up to
/// `maxCharacters` (about what the model reads: 256 tokens), a longer one cut at a line or sentence
/// end, or a space. Only the first `maxPassages` of a long document are embedded (its whole text is
/// in the keyword index); `ranges` says when it stopped short.
public enum AttachmentPassages {
    public static let maxCharacters = 1_000
    public static let maxPassages = 24

    /// A passage: its start and length in Unicode scalars of the text (what SQLite's `substr`
    /// counts), whitespace trimmed at both ends.
    public struct Range: Sendable, Hashable {
        public var start: Int
        public var length: Int
        public init(start: Int, length: Int) { self.start = start; self.length = length }
    }

    /// The passages of `text`, and whether text was left after the last one (more than
    /// `maxPassages` would hold). A text with no visible character is one passage, whole.
    public static func ranges(of text: String, maxCharacters: Int = maxCharacters, maxPassages: Int = maxPassages)
        -> (ranges: [Range], truncated: Bool) {
        let window = Array(text.unicodeScalars.prefix((maxPassages + 1) * maxCharacters))
        let n = window.count
        func isSpace(_ s: Unicode.Scalar) -> Bool { s.properties.isWhitespace }
        var ranges: [Range] = []
        var position = 0
        while ranges.count < maxPassages {
            while position < n, isSpace(window[position]) { position += 1 }
            guard position < n else { break }
            var end = min(n, position + maxCharacters)
            if end < n {
                end = breakPoint(window, from: position + maxCharacters / 2, to: end) ?? end
            }
            var last = end
            while last > position, isSpace(window[last - 1]) { last -= 1 }
            ranges.append(Range(start: position, length: last - position))
            position = end
        }
        if ranges.isEmpty, n > 0 { return ([Range(start: 0, length: n)], false) }
        while position < n, isSpace(window[position]) { position += 1 }
        let truncated = position < n || text.unicodeScalars.dropFirst(n).contains { !isSpace($0) }
        return (ranges, truncated)
    }

    /// The text of `range` in `text`.
    public static func text(of range: Range, in text: String) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: text.unicodeScalars.dropFirst(range.start).prefix(range.length))
        return String(scalars)
    }

    /// What the model reads for a passage: the attachment's name, then the passage.
    public static func embeddingText(filename: String?, passage: String) -> String {
        guard let filename, !filename.isEmpty else { return passage }
        return filename + "\n" + passage
    }

    /// Where to end a passage between `low` and `high`: after the last paragraph break, else the
    /// last line break, else the last sentence end, else the last space; nil when there is none.
    private static func breakPoint(_ s: [Unicode.Scalar], from low: Int, to high: Int) -> Int? {
        var line: Int?, sentence: Int?, space: Int?
        var i = high - 1
        while i > low {
            let c = s[i]
            if c == "\n" {
                if s[i - 1] == "\n" { return i + 1 }
                if line == nil { line = i + 1 }
            } else if c == " " || c == "\t" {
                if sentence == nil, ".!?。！？".unicodeScalars.contains(s[i - 1]) { sentence = i + 1 }
                if space == nil { space = i + 1 }
            } else if sentence == nil, "。！？".unicodeScalars.contains(c) {
                sentence = i + 1
            }
            i -= 1
        }
        return line ?? sentence ?? space
    }
}
