import Foundation
import MailModel

/// One left-to-right pass over the tokens of a query that finds filter phrases, then a
/// resolution step for the ambiguous ones. The rules are written down in `docs/query-language.md`.
struct QueryPhraseScanner {
    private typealias Vocabulary = QueryVocabulary

    /// A recognised phrase: a run of tokens and what it does to the filters.
    private struct Phrase {
        var start: Int
        var length: Int
        var action: QueryFilterAction
        /// Ambiguous words ("read", "social", "in January") are filters only when no free text
        /// touches them on the sides that say so.
        var needsFilterBefore = false
        var needsFilterAfter = false
        var isDemoted = false
        /// A negated operator (`-from:john`).
        var isNegated = false

        var isTentative: Bool { needsFilterBefore || needsFilterAfter }
        var isNoise: Bool { if case .noise = action { return true } else { return false } }
    }

    private enum Role: Equatable {
        case text
        case filter(Int)
        case tentative(Int)
        /// A grouping mark or connective (`(`, `OR` …): transparent to the neighbour rules.
        case structure
    }

    private let tokens: [QueryToken]
    private let dates: DateExpressionParser
    private var roles: [Role]
    private var phrases: [Phrase] = []
    /// Whether "from NAME" in prose is a sender (the `from:` operator always is).
    var proseSenders = true

    init(tokens: [QueryToken], dates: DateExpressionParser) {
        self.tokens = tokens
        self.dates = dates
        self.roles = tokens.map { $0.kind == .term ? .text : .structure }
    }

    /// Runs the scan and returns the free text and the filters. The free text is the text
    /// tokens, with the negations, `OR`s and groups that hold only text, separated by single spaces;
    /// groups that hold filters become nested filters (`QueryStructure`).
    mutating func run() -> (text: String, filters: SearchFilters) {
        var index = 0
        while index < tokens.count {
            guard let phrase = phrase(at: index) else {
                index += 1
                continue
            }
            let id = phrases.count
            for k in phrase.start..<(phrase.start + phrase.length) {
                roles[k] = phrase.isTentative ? .tentative(id) : .filter(id)
            }
            phrases.append(phrase)
            index = phrase.start + phrase.length
        }
        resolveTentativePhrases()

        var units: [QueryStructure.Unit] = []
        units.reserveCapacity(tokens.count)
        for (k, token) in tokens.enumerated() {
            switch roles[k] {
            case .structure:
                switch token.kind {
                case .open(let brace): units.append(.open(brace: brace, negated: token.isNegated))
                case .close(let brace): units.append(.close(brace: brace))
                case .or: units.append(.or)
                case .and, .term: break
                }
            case .text:
                units.append(.text(k))
            case .filter(let id), .tentative(let id):
                let phrase = phrases[id]
                if phrase.isDemoted {
                    units.append(.text(k))
                } else if k == phrase.start, !phrase.isNoise {
                    units.append(.filter(phrase.action, negated: phrase.isNegated))
                }
            }
        }
        return QueryStructure(tokens: tokens).lower(units)
    }

    // MARK: - Resolution

    /// Demotes ambiguous phrases that touch free text where they must not, until nothing changes;
    /// then drops noise words unless a real filter survived.
    private mutating func resolveTentativePhrases() {
        // Sweeping forwards and then backwards carries a demotion along a whole run of
        // ambiguous words in one round, so long runs stay linear.
        var changed = true
        while changed {
            changed = false
            for id in phrases.indices where demoteIfTouchingText(id) { changed = true }
            for id in phrases.indices.reversed() where demoteIfTouchingText(id) { changed = true }
        }
        let hasRealFilter = phrases.contains { !$0.isDemoted && !$0.isNoise }
        if !hasRealFilter {
            for id in phrases.indices where phrases[id].isNoise { phrases[id].isDemoted = true }
        }
    }

    /// Demotes tentative phrase `id` when free text touches a side that must be a filter;
    /// true when it did.
    private mutating func demoteIfTouchingText(_ id: Int) -> Bool {
        let phrase = phrases[id]
        guard phrase.isTentative, !phrase.isDemoted else { return false }
        guard (phrase.needsFilterBefore && isText(neighbour(of: phrase.start, step: -1)))
            || (phrase.needsFilterAfter && isText(neighbour(of: phrase.start + phrase.length - 1, step: 1)))
        else { return false }
        phrases[id].isDemoted = true
        return true
    }

    /// True when token `k` is free text (false outside the query: its edges count as filters).
    private func isText(_ k: Int) -> Bool {
        guard k >= 0, k < tokens.count else { return false }
        switch roles[k] {
        case .text: return true
        case .filter, .structure: return false
        case .tentative(let id): return phrases[id].isDemoted
        }
    }

    /// The nearest term before (`step` -1) or after (+1) token `k`, looking through grouping marks
    /// and connectives; -1 or `tokens.count` at the query's edge.
    private func neighbour(of k: Int, step: Int) -> Int {
        var i = k + step
        while i >= 0, i < tokens.count, tokens[i].kind != .term { i += step }
        return i
    }

    // MARK: - Phrases

    /// The lower-cased word at `k`; nil for quoted or negated terms, marks and connectives.
    private func word(_ k: Int) -> String? {
        guard k >= 0, k < tokens.count, tokens[k].isWord else { return nil }
        return tokens[k].word
    }

    private func phrase(at index: Int) -> Phrase? {
        if let phrase = operatorPhrase(at: index) { return phrase }
        guard let word = word(index) else { return nil }

        if let date = dates.match(tokens, at: index), !(word == "from" && startsCapitalizedName(at: index + 1)) {
            return Phrase(start: index, length: date.length, action: .date(date.range),
                          needsFilterAfter: date.needsFilterAfter)
        }
        switch word {
        case "from":
            guard proseSenders else { return nil }
            return person(at: index + 1).map { Phrase(start: index, length: $0.length + 1, action: .sender($0.value)) }
        case "to":
            return recipientPhrase(at: index)
        case "with", "has", "have", "having", "containing":
            return attachmentPhrase(at: index)
        case "in":
            return folderOrCategoryPhrase(at: index)
        case "unread":
            return Phrase(start: index, length: 1 + mailNounCount(at: index + 1), action: .isRead(false))
        case "starred", "flagged":
            return Phrase(start: index, length: 1 + mailNounCount(at: index + 1), action: .isStarred(true))
        case "read":
            let nouns = mailNounCount(at: index + 1)
            return Phrase(start: index, length: 1 + nouns, action: .isRead(true),
                          needsFilterBefore: nouns == 0, needsFilterAfter: nouns == 0)
        default:
            break
        }
        if let category = Vocabulary.categories[word] {
            let nouns = mailNounCount(at: index + 1)
            return Phrase(start: index, length: 1 + nouns, action: .category(category),
                          needsFilterBefore: nouns == 0, needsFilterAfter: nouns == 0)
        }
        if let type = Vocabulary.attachmentTypes[word], let next = self.word(index + 1),
           next == "attachment" || next == "attachments" {
            // "pdf attachments"
            return Phrase(start: index, length: 2, action: .attachment(type: type))
        }
        if word == "attachment" || word == "attachments" {
            return Phrase(start: index, length: 1, action: .attachment(type: nil),
                          needsFilterBefore: true, needsFilterAfter: true)
        }
        if Vocabulary.mailNouns.contains(word) {
            return Phrase(start: index, length: 1, action: .noise, needsFilterBefore: true, needsFilterAfter: true)
        }
        return nil
    }

    /// 1 when a mail noun ("emails") follows, else 0.
    private func mailNounCount(at k: Int) -> Int {
        guard let word = word(k), Vocabulary.mailNouns.contains(word) else { return 0 }
        return 1
    }

    /// "to sarah", "sent to Sarah Jones", "emails to bob@example.com". A lower-case or capitalised
    /// name counts only at the start of the query or right after a filter, a mail noun or a
    /// sending verb, so "how to deploy" stays text; an email address counts anywhere.
    private func recipientPhrase(at index: Int) -> Phrase? {
        guard let person = person(at: index + 1) else { return nil }
        if let verb = word(index - 1), Vocabulary.recipientVerbs.contains(verb), roles[index - 1] == .text {
            return Phrase(start: index - 1, length: person.length + 2, action: .recipient(person.value))
        }
        let before = neighbour(of: index, step: -1)
        let licensed = before < 0
            || roles[before] != .text
            || word(before).map { Vocabulary.mailNouns.contains($0) } == true
            || person.value.contains("@")
        guard licensed else { return nil }
        return Phrase(start: index, length: person.length + 1, action: .recipient(person.value))
    }

    /// "with attachments", "has attachment", "with files", "with a pdf", "with pdf attachments".
    private func attachmentPhrase(at index: Int) -> Phrase? {
        var k = index + 1
        if let article = word(k), article == "a" || article == "an" || article == "any" { k += 1 }
        guard let noun = word(k) else { return nil }
        if Vocabulary.attachmentWords.contains(noun) {
            return Phrase(start: index, length: k - index + 1, action: .attachment(type: nil))
        }
        guard let type = Vocabulary.attachmentTypes[noun] else { return nil }
        if let after = word(k + 1), Vocabulary.attachmentWords.contains(after) { k += 1 }
        return Phrase(start: index, length: k - index + 1, action: .attachment(type: type))
    }

    /// "in sent", "in the inbox", "in promotions".
    private func folderOrCategoryPhrase(at index: Int) -> Phrase? {
        var k = index + 1
        if let article = word(k), article == "the" || article == "my" { k += 1 }
        guard let name = word(k) else { return nil }
        if Vocabulary.folders.contains(name) {
            return Phrase(start: index, length: k - index + 1, action: .folder(name))
        }
        if let category = Vocabulary.categories[name] {
            return Phrase(start: index, length: k - index + 1, action: .category(category))
        }
        return nil
    }

    // MARK: - People

    /// The person named at token `k`: an email address, a run of up to four capitalised words
    /// ("John Smith"), or one lower-case word ("sarah"). Nil when the words read as prose
    /// ("the offsite", "our team") or start another filter.
    private func person(at k: Int) -> (length: Int, value: String)? {
        guard let word = word(k), isPersonWord(word) else { return nil }
        let token = tokens[k]
        if word.contains("@") { return (1, String(token.core)) }
        guard token.isCapitalized else {
            // "to march" is not a person; "to March" may be.
            guard Vocabulary.months[word] == nil, Vocabulary.weekdays[word] == nil else { return nil }
            return (1, String(token.core))
        }
        var parts = [token.core]
        var next = k + 1
        while parts.count < 4, !tokens[next - 1].hasTrailingPunctuation, next < tokens.count,
              tokens[next].isCapitalized, isPersonWord(tokens[next].word), !tokens[next].word.contains("@") {
            parts.append(tokens[next].core)
            next += 1
        }
        return (parts.count, parts.joined(separator: " "))
    }

    /// "from April Jones" is a person, "from April" a month.
    private func startsCapitalizedName(at k: Int) -> Bool {
        guard k + 1 < tokens.count, tokens[k].isCapitalized, !tokens[k].hasTrailingPunctuation,
              Vocabulary.months[tokens[k].word] != nil,
              tokens[k + 1].isCapitalized, isPersonWord(tokens[k + 1].word) else { return false }
        return true
    }

    private func isPersonWord(_ word: String) -> Bool {
        guard !word.isEmpty, !Vocabulary.stopWords.contains(word), !Vocabulary.filterWords.contains(word),
              !Vocabulary.mailNouns.contains(word) else { return false }
        var hasLetter = false
        for scalar in word.unicodeScalars {
            if scalar.properties.isAlphabetic {
                hasLetter = true
            } else if !(scalar.properties.numericType != nil || "._-'+&@".unicodeScalars.contains(scalar)) {
                return false
            }
        }
        return hasLetter
    }

    // MARK: - Operators

    /// Gmail-style operators: `from:`, `to:`, `cc:`, `bcc:`, `subject:`, `has:`, `filename:`,
    /// `larger:`, `smaller:`, `size:`, `category:`, `is:`, `in:`, `label:`, `after:`, `before:`,
    /// `older_than:`, `newer_than:`.
    /// A value may be quoted (`from:"John Smith"`) or follow after a space (`subject: budget`).
    /// A leading `-` negates the operator (`-from:john`, `-is:unread`). An unknown operator or a
    /// value that does not parse leaves the token as text.
    private func operatorPhrase(at index: Int) -> Phrase? {
        let token = tokens[index]
        guard token.kind == .term else { return nil }
        let raw = token.isNegated ? token.raw.dropFirst() : token.raw
        guard let colon = raw.firstIndex(of: ":") else { return nil }
        let name = raw[..<colon]
        guard name.utf8.count >= 2, name.utf8.count <= 10 else { return nil }
        let lowerName = name.lowercased()
        var rawValue = raw[raw.index(after: colon)...]
        var length = 1
        if rawValue.isEmpty {
            guard index + 1 < tokens.count, tokens[index + 1].kind == .term, !tokens[index + 1].isNegated else { return nil }
            rawValue = tokens[index + 1].raw
            length = 2
        }
        let value = Self.cleanOperatorValue(rawValue)
        guard !value.isEmpty else { return nil }
        let lower = value.lowercased()
        let action: QueryFilterAction
        switch lowerName {
        case "from": action = .sender(value)
        case "to", "cc", "bcc": action = .recipient(value)
        case "subject": action = .subject(value)
        case "has":
            if Vocabulary.attachmentWords.contains(lower) {
                action = .attachment(type: nil)
            } else if let type = Vocabulary.attachmentTypes[lower] ?? Vocabulary.operatorAttachmentTypes[lower] {
                action = .attachment(type: type)
            } else {
                return nil
            }
        case "filename":
            // Gmail's: part of the name ("filename:budget", "filename:q3-budget.xlsx", "filename:pdf").
            action = .attachmentName(lower)
        case "larger", "smaller", "size":
            guard let bytes = Self.byteCount(lower) else { return nil }
            action = lowerName == "smaller" ? .size(min: nil, max: bytes) : .size(min: bytes, max: nil)
        case "category":
            guard let category = Vocabulary.categories[lower] else { return nil }
            action = .category(category)
        case "is":
            switch lower {
            case "unread": action = .isRead(false)
            case "read": action = .isRead(true)
            case "starred": action = .isStarred(true)
            case "unstarred": action = .isStarred(false)
            default: return nil
            }
        case "in", "label": action = .folder(lower)
        case "after", "before":
            guard let range = dates.operatorDate(lower, isAfter: lowerName == "after") else { return nil }
            action = .date(range)
        case "older_than", "newer_than":
            guard let range = dates.operatorAge(lower, isOlder: lowerName == "older_than") else { return nil }
            action = .date(range)
        default:
            return nil
        }
        return Phrase(start: index, length: length, action: action, isNegated: token.isNegated)
    }

    /// The operator value without trailing punctuation and without quotes, trimmed.
    /// A size as Gmail writes it: bytes ("500000"), or a number with K, M or G (KB, MB, GB;
    /// binary multiples: 10M is 10 × 1,048,576 bytes), fractions allowed ("1.5M"). Nil otherwise.
    static func byteCount(_ text: String) -> Int? {
        var digits = text.lowercased()
        if digits.hasSuffix("b") { digits.removeLast() }
        var multiplier = 1.0
        switch digits.last {
        case "k": multiplier = 1024
        case "m": multiplier = 1024 * 1024
        case "g": multiplier = 1024 * 1024 * 1024
        default: break
        }
        if multiplier > 1 { digits.removeLast() }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              let value = Double(digits), value.isFinite, value >= 0, value * multiplier < 1e15 else { return nil }
        return Int((value * multiplier).rounded())
    }

    private static func cleanOperatorValue(_ raw: Substring) -> String {
        var scalars = raw.unicodeScalars[...]
        while let last = scalars.last, ",;.!?)]".unicodeScalars.contains(last) {
            scalars = scalars.dropLast()
        }
        var value = String.UnicodeScalarView()
        for scalar in scalars where !QueryTokenizer.isQuote(scalar) {
            value.append(scalar)
        }
        return String(value).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
