import Embedding
import Foundation
import MailComposition
import MailImport
import MailModel
internal import MailStore
import SearchEngine
internal import SearchIndex

/// The single way into a mailbox, and the composition root of its feature services:
/// `search` (search, parse, scope, suggestions, recent searches), `reader` (an email, a thread, the
/// raw message, an attachment, safe HTML), `mailbox` (import, ingest, actions, deletion),
/// `compose` (drafts and the send queue), `insights` (summaries and reply suggestions) and
/// `categories`. They share one core, opened once for the life of the process: the store, the
/// keyword index, the vectors, the embedding model when a semantic search first needs it, and
/// the `generation` that cached answers are keyed by and every write bumps, so mail, FTS5 rows,
/// stored embeddings and the in-memory vectors never disagree.
///
/// Every feature method is `async` and runs its blocking work (SQLite, message files, the
/// encoder) on the service's one `BlockingPool`, never on Swift's cooperative threads. The CLI
/// opens one per command; `mailsearch serve` keeps one for its lifetime.
public final class MailSearchService: Sendable {
    let core: ServiceCore
    public let search: SearchService
    public let reader: ReaderService
    public let mailbox: MailboxService
    public let compose: ComposeService
    public let insights: InsightsService
    public let categories: CategoryService

    /// Opens the mailbox in `configuration.dataDirectory`, creating it when missing (unless read-only).
    /// Throws when `Configuration.model` is nil and `MAILSEARCH_MODEL` names no known model.
    public init(configuration: Configuration) throws {
        let core = try ServiceCore(configuration: configuration)
        self.core = core
        search = SearchService(core: core)
        reader = ReaderService(core: core)
        mailbox = MailboxService(core: core)
        compose = ComposeService(core: core)
        insights = InsightsService(core: core)
        categories = CategoryService(core: core)
    }

    public var configuration: Configuration { core.configuration }
    /// The embedding model in use, and where its files are (`Configuration.model`, `modelDirectory`).
    public var model: EmbeddingModel { core.model }
    public var modelDirectory: URL { core.modelDirectory }
    /// The mail store and the keyword index: the service's own (tests reach them with `@testable import`).
    var store: MailStore { core.store }
    var index: SearchIndexManager { core.index }
    /// Shows what a sync engine's board says in the status (`GET /api/status`, `index status`), and
    /// tells it when an account is deleted. The process that syncs registers its board.
    public func register(syncStatus source: any SyncStatusSource) {
        core.syncSources.withLockedValue { $0.append(source) }
    }

    /// How each account this process syncs stands (what `status().sync` holds), without the rest of the status.
    public var syncStatuses: [SyncStatus] { core.syncStatuses }
    /// The send queue's undo window and the sender's state.
    public var sending: SendQueueBoard { core.sending }
    /// Rung when a mailbox action queues server operations (the outbox runners wake at once; a
    /// server beside this process too, through `outbox.wake` in the data directory).
    public var outboxQueued: OutboxSignal { core.outboxQueued }
    /// Changes with every write through the service: cached answers are keyed by it.
    public var generation: Int { core.generation }

    /// Stops background work (the embedding batch in flight is finished and stored).
    public func shutdown() { core.shutdown() }

    /// Keeps what this process computed and the next would need (the email directory, row
    /// lengths) in search.sqlite: a one-shot command calls it once its output is out.
    public func saveForNextProcess() { core.storeCopiesForNextProcess() }

    /// Everything `GET /api/status` and `mailsearch index status` show.
    public func status() async throws -> ServiceStatus {
        try await core.pool.run { [core] in try core.status() }
    }

    /// What the mailbox takes on this computer, per account and in all, and what the caches
    /// hold (Settings, `GET /api/storage`): measured now, a scan of the emails' text and of the
    /// data directory's files.
    public func storage() async throws -> StorageReport {
        try await core.pool.run { [core] in try core.storageReport() }
    }

    /// Empties what is computed from the mail and computed again when needed (`CacheReport`):
    /// the stored summaries and the caches in memory; never the user's own data.
    public func clearCaches() async throws -> CachesCleared {
        try await core.pool.run { [core] in try core.clearCaches() }
    }

    /// What `mailsearch stats` shows: the counts and sizes, emails per category, and what waits.
    public func statistics() async throws -> MailStatistics {
        try await core.pool.run { [core] in
            MailStatistics(dataDirectory: core.store.directory.url.path, counts: try core.store.statistics(),
                           categories: try core.store.categoryCounts(),
                           awaitingCategory: try core.store.emailsAwaitingCategoryCount())
        }
    }

    /// How many emails have no embedding for the model in use (what `index embed` would do).
    public func emailsWithoutEmbedding() async throws -> Int {
        try await core.pool.run { [core] in try core.store.emailsWithoutEmbeddingCount(model: core.model.name) }
    }

    /// Rebuilds the keyword index from mail.sqlite and reloads the vectors, reporting (done, total).
    public func rebuild(progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }) async throws {
        try await core.pool.run { [core] in try core.rebuild(progress: progress) }
    }

    /// Asks the background queue to embed mail that has none (after an import, say).
    public func embedPendingInBackground() { core.embedPendingInBackground() }

    /// Embeds every email that has no embedding yet (at most `limit`), now, with
    /// `progress(done, total)`: the command-line `index embed`.
    @discardableResult
    public func embedPending(limit: Int? = nil, progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }) async throws -> Int {
        try await core.embedPending(limit: limit, progress: progress)
    }

    /// Embeds the passages of attachments' text that have none yet, with `progress(done, total)`
    /// in attachments: the second part of `index embed`. Returns how many attachments were embedded.
    @discardableResult
    public func embedPendingPassages(progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }) async throws -> Int {
        try await core.embedPendingPassages(progress: progress)
    }

    /// Reads the text of attachments not read yet into the store and the keyword index: the
    /// command-line `index attachments`, and the end of `import`.
    @discardableResult
    public func readAttachments(limit: Int? = nil, progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in })
        async throws -> AttachmentReadSummary {
        try await core.readAttachments(limit: limit, progress: progress)
    }

    /// How far reading attachments has got.
    public func attachmentCounts() throws -> AttachmentCounts { try core.attachmentCounts() }

    /// Waits until the background queue has nothing left to embed.
    public func waitForEmbedding() async { await core.waitForEmbedding() }

    public static let maximumAttachmentBytes = ServiceCore.maximumAttachmentBytes
    public static let maximumBodyCharacters = ServiceCore.maximumBodyCharacters
    public static let summaryMinimumMessages = ServiceCore.summaryMinimumMessages
    public static func draftCopyID(_ draft: Draft) -> String { ServiceCore.draftCopyID(draft) }
}

/// Where the accounts a sync engine of this process syncs stand (IMAPSync's `SyncStatusBoard`).
public protocol SyncStatusSource: AnyObject, Sendable {
    /// Every account's state, by account name.
    var snapshot: [SyncStatus] { get }
    /// The account was deleted: its entry goes.
    func remove(_ account: String)
}

/// What `mailsearch stats` shows.
public struct MailStatistics: Sendable {
    public var dataDirectory: String
    public var counts: StoreStatistics
    public var categories: [AICategory: Int]
    /// Emails that wait for a category.
    public var awaitingCategory: Int
}
