import Embedding
import Foundation
import HTMLSanitizer
import MailImport
import MailModel
import MailParsing
internal import MailStore
import SearchEngine
internal import SearchIndex

extension MailSearchService {
    public struct Configuration: Sendable {
        public var dataDirectory: DataDirectory
        /// The embedding model (`EmbeddingModel`); nil: `MAILSEARCH_MODEL`, else all-MiniLM-L6-v2.
        public var model: EmbeddingModel?
        /// Where the embedding model is; nil: `ModelStore`'s default directory for it.
        public var modelDirectory: URL?
        /// Open mail.sqlite read-only (commands that change nothing; no recent-search recording).
        public var readOnly: Bool
        /// A fixed semantic similarity floor for searches that do not give their own, or nil: each
        /// query's own floor (`SemanticRelevance`).
        public var minimumSimilarity: Double?
        /// Threads for blocking work of searches (query encoding, vector scans).
        public var searchThreads: Int
        /// Encoders that embed mail in parallel, one BLAS thread each.
        public var embeddingThreads: Int
        public var embeddingBatchSize: Int
        /// Embed new mail in the background as it arrives (after imports, at start).
        public var backgroundEmbedding: Bool
        /// Summarize conversations of 3+ messages in the background (after embedding, when that
        /// runs too), and store the summaries (`SummaryQueue`). Its own switch: `serve
        /// --no-background-embedding` still summarizes. Default: as `backgroundEmbedding`.
        public var backgroundSummaries: Bool
        /// A local language model for summaries (`LocalLLMSummarizer`), tried before the extractive
        /// summary; nil: extractive only.
        public var llm: LLMConfiguration?
        /// The calendar (and time zone) of date words, and the clock they count from.
        public var calendar: Calendar
        public var now: @Sendable () -> Date
        /// Search cache (spec 004): entries and seconds to live.
        public var cacheCapacity: Int
        public var cacheTimeToLive: TimeInterval
        /// One-line notices for the user (an index rebuilt after damage, E-05).
        public var notices: @Sendable (String) -> Void
        /// Read the search index through a memory map rather than a read call per page, and open
        /// one connection to each database instead of pools: for a one-shot process
        /// (`mailsearch search`), not a server.
        public var memoryMappedIndex = false

        public init(dataDirectory: DataDirectory, model: EmbeddingModel? = nil, modelDirectory: URL? = nil, readOnly: Bool = false,
                    minimumSimilarity: Double? = nil,
                    searchThreads: Int = 2, embeddingThreads: Int = ProcessInfo.processInfo.activeProcessorCount,
                    embeddingBatchSize: Int = 64, backgroundEmbedding: Bool = false, backgroundSummaries: Bool? = nil,
                    calendar: Calendar = Calendar(identifier: .gregorian), now: @escaping @Sendable () -> Date = Date.init,
                    cacheCapacity: Int = 20, cacheTimeToLive: TimeInterval = 120,
                    notices: @escaping @Sendable (String) -> Void = { _ in }) {
            self.dataDirectory = dataDirectory
            self.model = model
            self.modelDirectory = modelDirectory
            self.readOnly = readOnly
            self.minimumSimilarity = minimumSimilarity
            self.searchThreads = max(1, searchThreads)
            self.embeddingThreads = max(1, embeddingThreads)
            self.embeddingBatchSize = max(1, embeddingBatchSize)
            self.backgroundEmbedding = backgroundEmbedding
            self.backgroundSummaries = backgroundSummaries ?? backgroundEmbedding
            self.calendar = calendar
            self.now = now
            self.cacheCapacity = cacheCapacity
            self.cacheTimeToLive = cacheTimeToLive
            self.notices = notices
        }
    }
}

/// What the feature services share: the store, the keyword index, the vectors, the blocking pool and
/// the generation counter, opened once for the life of the process. Its methods are synchronous and
/// blocking; the feature services (`SearchService`, `ReaderService`, …) are the way in, and run them
/// on `pool`.
final class ServiceCore: @unchecked Sendable {
    let configuration: MailSearchService.Configuration
    /// The embedding model in use, and where its files are (`Configuration.model`, `modelDirectory`).
    public let model: EmbeddingModel
    public let modelDirectory: URL
    public let store: MailStore
    public let index: SearchIndexManager
    public let parser: SearchQueryParser
    let vectors = VectorSearchEngine()
    /// The vectors of attachments' passages, searched beside the emails'.
    let passages = PassageVectors()
    let pool: BlockingPool
    /// Search result pages (spec 004), keyed by the generation; "Clear caches" empties it.
    let cache: SearchCache<SearchPage>
    let semantic: SemanticState
    let insights = InsightsState()
    private let embedding: EmbeddingQueue
    let categorization: CategorizationQueue
    /// Background summaries of conversations (`SummaryQueue`), stored in mail.sqlite.
    let summaries: SummaryQueue
    /// Searches and insight requests in flight: the summaries' queue steps aside for them.
    let activity = ForegroundActivity()
    let state = ServiceState()
    /// The recent searches a search records, written in order off its path (`RecentSearchRecorder`).
    let recents: RecentSearchRecorder
    /// Where each syncing account stands: the boards the sync engines of this process write
    /// (`register(syncStatus:)`), shown in the status.
    let syncSources = LockedBox<[any SyncStatusSource]>([])
    /// A model download started from the page (`startModelInstall`).
    let modelInstallation = ModelInstallation()

    /// Every registered board's accounts, by name.
    var syncStatuses: [SyncStatus] { syncSources.withLockedValue({ $0 }).flatMap(\.snapshot).sorted { $0.account < $1.account } }
    /// Where passwords added from the page are kept (`register(secrets:)`).
    let secrets = LockedBox<(any SecretVault)?>(nil)
    /// Tries servers and starts and stops syncs for the accounts API (`register(accountConnector:)`).
    let accountConnector = LockedBox<(any AccountConnector)?>(nil)
    /// The send queue's undo window and the sender's state (`ServiceCore+Compose`).
    public let sending = SendQueueBoard()
    /// Rung when a mailbox action queues server operations (the outbox runners wake at once; a
    /// server beside this process too, through `outbox.wake` in the data directory).
    public let outboxQueued: OutboxSignal

    /// Opens the mailbox in `configuration.dataDirectory`, creating it when missing (unless read-only).
    /// Throws when `Configuration.model` is nil and `MAILSEARCH_MODEL` names no known model.
    init(configuration: MailSearchService.Configuration) throws {
        self.configuration = configuration
        outboxQueued = OutboxSignal(wakeFile: configuration.readOnly ? nil : configuration.dataDirectory.url.appendingPathComponent("outbox.wake"))
        do {
            model = try configuration.model ?? EmbeddingModel.selected()
        } catch {
            throw ServiceError.invalid("\(error)", hint: "set MAILSEARCH_MODEL to one of: \(EmbeddingModel.all.map(\.name).joined(separator: ", "))")
        }
        modelDirectory = configuration.modelDirectory ?? ModelStore(model: model).directory
        do {
            store = try MailStore(directory: configuration.dataDirectory, readOnly: configuration.readOnly,
                                  singleConnection: configuration.memoryMappedIndex)
        } catch {
            throw ServiceError(.unavailable, "cannot open the mail store in \(configuration.dataDirectory.url.path): \(error)")
        }
        do {
            index = try SearchIndexManager(store: store, notices: configuration.notices,
                                           memoryMapped: configuration.memoryMappedIndex)
        } catch {
            throw ServiceError(.unavailable, "cannot open the search index in \(configuration.dataDirectory.url.path): \(error)",
                               hint: "rebuild it from mail.sqlite")
        }
        parser = SearchQueryParser(calendar: configuration.calendar, now: configuration.now)
        recents = RecentSearchRecorder(store: store)
        pool = BlockingPool(threads: configuration.searchThreads)
        // Keys are the parsed query, exact: case can change a query's meaning (`a OR b`, `a or b`).
        cache = SearchCache(capacity: configuration.cacheCapacity, timeToLive: configuration.cacheTimeToLive,
                            normalizesKeys: false)
        let modelDirectory = self.modelDirectory
        let model = self.model
        semantic = SemanticState(model: model, modelDirectory: modelDirectory, vectors: vectors, passages: passages, store: store)
        let threads = configuration.embeddingThreads
        let state = self.state
        let categorization = CategorizationQueue(store: store) { changed in if changed > 0 { state.changed() } }
        self.categorization = categorization
        embedding = EmbeddingQueue(
            store: store, vectors: vectors, passages: passages, batchSize: configuration.embeddingBatchSize, modelName: model.name,
            makeEmbedders: {
                guard ModelStore(directory: modelDirectory, model: model).status().isInstalled else { return nil }
                // One encoder per thread, each on one BLAS thread: batches are split between them.
                if threads > 1 { BLAS.setThreadCount(1) }
                return try (0..<threads).map { _ in try MiniLMEmbedder(modelDirectory: modelDirectory, model: model) }
            },
            didCommit: { _ in
                state.changed()
                categorization.wake()  // fallback decisions of newly embedded mail may now be classified
            })
        let semantic = self.semantic
        let activity = self.activity
        let embeddingQueue = self.embedding
        summaries = SummaryQueue(
            store: store, backend: Self.extractiveBackend(model: model), superseded: Self.earlierExtractiveBackends(model: model),
            minimumMessages: Self.summaryMinimumMessages,
            makeEmbedder: { try semantic.encoder() },
            // Lowest priority: after embedding, and never while a user waits for an answer.
            isBusy: { embeddingQueue.progress.state == .running || !activity.isQuiet(for: 0.25) })
        if !configuration.readOnly {
            if configuration.backgroundEmbedding {
                embedding.wake()
                categorization.wake()
            }
            if configuration.backgroundSummaries { summaries.wake() }
        }
    }

    deinit {
        pool.shutdown()
    }

    /// Stops background work (the embedding batch in flight is finished and stored).
    public func shutdown() {
        outboxQueued.stopListening()
        summaries.stop()
        embedding.stop()
        categorization.stop()
        index.storeCopiesForNextProcess()
    }

    /// Keeps what this process computed and the next would need (the email directory, row
    /// lengths) in search.sqlite: a one-shot command calls it once its output is out.
    public func storeCopiesForNextProcess() {
        index.storeCopiesForNextProcess()
    }

    /// Changes with every write through the service: cached answers are keyed by it.
    public var generation: Int { state.generation }

    // MARK: Search

    /// Runs a search and returns one page of conversations (the same object `search --json` and
    /// `GET /api/search` print). A first page is recorded in the recent searches unless the
    /// request says not to.
    public func search(_ request: SearchRequest) async throws -> SearchPage {
        activity.begin()
        defer { activity.end() }
        let text = request.text
        guard text.count <= SearchRequest.maximumLength else {
            throw ServiceError.invalid("the query is \(text.count) characters long; the limit is \(SearchRequest.maximumLength)",
                                       hint: "shorten it")
        }
        guard (1...1000).contains(request.limit) else {
            throw ServiceError.invalid("limit must be between 1 and 1000 (got \(request.limit))")
        }
        if let floor = request.minimumSimilarity, !(-1...1).contains(floor) || floor.isNaN {
            throw ServiceError.invalid("the similarity floor must be between -1 and 1 (got \(floor))")
        }
        let offset = try Self.offset(of: request.cursor)
        // All mail needs no read of the folders: no hop to the pool for the most common scope.
        let scope = Self.isAllMail(request.scope) ? SearchScope.allMail : try await pool.run { [self] in try resolveScope(request.scope) }
        let query = parser.parse(text, scope: scope)
        let floor = request.minimumSimilarity ?? configuration.minimumSimilarity

        // Written in the background: a writer holding mail.sqlite (another process) never holds up the answer.
        if request.recordHistory, offset == 0, !configuration.readOnly { recents.record(text, on: pool) }

        let key = configuration.cacheCapacity > 0
            ? try await cacheKey(query: query, request: request, offset: offset, floor: floor) : nil
        if let key, let cached = cache.value(for: key, generation: generation) { return cached }
        let generationBefore = generation

        var ranker: (any SemanticRanker)?
        if request.mode != .keyword { ranker = try await semanticRanker(minimumSimilarity: floor) }
        let useCase = SearchEmailsUseCase(index: index, parser: parser, semantic: ranker)
        let response = try await useCase.search(query, limit: offset + request.limit, mode: request.mode)
        let results = Array(response.results.dropFirst(offset))
        let next = offset + results.count
        let threadIds = results.map(\.threadId)
        let threads = try await pool.run { [store] in try store.threads(ids: threadIds) }
        guard threads.count == results.count else {
            // A thread deleted between the search and this read: the answer mixes two states.
            throw ServiceError(.conflict, "the mail changed during the search", hint: "search again")
        }
        let page = SearchPage(
            query: SearchPage.Query(response.query), conversationCount: response.conversationCount,
            matchedConversations: response.matchedConversations, keywordMatches: response.keywordMatches, offset: offset, results: results, threads: threads,
            semantic: SemanticStatus(response.semantic), tookMs: response.tookMs,
            cursor: next < response.conversationCount && results.count == request.limit ? Self.cursor(offset: next) : nil)
        // An answer computed while the data changed is not kept: it may mix the two states.
        if let key, generation == generationBefore { cache.insert(page, for: key, generation: generationBefore) }
        return page
    }

    /// Parses a query the way `search` does (for showing how it was understood).
    public func parse(_ text: String, scope: SearchScope = .allMail) -> SearchQuery {
        parser.parse(text, scope: scope)
    }

    /// Whether a scope's text means all mail (nil, blank or "all").
    static func isAllMail(_ text: String?) -> Bool {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return true }
        return text.lowercased() == "all"
    }

    /// Resolves "all", "folder:NAME" (a path or a name, case-insensitive) or "folder:ID",
    /// "account:NAME" or "account:ID" (every folder of one account), or "inboxes" (the inbox of
    /// every account: the unified inbox).
    public func resolveScope(_ text: String?) throws -> SearchScope {
        guard !Self.isAllMail(text), let text = text?.trimmingCharacters(in: .whitespaces) else { return .allMail }
        let lower = text.lowercased()
        if lower == "inboxes" { return .inboxes }
        if lower.hasPrefix("account:") {
            let name = String(text.dropFirst("account:".count))
            let accounts = try store.accounts()
            if let id = Int64(name), let account = accounts.first(where: { $0.id == id }) { return .account(accountId: account.id) }
            guard let account = accounts.first(where: { $0.name == name })
                    ?? accounts.first(where: { $0.name.lowercased() == name.lowercased() }) else {
                throw Self.noAccount(named: name, among: accounts)
            }
            return .account(accountId: account.id)
        }
        guard lower.hasPrefix("folder:") else {
            throw ServiceError.invalid("scope must be \"all\", \"inboxes\", \"account:NAME\" or \"folder:NAME\" (got \"\(text)\")")
        }
        let name = String(text.dropFirst("folder:".count))
        let folders = try store.folders()
        if let id = Int64(name), let folder = folders.first(where: { $0.id == id }) { return .currentFolder(folderId: folder.id) }
        let match = folders.first { $0.path == name } ?? folders.first { $0.path.lowercased() == name.lowercased() }
            ?? folders.first { $0.name.lowercased() == name.lowercased() }
        guard let folder = match else {
            throw ServiceError.notFound("no folder named \"\(name)\"", hint: "list the folders to see their names")
        }
        return .currentFolder(folderId: folder.id)
    }

    /// The zero state: the last 10 searches and the 5 most frequent contacts.
    public func suggestions() throws -> Suggestions {
        let contacts = try store.topContacts(limit: 5).map {
            Suggestions.Contact(email: $0.email, name: $0.displayName, frequency: $0.frequency,
                                suggestedQuery: "from:\($0.email)")
        }
        try recents.flush()
        return Suggestions(recentSearches: try store.recentSearches(), contacts: contacts)
    }

    /// Adds a query to the recent searches (a first page of `search` does, and a front end that
    /// searches as the user types records the query the user settled on). Blank queries are not
    /// kept; a read-only service keeps nothing.
    public func recordSearch(_ text: String) throws {
        guard text.count <= SearchRequest.maximumLength else {
            throw ServiceError.invalid("the query is \(text.count) characters long; the limit is \(SearchRequest.maximumLength)")
        }
        guard !configuration.readOnly else { return }
        try recents.recordNow(text)
    }

    /// The accounts and folders (with counts).
    public func mailboxes() throws -> Mailboxes {
        Mailboxes(accounts: try store.accounts().map { Mailboxes.AccountInfo(id: $0.id, name: $0.name, email: $0.email) },
                  folders: try store.folders())
    }

    public func clearRecentSearches() throws {
        try recents.flush()
        try store.clearRecentSearches()
    }

    private func cacheKey(query: SearchQuery, request: SearchRequest, offset: Int, floor: Double?) async throws -> String {
        // The parsed query (date words resolved to dates), the page and the ranking settings; and
        // the mail's version, which another process's writes change too.
        let version = try await index.read { try EmailDirectory.version($0) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let parsed = String(decoding: try encoder.encode(query), as: UTF8.self)
        return "\(parsed)|\(request.mode.rawValue)|\(floor.map { "\($0)" } ?? "per-query")|\(offset)|\(request.limit)|v\(version)"
    }

    static func cursor(offset: Int) -> String {
        Data("o\(offset)".utf8).base64EncodedString()
    }

    static func offset(of cursor: String?) throws -> Int {
        guard let cursor, !cursor.isEmpty else { return 0 }
        guard let data = Data(base64Encoded: cursor), let text = String(data: data, encoding: .utf8),
              text.hasPrefix("o"), let offset = Int(text.dropFirst()), (0...1_000_000).contains(offset) else {
            throw ServiceError.invalid("the cursor \"\(cursor.prefix(40))\" is not one this server gave out",
                                       hint: "pass the cursor of the previous page unchanged, or none for the first page")
        }
        return offset
    }

    // MARK: Semantic search

    /// The semantic ranker, its model and vectors loaded on first use (off the cooperative pool).
    private func semanticRanker(minimumSimilarity: Double?) async throws -> any SemanticRanker {
        let semantic = self.semantic
        // No email embedded yet: say so without loading the model (most of a cold search's time).
        // One hop to the pool for both.
        let ready: MiniLMEmbedder?? = try await pool.run {
            if try semantic.availability() == .noEmbeddings { return .none }
            return .some(try semantic.prepare())
        }
        guard let ready else { return NoEmbeddingsYet() }
        return PooledSemanticRanker(embedder: ready, vectors: vectors, passages: passages, pool: pool,
                                    minimumSimilarity: minimumSimilarity)
    }

    /// Whether semantic search can run now, and if not why.
    public func semanticAvailability() throws -> SemanticSkipReason? {
        try semantic.availability()
    }

    // MARK: Reading mail

    public func email(id: Int64, includeHTML: Bool = false) throws -> EmailDetail {
        guard let stored = try store.email(id: id) else { throw ServiceError.notFound("no email with id \(id)") }
        var detail = EmailDetail(stored, includeHTML: includeHTML)
        detail.categorization = try store.categorization(emailId: id)?.decision
        try addAttachmentTextStatus(to: &detail)
        return detail
    }

    /// What reading each attachment's text gave (never silent about one that could not be read).
    private func addAttachmentTextStatus(to detail: inout EmailDetail) throws {
        guard !detail.attachments.isEmpty else { return }
        let stored = Dictionary(try store.attachmentTexts(emailId: detail.emailId).map { ($0.attachmentId, $0) },
                                uniquingKeysWith: { first, _ in first })
        for i in detail.attachments.indices {
            guard let text = stored[detail.attachments[i].id] else { continue }
            detail.attachments[i].textStatus = text.status
            detail.attachments[i].textDetail = text.detail
        }
    }

    public func thread(id: Int64, includeHTML: Bool = false) throws -> ThreadDetail {
        guard let (thread, emails) = try store.thread(id: id) else { throw ServiceError.notFound("no thread with id \(id)") }
        return ThreadDetail(thread: thread, emails: try emails.map {
            var detail = EmailDetail($0, includeHTML: includeHTML)
            detail.categorization = try store.categorization(emailId: $0.email.id)?.decision
            try addAttachmentTextStatus(to: &detail)
            return detail
        })
    }

    /// The original message (RFC 5322 bytes), read from where it was imported from.
    public func rawMessage(emailId: Int64) throws -> Data {
        guard let stored = try store.email(id: emailId) else { throw ServiceError.notFound("no email with id \(emailId)") }
        return Data(try MessageSource.rawBytes(emailId: emailId, sourceRef: stored.sourceRef))
    }

    /// An attachment's decoded bytes, for an explicit download (never fetched otherwise).
    public func attachment(id: Int64) throws -> AttachmentDownload {
        guard let (emailId, position, attachment) = try store.attachment(id: id) else {
            throw ServiceError.notFound("no attachment with id \(id)")
        }
        guard let stored = try store.email(id: emailId) else { throw ServiceError.notFound("no email with id \(emailId)") }
        let raw = try MessageSource.rawBytes(emailId: emailId, sourceRef: stored.sourceRef)
        let parts = MIMEParser.attachmentContents(raw)
        guard position < parts.count, parts[position].attachment.mimeType == attachment.mimeType else {
            throw ServiceError(.unavailable, "the source of email \(emailId) no longer holds attachment \(id)",
                               hint: "the file changed since the import; import it again")
        }
        return AttachmentDownload(info: AttachmentInfo(attachment), data: Data(parts[position].content))
    }

    /// The HTML body, sanitized (`SafeHTML`); the plain text when there is no HTML or nothing
    /// visible survives. `cid:` images of the email's own raster parts become data: URLs (up to
    /// `inlineImageBudget` bytes in all).
    public func safeHTML(emailId: Int64, allowRemoteImages: Bool = false) throws -> SafeHTML {
        guard let stored = try store.email(id: emailId) else { throw ServiceError.notFound("no email with id \(emailId)") }
        let email = stored.email
        let contentIds = Set(email.attachments.compactMap(\.contentId))
        var result = SafeHTML(emailId: emailId, html: nil, text: email.bodyPlain, remoteImagesAllowed: allowRemoteImages,
                              remoteImagesBlocked: 0, trackersBlocked: 0)
        guard let html = email.bodyHTML, !html.isEmpty else { return result }
        // The email's own images go in as data: URLs: the frame that shows the HTML (sandboxed,
        // an opaque origin) sends no token and may load nothing but data:.
        let budget = ByteBudget(Self.inlineImageBudget)
        let options = SanitizeOptions(allowRemoteImages: allowRemoteImages) { [self] cid in
            guard contentIds.contains(cid), let image = try? inlineImage(emailId: emailId, contentId: cid) else { return nil }
            return budget.take(image.data.count) ? "data:\(image.info.mimeType.lowercased());base64,\(image.data.base64EncodedString())" : nil
        }
        let safe = HTMLSanitizer.sanitize(html, options: options)
        result.remoteImagesBlocked = safe.remoteImagesBlocked
        result.trackersBlocked = safe.trackersBlocked
        result.html = safe.isEmpty ? nil : safe.html
        return result
    }

    /// The most inline-image bytes one `safeHTML` answer carries (an image past it is dropped).
    static let inlineImageBudget = 8 << 20

    /// An inline image of an email by its Content-ID (the `cid:` images of its HTML): raster
    /// types only (an SVG could carry script).
    public func inlineImage(emailId: Int64, contentId: String) throws -> AttachmentDownload {
        guard let stored = try store.email(id: emailId) else { throw ServiceError.notFound("no email with id \(emailId)") }
        guard let attachment = stored.email.attachments.first(where: { $0.contentId == contentId }) else {
            throw ServiceError.notFound("email \(emailId) has no part with Content-ID \(contentId.prefix(80))")
        }
        let raster: Set<String> = ["image/png", "image/gif", "image/jpeg", "image/jpg", "image/webp"]
        guard raster.contains(attachment.mimeType.lowercased()) else {
            throw ServiceError.notFound("the part \(contentId.prefix(80)) of email \(emailId) is not a raster image (\(attachment.mimeType))")
        }
        return try self.attachment(id: attachment.id)
    }

    // MARK: Writing

    /// Stores a batch of incoming mail and indexes it (FTS5 now, embeddings in the background).
    @discardableResult
    public func ingest(_ batch: [IncomingEmail], accountId: Int64) throws -> IngestResult {
        let result = try store.ingest(batch, accountId: accountId)
        try didCommit(result, store: store)
        return result
    }

    /// Imports an mbox, Maildir or folder of messages into `account` (created when missing),
    /// reporting progress after each batch; new mail is searchable by keyword at once, and
    /// embedded in the background when that is on.
    public func importMail(path: String, account: String, folder: String? = nil, batchSize: Int = ImportPipeline.defaultBatchSize,
                           progress: @escaping @Sendable (ImportProgress) -> Void = { _ in }) async throws -> ImportSummary {
        guard state.beginImport(path: path) else {
            throw ServiceError(.conflict, "an import is already running", hint: "wait for it to finish; its progress is in the status")
        }
        do {
            let summary = try await runImport(path: path, account: account, folder: folder, batchSize: batchSize, defersIndexes: true,
                                              progress: progress)
            state.importFinished(summary: summary, error: nil)
            return summary
        } catch {
            state.importFinished(summary: nil, error: "\(error)")
            throw error
        }
    }

    /// Starts `importMail` in the background (the API's POST /api/import): when it returns, the
    /// status shows the import running; its progress and outcome follow there.
    public func startImport(path: String, account: String, folder: String? = nil) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw ServiceError.notFound("nothing at \(path)", hint: "give the path of an mbox file, a Maildir or a folder of messages on this machine")
        }
        guard state.beginImport(path: path) else {
            throw ServiceError(.conflict, "an import is already running", hint: "wait for it to finish; its progress is in the status")
        }
        Task.detached { [self] in
            do {
                let summary = try await runImport(path: path, account: account, folder: folder, batchSize: ImportPipeline.defaultBatchSize,
                                                  defersIndexes: false) { _ in }
                state.importFinished(summary: summary, error: nil)
            } catch {
                state.importFinished(summary: nil, error: "\(error)")
            }
        }
    }

    /// `defersIndexes`: `ImportPipeline.defersIndexes` — for an import the caller waits for (the
    /// command line's), not one a page started and reads the status of meanwhile.
    private func runImport(path: String, account: String, folder: String?, batchSize: Int, defersIndexes: Bool,
                           progress: @escaping @Sendable (ImportProgress) -> Void) async throws -> ImportSummary {
        let state = self.state
        let categorization = self.categorization
        categorization.importStarted()
        // The categoriser learns the mailbox's lists from all of its mail once the mail is stored,
        // while the index still merges (or at the latest when the import ends, however it ends).
        let mailStored = OnceOnly { categorization.importFinished() }
        let pipeline = ImportPipeline(store: store, accountName: account, folderOverride: folder, batchSize: batchSize,
                                      observer: ImportRunObserver(core: self, mailStored: mailStored), defersIndexes: defersIndexes)
        let summary: ImportSummary
        do {
            defer { mailStored.run() }
            summary = try await pool.run {
                try pipeline.run(path: path) { p in
                    state.importProgress(p)
                    progress(p)
                }
            }
        }
        if configuration.backgroundSummaries, !configuration.readOnly { summaries.wake() }
        if configuration.backgroundEmbedding {
            embedding.wake()
        } else {
            _ = try await pool.run { categorization.waitUntilIdle() }
        }
        return summary
    }

    /// Deletes emails everywhere: mail, FTS5 rows, embeddings, in-memory vectors and the local
    /// copies of fetched messages.
    public func delete(emailIds: [Int64]) throws {
        guard !emailIds.isEmpty else { return }
        let copies = try store.sourceRefs(emailIds: emailIds).values.filter { messageArchive.holds($0) }
        try index.remove(emailIds: emailIds)
        for id in emailIds { try store.deleteEmail(id: id) }
        vectors.remove(emailIds)
        passages.remove(emailIds: emailIds)
        state.changed()
        for path in copies { messageArchive.remove(path) }
    }

    /// The account named `name` (exactly), or `notFound` naming the accounts there are.
    func account(named name: String) throws -> Account {
        if let account = try store.findAccount(named: name) { return account }
        throw Self.noAccount(named: name, among: try store.accounts())
    }

    static func noAccount(named name: String, among accounts: [Account]) -> ServiceError {
        ServiceError.notFound("no account named \"\(name.prefix(200))\"",
                              hint: accounts.isEmpty ? "there is no account yet"
                                  : "the accounts are \(accounts.map { "\"\($0.name)\"" }.joined(separator: ", "))")
    }

    /// Deletes an account and every local trace of it (AC-S-09). Returns how many emails went.
    @discardableResult
    public func deleteAccount(named name: String) throws -> Int {
        let account = try account(named: name)
        let ids = try index.deleteAccount(id: account.id)
        vectors.remove(ids)
        passages.remove(emailIds: ids)
        state.changed()
        try messageArchive.removeAccount(account.id)
        for source in syncSources.withLockedValue({ $0 }) { source.remove(name) }
        return ids.count
    }

    /// Rebuilds the keyword index from mail.sqlite and reloads the vectors, reporting (done, total).
    public func rebuild(progress: (Int, Int) -> Void = { _, _ in }) throws {
        try index.rebuild(progress: progress)
        try semantic.reloadVectorsIfLoaded()
        state.changed()
    }

    /// The local copies of messages fetched by sync.
    public var messageArchive: MessageArchive {
        MessageArchive(root: store.directory.url.appendingPathComponent("messages"))
    }

    /// Tells the service that a writer changed mail directly in the store (folder links of a
    /// sync): cached answers are not used again.
    public func mailChanged() {
        state.changed()
    }

    /// Sets read, starred and draft as the server has them (spec 001 §5.2.3); searches see the
    /// change at once. Returns how many emails changed.
    @discardableResult
    public func updateFlags(_ flags: [Int64: MessageFlags]) throws -> Int {
        let changed = try store.updateFlags(flags)
        if changed > 0 { state.changed() }
        return changed
    }

    /// Threads an account's mail again as if it had arrived in date order, after a sync stored
    /// `emailIds` out of that order (nil: the whole account); searches see it at once.
    public func rethreadInDateOrder(accountId: Int64, after emailIds: [Int64]?) throws {
        try store.rethreadInDateOrder(accountId: accountId, after: emailIds)
        state.changed()
    }

    /// Asks the background queue to embed mail that has none (after an import or a sync, say), when
    /// this process embeds in the background (`serve --no-background-embedding` and read-only
    /// services do not: `index embed` is theirs).
    public func embedPendingInBackground() {
        guard configuration.backgroundEmbedding, !configuration.readOnly else { return }
        embedding.wake()
    }

    /// Embeds every email that has no embedding yet (at most `limit`), now, with
    /// `progress(done, total)`: the command-line `index embed`. The same batches as the background
    /// queue: each one stored, then in the in-memory vectors.
    @discardableResult
    public func embedPending(limit: Int? = nil, progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }) async throws -> Int {
        let queue = embedding
        return try await pool.run { try queue.runNow(limit: limit, progress: progress) }
    }

    /// Embeds the passages of attachments' text that have none yet, now, with
    /// `progress(done, total)` in attachments: the second part of `index embed`.
    @discardableResult
    public func embedPendingPassages(progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }) async throws -> Int {
        let queue = embedding
        return try await pool.run { try queue.runPassagesNow(progress: progress) }
    }

    /// Waits until the background queue has nothing left to do.
    public func waitForEmbedding() async {
        let queue = embedding
        _ = try? await pool.run { queue.waitUntilIdle() }
    }

    // MARK: Status

    /// The background embedding's progress, and whether it runs in this process at all.
    var embeddingProgress: EmbeddingProgress {
        var progress = embedding.progress
        progress.background = configuration.backgroundEmbedding && !configuration.readOnly
        return progress
    }

    public func status() throws -> ServiceStatus {
        let stats = try store.statistics()
        let embedded = try store.embeddingCount(model: model.name)
        let embeddingBytes = try store.embeddingBytes()
        let modelStatus = ModelStore(directory: modelDirectory, model: model).status()
        let indexStatus = try index.status(embeddedEmails: embedded)
        let availability = try semantic.availability()
        return ServiceStatus(
            dataDirectory: store.directory.url.path, generation: generation,
            emails: stats.emails, threads: stats.threads, accounts: stats.accounts, folders: stats.folders,
            contacts: stats.contacts, unread: stats.unread,
            sizes: ServiceStatus.Sizes(mailDatabase: stats.mailDatabaseBytes, fts5: indexStatus.bytes,
                                       embeddings: embeddingBytes, model: modelStatus.isInstalled ? modelStatus.totalBytes : 0),
            keywordIndex: ServiceStatus.KeywordIndex(indexedEmails: indexStatus.indexedEmails, missing: indexStatus.missing,
                                                     orphaned: indexStatus.orphaned, healthy: indexStatus.healthy),
            embeddingModel: model.name, embeddedEmails: embedded,
            embeddingCoverage: stats.emails == 0 ? 0 : Double(embedded) / Double(stats.emails),
            semanticAvailable: availability == nil, semanticUnavailableReason: availability,
            embedding: embeddingProgress, summaries: try summaryProgress(), importing: state.importStatus, sync: syncStatuses,
            outbox: try store.outboxCounts(), sending: try sendQueueStatus(), lastError: state.lastError)
    }
}

/// What one import tells the service: the batches go to `ServiceCore`, the end of its mail
/// writes to this import's `mailStored`.
private struct ImportRunObserver: ImportBatchObserver {
    let core: ServiceCore
    let mailStored: OnceOnly
    func willBeginImport() throws { try core.willBeginImport() }
    func didCommit(_ result: IngestResult, store: MailStore) throws { try core.didCommit(result, store: store) }
    func didStoreAllMail() { mailStored.run() }
    func didFinishImport(imported: Int) throws { try core.didFinishImport(imported: imported) }
    func didAbandonImport() { core.didAbandonImport() }
}

/// Work done at most once, by whichever caller comes first.
final class OnceOnly: @unchecked Sendable {
    private let lock = NSLock()
    private var work: (() -> Void)?
    init(_ work: @escaping () -> Void) { self.work = work }
    func run() {
        let work = lock.withLock { () -> (() -> Void)? in
            defer { self.work = nil }
            return self.work
        }
        work?()
    }
}

extension ServiceCore: ImportBatchObserver {
    /// Each committed import batch: FTS5 rows at once, embeddings in the background.
    public func didFinishImport(imported: Int) throws {
        try index.optimizeAfterImport(imported: imported)
    }

    public func didCommit(_ result: IngestResult, store: MailStore) throws {
        try index.index(result.inserted)
        state.changed()
        if !result.inserted.isEmpty { categorization.wake() }
        if !result.inserted.isEmpty {
            if configuration.backgroundEmbedding { embedding.wake() }
            if configuration.backgroundSummaries { summaries.wake() }
        }
    }

    public func willBeginImport() throws {
        try index.beginImport()
    }

    public func didAbandonImport() {
        index.abandonImport()
    }
}

/// Everything `GET /api/status` and `mailsearch index status` show.
public struct ServiceStatus: Sendable, Codable {
    public struct Sizes: Sendable, Codable, Hashable {
        public var mailDatabase: Int64
        /// search.sqlite (FTS5), bytes.
        public var fts5: Int64
        /// Stored embedding vectors, bytes.
        public var embeddings: Int64
        /// The embedding model's files, bytes (0 when not installed).
        public var model: Int64
    }

    public struct KeywordIndex: Sendable, Codable, Hashable {
        public var indexedEmails: Int
        public var missing: Int
        public var orphaned: Int
        public var healthy: Bool
    }

    public var dataDirectory: String
    public var generation: Int
    public var emails, threads, accounts, folders, contacts, unread: Int
    public var sizes: Sizes
    public var keywordIndex: KeywordIndex
    /// The embedding model in use (`MAILSEARCH_MODEL`); `embeddedEmails` counts its vectors.
    public var embeddingModel: String
    public var embeddedEmails: Int
    public var embeddingCoverage: Double
    /// Whether a semantic search would run now, and if not why.
    public var semanticAvailable: Bool
    public var semanticUnavailableReason: SemanticSkipReason?
    public var embedding: EmbeddingProgress
    /// Background summaries of conversations of 3+ messages (`SummaryQueue`).
    public var summaries: SummaryProgress
    public var importing: ImportStatus?
    /// Each IMAP account this process syncs (spec 001 §5.2.2's states); empty when none.
    public var sync: [SyncStatus]
    /// Each IMAP account's outbox of mailbox actions waiting for (or written to) the server.
    public var outbox: [OutboxCounts]
    /// The send queue: messages waiting out their undo window or their next attempt, failed, sent.
    public var sending: SendQueueStatus
    public var lastError: String?
}

/// A running or finished import started through the service.
public struct ImportStatus: Sendable, Codable, Hashable {
    public var path: String
    public var running: Bool
    public var messagesDone: Int
    public var messagesTotal: Int?
    public var imported: Int?
    public var duplicates: Int?
    public var failed: Int?
    public var error: String?
}

/// The service's mutable bookkeeping: generation, import progress, last error.
final class ServiceState: @unchecked Sendable {
    private let lock = NSLock()
    private var generationValue = 0
    private var importValue: ImportStatus?
    private var lastErrorValue: String?

    var generation: Int { lock.withLock { generationValue } }
    var importStatus: ImportStatus? { lock.withLock { importValue } }
    var importRunning: Bool { lock.withLock { importValue?.running == true } }
    var lastError: String? { lock.withLock { lastErrorValue } }

    func changed() { lock.withLock { generationValue += 1 } }

    func beginImport(path: String) -> Bool {
        lock.withLock {
            if importValue?.running == true { return false }
            importValue = ImportStatus(path: path, running: true, messagesDone: 0)
            return true
        }
    }

    func importProgress(_ p: ImportProgress) {
        lock.withLock {
            importValue?.messagesDone = p.messagesDone
            importValue?.messagesTotal = p.messagesTotal
        }
    }

    func importFinished(summary: ImportSummary?, error: String?) {
        lock.withLock {
            importValue?.running = false
            importValue?.imported = summary?.imported
            importValue?.duplicates = summary?.duplicates
            importValue?.failed = summary?.failed
            importValue?.error = error
            if let error { lastErrorValue = error }
        }
    }
}

/// The embedding model for queries and the in-memory vectors, loaded when a semantic search first
/// needs them.
final class SemanticState: @unchecked Sendable {
    private let lock = NSLock()
    private let model: EmbeddingModel
    private let modelDirectory: URL
    private let vectors: VectorSearchEngine
    private let passages: PassageVectors
    private let store: MailStore
    private var embedder: MiniLMEmbedder?
    private var vectorsLoaded = false

    init(model: EmbeddingModel, modelDirectory: URL, vectors: VectorSearchEngine, passages: PassageVectors, store: MailStore) {
        self.model = model
        self.modelDirectory = modelDirectory
        self.vectors = vectors
        self.passages = passages
        self.store = store
    }

    /// Loads the model and the vectors once; returns the query encoder, nil without a model.
    func prepare() throws -> MiniLMEmbedder? {
        try lock.withLock {
            // Without a model the vectors are of no use: do not load them.
            guard ModelStore(directory: modelDirectory, model: model).status().isInstalled else { return nil }
            if !vectorsLoaded {
                try vectors.load(from: store, model: model.name)
                try passages.load(from: store, model: model.name)
                vectorsLoaded = true
            }
            if embedder == nil { embedder = try MiniLMEmbedder(modelDirectory: modelDirectory, model: model) }
            return embedder
        }
    }

    /// The encoder alone (thread summaries and reply suggestions need no stored vectors), nil without a model.
    func encoder() throws -> MiniLMEmbedder? {
        try lock.withLock {
            guard ModelStore(directory: modelDirectory, model: model).status().isInstalled else { return nil }
            if embedder == nil { embedder = try MiniLMEmbedder(modelDirectory: modelDirectory, model: model) }
            return embedder
        }
    }

    func reloadVectorsIfLoaded() throws {
        try lock.withLock {
            guard vectorsLoaded else { return }
            try vectors.load(from: store, model: model.name)
            try passages.load(from: store, model: model.name)
        }
    }

    /// Whether the query encoder (the model) has been loaded.
    var encoderLoaded: Bool { lock.withLock { embedder != nil } }

    /// Forgets the loaded encoder (its files were removed): the next search finds the model missing.
    func dropEncoder() { lock.withLock { embedder = nil } }

    /// Why semantic search cannot run now, or nil when it can.
    func availability() throws -> SemanticSkipReason? {
        guard ModelStore(directory: modelDirectory, model: model).status().isInstalled else { return .modelNotInstalled }
        let loaded = lock.withLock { vectorsLoaded }
        let count = loaded ? vectors.count : try store.embeddingCount(model: model.name)
        return count == 0 ? .noEmbeddings : nil
    }
}

/// The semantic ranker of the service's searches: the query encoder and the vector scan run on
/// the service's blocking pool.
struct PooledSemanticRanker: SemanticRanker {
    let embedder: MiniLMEmbedder?
    let vectors: VectorSearchEngine
    let passages: PassageVectors
    let pool: BlockingPool
    let minimumSimilarity: Double?

    var unavailableReason: SemanticSkipReason? {
        if embedder == nil { return .modelNotInstalled }
        if vectors.count == 0 { return .noEmbeddings }
        return nil
    }

    func knowsWord(_ word: String) -> Bool { embedder?.knowsWord(word) ?? true }

    func rank(text: String, candidates: EmailIdSet?, limit: Int) async throws -> [SemanticHit] {
        try await rankWithNearMisses(text: text, candidates: candidates, limit: limit).matches
    }

    func rankWithNearMisses(text: String, candidates: EmailIdSet?, limit: Int) async throws -> SemanticRanking {
        let relevance = embedder?.model.relevance ?? .calibrated
        let ranker = VectorSemanticRanker(embedder: embedder, vectors: vectors, passages: passages,
                                          minimumSimilarity: minimumSimilarity, relevance: relevance)
        return try await pool.compute { try ranker.rankNowWithNearMisses(text: text, candidates: candidates, limit: limit) }
    }
}

/// The semantic ranker of a mailbox with no embedding yet (for the model in use).
private struct NoEmbeddingsYet: SemanticRanker {
    var unavailableReason: SemanticSkipReason? { .noEmbeddings }
    func rank(text: String, candidates: EmailIdSet?, limit: Int) async throws -> [SemanticHit] { [] }
    func rankWithNearMisses(text: String, candidates: EmailIdSet?, limit: Int) async throws -> SemanticRanking {
        SemanticRanking(matches: [])
    }
}

/// Bytes left to spend; for one synchronous sanitizer pass (its callbacks run on its thread).
private final class ByteBudget: @unchecked Sendable {
    private var left: Int

    init(_ bytes: Int) { left = bytes }

    /// Whether `bytes` fit, taking them if so.
    func take(_ bytes: Int) -> Bool {
        guard bytes <= left else { return false }
        left -= bytes
        return true
    }
}
