import MailModel

/// Categories (spec 001 §5.6.2): the user's choice for an email, a conversation or a sender, the
/// whole mailbox categorised again, the counts.
public struct CategoryService: Sendable {
    let core: ServiceCore

    /// The user's category for emails (`threadId`: every message of a thread), kept by every later
    /// pass; other mail of the same senders follows it as a preference. Searches see it at once.
    public func setCategory(_ category: AICategory, emailIds: [Int64] = [], threadId: Int64? = nil) async throws -> CategoryChange {
        try await core.pool.run { [core] in try core.setCategory(category, emailIds: emailIds, threadId: threadId) }
    }

    /// Categorises the whole mailbox again: every email but those the user chose for.
    public func recategorize(rereadHeaders: Bool = false, progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in })
        async throws -> RecategorizeSummary {
        try await core.recategorize(rereadHeaders: rereadHeaders, progress: progress)
    }

    /// Categorises the mail that waits for a category, now.
    @discardableResult
    public func categorizePending() async throws -> Int { try await core.categorizePending() }

    /// Waits until the background categoriser has nothing left to do.
    public func waitForCategorization() async { await core.waitForCategorization() }

    /// Emails per category (by raw value; every category listed).
    public func categoryCounts() async throws -> [String: Int] {
        try await core.pool.run { [core] in try core.categoryCounts() }
    }

    public var progress: CategorizationProgress { core.categorizationProgress }
}
