/// Summaries of conversations and reply suggestions, on the device.
public struct InsightsService: Sendable {
    let core: ServiceCore

    /// The summary of a conversation (stored, else computed now and stored).
    public func threadSummary(threadId: Int64) async throws -> ThreadSummaryAnswer {
        try await core.threadSummary(threadId: threadId)
    }

    /// Short replies to an email when it asks or requests something.
    public func replySuggestions(emailId: Int64) async throws -> ReplySuggestionsAnswer {
        try await core.replySuggestions(emailId: emailId)
    }

    /// Waits until the background summaries have nothing left to do.
    public func waitForSummaries() async { await core.waitForSummaries() }
}
