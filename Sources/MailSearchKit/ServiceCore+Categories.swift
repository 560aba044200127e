import Foundation
import MailModel
internal import MailStore

/// What `categorize` did: the emails the user chose a category for, and the other mail of their
/// senders that follows the choice (spec 001 §5.6.2: choices are preference signals).
public struct CategoryChange: Sendable, Codable, Hashable {
    public var category: AICategory
    public var emailIds: [Int64]
    /// Other emails of the same senders categorised again by the preference (their category may not have changed).
    public var sameSenderEmails: Int
}

/// What `recategorize` did.
public struct RecategorizeSummary: Sendable, Codable, Hashable {
    /// Emails sent back to the categoriser (all but the user's choices).
    public var emails: Int
    /// Decisions made: the emails, plus fallbacks decided again once the classifier had learnt.
    public var decisions: Int
    public var changed: Int
    public var seconds: Double
    public var counts: [String: Int]
}

extension ServiceCore {
    /// The user's category for emails (`threadId`: every message of a thread), kept by every later
    /// pass; other mail of the same senders follows it as a preference. Searches see it at once.
    public func setCategory(_ category: AICategory, emailIds: [Int64] = [], threadId: Int64? = nil) throws -> CategoryChange {
        guard category != .uncategorized else {
            throw ServiceError.invalid("choose one of primary, social, promotions, updates, forums")
        }
        guard !configuration.readOnly else { throw ServiceError(.unavailable, "the mailbox is open read-only") }
        var ids = emailIds
        if let threadId {
            let inThread = try store.emailIds(threadId: threadId)
            guard !inThread.isEmpty else { throw ServiceError.notFound("no thread with id \(threadId)") }
            ids += inThread
        }
        let done = try store.setUserCategory(category, emailIds: ids)
        guard !done.isEmpty else {
            throw ServiceError.notFound("no email with id \(ids.map(String.init).joined(separator: ", "))")
        }
        state.changed()
        let others = try store.requestRecategorization(senders: try store.senders(emailIds: done))
        if others > 0 {
            _ = try categorization.runNow()
            state.changed()
        }
        return CategoryChange(category: category, emailIds: done, sameSenderEmails: others)
    }

    /// Categorises the whole mailbox again (after the rules changed): every email but those the user
    /// chose for; `rereadHeaders` reads the header signals again from the sources too.
    public func recategorize(rereadHeaders: Bool = false, progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in })
        async throws -> RecategorizeSummary {
        guard !configuration.readOnly else { throw ServiceError(.unavailable, "the mailbox is open read-only") }
        let total = try await pool.run { [store] in try store.requestRecategorization(rereadHeaders: rereadHeaders) }
        let queue = categorization
        let started = Date()
        let result = try await pool.run { try queue.runNow { progress($0, total) } }
        state.changed()
        return RecategorizeSummary(emails: total, decisions: result.done, changed: result.changed, seconds: Date().timeIntervalSince(started),
                                   counts: try await pool.run { [self] in try categoryCounts() })
    }

    /// Categorises the mail that waits for a category, now (the queue does it in the background).
    @discardableResult
    public func categorizePending() async throws -> Int {
        let queue = categorization
        return try await pool.run { try queue.runNow().done }
    }

    /// Waits until the background categoriser has nothing left to do.
    public func waitForCategorization() async {
        let queue = categorization
        _ = try? await pool.run { queue.waitUntilIdle() }
    }

    /// Emails per category (by raw value; every category listed).
    public func categoryCounts() throws -> [String: Int] {
        Dictionary(uniqueKeysWithValues: try store.categoryCounts().map { ($0.key.rawValue, $0.value) })
    }

    public var categorizationProgress: CategorizationProgress { categorization.progress }
}
