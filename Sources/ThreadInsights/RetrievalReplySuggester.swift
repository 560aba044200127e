import Embedding
import Foundation

/// One reply of the curated set.
public struct CannedReply: Sendable, Hashable {
    public var intent: String
    public var text: String
}

/// The curated replies (`Resources/replies.tsv`: `intent<TAB>reply`, `#` comments), 200 in
/// 13 intents (`ReplyBankTests` holds the docs to these counts).
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

/// Smart Reply by retrieval (Henderson et al., 2017, "Efficient Natural Language Response
/// Suggestion for Smart Reply"), with MiniLM as the shared encoder: the curated replies are
/// embedded once per process; a message that asks or requests something (a question, "could you",
/// "please", "can we", …) gets the three best replies of three different intents, ranked by
/// `blend`·cos(message, reply) + (1 − `blend`)·cos(message, the intent's centroid). A message that
/// asks nothing gets none.
public final class RetrievalReplySuggester: ReplySuggester, @unchecked Sendable {
    public let embedder: any Embedder
    public let replies: [CannedReply]
    public var count = 3
    public var blend = 0.8
    /// Whether replies are limited to the intents the email gives occasion for (`ReplyIntents`).
    public var gatesIntents = true

    private let lock = NSLock()
    private var replyVectors: [[Float]]?
    private var intentCentroids: [String: [Float]] = [:]

    public init(embedder: any Embedder, replies: [CannedReply] = ReplyBank.replies) {
        self.embedder = embedder
        self.replies = replies
    }

    /// Embeds the replies now (the first suggestion would otherwise).
    public func warmUp() throws { _ = try vectors() }

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
                                    method: "retrieval-minilm")
        }
        return ReplySuggestions(emailId: message.emailId, triggered: true, triggers: spans,
                                suggestions: try rank(cleaned.text), method: "retrieval-minilm")
    }

    /// The best `count` replies of distinct intents for a cleaned text, among the intents the
    /// text gives occasion for (`ReplyIntents.allowed`).
    public func rank(_ text: String) throws -> [ReplySuggestion] {
        let (vectors, centroids) = try vectors()
        guard let query = try embedder.embed([text]).first else { return [] }
        let allowed = gatesIntents ? ReplyIntents.allowed(for: text) : ReplyIntents.all
        let scored = replies.indices.filter { allowed.contains(replies[$0].intent) }.map { i -> (Int, Double) in
            let intent = ExtractiveSummarizer.dot(query, centroids[replies[i].intent] ?? [])
            return (i, blend * ExtractiveSummarizer.dot(query, vectors[i]) + (1 - blend) * intent)
        }.sorted { $0.1 > $1.1 }
        var result: [ReplySuggestion] = []
        var intents: Set<String> = []
        for (i, score) in scored where !intents.contains(replies[i].intent) {
            intents.insert(replies[i].intent)
            result.append(ReplySuggestion(text: replies[i].text, intent: replies[i].intent, score: (score * 1000).rounded() / 1000))
            if result.count == count { break }
        }
        return result
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
        if text.range(of: news, options: .regularExpression) == nil { intents.remove("congrats") }
        if text.range(of: meeting, options: .regularExpression) == nil { intents.remove("schedule") }
        return intents
    }

    static let news = #"(?i)\b(congrat\w*|promot(ed|ion)|new (job|role|position)|(got|accepted|landed) (the|a|an) (job|offer|position)|(have|has|just) joined|joining (us|the team)|welcome (aboard|to the team)|baby|born|married|engaged|wedding|graduat\w*|passed (the|my|his|her)|won|award\w*|anniversary|retir(e|ing|ement)|good news|(happy|pleased|proud|excited) to (announce|share|say|tell)|we did it)\b"#
    static let meeting = #"(?i)\b(meet|meeting|meetings|calendar|appointment|lunch|dinner|coffee|catch up|get together|sync up|reschedule|availability|free (on|at|for|this|next|tomorrow)|what time|when (can|could|would|shall|should) we|(quick|phone|conference|video|zoom|skype|teams) call|call (me|us)|give (me|us) a call|(schedule|set up|book) (a|the|some) (call|meeting|time|slot))\b"#
}
