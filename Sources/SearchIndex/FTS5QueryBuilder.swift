/// Turns any user text into a valid FTS5 MATCH expression (E-08).
///
/// Each whitespace-separated word becomes a quoted FTS5 string with a prefix star
/// (`"proj"*`), so FTS5 operators (`AND`, `OR`, `NOT`, `NEAR`, `-`, `^`, `:`, `*`, parentheses,
/// column names) typed by the user are plain words. A double-quoted phrase stays a phrase
/// (`"deployment schedule"`, no prefix); an unbalanced quote runs to the end of the text.
/// Words with no letter or digit are dropped, because unicode61 would index nothing for them.
/// Terms combine with AND (FTS5's implicit operator).
public enum FTS5QueryBuilder {
    /// The longest query text considered; the rest is ignored (10 KB of pasted text must not hang).
    public static let maximumInputLength = 1_000
    /// At most this many terms reach FTS5.
    public static let maximumTerms = 32

    public struct Term: Hashable, Sendable {
        /// The text of the term, without quotes.
        public var text: String
        public var isPhrase: Bool
    }

    /// English function words matched exactly rather than as prefixes.
    public static let stopWords: Set<String> = [
        "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "he", "i", "in", "is",
        "it", "its", "of", "on", "or", "she", "that", "the", "their", "them", "then", "there", "these", "they",
        "this", "to", "was", "we", "were", "will", "with", "you", "your",
    ]

    /// The terms of `text` as they will be searched. Works on Unicode scalars, not characters,
    /// so a quote followed by a combining mark is still a quote.
    public static func terms(of text: String) -> [Term] {
        var terms: [Term] = []
        var current = String.UnicodeScalarView()
        var inQuote = false
        func flush(phrase: Bool) {
            let t = String(current)
            current = String.UnicodeScalarView()
            guard t.unicodeScalars.contains(where: isTokenCharacter) else { return }
            terms.append(Term(text: t, isPhrase: phrase))
        }
        var seen = 0
        for scalar in text.unicodeScalars {
            seen += 1
            if seen > maximumInputLength { break }
            if scalar == "\"" {
                flush(phrase: inQuote)
                inQuote.toggle()
            } else if scalar.properties.isWhitespace || scalar.properties.generalCategory == .control {
                // A NUL would end the FTS5 string early; control characters never index anyway.
                if inQuote { current.append(" ") } else { flush(phrase: false) }
            } else {
                current.append(scalar)
            }
        }
        flush(phrase: inQuote)
        if terms.count > maximumTerms { terms = Array(terms.prefix(maximumTerms)) }
        return terms
    }

    /// The MATCH expression, or nil when the text has nothing searchable.
    /// - Parameter prefix: add `*` to non-phrase terms (search-as-you-type, FR-SEARCH-06).
    public static func matchExpression(for text: String, prefix: Bool = true) -> String? {
        let terms = terms(of: text)
        guard !terms.isEmpty else { return nil }
        let parts = terms.map { term -> String in
            // Terms hold no quote (quotes delimit phrases), so the FTS5 string needs no escaping.
            let quoted = "\"" + term.text + "\""
            // A stop word is never a meaningful prefix ("the" would expand to every the…-word), nor is
            // a last fragment of one or two letters ("month's" → "s"): both expand to thousands of words.
            // A query of a single short term keeps its prefix (E-02).
            let usePrefix = prefix && !term.isPhrase && !stopWords.contains(term.text.lowercased())
                && (terms.count == 1 || lastFragmentLength(term.text) >= 3)
            return usePrefix ? quoted + "*" : quoted
        }
        return parts.joined(separator: " ")
    }

    /// Length of the last run of token characters ("month's" → 1, "dev@exa" → 3).
    static func lastFragmentLength(_ text: String) -> Int {
        var n = 0
        for scalar in text.unicodeScalars.reversed() {
            if isTokenCharacter(scalar) { n += 1 } else if n > 0 { break }
        }
        return n
    }

    /// Letters and digits, as unicode61 indexes them; everything else separates tokens.
    @inline(__always)
    public static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        if v < 0x80 {
            return (v >= 0x30 && v <= 0x39) || (v >= 0x41 && v <= 0x5A) || (v >= 0x61 && v <= 0x7A)
        }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .decimalNumber, .letterNumber, .otherNumber:
            return true
        default:
            return false
        }
    }
}
