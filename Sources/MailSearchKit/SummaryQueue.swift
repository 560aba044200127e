import Embedding
import Foundation
internal import MailStore
import ThreadInsights
#if canImport(Glibc)
import Glibc
#endif

/// Where the background summaries stand (`GET /api/status`'s `summaries`).
public struct SummaryProgress: Sendable, Codable, Hashable {
    public enum State: String, Sendable, Codable {
        /// Nothing to do, or nothing has asked for a pass yet.
        case idle
        /// Work is waiting for embedding to finish, or for searches and other requests to end.
        case waiting
        case running
        /// No model installed: nothing to summarize with.
        case modelMissing
        /// The last pass stopped on an error (`lastError`); the next wake tries again.
        case failed
    }

    public var state: State
    /// Conversations of 3+ messages, and how many of them have a stored summary of the current
    /// mail (read from mail.sqlite when the status is asked for).
    public var eligible: Int
    public var stored: Int
    /// Summaries stored by the current (or last) pass that stored any, and their mean time (encoder and store).
    public var donePass: Int
    public var msPerThread: Double?
    public var lastError: String?
}

/// Summarizes, in the background, the conversations of 3+ messages that have no stored summary
/// (newest first) and stores each in mail.sqlite (`thread_summaries`). The lowest priority work of
/// the service: a pass starts after embedding (and waits while an embedding pass runs), and
/// before each conversation and each group of `chunk` sentences it waits until no search,
/// summary or reply request has been in flight for `quietSeconds`, so that a request waits at
/// most for one chunk of the shared encoder. Its thread runs at the lowest scheduling priority.
final class SummaryQueue: @unchecked Sendable {
    private let store: MailStore
    private let backend: String
    /// Keys of earlier versions' summaries, forgotten when a pass starts.
    private let superseded: [String]
    private let minimumMessages: Int
    private let makeEmbedder: @Sendable () throws -> (any Embedder)?
    private let isBusy: @Sendable () -> Bool
    private let didStore: @Sendable (Int64) -> Void
    private let condition = NSCondition()
    private var worker: WakeableWorker!
    private var current = SummaryProgress(state: .idle, eligible: 0, stored: 0, donePass: 0)
    /// Sentences embedded between two checks for foreground work.
    let chunk: Int
    let pollInterval: TimeInterval

    /// - Parameters:
    ///   - backend: the key summaries are stored under (`thread_summaries.backend`).
    ///   - superseded: the keys earlier versions of the summarizer stored under (forgotten by each pass).
    ///   - isBusy: whether foreground work (or embedding) runs now; the queue waits while it does.
    ///   - didStore: called with each thread whose summary was stored.
    init(store: MailStore, backend: String, superseded: [String] = [], minimumMessages: Int, chunk: Int = 16, pollInterval: TimeInterval = 0.05,
         makeEmbedder: @escaping @Sendable () throws -> (any Embedder)?, isBusy: @escaping @Sendable () -> Bool,
         didStore: @escaping @Sendable (Int64) -> Void = { _ in }) {
        self.store = store
        self.backend = backend
        self.superseded = superseded
        self.minimumMessages = minimumMessages
        self.chunk = max(1, chunk)
        self.pollInterval = pollInterval
        self.makeEmbedder = makeEmbedder
        self.isBusy = isBusy
        self.didStore = didStore
        worker = WakeableWorker(name: "mailsearch.summaries") { [weak self] in self?.backgroundPass() }
    }

    var progress: SummaryProgress { condition.withLock { current } }

    func wake() { worker.wake() }

    func stop() { worker.stop() }

    func waitUntilIdle() { worker.waitUntilIdle() }

    private func update(_ body: (inout SummaryProgress) -> Void) { condition.withLock { body(&current) } }

    /// Sleeps while foreground work runs; false when the queue is stopping.
    private func waitForQuiet() -> Bool {
        var waited = false
        while isBusy() {
            if worker.isStopping { return false }
            if !waited {
                waited = true
                update { $0.state = .waiting }
            }
            Thread.sleep(forTimeInterval: pollInterval)
        }
        if waited { update { $0.state = .running } }
        return !worker.isStopping
    }

    private func backgroundPass() {
        Self.lowerThreadPriority()
        do {
            guard waitForQuiet() else { return }
            guard let embedder = try makeEmbedder() else {
                update { $0.state = .modelMissing }
                return
            }
            try pass(embedder: embedder)
        } catch {
            update {
                $0.state = .failed
                $0.lastError = "\(error)"
            }
        }
    }

    private func pass(embedder: any Embedder) throws {
        // The counts of the last pass stay until this one stores something (a pass with nothing to do changes nothing).
        update { $0.state = .running }
        for key in superseded { try store.deleteThreadSummaries(backend: key) }
        let yielding = YieldingEmbedder(base: embedder, chunk: chunk) { [weak self] in
            guard let self, self.waitForQuiet() else { throw CancellationError() }
        }
        let summarizer = ExtractiveSummarizer(embedder: yielding)
        var skipped = Set<Int64>()
        var done = 0
        var totalMs = 0.0
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        passLoop: while !worker.isStopping {
            let ids = try store.threadsWithoutSummary(backend: backend, minimumMessages: minimumMessages, limit: 32 + skipped.count)
                .filter { !skipped.contains($0) }
            guard !ids.isEmpty else { break }
            for id in ids.prefix(32) {
                guard waitForQuiet() else { break passLoop }
                let started = Date()
                guard let (_, emails) = try store.thread(id: id), emails.count >= minimumMessages else {
                    skipped.insert(id)  // its count is being recomputed: the next pass sees it
                    continue
                }
                let messages = emails.map(ServiceCore.conversationMessage)
                let summary: ThreadSummary
                do {
                    summary = try summarizer.summarize(messages)
                } catch is CancellationError {
                    break passLoop
                } catch {
                    skipped.insert(id)
                    update { $0.lastError = "thread \(id): \(error)" }
                    continue
                }
                let stored = try store.storeThreadSummary(threadId: id, backend: backend, emailIds: emails.map(\.email.id),
                                                          json: try encoder.encode(summary))
                if stored {
                    done += 1
                    totalMs += Date().timeIntervalSince(started) * 1000
                    didStore(id)
                    let mean = totalMs / Double(done)
                    update {
                        $0.donePass = done
                        $0.msPerThread = (mean * 10).rounded() / 10
                    }
                } else {
                    skipped.insert(id)  // the thread changed while it was summarized: the next pass does it again
                }
            }
        }
        update { $0.state = .idle }
    }

    /// The summaries' thread yields the cores to every other thread of the machine (nice 19; on
    /// Linux, `setpriority` of process 0 sets the calling thread's), and runs the encoder's kernels
    /// on itself alone.
    private static func lowerThreadPriority() {
        #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
        #endif
        // …and keeps its encoder's work on itself: the kernels' helper threads run at normal priority.
        KernelThreads.runAloneOnThisThread()
    }
}

/// An encoder that embeds a batch `chunk` texts at a time and calls `beforeChunk` before each
/// (which may wait, or throw to give up).
struct YieldingEmbedder: Embedder {
    let base: any Embedder
    let chunk: Int
    let beforeChunk: @Sendable () throws -> Void

    var dimension: Int { base.dimension }

    func embed(_ texts: [String]) throws -> [[Float]] {
        var out: [[Float]] = []
        out.reserveCapacity(texts.count)
        var start = 0
        while start < texts.count {
            try beforeChunk()
            let end = min(texts.count, start + chunk)
            out += try base.embed(Array(texts[start..<end]))
            start = end
        }
        return out
    }

    func embedQueries(_ texts: [String]) throws -> [[Float]] { try base.embedQueries(texts) }
    func knownWordShare(_ text: String) -> Double { base.knownWordShare(text) }
    func knowsWord(_ word: String) -> Bool { base.knowsWord(word) }
}
