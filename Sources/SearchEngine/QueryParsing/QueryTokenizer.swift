/// Cuts a query into `QueryToken`s by hand (no regular expressions): whitespace separates
/// tokens except inside double quotes. An unbalanced quote runs to the end of the query, so
/// everything after it is protected text.
enum QueryTokenizer {
    static func tokenize(_ text: String) -> [QueryToken] {
        var tokens: [QueryToken] = []
        let scalars = text.unicodeScalars
        var index = scalars.startIndex
        while index < scalars.endIndex {
            // Skip whitespace.
            while index < scalars.endIndex, scalars[index].properties.isWhitespace {
                index = scalars.index(after: index)
            }
            guard index < scalars.endIndex else { break }
            let start = index
            var inQuote = false
            var sawQuote = false
            while index < scalars.endIndex {
                let scalar = scalars[index]
                if isQuote(scalar) {
                    inQuote.toggle()
                    sawQuote = true
                } else if !inQuote, scalar.properties.isWhitespace {
                    break
                }
                index = scalars.index(after: index)
            }
            let raw = Substring(scalars[start..<index])
            tokens.append(makeToken(raw, isQuoted: sawQuote))
        }
        return tokens
    }

    static func isQuote(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\"" || scalar == "\u{201C}" || scalar == "\u{201D}"
    }

    private static func makeToken(_ raw: Substring, isQuoted: Bool) -> QueryToken {
        guard !isQuoted else {
            return QueryToken(raw: raw, core: raw, word: "", isQuoted: true, hasTrailingPunctuation: false)
        }
        let scalars = raw.unicodeScalars
        var lower = scalars.startIndex
        var upper = scalars.endIndex
        while lower < upper, scalars[lower] == "(" || scalars[lower] == "[" {
            lower = scalars.index(after: lower)
        }
        var trailing = false
        while lower < upper {
            let last = scalars[scalars.index(before: upper)]
            guard isTrailingPunctuation(last) else { break }
            upper = scalars.index(before: upper)
            trailing = true
        }
        let core = Substring(scalars[lower..<upper])
        return QueryToken(raw: raw, core: core, word: core.lowercased(), isQuoted: false, hasTrailingPunctuation: trailing)
    }

    private static func isTrailingPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case ",", ";", ".", "!", "?", ")", "]", ":": return true
        default: return false
        }
    }
}
