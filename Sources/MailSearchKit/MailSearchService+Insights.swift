import Embedding
import Foundation
import MailModel
import MailStore
import ThreadInsights

/// A conversation's summary, or why there is none.
public struct ThreadSummaryAnswer: Sendable, Codable, Hashable {
    public enum Status: String, Sendable, Codable {
        case summarized
        /// Fewer than `MailSearchService.summaryMinimumMessages` messages: read them instead.
        case tooShort
    }
    public var threadId: Int64
    public var subject: String
    public var messageCount: Int
    public var status: Status
    /// Why there is no summary, in a sentence (`tooShort`).
    public var reason: String?
    public var summary: ThreadSummary?
}

/// An email's reply suggestions.
public struct ReplySuggestionsAnswer: Sendable, Codable, Hashable {
    public var emailId: Int64
    public var threadId: Int64?
    public var subject: String
    public var replies: ReplySuggestions
}

extension MailSearchService {
    /// Conversations shorter than this get no summary.
    public static let summaryMinimumMessages = 3

    /// The extractive summary of a conversation (`ExtractiveSummarizer`), computed on demand and
    /// kept in memory until the mail changes (the service's generation). Conversations of fewer
    /// than three messages answer `tooShort`; without the model, `unavailable`.
    public func threadSummary(threadId: Int64) async throws -> ThreadSummaryAnswer {
        let generation = self.generation
        if let cached = insights.summary(threadId: threadId, generation: generation) { return cached }
        guard let (thread, emails) = try store.thread(id: threadId) else { throw ServiceError.notFound("no thread with id \(threadId)") }
        var answer = ThreadSummaryAnswer(threadId: threadId, subject: thread.subject, messageCount: emails.count,
                                         status: .summarized, reason: nil, summary: nil)
        if emails.count < Self.summaryMinimumMessages {
            answer.status = .tooShort
            answer.reason = "a conversation of \(emails.count) message\(emails.count == 1 ? "" : "s") is summarized by reading it: summaries start at \(Self.summaryMinimumMessages)"
        } else {
            let embedder = try await insightEncoder()
            let messages = emails.map(Self.conversationMessage)
            answer.summary = try await pool.run { try ExtractiveSummarizer(embedder: embedder).summarize(messages) }
        }
        insights.store(answer, threadId: threadId, generation: generation)
        return answer
    }

    /// Short replies to an email when it asks or requests something (`RetrievalReplySuggester`:
    /// the curated replies are embedded once per process).
    public func replySuggestions(emailId: Int64) async throws -> ReplySuggestionsAnswer {
        guard let stored = try store.email(id: emailId) else { throw ServiceError.notFound("no email with id \(emailId)") }
        let embedder = try await insightEncoder()
        let suggester = insights.suggester(embedder: embedder)
        let message = Self.conversationMessage(stored)
        let replies = try await pool.run { try suggester.suggest(for: message) }
        return ReplySuggestionsAnswer(emailId: emailId, threadId: stored.email.threadId, subject: stored.email.subject, replies: replies)
    }

    private func insightEncoder() async throws -> MiniLMEmbedder {
        let semantic = self.semantic
        guard let embedder = try await pool.run({ try semantic.encoder() }) else {
            throw ServiceError(.unavailable, "summaries and reply suggestions need the embedding model, which is not installed",
                               hint: "mailsearch model install")
        }
        return embedder
    }

    static func conversationMessage(_ stored: StoredEmail) -> ConversationMessage {
        let e = stored.email
        return ConversationMessage(emailId: e.id, from: e.from, to: e.to, cc: e.cc, date: e.date, body: e.bodyPlain)
    }
}

/// Summaries computed by this process (per thread, for the generation they were made in) and the
/// reply suggester, whose reply vectors are computed once.
final class InsightsState: @unchecked Sendable {
    private let lock = NSLock()
    private var summaries: [Int64: (generation: Int, answer: ThreadSummaryAnswer)] = [:]
    private var replySuggester: RetrievalReplySuggester?
    /// Entries kept before the oldest generation's go.
    static let capacity = 512

    func summary(threadId: Int64, generation: Int) -> ThreadSummaryAnswer? {
        lock.withLock {
            guard let entry = summaries[threadId], entry.generation == generation else { return nil }
            return entry.answer
        }
    }

    func store(_ answer: ThreadSummaryAnswer, threadId: Int64, generation: Int) {
        lock.withLock {
            summaries = summaries.filter { $0.value.generation == generation }
            if summaries.count >= Self.capacity { summaries.removeAll() }
            summaries[threadId] = (generation, answer)
        }
    }

    func suggester(embedder: MiniLMEmbedder) -> RetrievalReplySuggester {
        lock.withLock {
            if let replySuggester { return replySuggester }
            let made = RetrievalReplySuggester(embedder: embedder)
            replySuggester = made
            return made
        }
    }
}
