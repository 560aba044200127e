import Categorization
import Foundation
import MailModel
import MailParsing
internal import MailStore

/// Where categorising stands.
public struct CategorizationProgress: Sendable, Codable, Hashable {
    /// Emails categorised by the last (or current) pass, and of those how many changed category.
    public var done: Int
    public var changed: Int
    public var running: Bool
    public var seconds: Double
    public var lastError: String?
}

/// Categorises emails that wait for a category (new mail, everything after `recategorize`) and
/// fallback decisions whose email has been embedded since, on a thread of its own (after imports,
/// sync batches and embedding batches), or now on the caller's thread. Each batch is one
/// transaction; the user's choices are never overwritten.
final class CategorizationQueue: @unchecked Sendable {
    private let store: MailStore
    private let didChange: @Sendable (Int) -> Void
    private let condition = NSCondition()
    private let passLock = NSLock()
    private var worker: WakeableWorker!
    private var current = CategorizationProgress(done: 0, changed: 0, running: false, seconds: 0)
    /// The mailbox's lists and the mail they were learnt from (`categoryMailboxVersion`); read and
    /// written only inside a pass (under `passLock`).
    private var learntLists: (version: CategoryMailboxVersion, lists: MailboxLists)?
    /// Imports running (`importStarted`, `importFinished`). While one runs, the lists are learnt
    /// again only once the mailbox has grown by a quarter since they were (each time is a read of
    /// every email: once per import batch, that was the import's largest cost after the writes);
    /// when it ends, a pass learns them from the whole mailbox and sends back what they change.
    private var importsRunning = 0
    let batchSize: Int

    /// - Parameter didChange: called after a batch that changed categories, with how many.
    init(store: MailStore, batchSize: Int = 2000, didChange: @escaping @Sendable (Int) -> Void) {
        self.store = store
        self.batchSize = batchSize
        self.didChange = didChange
        worker = WakeableWorker(name: "mailsearch.categories") { [weak self] in self?.backgroundPass() }
    }

    var progress: CategorizationProgress { condition.withLock { current } }

    func wake() { worker.wake() }

    /// An import has begun adding mail (see `importsRunning`).
    func importStarted() { condition.withLock { importsRunning += 1 } }

    /// The import has added all its mail: the next pass learns the lists from the whole mailbox.
    func importFinished() {
        condition.withLock { importsRunning -= 1 }
        wake()
    }

    func stop() { worker.stop() }

    func waitUntilIdle() { worker.waitUntilIdle() }

    /// Categorises everything waiting, now, on this thread. Returns (done, changed).
    func runNow(progress: (Int) -> Void = { _ in }) throws -> (done: Int, changed: Int) {
        try pass(progress: progress)
    }

    private func backgroundPass() {
        do {
            _ = try pass { _ in }
        } catch {
            condition.withLock { current.lastError = "\(error)" }
        }
    }

    private func pass(progress: (Int) -> Void) throws -> (done: Int, changed: Int) {
        passLock.lock()
        defer { passLock.unlock() }
        let started = Date()
        condition.withLock { current = CategorizationProgress(done: 0, changed: 0, running: true, seconds: 0) }
        var done = 0, changed = 0
        // An email may be decided twice in a pass (a fallback, then the classifier once trained):
        // `changed` counts emails whose category differs from the one they had when the pass began.
        var before: [Int64: AICategory] = [:]
        var now: [Int64: AICategory] = [:]
        let preferences = try loadPreferences()
        var pipeline = CategorizationPipeline(rules: RuleCategorizer(lists: try mailboxLists()), preferences: preferences)
        var trainedAt = -1
        while !worker.isStopping {
            // The classifier learns from what is sure so far: again once a few batches have added to it.
            if trainedAt < 0 || done - trainedAt >= 10 * batchSize || (!pipeline.classifier.isTrained && done > trainedAt) {
                pipeline.classifier = try trainClassifier()
                trainedAt = done
            }
            let ids = try store.emailsAwaitingCategory(limit: batchSize, includingFallbacks: pipeline.classifier.isTrained)
            guard !ids.isEmpty else { break }
            let rows = try store.categorizationInputs(ids: ids)
            var inputs: [CategorizationInput] = []
            var recovered: [(emailId: Int64, signals: CategorySignals)] = []
            inputs.reserveCapacity(rows.count)
            for var row in rows {
                if before[row.input.emailId] == nil { before[row.input.emailId] = row.storedCategory }
                if row.input.signals == nil, let signals = Self.signalsFromSource(emailId: row.input.emailId, sourceRef: row.sourceRef) {
                    row.input.signals = signals
                    recovered.append((row.input.emailId, signals))
                }
                inputs.append(row.input)
            }
            var decisions = try pipeline.categorize(inputs)
            if !pipeline.classifier.isTrained {
                for i in decisions.indices { decisions[i].usedEmbedding = false }
            }
            let n = try store.storeCategoryDecisions(Array(zip(inputs.map(\.emailId), decisions)).map { ($0.0, $0.1) },
                                                     signals: recovered)
            done += inputs.count
            for (id, decision) in zip(inputs.map(\.emailId), decisions) {
                let original = before[id]
                let wasChanged = (now[id] ?? original) != original
                now[id] = decision.category
                changed += (decision.category != original ? 1 : 0) - (wasChanged ? 1 : 0)
            }
            didChange(n)
            progress(done)
            let seconds = Date().timeIntervalSince(started)
            condition.withLock { current = CategorizationProgress(done: done, changed: changed, running: true, seconds: seconds) }
            if rows.isEmpty { break }
        }
        let seconds = Date().timeIntervalSince(started)
        condition.withLock { current = CategorizationProgress(done: done, changed: changed, running: false, seconds: seconds) }
        return (done, changed)
    }

    private func loadPreferences() throws -> [Int64: [String: CategorizationPipeline.Preference]] {
        var out: [Int64: [String: CategorizationPipeline.Preference]] = [:]
        for choice in try store.userCategoryChoices() {
            out[choice.accountId, default: [:]][choice.sender] = .init(category: choice.category, emailId: choice.emailId)
        }
        return out
    }

    /// The lists the mailbox shows (addresses many people write to with list headers, subject
    /// tags). Mail decided before its list was known (earlier batches of an import) and that the
    /// list now makes Forums is sent back to the categoriser.
    private func mailboxLists() throws -> MailboxLists {
        // Passes after embedding batches find the same mail: the lists learnt before still hold.
        let version = try store.categoryMailboxVersion()
        if let cached = learntLists, cached.version == version { return cached.lists }
        // During an import, lists learnt from most of the mail so far stand in until it has grown
        // by a quarter; the pass after the import learns them from all of it (`importFinished`).
        if let cached = learntLists, condition.withLock({ importsRunning > 0 }),
           version.emails < cached.version.emails + cached.version.emails / 4 {
            return cached.lists
        }
        let stored = try store.categoryMailboxRows()
        let lists = MailboxListDetector().lists(of: stored.map {
            MailboxListDetector.Row(accountId: $0.accountId, from: $0.from, recipients: $0.recipients, subject: $0.subject, signals: $0.signals)
        })
        // …and mail made Forums by a list the mailbox no longer shows (more mail to the address since).
        var again: [Int64] = []
        for row in stored where row.method == .rule || row.method == .fallback || row.method == .classifier {
            guard let s = row.signals, s.labelCategory == nil else { continue }
            let evidence = lists.evidence(accountId: row.accountId, recipients: row.recipients, subject: row.subject, signals: s)
            if row.category == .forums {
                if evidence == nil, row.method == .rule,
                   row.reasonStart.hasPrefix("written to ") || row.reasonStart.hasPrefix("the subject tag ") {
                    again.append(row.emailId)
                }
            } else if evidence != nil, s.isDisjoint(with: [.emailServiceProvider, .autoSubmitted]), RuleCategorizer.isPersonAddress(row.from) {
                again.append(row.emailId)
            }
        }
        try store.requestRecategorization(emailIds: again)
        learntLists = (version, lists)
        return lists
    }

    /// Centroids of the sure decisions that have embeddings (the user's count three times).
    private func trainClassifier() throws -> CentroidClassifier {
        let examples = try store.categoryTrainingExamples(perCategory: 300, minimumConfidence: RuleCategorizer.sure)
        guard !examples.isEmpty else { return CentroidClassifier() }
        let byId = Dictionary(examples.map { ($0.emailId, $0) }, uniquingKeysWith: { a, _ in a })
        var training: [(category: AICategory, features: [Float], weight: Float)] = []
        for row in try store.categorizationInputs(ids: examples.map(\.emailId)) {
            guard let example = byId[row.input.emailId], let embedding = row.input.embedding else { continue }
            training.append((example.category, CentroidClassifier.features(embedding: embedding, input: row.input),
                             example.method == .user ? 3 : 1))
        }
        return CentroidClassifier(examples: training)
    }

    /// The header signals of a message stored before they were kept, read from its source's
    /// header block; nil when the source cannot be read (the rules then go without headers).
    static func signalsFromSource(emailId: Int64, sourceRef: String?) -> CategorySignals? {
        guard let bytes = try? MessageSource.rawBytes(emailId: emailId, sourceRef: sourceRef) else { return nil }
        var end = bytes.count
        var i = 0
        while i + 1 < bytes.count {
            if bytes[i] == 10 && (bytes[i + 1] == 10 || (bytes[i + 1] == 13 && i + 2 < bytes.count && bytes[i + 2] == 10)) {
                end = i + 1
                break
            }
            i += 1
        }
        return CategorySignalReader.signals(of: MIMEParser.parse(Array(bytes[..<end])))
    }
}
