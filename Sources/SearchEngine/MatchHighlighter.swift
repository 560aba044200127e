import Foundation
import MailModel
import SearchIndex

/// Finds the query's terms in a subject and body the way FTS5's unicode61 tokenizer matched them
/// (letters and digits, case and diacritics folded; words match a term by prefix, phrases word by
/// word) and returns highlight ranges in UTF-16 offsets, plus a body snippet around the first match.
/// Doing this in Swift for the returned page avoids running the MATCH a second time.
public struct MatchHighlighter: Sendable {
    /// Each term as a list of folded words (a phrase has several); `prefix` on the last word.
    let terms: [(words: [String], prefix: Bool)]

    public init(queryText: String) {
        terms = FTS5QueryBuilder.terms(of: queryText).compactMap { term in
            let words = Self.words(in: term.text).map { Self.fold($0.text) }
            return words.isEmpty ? nil : (words, !term.isPhrase)
        }
    }

    public var isEmpty: Bool { terms.isEmpty }

    /// Highlight ranges of `text` for `field`.
    public func ranges(in text: String, field: HighlightRange.Field) -> [HighlightRange] {
        let words = Self.words(in: text)
        let folded = words.map { Self.fold($0.text) }
        var ranges: [HighlightRange] = []
        for i in folded.indices {
            for term in terms where term.words.count <= folded.count - i {
                var all = true
                for (k, w) in term.words.enumerated() {
                    let candidate = folded[i + k]
                    let isLast = k == term.words.count - 1
                    if !(candidate == w || (isLast && term.prefix && candidate.hasPrefix(w))) { all = false; break }
                }
                if all {
                    let start = words[i].offset
                    let end = words[i + term.words.count - 1].offset + words[i + term.words.count - 1].length
                    ranges.append(HighlightRange(field: field, start: start, length: end - start))
                    break
                }
            }
        }
        return ranges
    }

    /// A one-line snippet of about `width` words around the first match in `body` (the start of
    /// the body when nothing matches), with its highlight ranges.
    public func snippet(of body: String, width: Int = 24, scanLimit: Int = 20_000) -> (text: String, ranges: [HighlightRange])? {
        let scanned = body.count > scanLimit ? String(body.prefix(scanLimit)) : body
        let words = Self.words(in: scanned)
        guard !words.isEmpty else { return nil }
        let folded = words.map { Self.fold($0.text) }
        var first: Int?
        outer: for i in folded.indices {
            for term in terms {
                let w = term.words[0]
                if folded[i] == w || (term.words.count == 1 && term.prefix && folded[i].hasPrefix(w)) { first = i; break outer }
            }
        }
        guard let hit = first else { return nil }
        let startWord = max(0, hit - width / 3)
        let endWord = min(words.count, startWord + width)
        let utf16 = Array(scanned.utf16)
        let from = words[startWord].offset
        let to = words[endWord - 1].offset + words[endWord - 1].length
        var text = String(decoding: utf16[from..<to], as: UTF16.self)
            .split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        if startWord > 0 { text = "…" + text }
        if endWord < words.count { text += "…" }
        return (text, ranges(in: text, field: .snippet))
    }

    /// Word runs (letters, digits) of `text` with UTF-16 offsets.
    static func words(in text: String) -> [(text: Substring, offset: Int, length: Int)] {
        var out: [(Substring, Int, Int)] = []
        var offset = 0
        var start: String.Index?
        var startOffset = 0
        var index = text.startIndex
        for scalar in text.unicodeScalars {
            let next = text.unicodeScalars.index(after: index)
            if FTS5QueryBuilder.isTokenCharacter(scalar) || (start != nil && scalar.properties.generalCategory == .nonspacingMark) {
                if start == nil { start = index; startOffset = offset }
            } else if let s = start {
                out.append((text[s..<index], startOffset, offset - startOffset))
                start = nil
            }
            offset += scalar.utf16.count
            index = next
        }
        if let s = start { out.append((text[s...], startOffset, offset - startOffset)) }
        return out
    }

    /// Lower-cased, diacritics removed (ASCII fast path).
    static func fold(_ word: Substring) -> String {
        if word.utf8.allSatisfy({ $0 < 0x80 }) {
            return String(decoding: word.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 32 : $0 }, as: UTF8.self)
        }
        return word.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }
}
