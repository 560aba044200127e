extension SearchQueryParser {
    /// The free text of `text` when the query certainly holds nothing but words and quoted
    /// phrases, so that `parse` would return it as text with no filter; nil when it may hold
    /// anything else (an operator, a negation, `OR`, a group, a word the parser may read as a
    /// filter or a date, a digit, an `@`). Needs no calendar or clock: a one-shot keyword search
    /// (`OneShotKeywordSearch`) decides with it whether it can run without the parser. It errs on
    /// the side of nil, which only sends a query to the regular path; `PlainQueryTests` checks on
    /// generated queries that it never answers where `parse` finds a filter.
    public static func plainText(_ text: String) -> String? {
        let tokens = QueryTokenizer.tokenize(text)
        guard !tokens.isEmpty else { return nil }
        for token in tokens {
            guard token.kind == .term, !token.isNegated else { return nil }
            if token.isQuoted { continue }
            for scalar in token.raw.unicodeScalars {
                switch scalar {
                case ":", "@", "0"..."9": return nil
                default: continue
                }
            }
            if PlainQueryWords.triggers.contains(token.word) { return nil }
        }
        return tokens.map { String($0.raw) }.joined(separator: " ")
    }
}

/// The words that may start or belong to a filter or a date phrase: every word list of
/// `QueryVocabulary` but the stop words (which only matter after one of these), and the words
/// `DateExpressionParser` starts an expression with.
enum PlainQueryWords {
    static let triggers: Set<String> = {
        var words = QueryVocabulary.mailNouns
        words.formUnion(QueryVocabulary.filterWords)
        words.formUnion(QueryVocabulary.recipientVerbs)
        words.formUnion(QueryVocabulary.categories.keys)
        words.formUnion(QueryVocabulary.folders)
        words.formUnion(QueryVocabulary.attachmentWords)
        words.formUnion(QueryVocabulary.attachmentTypes.keys)
        words.formUnion(QueryVocabulary.months.keys)
        words.formUnion(QueryVocabulary.weekdays.keys)
        words.formUnion([
            "today", "yesterday", "tomorrow", "this", "last", "past", "next", "in", "within", "over", "during",
            "older", "newer", "than", "before", "after", "since", "until", "till", "on", "from", "to", "between",
            "ago", "is", "has", "have", "having", "with", "without", "cc", "bcc", "me", "label", "labels",
        ])
        return words
    }()
}
