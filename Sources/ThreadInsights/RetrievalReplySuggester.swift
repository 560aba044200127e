import Embedding
import Foundation

/// One reply of the curated set.
public struct CannedReply: Sendable, Hashable {
    public var intent: String
    public var text: String

    public init(intent: String, text: String) {
        self.intent = intent
        self.text = text
    }
}

/// The curated replies (`Resources/replies.tsv`: `intent<TAB>reply`, `#` comments), 232 in
/// 13 intents: 200 written for it, 32 short replies people sent in the email corpora, names and
/// numbers removed (`scripts/eval/mine_short_replies.py`); `ReplyBankTests` holds the docs to these counts.
public enum ReplyBank {
    public static let replies: [CannedReply] = parse(String(decoding: PackageResources.replies_tsv, as: UTF8.self))

    public static func parse(_ text: String) -> [CannedReply] {
        text.split(separator: "\n").compactMap { line in
            if line.hasPrefix("#") { return nil }
            let parts = line.split(separator: "\t", maxSplits: 1)
            guard parts.count == 2 else { return nil }
            return CannedReply(intent: String(parts[0]), text: String(parts[1]).trimmingCharacters(in: .whitespaces))
        }
    }
}

/// How many emails of the mailbox hold each word of the curated replies: the document frequencies
/// of the ranker's lexical part (from the search index, `SearchIndexManager.documentFrequencies`).
public struct ReplyWordStatistics: Sendable, Hashable {
    /// Emails in the index.
    public var documents: Int
    /// Emails holding each word (lower-cased, as the index folds it); a word not here is in none.
    public var frequencies: [String: Int]

    public init(documents: Int, frequencies: [String: Int]) {
        self.documents = documents
        self.frequencies = frequencies
    }

    /// The frequencies of `words` in `texts`, each text a document (for mail that has no index:
    /// the benchmarks and tests).
    public init(counting texts: [String], words: Set<String>) {
        var frequencies: [String: Int] = [:]
        for text in texts {
            for word in Set(RetrievalReplySuggester.words(text)) where words.contains(word) { frequencies[word, default: 0] += 1 }
        }
        self.init(documents: texts.count, frequencies: frequencies)
    }

    /// Smoothed idf, as scikit-learn's and `scripts/eval/reply_selection.py`'s TF-IDF.
    func idf(_ word: String) -> Double {
        log(Double(1 + documents) / Double(1 + (frequencies[word] ?? 0))) + 1
    }
}

/// Smart Reply by retrieval (Henderson et al., 2017, "Efficient Natural Language Response
/// Suggestion for Smart Reply"), with MiniLM as the shared encoder: the curated replies are
/// embedded once per process; a message that asks or requests something (a question, "could you",
/// "please", "can we", …) gets the three best replies of three different intents.
///
/// The ranker: over the replies the message gives occasion for, each reply's semantic score
/// `blend`·cos(message, reply) + (1 − `blend`)·cos(message, the intent's centroid) and its lexical
/// score (the TF-IDF cosine of message and reply: sublinear tf, smoothed idf from the mailbox's
/// `wordStatistics`) are standardized over those replies (mean 0, deviation 1) and added,
/// the lexical one weighted by `lexicalWeight`. Fitted and judged leave-one-set-out by
/// `scripts/eval/reply_ranker.py` (the true reply among 100): above TF-IDF and MiniLM alone on each
/// held-out set (README). Without `wordStatistics` the ranking is the semantic score alone. A
/// message that asks nothing gets none.
public final class RetrievalReplySuggester: ReplySuggester, @unchecked Sendable {
    public let embedder: any Embedder
    public let replies: [CannedReply]
    public var count = 3
    public var blend = 0.8
    /// The lexical score's weight (`scripts/eval/reply_ranker.py`: 0.3–0.55 fitted without each set).
    public var lexicalWeight = 0.5
    /// Document frequencies of the replies' words in the mailbox; nil: semantic ranking alone.
    /// Set it before the suggester is shared between threads.
    public var wordStatistics: ReplyWordStatistics? {
        didSet { replyWeights = wordStatistics.map { statistics in replies.map { Self.weights($0.text, statistics) } } }
    }
    /// Each reply's TF-IDF vector, normalized (from `wordStatistics`).
    private var replyWeights: [[String: Double]]?
    /// Whether replies are limited to the intents the email gives occasion for (`ReplyIntents`).
    public var gatesIntents = true

    /// Whether each reply speaks of meeting (`ReplyIntents.speaksOfMeeting`), decided once.
    private let speaksOfMeeting: [Bool]

    private let lock = NSLock()
    private var replyVectors: [[Float]]?
    private var intentCentroids: [String: [Float]] = [:]

    public init(embedder: any Embedder, replies: [CannedReply] = ReplyBank.replies) {
        self.embedder = embedder
        self.replies = replies
        speaksOfMeeting = replies.map { ReplyIntents.speaksOfMeeting($0.text) }
    }

    /// Embeds the replies now (the first suggestion would otherwise).
    public func warmUp() throws { _ = try vectors() }

    /// The words of the curated replies (what `wordStatistics` needs frequencies of).
    public var replyWords: Set<String> { Set(replies.flatMap { Self.words($0.text) }) }

    /// Lower-cased runs of ASCII letters and digits (the eval's tokens; the index's for ASCII words).
    static func words(_ text: String) -> [String] {
        text.lowercased().split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }.map(String.init)
    }

    /// What the ranker's name says about it, for `ReplySuggestions.method`.
    var method: String { wordStatistics == nil ? "retrieval-minilm" : "retrieval-minilm+tfidf" }

    private func vectors() throws -> ([[Float]], [String: [Float]]) {
        try lock.withLock {
            if let replyVectors { return (replyVectors, intentCentroids) }
            let vectors = try embedder.embed(replies.map(\.text))
            var groups: [String: [[Float]]] = [:]
            for (r, v) in zip(replies, vectors) { groups[r.intent, default: []].append(v) }
            intentCentroids = groups.mapValues { ExtractiveSummarizer.normalized(ExtractiveSummarizer.mean($0)) }
            replyVectors = vectors
            return (vectors, intentCentroids)
        }
    }

    public func suggest(for message: ConversationMessage) throws -> ReplySuggestions {
        let cleaned = MessageCleaner.clean(message.body)
        let triggers = cleaned.sentences.filter { ($0.isQuestion || $0.isRequest) && $0.kind == .prose }
        let spans = triggers.map {
            SourceSpan(emailId: message.emailId, author: message.author, start: $0.start, end: $0.end)
        }
        guard !triggers.isEmpty else {
            return ReplySuggestions(emailId: message.emailId, triggered: false, triggers: [], suggestions: [],
                                    method: method)
        }
        // The lexical part reads the prose only: a word of a log or a command ("… Done") is no
        // reason to offer "All done."
        let prose = cleaned.sentences.filter(\.isProse).map(\.text).joined(separator: " ")
        return ReplySuggestions(emailId: message.emailId, triggered: true, triggers: spans,
                                suggestions: try rank(cleaned.text, lexicalText: prose), method: method)
    }

    /// The best `count` replies of distinct intents for a cleaned text, among the intents the
    /// text gives occasion for (`ReplyIntents.allowed`); the lexical score reads `lexicalText`
    /// when given (the prose of the text), else the text.
    public func rank(_ text: String, lexicalText: String? = nil) throws -> [ReplySuggestion] {
        let (vectors, centroids) = try vectors()
        guard let query = try embedder.embed([text]).first else { return [] }
        let allowed = gatesIntents ? ReplyIntents.allowed(for: text) : ReplyIntents.all
        // A reply of another intent that speaks of meeting ("Unfortunately I can't make it.") needs
        // talk of meeting as much as a meeting time does.
        let pool = replies.indices.filter {
            allowed.contains(replies[$0].intent) && (allowed.contains("schedule") || !speaksOfMeeting[$0])
        }
        let semantic = pool.map { i -> Double in
            let intent = ExtractiveSummarizer.dot(query, centroids[replies[i].intent] ?? [])
            return blend * ExtractiveSummarizer.dot(query, vectors[i]) + (1 - blend) * intent
        }
        var combined = semantic
        if let wordStatistics, let replyWeights {
            let lexical = Self.lexicalScores(lexicalText ?? text, replies: pool.map { replyWeights[$0] }, statistics: wordStatistics)
            combined = zip(Self.standardized(semantic), Self.standardized(lexical)).map { $0 + lexicalWeight * $1 }
        }
        let scored = zip(pool, combined).sorted { $0.1 > $1.1 }
        var result: [ReplySuggestion] = []
        var intents: Set<String> = []
        for (i, score) in scored where !intents.contains(replies[i].intent) {
            intents.insert(replies[i].intent)
            result.append(ReplySuggestion(text: replies[i].text, intent: replies[i].intent, score: (score * 1000).rounded() / 1000))
            if result.count == count { break }
        }
        return result
    }

    /// A reply's TF-IDF vector: (1 + ln tf)·idf per word, over its norm.
    static func weights(_ reply: String, _ statistics: ReplyWordStatistics) -> [String: Double] {
        var counts: [String: Int] = [:]
        for word in words(reply) { counts[word, default: 0] += 1 }
        let weights = counts.mapValues { (1 + log(Double($0))) }.map { ($0.key, $0.value * statistics.idf($0.key)) }
        let norm = weights.reduce(0) { $0 + $1.1 * $1.1 }.squareRoot()
        return Dictionary(uniqueKeysWithValues: weights.map { ($0.0, norm > 0 ? $0.1 / norm : 0) })
    }

    /// The TF-IDF cosine of `text` with each reply, up to a factor common to all of them (the
    /// text's own norm, which standardizing removes): Σ over shared words of
    /// (1 + ln tf_text)·idf times the reply's weight.
    static func lexicalScores(_ text: String, replies: [[String: Double]], statistics: ReplyWordStatistics) -> [Double] {
        var counts: [String: Int] = [:]
        for word in words(text) { counts[word, default: 0] += 1 }
        let own = counts.mapValues { 1 + log(Double($0)) }
        return replies.map { reply in
            reply.reduce(0) { sum, entry in sum + (own[entry.key].map { $0 * statistics.idf(entry.key) * entry.value } ?? 0) }
        }
    }

    /// Mean 0, deviation 1 (population); all zeros when the values do not differ.
    static func standardized(_ values: [Double]) -> [Double] {
        guard !values.isEmpty else { return [] }
        let mean = values.reduce(0, +) / Double(values.count)
        let deviation = (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)).squareRoot()
        return values.map { ($0 - mean) / (deviation + 1e-6) }
    }
}

/// Which intents of the curated replies an email gives occasion for. Most fit any question or
/// request ("Thanks, I'll look into it", "Not yet"); two only fit what the email is about: a
/// congratulation needs news to congratulate on (a promotion, a new job, a birth, an award…), a
/// meeting time needs talk of meeting (a meeting, a phone call, being free at a time; a weekday
/// alone or a function "call" is not). On real list mail, a technical question ("Reshape a sparse
/// matrix") was otherwise offered "Can we meet on Monday?" and "Welcome aboard!". The words were
/// chosen on usrp-users' questions and judged on the SpamAssassin list archive and Enron (README).
public enum ReplyIntents {
    public static let all: Set<String> = ["ack", "apology", "congrats", "help", "later", "moreinfo", "no", "opinion",
                                          "schedule", "sent", "status", "thanks", "yes"]

    public static func allowed(for text: String) -> Set<String> {
        var intents = all
        // Words inside addresses and links say nothing of the email ("skip@calendar.com").
        let text = text.split(whereSeparator: \.isWhitespace)
            .filter { !($0.contains("@") || $0.contains("://") || $0.lowercased().hasPrefix("www.")) }
            .joined(separator: " ")
        if !MessageCleaner.matches(newsExpression, text) { intents.remove("congrats") }
        if !MessageCleaner.matches(meetingExpression, text) { intents.remove("schedule") }
        return intents
    }

    /// Whether a reply speaks of meeting: a meeting, a call, being there, making it, being available,
    /// passing on an invitation.
    public static func speaksOfMeeting(_ reply: String) -> Bool {
        MessageCleaner.matches(meetingExpression, reply) || MessageCleaner.matches(attendingExpression, reply)
    }

    /// `news` and `meeting` compiled once (`range(of:options: .regularExpression)` compiled them a call).
    private static let newsExpression = MessageCleaner.regex(news)
    private static let meetingExpression = MessageCleaner.regex(meeting)
    private static let attendingExpression = MessageCleaner.regex(#"(?i)\b(make it|be there|available|pass this time)\b"#)

    static let news = #"(?i)\b(congrat\w*|promot(ed|ion)|new (job|role|position)|(got|accepted|landed) (the|a|an) (job|offer|position)|(have|has|just) joined|joining (us|the team)|welcome (aboard|to the team)|baby|born|married|engaged|wedding|graduat\w*|passed (the|my|his|her)|won(?!['’]t)|award\w*|anniversary|retir(e|ing|ement)|good news|(happy|pleased|proud|excited) to (announce|share|say|tell)|we did it)\b"#
    /// "meet" as meeting people: after "can", "let's", "to", "like to" … or before "up", "with", "you",
    /// "tomorrow" …, and not meeting a requirement ("cannot meet timing", "to meet the deadline") nor
    /// running into something ("I meet some hardware issue", found judging usrp-users' technical
    /// questions that were offered "Can we meet on Monday?"); "what time" asking for a time; an
    /// invitation to attend.
    static let meeting = #"(?i)(\b(?:can|could|shall|should|let's|let us|we|to)\s+meet\b"# + notARequirement
        + #"|\bmeet\s+(?:up|with|you|again|tomorrow|today|next|this\s+(?:week|afternoon|morning|evening)|sometime|soon|in\s+person|for\s+(?:lunch|dinner|coffee|a\s+drink))\b|\b(?:meeting|meetings)\b"# + notARequirement
        + #"|\b(calendar|appointment|attend|attending|rsvp|invitation|invite you|join us|lunch|dinner|(?:for|over|grab|get|have|a|some) coffee|coffee (?:break|chat)|catch up(?= (?:with|on|over|soon|sometime|next|this|later|tomorrow|today)\b)|get together|sync up|reschedule|availability|free (on|at|for|this|next|tomorrow)|what time (?:works|suits|is (?:good|best|convenient)|would|do you|are you|can you|shall|should)|when (can|could|would|shall|should) we|(quick|phone|conference|video|zoom|skype|teams) call|call (me|us)|give (me|us) a call|(schedule|set up|book) (a|the|some) (call|meeting|time|slot))\b)"#
    /// Not followed by what one meets as a requirement ("meet timing", "meeting the deadlines").
    private static let notARequirement = #"(?!\s+(?:the\s+|our\s+|your\s+|its\s+|all\s+|these\s+)?(?:timing|requirements?|constraints?|deadlines?|expectations?|criteria|specs?|specifications?|needs|demands?|targets?|goals?|standards?)\b)"#
}
