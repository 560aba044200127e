/// One piece of a search query, as the tokenizer cut it: a term (whitespace-delimited), or a
/// grouping mark or connective of the query language (`(`, `)`, `{`, `}`, `OR`, `AND`).
///
/// A double-quoted span (straight or curly quotes) stays inside one term even when it
/// holds spaces, so `"from john"` is a single, protected token.
struct QueryToken: Sendable {
    enum Kind: Sendable, Equatable {
        case term
        /// `(` or `{` (`brace`), possibly negated (`-(`).
        case open(brace: Bool)
        case close(brace: Bool)
        /// Upper-case `OR` standing alone.
        case or
        /// Upper-case `AND` standing alone: the implicit AND, written out.
        case and
    }

    var kind: Kind = .term
    /// The token exactly as typed, quotes and punctuation included.
    var raw: Substring
    /// `raw` without a negating `-`, leading `(` `[` and trailing punctuation, in its original case ("John").
    var core: Substring
    /// `core` lower-cased: `raw` without leading `(` `[` and trailing `,` `;` `.` `!` `?` `)` `]` `:`.
    /// Empty for quoted tokens, which never match a filter word.
    var word: String
    /// True when the token holds a quote character: it is a phrase and passes through as text.
    var isQuoted: Bool
    /// True when punctuation followed the word (`John,`): a multi-word name stops here.
    var hasTrailingPunctuation: Bool
    /// A leading `-` negates the term or group (`-draft`, `-"a phrase"`, `-from:john`, `-(`).
    /// A hyphen inside a word (`e-mail`, `2024-03-01`) or a lone `-` does not.
    var isNegated = false

    /// A plain word that natural-language filters may read: not quoted, not negated, not a mark.
    var isWord: Bool { kind == .term && !isQuoted && !isNegated }

    /// The first character of the unstripped word is an upper-case letter ("John", "March").
    var isCapitalized: Bool {
        guard isWord else { return false }
        for scalar in raw.unicodeScalars {
            if scalar == "(" || scalar == "[" { continue }
            return scalar.properties.isUppercase
        }
        return false
    }
}
