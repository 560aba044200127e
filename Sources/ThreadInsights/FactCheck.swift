import Foundation
import MailModel

/// The names, numbers and dates a summary states that its conversation does not have: what a
/// summary must never invent. Pure.
///
/// What counts as a claim:
/// - a name: a word that starts with a capital letter (or is all capitals, "FPGA"), except "I"
///   and, at the start of a sentence or a line, a common English word ("The", "Discussed"):
///   supported when the conversation has the word, in any case (its bodies, subjects, the
///   senders' and recipients' names and addresses);
/// - a month or a weekday ("Friday", "Fri", "March"): supported when the conversation names the
///   same month or day, in full or abbreviated;
/// - a number ("17", "4/17", "10:30", "1,500", "2.5"): supported when the conversation has the
///   same token (thousands separators ignored), or, for a plain number, the same number inside
///   one of its tokens ("17" of "4/17").
///
/// Numbers written as words ("three") and relative dates ("tomorrow") are not checked.
public struct FactCheck: Sendable {
    private let words: Set<String>
    private let numbers: Set<String>
    private let numberParts: Set<String>
    private let calendarNames: Set<String>

    public init(messages: [ConversationMessage]) {
        var text: [String] = []
        for m in messages {
            text.append(m.body)
            text.append(m.subject)
            for a in [m.from].compactMap({ $0 }) + m.to + m.cc {
                text.append(a.name ?? "")
                text.append(a.email)
            }
        }
        self.init(sourceText: text.joined(separator: "\n"))
    }

    /// A check against any text (the conversation as one string).
    public init(sourceText: String) {
        var words = Set<String>()
        var calendar = Set<String>()
        for w in Self.wordTokens(sourceText) {
            let lower = w.word.lowercased()
            words.insert(lower)
            if let c = Self.calendarName(lower) { calendar.insert(c) }
        }
        var numbers = Set<String>()
        var parts = Set<String>()
        for n in Self.numberTokens(sourceText) {
            numbers.insert(n)
            for p in n.split(whereSeparator: { !$0.isNumber }) { parts.insert(Self.plainNumber(String(p))) }
        }
        self.words = words
        self.numbers = numbers
        self.numberParts = parts
        self.calendarNames = calendar
    }

    /// The claims of `text` the conversation does not support, in the order they appear (each once).
    public func unsupported(in text: String) -> [String] {
        var out: [String] = []
        func add(_ s: String) { if !out.contains(s) { out.append(s) } }
        for token in Self.wordTokens(text) {
            let w = token.word
            guard let first = w.first, first.isUppercase else { continue }
            let lower = w.lowercased()
            if w == "I" { continue }
            if let c = Self.calendarName(lower) {
                if !calendarNames.contains(c) { add(w) }
                continue
            }
            if token.startsSentence, Self.commonWords.contains(lower) { continue }
            if !words.contains(lower) { add(w) }
        }
        for n in Self.numberTokens(text) {
            if numbers.contains(n) { continue }
            let isPlain = n.allSatisfy { $0.isNumber || $0 == "." }
            if isPlain, numberParts.contains(Self.plainNumber(n)) { continue }
            add(n)
        }
        return out
    }

    // MARK: Tokens

    struct WordToken {
        var word: String
        var startsSentence: Bool
    }

    /// Runs of letters (an apostrophe inside a word splits it: "Ann's" → "Ann", "s"), with whether
    /// each is the first word of a sentence, a line, a list item or a "Label:" part.
    static func wordTokens(_ text: String) -> [WordToken] {
        var tokens: [WordToken] = []
        var current = ""
        var sentenceStart = true
        func flush() {
            if !current.isEmpty {
                tokens.append(WordToken(word: current, startsSentence: sentenceStart))
                sentenceStart = false
                current = ""
            }
        }
        for c in text {
            if c.isLetter {
                current.append(c)
            } else {
                flush()
                if ".!?:;\n•*-–—\"(".contains(c) { sentenceStart = true } else if c.isNumber { sentenceStart = false }
            }
        }
        flush()
        return tokens
    }

    private static let number = try! NSRegularExpression(pattern: #"\d+(?:[.,:/-]\d+)*"#)

    /// Number tokens, thousands separators removed ("1,500" → "1500"; "1,5" stays).
    static func numberTokens(_ text: String) -> [String] {
        number.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { m -> String? in
            guard let r = Range(m.range, in: text) else { return nil }
            return normalizedNumber(String(text[r]))
        }
    }

    static func normalizedNumber(_ token: String) -> String {
        // A comma followed by exactly three digits (and then a separator or the end) groups thousands.
        let grouped = try! NSRegularExpression(pattern: #",(?=\d{3}(?:\D|$))"#)
        return grouped.stringByReplacingMatches(in: token, range: NSRange(token.startIndex..., in: token), withTemplate: "")
    }

    /// "007" and "7" are one number; "7.50" stays as written.
    static func plainNumber(_ digits: String) -> String {
        guard digits.allSatisfy(\.isNumber) else { return digits }
        let trimmed = digits.drop { $0 == "0" }
        return trimmed.isEmpty ? "0" : String(trimmed)
    }

    private static let months = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
                                 "october", "november", "december"]
    private static let days = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    /// A month's or weekday's three-letter name for its full or abbreviated form ("sept" → "sep"), else nil.
    /// In the conversation any "may" or "mar" counts as the month (lenient: the verb "may" supports "May").
    static func calendarName(_ lower: String) -> String? {
        for name in months + days {
            let short = String(name.prefix(3))
            if lower == name || lower == short || (name == "september" && lower == "sept") || (name.hasPrefix("tu") && lower == "tues")
                || (name.hasPrefix("th") && (lower == "thur" || lower == "thurs")) || (name.hasPrefix("we") && lower == "weds") {
                return short
            }
        }
        return nil
    }

    /// Words a sentence may start with that name nobody: function words and the verbs and nouns a
    /// summary of mail starts lines with.
    static let commonWords: Set<String> = [
        "a", "an", "the", "this", "that", "these", "those", "there", "here", "it", "its", "he", "she", "they", "we", "you",
        "his", "her", "their", "our", "your", "my", "me", "him", "them", "us", "who", "what", "when", "where", "which", "why",
        "how", "whether", "if", "and", "but", "or", "so", "yet", "also", "then", "after", "before", "since", "because",
        "while", "as", "at", "by", "for", "from", "in", "into", "of", "on", "to", "with", "without", "about", "over",
        "under", "between", "all", "any", "both", "each", "every", "few", "many", "most", "no", "none", "not", "one",
        "other", "others", "some", "several", "such", "only", "still", "however", "finally", "first", "next", "later",
        "meanwhile", "overall", "currently", "now", "once", "is", "are", "was", "were", "be", "been", "has", "have", "had",
        "do", "does", "did", "will", "would", "can", "could", "should", "shall", "may", "might", "must", "please", "yes",
        "thanks", "thank", "ok", "okay", "re", "fw", "fwd", "subject", "summary", "topic", "thread", "conversation",
        "discussion", "email", "emails", "message", "messages", "reply", "replies", "question", "questions", "answer",
        "issue", "issues", "problem", "problems", "request", "requests", "update", "updates", "note", "notes", "key",
        "points", "point", "action", "actions", "items", "item", "decision", "decisions", "status", "result", "results",
        "participants", "participant", "sender", "senders", "recipient", "recipients", "someone", "somebody", "everyone",
        "everybody", "nobody", "user", "users", "team", "waiting", "asked", "asks", "ask", "agreed", "agrees", "confirmed",
        "confirms", "requested", "proposed", "proposes", "suggested", "suggests", "reported", "reports", "noted", "notes",
        "mentioned", "mentions", "explained", "explains", "said", "says", "stated", "wrote", "writes", "replied",
        "responded", "discussed", "discusses", "shared", "shares", "sent", "sends", "wants", "wanted", "needs", "needed",
        "offered", "offers", "plans", "planned", "will", "unknown", "no", "none", "follow", "following", "pending", "open",
        "resolved", "unresolved", "next", "steps", "step", "outcome", "context", "background", "main", "new",
    ]
}
