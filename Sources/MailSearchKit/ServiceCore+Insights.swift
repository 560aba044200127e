import Embedding
import Foundation
import MailModel
internal import MailStore
import ThreadInsights

/// A conversation's summary, or why there is none.
public struct ThreadSummaryAnswer: Sendable, Codable, Hashable {
    public enum Status: String, Sendable, Codable {
        case summarized
        /// Fewer than `MailSearchService.summaryMinimumMessages` messages: read them instead.
        case tooShort
    }
    /// Which method produced the summary shown: `extractive` (`summary`) or `llm` (`generated`).
    public enum Backend: String, Sendable, Codable { case extractive, llm }
    /// Where the extractive summary came from: mail.sqlite (computed in the background, or by an
    /// earlier process) or computed by this process (for this request, or an earlier one of the
    /// same mail generation answered again from memory).
    public enum Origin: String, Sendable, Codable { case stored, computed }

    public var threadId: Int64
    public var subject: String
    public var messageCount: Int
    public var status: Status
    /// Why there is no summary, in a sentence (`tooShort`).
    public var reason: String?
    public var backend: Backend?
    /// The extractive summary (`ExtractiveSummarizer`): shown unless a local model's was accepted.
    public var summary: ThreadSummary?
    public var origin: Origin?
    /// With a local model (`--llm-model`): what it wrote and the guard's verdict; `backend` is
    /// `llm` only when the verdict is `accepted`.
    public var generated: GeneratedSummary?
    /// Why the local model gave nothing (not installed, failed), with what to do.
    public var llmError: String?
}

/// An email's reply suggestions.
public struct ReplySuggestionsAnswer: Sendable, Codable, Hashable {
    public var emailId: Int64
    public var threadId: Int64?
    public var subject: String
    public var replies: ReplySuggestions
    /// Whether the email is to or cc one of the user's own addresses (their accounts'); nil when no
    /// account has an address, so nobody can tell. Mail not addressed to the user (a list's, a
    /// newsletter, a copy sent on) gets no suggestion.
    public var addressedToYou: Bool?

    public init(emailId: Int64, threadId: Int64?, subject: String, replies: ReplySuggestions, addressedToYou: Bool? = nil) {
        self.emailId = emailId
        self.threadId = threadId
        self.subject = subject
        self.replies = replies
        self.addressedToYou = addressedToYou
    }
}

extension ServiceCore {
    /// Conversations shorter than this get no summary.
    public static let summaryMinimumMessages = 3

    /// The key summaries of the extractive summarizer are stored under in mail.sqlite: one per embedding model.
    static func extractiveBackend(model: EmbeddingModel) -> String { "extractive-\(extractiveVersion):\(model.name)" }

    /// Changes whenever the summarizer chooses sentences differently (2: prose only, `ProseClassifier`;
    /// 3: a chosen question brings its answer, Notes' header columns are not prose; 4: a patch
    /// thread's reviewers, unmarked quotes and pasted output and articles left out; 5: articles
    /// pasted below a link with a dateline or between rules, paragraphs in quotation marks,
    /// closing phrases above the sender's name; 6: "U.S.", "Corp.", "a.m." end a sentence only
    /// before a capital; 7: no "Waiting on" when the last message is bulk mail; 8: what a sender
    /// repeats from message to message is a candidate only where it first stood; 9: a marketer's
    /// list boilerplate, attributions run into a line and a tool's numbered messages are not
    /// prose; 10: Lotus Notes' quoted header in columns starts the quoted original; 11: no "Waiting
    /// on" for a question two or more of the sender's earlier, different messages asked; 12: a form's
    /// fields run into a line are not prose, "Thanks and regards, Name" and "With regards" sign off, and
    /// a closing phrase above two names ("Lara and Bob") is a signature; 13: GroupWise's attribution
    /// starts the quoted original, a first line "Mr. Taylor:" is a salutation; 14: a sentence its
    /// sender says in three or more different messages is a template's, no candidate; 15: initials run
    /// onto a message's last sentence, "data-  MK", are left out; 16: "Waiting on" names no Exchange
    /// X.500 address; 17: an offer of help, "If you have any questions, please call me", and an
    /// attachment's presentation, "Attached please find …", are no requests; 18: a "?" in an aside,
    /// an export-control notice, "please note" and "for other questions, please contact …" ask
    /// nothing; 19: "Waiting on" the person the message addresses by name; 20: a condition whose only
    /// ask is to hear back, a list's way out, a greeting question and a title-case heading wait on no
    /// one; 21: "Waiting on" a name a greeting gives, as written when no participant has it ("Anne,
    /// please …"), "Mark/Tana please", "Lindy - could you", and on the person a reply to a list
    /// quotes; 22: "ext." and "ie." end no sentence; 23: "Waiting on" the one to three people a
    /// message goes to when none took part yet and none is a list), so that summaries stored by an
    /// earlier version are made again, not shown.
    static let extractiveVersion = 23

    /// The keys earlier versions stored summaries under: the background queue forgets them.
    static func earlierExtractiveBackends(model: EmbeddingModel) -> [String] {
        ["extractive:\(model.name)"] + (2..<extractiveVersion).map { "extractive-\($0):\(model.name)" }
    }

    /// A conversation's summary: the extractive one (`ExtractiveSummarizer`) as stored in
    /// mail.sqlite by the background queue or an earlier request, else computed now (and stored,
    /// unless the service is read-only); with a local model configured, the model's summary when
    /// the guard accepts it (`LLMSummarizer`, stored too), else the extractive one with why.
    /// Answers are kept in memory until the mail changes. Conversations of fewer than three
    /// messages answer `tooShort`; without the embedding model, `unavailable`.
    public func threadSummary(threadId: Int64) async throws -> ThreadSummaryAnswer {
        activity.begin()
        defer { activity.end() }
        let generation = self.generation
        if let cached = insights.summary(threadId: threadId, generation: generation) { return cached }
        guard let (thread, emails) = try await pool.run({ [store] in try store.thread(id: threadId) }) else {
            throw ServiceError.notFound("no thread with id \(threadId)")
        }
        var answer = ThreadSummaryAnswer(threadId: threadId, subject: thread.subject, messageCount: emails.count,
                                         status: .summarized, reason: nil, summary: nil)
        if emails.count < Self.summaryMinimumMessages {
            answer.status = .tooShort
            answer.reason = "a conversation of \(emails.count) message\(emails.count == 1 ? "" : "s") is summarized by reading it: summaries start at \(Self.summaryMinimumMessages)"
        } else {
            let messages = emails.map(Self.conversationMessage)
            let ids = emails.map(\.email.id).sorted()
            let backend = Self.extractiveBackend(model: model)
            if let stored = try await pool.run({ [self] in try storedSummary(ThreadSummary.self, threadId: threadId, backend: backend, emailIds: ids) }) {
                answer.summary = stored
                answer.origin = .stored
            } else {
                let embedder = try await insightEncoder()
                let summary = try await pool.compute { try ExtractiveSummarizer(embedder: embedder).summarize(messages) }
                answer.summary = summary
                answer.origin = .computed
                try await pool.run { [self] in try storeSummary(summary, threadId: threadId, backend: backend, emailIds: ids) }
            }
            answer.backend = .extractive
            if let llm = configuration.llm {
                do {
                    let generated = try await generatedSummary(llm, threadId: threadId, messages: messages, emailIds: ids)
                    answer.generated = generated
                    if generated.verdict == .accepted { answer.backend = .llm }
                } catch let error as LocalModelError {
                    answer.llmError = error.description + (error.hint.map { " (\($0))" } ?? "")
                }
            }
        }
        insights.store(answer, threadId: threadId, generation: generation)
        return answer
    }

    /// The local model's checked summary of a conversation: stored, else written now (one at a
    /// time, on a thread of its own: it takes seconds) and stored.
    private func generatedSummary(_ llm: LLMConfiguration, threadId: Int64, messages: [ConversationMessage],
                                  emailIds: [Int64]) async throws -> GeneratedSummary {
        let backend = "llm:\(URL(fileURLWithPath: llm.modelPath).lastPathComponent)"
        if let stored = try await pool.run({ [self] in try storedSummary(GeneratedSummary.self, threadId: threadId, backend: backend, emailIds: emailIds) }) {
            return stored
        }
        let state = insights
        let generated = try await pool.run {
            let generator = try state.generator(llm)
            return try LLMSummarizer(generator: generator, maxTokens: llm.maxTokens,
                                     promptCharacters: llm.promptCharacters).summarize(messages)
        }
        try await pool.run { [self] in try storeSummary(generated, threadId: threadId, backend: backend, emailIds: emailIds) }
        return generated
    }

    private func storedSummary<T: Decodable>(_ type: T.Type, threadId: Int64, backend: String, emailIds: [Int64]) throws -> T? {
        guard let stored = try store.storedThreadSummary(threadId: threadId, backend: backend, emailIds: emailIds) else { return nil }
        do {
            return try JSONDecoder().decode(T.self, from: stored.json)
        } catch {
            // Written by another version in another shape: computed again (and replaced) below.
            return nil
        }
    }

    private func storeSummary<T: Encodable>(_ value: T, threadId: Int64, backend: String, emailIds: [Int64]) throws {
        guard !configuration.readOnly else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        try store.storeThreadSummary(threadId: threadId, backend: backend, emailIds: emailIds, json: try encoder.encode(value))
    }

    /// Where the background summaries stand, with the counts read from mail.sqlite now.
    func summaryProgress() throws -> SummaryProgress {
        var progress = summaries.progress
        let counts = try store.threadSummaryCounts(backend: Self.extractiveBackend(model: model),
                                                   minimumMessages: Self.summaryMinimumMessages)
        progress.eligible = counts.eligible
        progress.stored = counts.stored
        return progress
    }

    /// Waits until the background summaries have nothing left to do (for tests).
    public func waitForSummaries() async {
        let queue = summaries
        _ = try? await pool.run { queue.waitUntilIdle() }
    }

    /// Short replies to an email when it asks or requests something (`RetrievalReplySuggester`:
    /// the curated replies are embedded once per process).
    public func replySuggestions(emailId: Int64) async throws -> ReplySuggestionsAnswer {
        activity.begin()
        defer { activity.end() }
        guard let stored = try await pool.run({ [store] in try store.email(id: emailId) }) else {
            throw ServiceError.notFound("no email with id \(emailId)")
        }
        let own = try await pool.run { [self] in try ownAddresses() }
        let addressed = Self.isAddressed(stored.email, toAnyOf: own)
        if addressed == false {
            let none = ReplySuggestions(emailId: emailId, triggered: false, triggers: [], suggestions: [], method: "not addressed to you")
            return ReplySuggestionsAnswer(emailId: emailId, threadId: stored.email.threadId, subject: stored.email.subject,
                                          replies: none, addressedToYou: false)
        }
        let embedder = try await insightEncoder()
        let suggester = try await pool.run { [insights, index] in
            insights.suggester(embedder: embedder) { words in
                // The ranker's idf: how many of the mailbox's emails hold each reply word. Without
                // the index (damaged, rebuilding) the ranking is semantic alone, and says so in `method`.
                (try? index.documentFrequencies(of: words)).map { ReplyWordStatistics(documents: $0.documents, frequencies: $0.frequencies) }
            }
        }
        let message = Self.conversationMessage(stored)
        let replies = try await pool.compute { try suggester.suggest(for: message) }
        return ReplySuggestionsAnswer(emailId: emailId, threadId: stored.email.threadId, subject: stored.email.subject,
                                      replies: replies, addressedToYou: addressed)
    }

    /// Whether `email` is to or cc one of `addresses` (case-insensitive); nil without addresses.
    static func isAddressed(_ email: Email, toAnyOf addresses: [String]) -> Bool? {
        let own = Set(addresses.map { $0.lowercased() })
        guard !own.isEmpty else { return nil }
        return (email.to + email.cc).contains { own.contains($0.email.lowercased()) }
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
        ConversationMessage(email: stored.email)
    }
}

/// Summaries computed by this process (per thread, for the generation they were made in) and the
/// reply suggester, whose reply vectors are computed once.
final class InsightsState: @unchecked Sendable {
    private let lock = NSLock()
    private var summaries: [Int64: (generation: Int, answer: ThreadSummaryAnswer)] = [:]
    private var replySuggester: RetrievalReplySuggester?
    private var loadedGenerator: Result<any TextGenerator, Error>?
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

    /// What is kept now: summaries answered, and the reply suggester (0 or 1).
    var cachedCounts: (summaries: Int, replyModel: Int) {
        lock.withLock { (summaries.count, replySuggester == nil ? 0 : 1) }
    }

    /// Forgets the summaries answered and the reply suggester (made again at the next request);
    /// returns what there was. The local language model stays loaded: it is not a cache.
    func clear() -> (summaries: Int, replyModel: Int) {
        lock.withLock {
            let counts = (summaries.count, replySuggester == nil ? 0 : 1)
            summaries.removeAll()
            replySuggester = nil
            return counts
        }
    }

    /// The local model, loaded on first use; a load that failed fails again the same way, without retrying.
    func generator(_ configuration: LLMConfiguration) throws -> any TextGenerator {
        try lock.withLock {
            if let loadedGenerator { return try loadedGenerator.get() }
            let result = Result<any TextGenerator, Error> {
                try LlamaLibrary(modelPath: configuration.modelPath, libraryPath: configuration.libraryPath,
                                 contextTokens: configuration.contextTokens, threads: configuration.threads)
            }
            loadedGenerator = result
            return try result.get()
        }
    }

    /// The suggester, made on first use with the mailbox's `statistics` of its replies' words
    /// (taken once a process: new mail moves document frequencies little).
    func suggester(embedder: MiniLMEmbedder, statistics: (Set<String>) -> ReplyWordStatistics?) -> RetrievalReplySuggester {
        lock.withLock {
            if let replySuggester { return replySuggester }
            let made = RetrievalReplySuggester(embedder: embedder)
            made.wordStatistics = statistics(made.replyWords)
            replySuggester = made
            return made
        }
    }
}

/// A local language model for summaries (`mailsearch show --summary --llm-model FILE`, `serve --llm-model FILE`).
public struct LLMConfiguration: Sendable, Hashable {
    /// A GGUF file.
    public var modelPath: String
    /// `libmailsearch-llm.so`; nil: `LlamaLibrary.defaultLibraryPath()`.
    public var libraryPath: String?
    public var contextTokens = 2048
    public var maxTokens = 160
    public var promptCharacters = 5_000
    /// One: on a shared 2-core machine two threads were 2–4× slower (ggml's threads wait for each other spinning).
    public var threads = 1

    public init(modelPath: String, libraryPath: String? = nil) {
        self.modelPath = modelPath
        self.libraryPath = libraryPath
    }
}
