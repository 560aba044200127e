import SearchIndex

extension SearchQueryParser {
    /// The free text of `text` when the query certainly holds nothing but words and quoted
    /// phrases, so that `parse` would return it as text with no filter; nil when it may hold
    /// anything else (an operator, a negation, `OR`, a group, a word the parser may read as a
    /// filter or a date, a digit, an `@`). Needs no calendar or clock. It errs on the side of nil,
    /// which only sends a query to the regular path; `PlainQueryTests` checks on generated queries
    /// that it never answers where `parse` finds a filter.
    public static func plainText(_ text: String) -> String? {
        guard let plain = plainQuery(text), plain.sender == nil else { return nil }
        return plain.text
    }

    /// `plainText`, also for a query with one plain `from:` operator (`contract from:kay`): the free
    /// text and the sender that `parse` would find (its filters: that sender alone). The sender
    /// must be letters, digits and `.`, `_`, `+`, `-`, `@` inside, ending in a letter or digit, so
    /// that the parser's clean-up of operator values leaves it as it is. A one-shot keyword search
    /// (`OneShotKeywordSearch`) decides with it whether it can run without the parser.
    public static func plainQuery(_ text: String) -> (text: String, sender: String?)? {
        let tokens = QueryTokenizer.tokenize(text)
        var sender: String?
        var words: [Substring] = []
        for token in tokens {
            guard token.kind == .term, !token.isNegated else { return nil }
            if token.isQuoted {
                // A phrase is text; a quote further in may be an operator's value (`from:"kay mann"`).
                guard let first = token.raw.unicodeScalars.first, QueryTokenizer.isQuote(first) else { return nil }
                words.append(token.raw)
                continue
            }
            if let value = senderOperatorValue(token.raw) {
                guard sender == nil else { return nil }
                sender = value
                continue
            }
            for scalar in token.raw.unicodeScalars {
                switch scalar {
                case ":", "@", "0"..."9": return nil
                default: continue
                }
            }
            if PlainQueryWords.triggers.contains(token.word) { return nil }
            words.append(token.raw)
        }
        guard var text = words.first.map(String.init) else { return nil }
        for word in words.dropFirst() {
            text += " "
            text += String(word)
        }
        return (text, sender)
    }

    /// The value of a `from:VALUE` token whose value the parser takes as it is (see `plainQuery`).
    private static func senderOperatorValue(_ raw: Substring) -> String? {
        let bytes = raw.utf8
        guard bytes.count > 5 else { return nil }
        var i = bytes.startIndex
        for expected in "from:".utf8 {
            let b = bytes[i]
            guard (b >= 0x41 && b <= 0x5A ? b + 32 : b) == expected else { return nil }
            i = bytes.index(after: i)
        }
        func isAlphanumeric(_ b: UInt8) -> Bool { (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) }
        let value = bytes[i...]
        guard let last = value.last, isAlphanumeric(last),
              value.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_")
                  || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "@") })
        else { return nil }
        return String(raw[i...])
    }
}

/// The words that may start or belong to a filter or a date phrase: every word list of
/// `QueryVocabulary` but the stop words (which only matter after one of these), and the words
/// `DateExpressionParser` starts an expression with.
enum PlainQueryWords {
    static let triggers: WordList = {
        var words = QueryVocabulary.mailNouns.words
        words += QueryVocabulary.filterWords.words
        words += QueryVocabulary.recipientVerbs.words
        words += QueryVocabulary.categories.keys
        words += QueryVocabulary.folders.words
        words += QueryVocabulary.attachmentWords.words
        words += QueryVocabulary.attachmentTypes.keys
        words += QueryVocabulary.months.keys
        words += QueryVocabulary.weekdays.keys
        words += [
            "today", "yesterday", "tomorrow", "this", "last", "past", "next", "in", "within", "over", "during",
            "older", "newer", "than", "before", "after", "since", "until", "till", "on", "from", "to", "between",
            "ago", "is", "has", "have", "having", "with", "without", "cc", "bcc", "me", "label", "labels",
        ]
        return WordList(words)
    }()
}
