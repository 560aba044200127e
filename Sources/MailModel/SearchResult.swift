import Foundation

/// Which ranker found a result (spec §6.4).
public enum MatchSource: String, Sendable, Codable {
    case keyword, semantic, both, filter
}

/// A highlighted span inside a result's subject or snippet, in UTF-16 offsets
/// (what JavaScript and NSString use), half-open.
public struct HighlightRange: Hashable, Sendable, Codable {
    public enum Field: String, Sendable, Codable { case subject, snippet }
    public var field: Field
    public var start: Int
    public var length: Int

    public init(field: Field, start: Int, length: Int) {
        self.field = field; self.start = start; self.length = length
    }
}

/// Why a result is in the list: what the keyword ranker matched, and how similar the semantic
/// ranker found it. Either may be missing (a semantic-only or keyword-only match); both are
/// missing for a filters-only search.
public struct MatchExplanation: Hashable, Sendable, Codable {
    public struct Keyword: Hashable, Sendable, Codable {
        /// The query terms the message matched (as typed; a phrase is one term).
        public var terms: [String]
        /// FTS5's BM25 rank (lower is better; negative, as FTS5 reports it).
        public var bm25: Double
        /// Position among all keyword matches, from 1.
        public var rank: Int

        public init(terms: [String], bm25: Double, rank: Int) {
            self.terms = terms; self.bm25 = bm25; self.rank = rank
        }
    }

    public struct Semantic: Hashable, Sendable, Codable {
        /// Cosine similarity of the message's embedding to the query's (−1…1).
        public var similarity: Double
        /// Position among the semantic matches, from 1.
        public var rank: Int
        /// True when the similarity is below the query's floor and the email counts because the
        /// keyword index agrees (it is among the best matches of mail with two of the query's words,
        /// or, nearer the floor, one of them); absent otherwise.
        public var keywordAgreement: Bool?
        /// When a passage of an attachment's text was more similar than the email's own text: the
        /// attachment's name and the passage's number among its passages (from 1).
        public var attachment: String?
        public var passage: Int?

        public init(similarity: Double, rank: Int, keywordAgreement: Bool? = nil, attachment: String? = nil,
                    passage: Int? = nil) {
            self.similarity = similarity; self.rank = rank; self.keywordAgreement = keywordAgreement
            self.attachment = attachment; self.passage = passage
        }
    }

    public var keyword: Keyword?
    public var semantic: Semantic?
    /// The attachment whose text or name the keyword terms were found in, when the body's first
    /// 4,000 characters have none of them, or whose passage the semantic match is (when no keyword
    /// term shows): the snippet then says "in attachment NAME: …".
    public var attachment: String?

    public init(keyword: Keyword? = nil, semantic: Semantic? = nil, attachment: String? = nil) {
        self.keyword = keyword; self.semantic = semantic; self.attachment = attachment
    }
}

/// One conversation in a result list: the thread, represented by its best-ranked message.
public struct SearchResult: Hashable, Sendable, Codable, Identifiable {
    public var id: Int64 { threadId }
    public var threadId: Int64
    public var emailId: Int64
    public var subject: String
    public var senderName: String
    public var senderEmail: String
    public var date: Date?
    /// Body snippet with match context.
    public var snippet: String
    public var highlights: [HighlightRange]
    public var hasAttachment: Bool
    /// The fusion score (RRF) of the best message; higher is better.
    public var score: Double
    /// Which ranker found it (`match` in JSON): `keyword` and `both` contain the query's words,
    /// `semantic` is related by meaning only, `filter` passes the filters of a search without text.
    public var matchSource: MatchSource
    public var accountId: Int64
    /// How many messages of the thread matched.
    public var matchedMessages: Int
    /// Why the best message matched.
    public var why: MatchExplanation
    /// Whether the best message was read (the list's unread dot).
    public var isRead: Bool
    /// The best message's category (the list's badge).
    public var category: AICategory

    private enum CodingKeys: String, CodingKey {
        case threadId, emailId, subject, senderName, senderEmail, date, snippet, highlights, hasAttachment, score
        case matchSource = "match"
        case accountId, matchedMessages, why, isRead, category
    }

    public init(
        threadId: Int64, emailId: Int64, subject: String, senderName: String, senderEmail: String,
        date: Date?, snippet: String, highlights: [HighlightRange], hasAttachment: Bool, score: Double,
        matchSource: MatchSource, accountId: Int64, matchedMessages: Int = 1, why: MatchExplanation = MatchExplanation(),
        isRead: Bool = true, category: AICategory = .uncategorized
    ) {
        self.threadId = threadId; self.emailId = emailId; self.subject = subject
        self.senderName = senderName; self.senderEmail = senderEmail; self.date = date
        self.snippet = snippet; self.highlights = highlights; self.hasAttachment = hasAttachment
        self.score = score; self.matchSource = matchSource; self.accountId = accountId
        self.matchedMessages = matchedMessages
        self.why = why
        self.isRead = isRead
        self.category = category
    }
}
