import Foundation
import MailModel
import MailParsing
import MailStore

/// Progress of a running import, reported after every batch.
public struct ImportProgress: Sendable {
    public var messagesDone: Int
    /// Total messages when known up front (one-file-per-message sources); nil for mbox.
    public var messagesTotal: Int?
    public var bytesDone: Int64
    public var bytesTotal: Int64
    public var elapsed: TimeInterval
    public var imported: Int
    public var duplicates: Int
    public var failed: Int
}

/// A message that could not be imported, or a folder or file of the source that could not be
/// read, by where it came from.
public struct ImportFailure: Error, Sendable, Codable, Hashable {
    public var source: String
    public var reason: String
}

/// The outcome of an import (`--json` prints it).
public struct ImportSummary: Sendable, Codable {
    public var source: String
    public var kind: ImportSourceKind
    public var account: String
    public var imported: Int
    public var duplicates: Int
    /// Messages that could not be imported plus folders and files that could not be read.
    public var failed: Int
    public var seconds: Double
    /// The first 1,000 of them.
    public var failures: [ImportFailure]
}

/// Something that wants to see every committed batch — the search index does.
public protocol ImportBatchObserver: Sendable {
    /// Called once before an import's first batch.
    func willBeginImport() throws
    /// Called after the batch's mail transaction committed.
    func didCommit(_ result: IngestResult, store: MailStore) throws
    /// Called once every batch's mail transaction has committed, while the index may still be taking
    /// the last batches (the mail is all there: what reads it whole may begin).
    func didStoreAllMail()
    /// Called once every batch of an import was handed to `didCommit`, with how many emails it added.
    func didFinishImport(imported: Int) throws
    /// Called instead of `didFinishImport` when the import stops on an error (batches committed
    /// before it may still reach `didCommit`).
    func didAbandonImport()
}

extension ImportBatchObserver {
    public func willBeginImport() throws {}
    public func didStoreAllMail() {}
    public func didFinishImport(imported: Int) throws {}
    public func didAbandonImport() {}
}

/// The import pipeline: a source's messages are read in order, parsed in parallel on every
/// core, and written to the store in batched transactions (one per `batchSize` messages),
/// while the next batch is already being parsed.
///
/// Import is idempotent (identity = account + Message-ID, or a content hash) and resumable:
/// a killed import leaves whole batches only; running it again skips what is stored and
/// ends with the same store as one clean run.
public struct ImportPipeline: Sendable {
    public var store: MailStore
    public var accountName: String
    public var folderOverride: String?
    public var batchSize: Int
    public var observer: (any ImportBatchObserver)?
    /// Into an empty mailbox, build the indexes no import step reads once the mail is stored
    /// (`MailStore.deferIndexesWhileEmpty`): for an import nothing else queries meanwhile (the
    /// command line's), since filters, counts and sender searches scan the table until then.
    public var defersIndexes: Bool

    /// Messages per transaction unless told otherwise. Each commit rewrites the index pages its
    /// emails touched (12 indexes of emails, threads, contacts) and hands FTS5 one segment, so
    /// larger batches write less: Enron imported in 21.9 s with 2,000 against 26.4 s with 500 (one run
    /// each, 2-core AVX2 host; docs/benchmarks.md has the interleaved runs).
    /// A killed import loses at most the batch under way (importing again completes it).
    public static let defaultBatchSize = 2_000

    public init(store: MailStore, accountName: String, folderOverride: String? = nil, batchSize: Int = ImportPipeline.defaultBatchSize,
                observer: (any ImportBatchObserver)? = nil, defersIndexes: Bool = false) {
        self.store = store
        self.defersIndexes = defersIndexes
        self.accountName = accountName
        self.folderOverride = folderOverride
        self.batchSize = max(1, batchSize)
        self.observer = observer
    }

    /// Runs the import of `path`, calling `progress` after each batch (on the calling thread).
    public func run(path: String, progress: (ImportProgress) -> Void = { _ in }) throws -> ImportSummary {
        let start = Date()
        let source = try ImportSource.detect(path: path, folderOverride: folderOverride)
        let account = try store.account(named: accountName)
        try observer?.willBeginImport()
        var finished = false
        defer { if !finished { observer?.didAbandonImport() } }
        // Fewer, larger checkpoints while the import writes; back to the usual interval after.
        try store.setCheckpointInterval(bytes: MailStore.importCheckpointBytes)
        defer { try? store.setCheckpointInterval(bytes: MailStore.checkpointBytes) }
        // Into an empty mailbox, the indexes no import step reads are built once the mail is
        // stored; on an error, here (or, if that fails too, when the store is next opened).
        var deferredIndexes = defersIndexes ? try store.deferIndexesWhileEmpty() : nil
        defer { if deferredIndexes != nil { try? store.buildDeferredIndexes() } }
        typealias ParsedBatch = (items: [Result<IncomingEmail, ImportFailure>], bytesDone: Int64)
        let queue = HandOff<ParsedBatch>(capacity: 2)
        let batchSize = self.batchSize

        // Producer: reads and parses batches on a thread of its own.
        let producer = Thread {
            var pending: [RawMessage] = []
            var lastBytes: Int64 = 0
            func flush() throws {
                try queue.put((Self.parse(pending), lastBytes))
                pending.removeAll(keepingCapacity: true)
            }
            do {
                try source.forEachMessage { raw, bytesDone in
                    if queue.hasFailed { return false }
                    pending.append(raw)
                    lastBytes = bytesDone
                    if pending.count >= batchSize { try flush() }
                    return true
                }
                if !pending.isEmpty { try flush() }
                queue.finish()
            } catch {
                queue.fail(error)
            }
        }
        producer.stackSize = 8 << 20
        producer.start()

        // The index (search.sqlite) is written on a thread of its own, beside the mail writer:
        // two files, two writers, no lock between them. A batch reaches it after its mail commit.
        let indexQueue = HandOff<IngestResult>(capacity: 4)
        if let observer {
            let store = self.store
            Thread {
                do {
                    while let result = try indexQueue.take() { try observer.didCommit(result, store: store) }
                } catch {
                    indexQueue.fail(error)
                }
            }.start()
        }
        // On an error below, batches already committed to mail.sqlite are still indexed.
        defer { indexQueue.finish() }

        var imported = 0, duplicates = 0, done = 0
        // Folders and files of the source that could not be read are failures too.
        var failures = Array(source.unreadable.prefix(1000))
        var failed = source.unreadable.count
        do {
            while let (items, bytesDone) = try queue.take() {
                var incoming: [IncomingEmail] = []
                incoming.reserveCapacity(items.count)
                for item in items {
                    switch item {
                    case .success(let email): incoming.append(email)
                    case .failure(let failure):
                        failed += 1
                        if failures.count < 1000 { failures.append(failure) }
                    }
                }
                let result = try store.ingest(incoming, accountId: account.id)
                if observer != nil { try indexQueue.put(result) }
                imported += result.inserted.count
                duplicates += result.duplicates
                done += items.count
                progress(ImportProgress(
                    messagesDone: done, messagesTotal: source.knownMessageCount, bytesDone: bytesDone,
                    bytesTotal: source.totalBytes, elapsed: Date().timeIntervalSince(start),
                    imported: imported, duplicates: duplicates, failed: failed))
            }
        } catch {
            queue.fail(error)
            throw error
        }
        observer?.didStoreAllMail()
        // On a thread of its own while the index (another file) takes its last batches and merges:
        // the deferred indexes built, then the write-ahead log folded into mail.sqlite so the file on
        // disk is complete after an import (`passive`: it waits for no reader; the index's
        // connection reads mail.sqlite too); the rest once the index is done.
        let store = self.store
        let buildIndexes = deferredIndexes != nil
        let checkpoint = BackgroundWork {
            if buildIndexes { try store.buildDeferredIndexes() }
            _ = try store.database.writeWithoutTransaction { try $0.checkpoint(.passive) }
        }
        if let observer {
            try indexQueue.finishAndWaitUntilDrained()
            try observer.didFinishImport(imported: imported)
        }
        try checkpoint.wait()
        deferredIndexes = nil  // built: the lease goes
        finished = true
        _ = try store.database.writeWithoutTransaction { try $0.checkpoint(.truncate) }
        return ImportSummary(
            source: source.root.path, kind: source.kind, account: account.name, imported: imported,
            duplicates: duplicates, failed: failed, seconds: Date().timeIntervalSince(start), failures: failures)
    }

    /// Parses a batch on all cores. A message fails only when there is nothing to parse.
    static func parse(_ raws: [RawMessage]) -> [Result<IncomingEmail, ImportFailure>] {
        raws.concurrentMap(MessageConverter.incoming)
    }
}

/// Work started on a thread of its own, whose end (and error) the caller waits for.
final class BackgroundWork: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var error: (any Error)?

    init(_ work: @escaping @Sendable () throws -> Void) {
        Thread { [self] in
            do { try work() } catch { self.error = error }
            done.signal()
        }.start()
    }

    /// Waits for the work to end; rethrows its error.
    func wait() throws {
        done.wait()
        if let error { throw error }
    }
}
