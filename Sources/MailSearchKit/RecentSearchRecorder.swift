import MailModel
internal import MailStore

/// The searches a search records in the recent searches, written in the order they came, on the
/// service's pool, after the answer: a search never waits for mail.sqlite's write lock (another
/// process may hold it for seconds). One pool job at a time writes, taking every text that
/// arrived meanwhile, so a held lock ties up one thread, not one per search. Reading or clearing
/// the recent searches first writes what is still waiting, so this process always sees its own
/// searches. History is best effort: a text whose write fails is dropped (the search it came
/// with has answered already).
final class RecentSearchRecorder: Sendable {
    private struct Waiting {
        var texts: [String] = []
        /// Whether a pool job is writing, or about to.
        var scheduled = false
    }

    private let store: MailStore
    private let waiting = LockedBox(Waiting())
    /// Held while writing, so that texts are written one batch at a time, in order.
    private let writing = LockedBox<Void>(())

    init(store: MailStore) {
        self.store = store
    }

    /// Queues `text`, and starts the writing job on `pool` unless one is on its way; never waits.
    func record(_ text: String, on pool: BlockingPool) {
        let start = waiting.withLockedValue { state -> Bool in
            state.texts.append(text)
            defer { state.scheduled = true }
            return !state.scheduled
        }
        guard start else { return }
        Task { _ = try? await pool.run { [self] in writeScheduled() } }
    }

    /// Writes `text` now, after what was waiting.
    func recordNow(_ text: String) throws {
        waiting.withLockedValue { $0.texts.append(text) }
        try flush()
    }

    /// Writes every text still waiting.
    func flush() throws {
        try writing.withLockedValue { _ in
            let texts = waiting.withLockedValue { state in
                defer { state.texts = [] }
                return state.texts
            }
            for text in texts { try store.recordSearch(text) }
        }
    }

    /// The pool job: writes until nothing waits.
    private func writeScheduled() {
        while true {
            try? flush()
            let done = waiting.withLockedValue { state -> Bool in
                guard state.texts.isEmpty else { return false }
                state.scheduled = false
                return true
            }
            if done { return }
        }
    }
}
