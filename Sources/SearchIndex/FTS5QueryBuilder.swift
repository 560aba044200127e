/// Turns query text into safe FTS5 expressions (E-08), and says which terms were searched how.
///
/// The text is the free text of a parsed query, in the query language of
/// `docs/query-language.md`: words, double-quoted phrases, `-` before a word, phrase or group to
/// exclude it, `OR` (upper case) between alternatives, parentheses for grouping and `{a b}` for
/// "a OR b". OR binds tighter than the implicit AND, as in Gmail. Every word becomes a quoted
/// FTS5 string (`"proj"*`), so FTS5 syntax typed by the user (`AND`, `NOT`, `NEAR`, `^`, `:`,
/// `*`, column names) is plain words; only this builder writes FTS5's `AND`, `OR`, `NOT` and
/// parentheses. Words with no letter or digit are dropped, because unicode61 would index nothing
/// for them. Malformed input never fails: a dangling `OR`, an unbalanced parenthesis or a `-`
/// that does not start a word is ignored, and a hyphen inside a word (`e-mail`) is not a negation.
///
/// FTS5's NOT is binary, so text made only of exclusions (`-draft`) cannot be a MATCH: it yields
/// an `exclusion` expression instead, whose matches a filter removes (`EmailFilterSQL`).
public enum FTS5QueryBuilder {
    /// The longest query text considered; the rest is ignored (10 KB of pasted text must not hang).
    public static let maximumInputLength = 1_000
    /// At most this many terms reach FTS5.
    public static let maximumTerms = 32
    /// Groups nest at most this deep; deeper parentheses and braces are ignored (their content stays).
    public static let maximumDepth = 8

    /// One word or phrase of the query, with how it is searched.
    public struct Term: Hashable, Sendable {
        /// The text of the term, without quotes.
        public var text: String
        public var isPhrase: Bool
        /// Matched as a prefix (`"proj"*`); for a phrase, its last word is.
        public var isPrefix: Bool
        /// Under a negation (`-draft`): mail containing it is excluded. Such a term is never
        /// highlighted and never reaches the semantic ranker.
        public var isNegated: Bool

        public init(text: String, isPhrase: Bool, isPrefix: Bool = false, isNegated: Bool = false) {
            self.text = text
            self.isPhrase = isPhrase
            self.isPrefix = isPrefix
            self.isNegated = isNegated
        }
    }

    /// A compiled query text.
    public struct Query: Hashable, Sendable {
        /// The MATCH expression that finds (and ranks) the mail, exclusions included
        /// (`"report"* NOT "draft"*`); nil when the text has no positive term.
        public var match: String?
        /// When `match` is nil: an expression whose matches must be left out (the text was only
        /// exclusions, `-draft`); nil otherwise.
        public var exclusion: String?
        /// Every term, in the order typed.
        public var terms: [Term]

        /// The terms that are looked for (not negated), in order: what highlighting marks.
        public var positiveTerms: [Term] { terms.filter { !$0.isNegated } }

        /// The positive words and phrases joined by spaces, without quotes, `OR`, negated terms or
        /// parentheses: the text for the semantic ranker ("" when there is none).
        public var semanticText: String { positiveTerms.map(\.text).joined(separator: " ") }

        /// True when the text constrains nothing (no searchable term).
        public var isEmpty: Bool { match == nil && exclusion == nil }
    }

    /// English function words matched exactly rather than as prefixes (except as the last word).
    public static let stopWords: WordList = [
        "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "he", "i", "in", "is",
        "it", "its", "of", "on", "or", "she", "that", "the", "their", "them", "then", "there", "these", "they",
        "this", "to", "was", "we", "were", "will", "with", "you", "your",
    ]

    /// Function and question words a person's question is full of ("how do i…", "does it…"): with
    /// `stopWords`, left out of `anyWordExpression`.
    public static let questionWords: WordList = [
        "about", "all", "any", "been", "but", "can", "could", "did", "do", "does", "get", "got", "had", "her",
        "here", "his", "how", "if", "into", "just", "may", "me", "might", "must", "my", "no", "not", "our",
        "over", "shall", "should", "so", "some", "than", "those", "under", "us", "what", "when", "where", "which",
        "who", "whom", "why", "would", "yes",
    ]

    /// The words `text` looks for, in order, each once: exact words as the keyword index has them
    /// (phrases as phrases), lower-cased, without function and question words or single characters.
    public static func contentWords(for text: String) -> [String] {
        var seen = Set<String>()
        var out: [String] = []
        for term in query(for: text, prefix: false).positiveTerms {
            let words = term.isPhrase ? [term.text] : term.text.split(whereSeparator: { character in
                !character.unicodeScalars.allSatisfy(isTokenCharacter)
            }).map(String.init)
            for word in words {
                let key = word.lowercased()
                guard key.count > 1, !stopWords.contains(key), !questionWords.contains(key), seen.insert(key).inserted
                else { continue }
                out.append(word)
            }
        }
        return out
    }

    /// An expression matching mail that has any of the words the text looks for (`contentWords`:
    /// exact words, not prefixes; phrases as phrases), or nil when none is left.
    public static func anyWordExpression(for text: String) -> String? {
        agreementExpression(for: text, minimumWords: 1)
    }

    /// An expression matching mail that has at least `minimumWords` of the words the text looks
    /// for (`contentWords`) when it looks for three or more, any one of them otherwise; nil when
    /// none is left: the keyword side's say on semantic near misses (`SearchEmailsUseCase`,
    /// `SemanticRelevance.agreementWords`). One word of a longer question in common is chance
    /// ("purple elephant on jupiter" and a thread about the Jupiter synthesizer); two are not. A
    /// query of two words has its mail with both among the keyword matches already. Only the first
    /// `maximumAgreementWords` words count, so that the expression stays small.
    public static func agreementExpression(for text: String, minimumWords: Int) -> String? {
        let words = contentWords(for: text).prefix(maximumAgreementWords).map {
            "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        guard !words.isEmpty else { return nil }
        let need = words.count >= 3 ? max(1, min(minimumWords, words.count)) : 1
        if need == 1 { return words.joined(separator: " OR ") }
        if need == words.count { return words.joined(separator: " AND ") }
        var groups: [String] = []
        func choose(_ start: Int, _ picked: [String]) {
            if picked.count == need { groups.append("(" + picked.joined(separator: " AND ") + ")"); return }
            guard start < words.count, words.count - start >= need - picked.count else { return }
            for i in start..<words.count { choose(i + 1, picked + [words[i]]) }
        }
        choose(0, [])
        return groups.joined(separator: " OR ")
    }

    /// How many of a query's words `agreementExpression` looks at.
    public static let maximumAgreementWords = 10

    /// Compiles `text`.
    /// - Parameter prefix: allow prefix matching (search-as-you-type, FR-SEARCH-06). The last term
    ///   is a prefix whatever its length, since it is the word being typed (a phrase whose closing
    ///   quote is missing too, on its last word); an earlier word is a prefix unless it is a stop
    ///   word or its last run of letters and digits has fewer than three (`month's`, `q3`), which
    ///   would expand to thousands of words. A negated last word follows the rule of earlier words.
    public static func query(for text: String, prefix: Bool = true) -> Query {
        var lexer = Lexer(text)
        lexer.run()
        var parser = Parser(tokens: balanced(lexer.tokens))
        let root = Node.and(parser.sequence())
        var terms = lexer.terms
        markNegated(root, negated: false, terms: &terms)
        for i in terms.indices {
            terms[i].isPrefix = prefix && isPrefix(terms[i], isLast: i == terms.count - 1)
        }
        let part = compile(root, terms: terms)
        if let match = part.expression {
            return Query(match: match.text, exclusion: nil, terms: terms)
        }
        return Query(match: nil, exclusion: part.negative?.text, terms: terms)
    }

    /// The terms of `text` as they will be searched, in order.
    public static func terms(of text: String) -> [Term] { query(for: text).terms }

    /// The MATCH expression, or nil when the text has no positive term (see `exclusionExpression`).
    public static func matchExpression(for text: String, prefix: Bool = true) -> String? {
        query(for: text, prefix: prefix).match
    }

    /// For text made only of exclusions (`-draft`): the expression whose matches are left out.
    public static func exclusionExpression(for text: String) -> String? { query(for: text).exclusion }

    /// The positive words for the semantic ranker: no `OR`, no negated terms, no parentheses.
    public static func semanticText(for text: String) -> String { query(for: text).semanticText }

    private static func isPrefix(_ term: Term, isLast: Bool) -> Bool {
        if isLast && !term.isNegated { return !term.isPhrase || term.isPrefix }
        guard !term.isPhrase else { return false }
        return !stopWords.contains(term.text.lowercased()) && lastFragmentLength(term.text) >= 3
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

    /// Whether `scalar` belongs to a script written without spaces between words (Han, kana,
    /// Hangul, Bopomofo): the index's tokenizer (`ms_tokenizer.c`, the same ranges) makes overlapping
    /// bigrams of such runs, so a word inside one is found, and highlighting treats each such
    /// character as a word of its own.
    @inline(__always)
    public static func isCJK(_ scalar: Unicode.Scalar) -> Bool {
        let c = scalar.value
        guard c >= 0x1100 else { return false }
        return (0x3040...0x30FF).contains(c) || (0x3005...0x3007).contains(c) || (0x31F0...0x31FF).contains(c)
            || (0x3100...0x312F).contains(c) || (0x3130...0x318F).contains(c) || (0x3400...0x4DBF).contains(c)
            || (0x4E00...0x9FFF).contains(c) || (0xAC00...0xD7AF).contains(c) || (0x1100...0x11FF).contains(c)
            || (0xF900...0xFAFF).contains(c) || (0xFF66...0xFF9F).contains(c) || (0x20000...0x3FFFF).contains(c)
    }

    /// The folds the index's tokenizer applies after unicode61's (`ms_tokenizer.c`): ß → ss, æ → ae,
    /// œ → oe, ø → o, đ → d, ł → l, ħ → h, ı → i, þ → th, the ﬀ–ﬆ ligatures, full-width Latin
    /// letters and digits → ASCII. `text` is already lower-cased; text without these is returned as is.
    public static func foldBeyondUnicode61(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { extraFolds[$0] != nil || (0xFF10...0xFF5A).contains($0.value) })
        else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if let replacement = extraFolds[scalar] {
                out.append(contentsOf: replacement.unicodeScalars)
            } else if (0xFF10...0xFF19).contains(scalar.value) || (0xFF21...0xFF3A).contains(scalar.value)
                        || (0xFF41...0xFF5A).contains(scalar.value) {
                let v = scalar.value
                let ascii = v <= 0xFF19 ? 0x30 + v - 0xFF10 : v <= 0xFF3A ? 0x61 + v - 0xFF21 : 0x61 + v - 0xFF41
                out.append(Unicode.Scalar(ascii)!)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    private static let extraFolds: [Unicode.Scalar: String] = [
        "\u{DF}": "ss", "\u{1E9E}": "ss", "\u{E6}": "ae", "\u{C6}": "ae", "\u{153}": "oe", "\u{152}": "oe",
        "\u{F8}": "o", "\u{D8}": "o", "\u{111}": "d", "\u{110}": "d", "\u{142}": "l", "\u{141}": "l",
        "\u{127}": "h", "\u{126}": "h", "\u{131}": "i", "\u{FE}": "th", "\u{DE}": "th",
        "\u{FB00}": "ff", "\u{FB01}": "fi", "\u{FB02}": "fl", "\u{FB03}": "ffi", "\u{FB04}": "ffl",
        "\u{FB05}": "st", "\u{FB06}": "st",
    ]

    /// Straight and curly double quotes delimit phrases.
    @inline(__always)
    public static func isQuote(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\"" || scalar == "\u{201C}" || scalar == "\u{201D}"
    }

    /// Whether a `-` followed by `next` negates: it must start a word, a phrase or a group.
    /// `e-mail`, `2024-03-01` (inside a word), `- x` and `--x` are not negations.
    @inline(__always)
    public static func negationApplies(before next: Unicode.Scalar) -> Bool {
        isTokenCharacter(next) || isQuote(next) || next == "(" || next == "{"
    }

    // MARK: - Lexing

    enum Token {
        case term(Int, negated: Bool)
        case open(brace: Bool, negated: Bool)
        case close(brace: Bool)
        case or
    }

    private struct Lexer {
        let scalars: [Unicode.Scalar]
        var index = 0
        var tokens: [Token] = []
        var terms: [Term] = []

        init(_ text: String) {
            scalars = Array(text.unicodeScalars.prefix(maximumInputLength))
        }

        static func isSpace(_ s: Unicode.Scalar) -> Bool {
            // A NUL would end the FTS5 string early; control characters never index anyway.
            if s.value < 0x80 { return s.value <= 0x20 || s.value == 0x7F }
            return s.properties.isWhitespace || s.properties.generalCategory == .control
        }

        static func isStructural(_ s: Unicode.Scalar) -> Bool {
            s == "(" || s == ")" || s == "{" || s == "}"
        }

        mutating func run() {
            let n = scalars.count
            while index < n {
                var s = scalars[index]
                if Self.isSpace(s) { index += 1; continue }
                var negated = false
                if s == "-", index + 1 < n, negationApplies(before: scalars[index + 1]) {
                    negated = true
                    index += 1
                    s = scalars[index]
                }
                if s == "(" || s == "{" {
                    tokens.append(.open(brace: s == "{", negated: negated))
                    index += 1
                } else if s == ")" || s == "}" {
                    tokens.append(.close(brace: s == "}"))
                    index += 1
                } else if isQuote(s) {
                    index += 1
                    var phrase = String.UnicodeScalarView()
                    var closed = false
                    while index < n {
                        let c = scalars[index]
                        index += 1
                        if isQuote(c) { closed = true; break }
                        phrase.append(Self.isSpace(c) ? " " : c)
                    }
                    addTerm(String(phrase), isPhrase: true, isOpen: !closed, negated: negated)
                } else {
                    var word = String.UnicodeScalarView()
                    while index < n {
                        let c = scalars[index]
                        if Self.isSpace(c) || isQuote(c) || Self.isStructural(c) { break }
                        word.append(c)
                        index += 1
                    }
                    let text = String(word)
                    if !negated && text == "OR" {
                        tokens.append(.or)
                    } else if !negated && text == "AND" {
                        continue // Gmail's explicit AND is the implicit one
                    } else {
                        addTerm(text, isPhrase: false, isOpen: false, negated: negated)
                    }
                }
            }
        }

        mutating func addTerm(_ text: String, isPhrase: Bool, isOpen: Bool, negated: Bool) {
            guard terms.count < maximumTerms, text.unicodeScalars.contains(where: isTokenCharacter) else { return }
            // An unterminated phrase is still being typed: its last word may be a prefix (if it is last).
            tokens.append(.term(terms.count, negated: negated))
            terms.append(Term(text: text, isPhrase: isPhrase, isPrefix: isPhrase && isOpen))
        }
    }

    /// Drops closing marks that close nothing or the wrong kind of group, and groups nested deeper
    /// than `maximumDepth` (their content stays). Groups left open run to the end of the text.
    static func balanced(_ tokens: [Token]) -> [Token] {
        var out: [Token] = []
        out.reserveCapacity(tokens.count)
        var stack: [(brace: Bool, kept: Bool)] = []
        var depth = 0
        for token in tokens {
            switch token {
            case .open(let brace, _):
                let keep = depth < maximumDepth
                stack.append((brace, keep))
                if keep { depth += 1; out.append(token) }
            case .close(let brace):
                guard let top = stack.last, top.brace == brace else { continue }
                stack.removeLast()
                if top.kept { depth -= 1; out.append(token) }
            case .term, .or:
                out.append(token)
            }
        }
        return out
    }

    // MARK: - Parsing

    indirect enum Node {
        case term(Int)
        case and([Node])
        case or([Node])
        case not(Node)
    }

    /// query := item*; item := unary (OR unary)*; unary := term | -unary | ( query ) | { query }.
    struct Parser {
        let tokens: [Token]
        var position = 0

        init(tokens: [Token]) { self.tokens = tokens }

        /// Items up to the end or the closing mark of the current group (consumed).
        mutating func sequence() -> [Node] {
            var items: [Node] = []
            while position < tokens.count {
                switch tokens[position] {
                case .close:
                    position += 1
                    return items
                case .or:
                    position += 1 // no left operand: ignored
                case .term, .open:
                    var alternatives = [unary()]
                    while position < tokens.count, case .or = tokens[position] {
                        while position < tokens.count, case .or = tokens[position] { position += 1 }
                        guard position < tokens.count, startsOperand(tokens[position]) else { break }
                        alternatives.append(unary())
                    }
                    items.append(alternatives.count == 1 ? alternatives[0] : .or(alternatives))
                }
            }
            return items
        }

        private func startsOperand(_ token: Token) -> Bool {
            switch token {
            case .term, .open: return true
            case .close, .or: return false
            }
        }

        private mutating func unary() -> Node {
            let token = tokens[position]
            position += 1
            switch token {
            case .term(let index, let negated):
                return negated ? .not(.term(index)) : .term(index)
            case .open(let brace, let negated):
                let items = sequence()
                let node: Node = brace ? .or(items) : .and(items)
                return negated ? .not(node) : node
            case .close, .or:
                return .and([])
            }
        }
    }

    private static func markNegated(_ node: Node, negated: Bool, terms: inout [Term]) {
        switch node {
        case .term(let i): terms[i].isNegated = negated
        case .and(let items), .or(let items): for item in items { markNegated(item, negated: negated, terms: &terms) }
        case .not(let inner): markNegated(inner, negated: !negated, terms: &terms)
        }
    }

    // MARK: - Compiling

    /// An FTS5 expression; `atomic` when it is a single phrase that needs no parentheses.
    struct Expression {
        var text: String
        var atomic: Bool

        var operand: String { atomic ? text : "(" + text + ")" }

        static func and(_ items: [Expression]) -> Expression? {
            guard items.count > 1 else { return items.first }
            if items.allSatisfy(\.atomic) {
                return Expression(text: items.map(\.text).joined(separator: " "), atomic: false)
            }
            return Expression(text: items.map(\.operand).joined(separator: " AND "), atomic: false)
        }

        static func or(_ items: [Expression]) -> Expression? {
            guard items.count > 1 else { return items.first }
            return Expression(text: items.map(\.operand).joined(separator: " OR "), atomic: false)
        }

        static func not(_ positive: Expression, _ negative: Expression) -> Expression {
            Expression(text: positive.operand + " NOT " + negative.operand, atomic: false)
        }
    }

    /// What a node matches: `positive` AND NOT `negative`; a nil `positive` means all mail.
    /// Every node has this form, so any nesting of `-`, OR and groups compiles exactly.
    struct Part {
        var positive: Expression?
        var negative: Expression?

        var isEmpty: Bool { positive == nil && negative == nil }

        /// The part as one expression (only when it has a positive side).
        var expression: Expression? {
            guard let positive else { return nil }
            guard let negative else { return positive }
            return .not(positive, negative)
        }
    }

    static func compile(_ node: Node, terms: [Term]) -> Part {
        switch node {
        case .term(let i):
            let term = terms[i]
            // Terms hold no quote (quotes delimit phrases), so the FTS5 string needs no escaping.
            let quoted = "\"" + term.text + "\"" + (term.isPrefix ? "*" : "")
            return Part(positive: Expression(text: quoted, atomic: true), negative: nil)
        case .not(let inner):
            let part = compile(inner, terms: terms)
            // not(p AND NOT n) = NOT (p NOT n); not(NOT n) = n.
            if let expression = part.expression { return Part(positive: nil, negative: expression) }
            return Part(positive: part.negative, negative: nil)
        case .and(let items):
            let parts = items.map { compile($0, terms: terms) }.filter { !$0.isEmpty }
            // AND of (p_i NOT n_i) = (AND p_i) NOT (OR n_i).
            return Part(positive: .and(parts.compactMap(\.positive)), negative: .or(parts.compactMap(\.negative)))
        case .or(let items):
            let parts = items.map { compile($0, terms: terms) }.filter { !$0.isEmpty }
            let whole = parts.compactMap(\.expression)
            let exclusionsOnly = parts.filter { $0.positive == nil }.compactMap(\.negative)
            guard let excluded = Expression.and(exclusionsOnly) else {
                return Part(positive: .or(whole), negative: nil)
            }
            // (NOT n1) OR (NOT n2) OR r = NOT ((n1 AND n2) NOT r).
            guard let rest = Expression.or(whole) else { return Part(positive: nil, negative: excluded) }
            return Part(positive: nil, negative: .not(excluded, rest))
        }
    }
}
