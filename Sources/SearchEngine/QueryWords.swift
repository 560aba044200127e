import SearchIndex

/// Whether a query's words are words at all: keyboard mash (`kjhgf lkjhg`), invented words
/// (`frobnicated quuxwidget 4471zz`) and random letters get the empty state instead of the
/// semantic ranker's nearest emails, which every text has.
///
/// A word of the query is **junk** when the mailbox's own keyword index does not have it
/// (exactly, as a word of some email) and either it is a run of neighbouring keys on one row of a
/// QWERTY keyboard, or the model does not know it as a whole word (the tokenizer would shred it
/// into pieces). A query whose content words (`FTS5QueryBuilder.contentWords`) are all junk is
/// not searched semantically. A real rare word the mail has (`TB0193`, `efavirenz`,
/// `ndiswrapper`, a name) is never junk: the mailbox has it. A word in another script than Latin
/// letters and digits is never judged (the model's vocabulary says nothing about it).
public enum QueryWords {
    /// The words of `text` that are not junk without asking the mailbox: `candidates` are the rest,
    /// which are junk unless the mailbox has them. Nil when the text has no content word.
    public static func junkCandidates(in text: String, modelKnows: (String) -> Bool) -> [String]? {
        let words = FTS5QueryBuilder.contentWords(for: text)
        guard !words.isEmpty else { return nil }
        var candidates: [String] = []
        for word in words {
            let lower = word.lowercased()
            guard lower.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) }) else {
                return []  // another script, a phrase or punctuation: not judged, so the query is words
            }
            if !isKeyboardRun(lower), modelKnows(lower) { return [] }
            candidates.append(lower)
        }
        return candidates
    }

    /// Whether `word` (lower-case) is four or more letters typed along one row of a QWERTY keyboard,
    /// each next to the one before (`asdf`, `lkjhg`, `mnbvc`, `poiuy`).
    public static func isKeyboardRun(_ word: String) -> Bool {
        let scalars = Array(word.unicodeScalars)
        guard scalars.count >= 4 else { return false }
        var previous: (row: Int, column: Int)?
        for scalar in scalars {
            guard let key = keyPositions[scalar] else { return false }
            if let previous {
                guard previous.row == key.row, abs(previous.column - key.column) == 1 else { return false }
            }
            previous = key
        }
        return true
    }

    private static let keyPositions: [Unicode.Scalar: (row: Int, column: Int)] = {
        var out: [Unicode.Scalar: (row: Int, column: Int)] = [:]
        for (row, keys) in ["qwertyuiop", "asdfghjkl", "zxcvbnm"].enumerated() {
            for (column, key) in keys.unicodeScalars.enumerated() { out[key] = (row, column) }
        }
        return out
    }()
}
