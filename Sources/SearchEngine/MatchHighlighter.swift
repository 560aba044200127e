import Foundation
import MailModel
import SearchIndex

/// Finds the query's terms in a subject and body the way the index's tokenizer matched them
/// (letters and digits, case and diacritics folded, ß = ss; phrases word by word; each Chinese,
/// Japanese or Korean character a word, as the index's bigrams match a phrase of them) and returns highlight
/// ranges in UTF-16 offsets, plus a body snippet around the first match. A term matches by prefix
/// exactly when `FTS5QueryBuilder` made it a prefix in the MATCH expression (so `the` does not
/// mark "theory" unless it is the word being typed), and negated terms (`-draft`) are never marked.
/// Doing this in Swift for the returned page avoids running the MATCH a second time.
public struct MatchHighlighter: Sendable {
    /// Each term as a list of folded words (a phrase has several); `prefix` on the last word.
    let terms: [(words: [String], prefix: Bool)]

    /// The first word of each term as folded UTF-8, with whether it matches as a prefix.
    let firstWords: [(bytes: [UInt8], prefix: Bool)]

    /// - Parameter queryText: the free text of the query, as given to `FTS5QueryBuilder`.
    public init(queryText: String) {
        self.init(terms: FTS5QueryBuilder.query(for: queryText).positiveTerms)
    }

    /// Highlights `terms` (normally `FTS5QueryBuilder.Query.positiveTerms`).
    public init(terms searched: [FTS5QueryBuilder.Term]) {
        terms = searched.compactMap { term in
            guard !term.isNegated else { return nil }
            let words = Self.words(in: term.text).map { Self.fold($0.text) }
            return words.isEmpty ? nil : (words, term.isPrefix)
        }
        firstWords = terms.map { (Array($0.words[0].utf8), $0.words.count == 1 && $0.prefix) }
        cjkTerms = terms.compactMap { term in
            let run = term.words.prefix { $0.unicodeScalars.count == 1 && FTS5QueryBuilder.isCJK($0.unicodeScalars.first!) }
            return run.isEmpty ? nil : run.map { $0.unicodeScalars.first! }
        }
        asciiTerms = terms.allSatisfy { $0.words.allSatisfy { $0.utf8.allSatisfy { $0 < 0x80 } } }
            ? terms.map { ($0.words.map { Array($0.utf8) }, $0.prefix) } : nil
    }

    /// The terms whose first word is a CJK character, as the characters of their leading CJK run
    /// (`snippet` starts at the first place one of them stands whole).
    let cjkTerms: [[Unicode.Scalar]]

    /// The terms as folded ASCII bytes, when every term is ASCII (the fast path of `ranges`).
    let asciiTerms: [(words: [[UInt8]], prefix: Bool)]?

    /// Whether a word (its scalars) starts a match; ASCII words are compared without allocating.
    func startsMatch(_ word: String.UnicodeScalarView, buffer: inout [UInt8]) -> Bool {
        buffer.removeAll(keepingCapacity: true)
        for scalar in word {
            guard scalar.value < 0x80 else {
                let folded = Array(Self.fold(Substring(String(word))).utf8)
                return firstWords.contains { folded == $0.bytes || ($0.prefix && folded.starts(with: $0.bytes)) }
            }
            let b = UInt8(scalar.value)
            buffer.append(b >= 0x41 && b <= 0x5A ? b + 32 : b)
        }
        return firstWords.contains { buffer == $0.bytes || ($0.prefix && buffer.starts(with: $0.bytes)) }
    }

    public var isEmpty: Bool { terms.isEmpty }

    /// Highlight ranges of `text` for `field`.
    public func ranges(in text: String, field: HighlightRange.Field) -> [HighlightRange] {
        if let asciiTerms, let ranges = Self.asciiRanges(in: text, terms: asciiTerms, field: field) { return ranges }
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

    /// `ranges` for an all-ASCII text, on its bytes (a byte is a UTF-16 unit there, and folding is
    /// lower-casing); nil for other text.
    static func asciiRanges(in text: String, terms: [(words: [[UInt8]], prefix: Bool)],
                            field: HighlightRange.Field) -> [HighlightRange]? {
        var text = text
        return text.withUTF8 { bytes -> [HighlightRange]? in
            if bytes.contains(where: { $0 >= 0x80 }) { return nil }
            @inline(__always) func isWordByte(_ b: UInt8) -> Bool {
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
            }
            var words: [(start: Int, end: Int)] = []
            var i = 0
            while i < bytes.count {
                guard isWordByte(bytes[i]) else { i += 1; continue }
                let start = i
                while i < bytes.count && isWordByte(bytes[i]) { i += 1 }
                words.append((start, i))
            }
            func matches(_ word: (start: Int, end: Int), _ pattern: [UInt8], prefix: Bool) -> Bool {
                let length = word.end - word.start
                guard pattern.count == length || (prefix && pattern.count < length) else { return false }
                for k in 0..<pattern.count {
                    let b = bytes[word.start + k]
                    if (b >= 0x41 && b <= 0x5A ? b + 32 : b) != pattern[k] { return false }
                }
                return true
            }
            var ranges: [HighlightRange] = []
            for i in words.indices {
                for term in terms where term.words.count <= words.count - i {
                    var all = true
                    for (k, pattern) in term.words.enumerated()
                    where !matches(words[i + k], pattern, prefix: term.prefix && k == term.words.count - 1) {
                        all = false
                        break
                    }
                    if all {
                        let start = words[i].start
                        ranges.append(HighlightRange(field: field, start: start, length: words[i + term.words.count - 1].end - start))
                        break
                    }
                }
            }
            return ranges
        }
    }

    /// `text` on one line: every run of white space one space, none at the ends.
    static func collapsingWhitespace(_ text: Substring) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(text.utf8.count)
            var pendingSpace = false
            for b in text.utf8 {
                if b == 0x20 || (b >= 0x09 && b <= 0x0D) {
                    pendingSpace = !bytes.isEmpty
                } else {
                    if pendingSpace { bytes.append(0x20) }
                    pendingSpace = false
                    bytes.append(b)
                }
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        var out = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            let v = scalar.value
            let white = v < 0x80 ? (v == 0x20 || (v >= 0x09 && v <= 0x0D)) : scalar.properties.isWhitespace
            if white {
                pendingSpace = !out.isEmpty
            } else {
                if pendingSpace { out.append(" ") }
                pendingSpace = false
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// A one-line snippet of about `width` words around the first match in `body`, with its
    /// highlight ranges; nil when nothing matches. Scanning stops at the first match.
    public func snippet(of body: String, width: Int = 24, scanLimit: Int = 4_000) -> (text: String, ranges: [HighlightRange])? {
        let before = width / 3
        var start = 0
        switch asciiScanStart(body, before: before, scanLimit: scanLimit) {
        case .noMatch: return nil
        case .from(let s): start = s
        case .unknown: break
        }
        // Widths in thirds of a word: a CJK character counts a third (a word of Chinese or Japanese
        // is two or three characters), so a snippet of CJK text is about as long as one of words.
        var recent: [(offset: Int, weight: Int)] = []  // the last `before` words' start offsets
        var recentWeight = 0
        var offset = start
        var wordStart: Int?
        var wordWeight = 3
        var word = String.UnicodeScalarView()
        var buffer: [UInt8] = []
        buffer.reserveCapacity(64)
        var hitStart: Int?
        var weightAfterHit = 0
        var endOffset = 0
        func endWord(matched forced: Bool? = nil) -> Bool {
            guard let start = wordStart else { return false }
            wordStart = nil
            if hitStart != nil {
                weightAfterHit += wordWeight
                endOffset = offset
                return weightAfterHit >= (width - before) * 3
            }
            let matched = forced ?? startsMatch(word, buffer: &buffer)
            word.removeAll(keepingCapacity: true)
            if matched {
                hitStart = recent.first?.offset ?? start
                weightAfterHit = wordWeight
                endOffset = offset
                return false
            }
            recent.append((start, wordWeight))
            recentWeight += wordWeight
            while recentWeight > before * 3, let first = recent.first {
                recent.removeFirst()
                recentWeight -= first.weight
            }
            return false
        }
        var scanned = start
        let scalars = body.unicodeScalars
        var index = scalars.index(scalars.startIndex, offsetBy: start)
        while index < scalars.endIndex {
            let scalar = scalars[index]
            let next = scalars.index(after: index)
            defer { index = next }
            scanned += 1
            if scanned > scanLimit && hitStart == nil { return nil }
            if FTS5QueryBuilder.isCJK(scalar) {
                // A word of its own (the index makes bigrams of CJK runs): a match starts here only
                // when the characters that follow complete a term.
                if endWord() { break }
                wordStart = offset
                wordWeight = 1
                offset += scalar.utf16.count
                let starts = hitStart == nil && cjkTerms.contains { term in
                    var i = index
                    for character in term {
                        guard i < scalars.endIndex, scalars[i] == character else { return false }
                        i = scalars.index(after: i)
                    }
                    return true
                }
                wordWeight = 1
                if endWord(matched: starts) { break }
                wordWeight = 3
                continue
            }
            if FTS5QueryBuilder.isTokenCharacter(scalar)
                || (wordStart != nil && scalar.value >= 0x300 && scalar.properties.generalCategory == .nonspacingMark) {
                if wordStart == nil { wordStart = offset }
                if hitStart == nil { word.append(scalar) }
            } else if endWord() {
                break
            }
            offset += scalar.utf16.count
        }
        _ = endWord()
        guard let from = hitStart else { return nil }
        let utf16 = body.utf16
        let lower = utf16.index(utf16.startIndex, offsetBy: from)
        let upper = utf16.index(utf16.startIndex, offsetBy: max(from, endOffset))
        var text = Self.collapsingWhitespace(body[lower..<upper])
        // Ranges on the words alone (all-ASCII text takes the fast path), then past the "…" (one UTF-16 unit).
        var found = ranges(in: text, field: .snippet)
        if from > 0 {
            text = "…" + text
            found = found.map { HighlightRange(field: $0.field, start: $0.start + 1, length: $0.length) }
        }
        if upper < utf16.endIndex { text += "…" }
        return (text, found)
    }

    enum ScanStart { case noMatch, from(Int), unknown }

    /// Where the snippet scan may start in an all-ASCII body: `before` words ahead of the first
    /// place a term's first word occurs at a word start (`.noMatch` when none does within
    /// `scanLimit`), found on the raw bytes. In ASCII a byte is a scalar and a UTF-16 unit, and
    /// folding is lower-casing, so the scan from there finds what a scan from the start would;
    /// other text (or terms) gives `.unknown`: scan it all.
    func asciiScanStart(_ body: String, before: Int, scanLimit: Int) -> ScanStart {
        guard firstWords.allSatisfy({ $0.bytes.allSatisfy { $0 < 0x80 } }) else { return .unknown }
        var body = body
        return body.withUTF8 { bytes -> ScanStart in
            @inline(__always) func isWordByte(_ b: UInt8) -> Bool {
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
            }
            let limit = min(bytes.count, scanLimit)
            if bytes.contains(where: { $0 >= 0x80 }) { return .unknown }
            var i = 0
            var hit: Int?
            while i < limit {
                guard isWordByte(bytes[i]) else { i += 1; continue }
                let wordStart = i
                while i < bytes.count && isWordByte(bytes[i]) { i += 1 }
                // The scan from the start reads `scanLimit` scalars: a word it cannot finish is no match.
                guard i < scanLimit || (i == bytes.count && bytes.count <= scanLimit) else { break }
                let length = i - wordStart
                for (pattern, prefix) in firstWords where pattern.count <= length && (prefix || pattern.count == length) {
                    var same = true
                    for k in 0..<pattern.count {
                        let b = bytes[wordStart + k]
                        if (b >= 0x41 && b <= 0x5A ? b + 32 : b) != pattern[k] { same = false; break }
                    }
                    if same { hit = wordStart; break }
                }
                if hit != nil { break }
            }
            guard let hit else { return .noMatch }
            // Back `before` words from the hit, to a word start.
            var start = hit, words = 0
            var j = hit
            while j > 0 && words < before {
                j -= 1
                if isWordByte(bytes[j]) && (j == 0 || !isWordByte(bytes[j - 1])) {
                    start = j
                    words += 1
                }
            }
            return .from(start)
        }
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
            if FTS5QueryBuilder.isCJK(scalar) {
                // Each CJK character is a word: a term of several is the phrase of its characters.
                if let s = start {
                    out.append((text[s..<index], startOffset, offset - startOffset))
                    start = nil
                }
                out.append((text[index..<next], offset, scalar.utf16.count))
                offset += scalar.utf16.count
                index = next
                continue
            }
            if FTS5QueryBuilder.isTokenCharacter(scalar)
                || (start != nil && scalar.value >= 0x300 && scalar.properties.generalCategory == .nonspacingMark) {
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
        return FTS5QueryBuilder.foldBeyondUnicode61(
            word.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased())
    }
}
