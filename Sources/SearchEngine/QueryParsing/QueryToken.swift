/// One whitespace-delimited piece of a search query, as the tokenizer cut it.
///
/// A double-quoted span (straight or curly quotes) stays inside one token even when it
/// holds spaces, so `"from john"` is a single, protected token.
struct QueryToken: Sendable {
    /// The token exactly as typed, quotes and punctuation included.
    var raw: Substring
    /// `raw` without leading `(` `[` and trailing punctuation, in its original case ("John").
    var core: Substring
    /// `core` lower-cased: `raw` without leading `(` `[` and trailing `,` `;` `.` `!` `?` `)` `]` `:`.
    /// Empty for quoted tokens, which never match a filter word.
    var word: String
    /// True when the token holds a quote character: it is a phrase and passes through as text.
    var isQuoted: Bool
    /// True when punctuation followed the word (`John,`): a multi-word name stops here.
    var hasTrailingPunctuation: Bool

    /// The first character of the unstripped word is an upper-case letter ("John", "March").
    var isCapitalized: Bool {
        guard !isQuoted else { return false }
        for scalar in raw.unicodeScalars {
            if scalar == "(" || scalar == "[" { continue }
            return scalar.properties.isUppercase
        }
        return false
    }
}
