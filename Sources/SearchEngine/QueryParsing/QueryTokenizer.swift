import SearchIndex

/// Cuts a query into `QueryToken`s by hand (no regular expressions): whitespace separates
/// terms except inside double quotes; outside quotes `(`, `)`, `{`, `}` are tokens of their own,
/// and a standalone upper-case `OR` or `AND` is a connective. An unbalanced quote runs to the end
/// of the query, so everything after it is protected text. The rules for `-` are those of
/// `FTS5QueryBuilder`, which reads the free text the same way.
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
            let first = scalars[index]
            let next = scalars.index(after: index)
            if isStructural(first) {
                tokens.append(mark(Substring(scalars[start..<next]), first, negated: false))
                index = next
                continue
            }
            if first == "-", next < scalars.endIndex, scalars[next] == "(" || scalars[next] == "{" {
                let end = scalars.index(after: next)
                tokens.append(mark(Substring(scalars[start..<end]), scalars[next], negated: true))
                index = end
                continue
            }
            var inQuote = false
            var sawQuote = false
            while index < scalars.endIndex {
                let scalar = scalars[index]
                if isQuote(scalar) {
                    inQuote.toggle()
                    sawQuote = true
                } else if !inQuote, scalar.properties.isWhitespace || isStructural(scalar) {
                    break
                }
                index = scalars.index(after: index)
            }
            let raw = Substring(scalars[start..<index])
            if !sawQuote, raw == "OR" || raw == "AND" {
                tokens.append(QueryToken(kind: raw == "OR" ? .or : .and, raw: raw, core: raw, word: "",
                                         isQuoted: false, hasTrailingPunctuation: false))
            } else {
                tokens.append(makeToken(raw, isQuoted: sawQuote))
            }
        }
        return tokens
    }

    static func isQuote(_ scalar: Unicode.Scalar) -> Bool { FTS5QueryBuilder.isQuote(scalar) }

    static func isStructural(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "(" || scalar == ")" || scalar == "{" || scalar == "}"
    }

    private static func mark(_ raw: Substring, _ scalar: Unicode.Scalar, negated: Bool) -> QueryToken {
        let brace = scalar == "{" || scalar == "}"
        let kind: QueryToken.Kind = scalar == "(" || scalar == "{" ? .open(brace: brace) : .close(brace: brace)
        return QueryToken(kind: kind, raw: raw, core: raw, word: "", isQuoted: false,
                          hasTrailingPunctuation: false, isNegated: negated)
    }

    private static func makeToken(_ raw: Substring, isQuoted: Bool) -> QueryToken {
        var scalars = raw.unicodeScalars[...]
        var negated = false
        if scalars.count >= 2, scalars.first == "-",
           FTS5QueryBuilder.negationApplies(before: scalars[scalars.index(after: scalars.startIndex)]) {
            negated = true
            scalars = scalars.dropFirst()
        }
        guard !isQuoted else {
            return QueryToken(raw: raw, core: Substring(scalars), word: "", isQuoted: true,
                              hasTrailingPunctuation: false, isNegated: negated)
        }
        var lower = scalars.startIndex
        var upper = scalars.endIndex
        while lower < upper, scalars[lower] == "[" {
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
        return QueryToken(raw: raw, core: core, word: core.lowercased(), isQuoted: false,
                          hasTrailingPunctuation: trailing, isNegated: negated)
    }

    private static func isTrailingPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case ",", ";", ".", "!", "?", "]", ":": return true
        default: return false
        }
    }
}
