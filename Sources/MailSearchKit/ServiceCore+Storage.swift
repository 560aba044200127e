import Embedding
import Foundation
import MailModel
internal import MailStore

/// What the mailbox takes on this computer (001 §8.3): per account, the data directory's files,
/// the model and the caches. Every number is measured when asked for (rows' bytes, files' sizes);
/// what cannot be measured for an account (its share of the search index, SQLite's own pages) is
/// only in the data directory's totals, never estimated.
public struct StorageReport: Sendable, Codable, Hashable {
    public struct FileUsage: Sendable, Codable, Hashable {
        public var count: Int
        public var bytes: Int64
    }

    /// An account's share of mail.sqlite: the bytes of its rows' content.
    public struct MailDatabaseUsage: Sendable, Codable, Hashable {
        /// Its emails' stored text (UTF-8): bodies, plain and HTML, subjects, snippets, addresses,
        /// Message-IDs and references, source paths, parse defects.
        public var text: Int64
        /// Its emails' vectors and their attachments' passage vectors.
        public var vectors: Int64
        /// The text read from its attachments.
        public var attachmentText: Int64
        /// Its conversations' stored summaries (a cache: "Clear caches" empties it).
        public var summaries: Int64
        /// The sum of the four. SQLite's page overhead, row headers and indexes are not counted.
        public var bytes: Int64
    }

    public struct AccountUsage: Sendable, Codable, Hashable {
        public var id: Int64
        public var name: String
        /// `imap` (synced) or `imported`.
        public var kind: String
        public var emails: Int
        public var conversations: Int
        /// Its attachments: how many, and their decoded sizes as recorded when their messages were read.
        public var attachments: FileUsage
        /// Its messages as received: the sum of their sizes (the RFC 5322 bytes, attachments included).
        public var messageBytes: Int64
        public var mailDatabase: MailDatabaseUsage
        /// Its copies of fetched messages in `messages/ID/` (IMAP accounts), measured on disk.
        /// Imported mail is read from the files it was imported from, outside the data directory:
        /// not counted here.
        public var messageFiles: FileUsage
        /// `mailDatabase.bytes + messageFiles.bytes`: what this account's data takes in the data
        /// directory, as far as it can be told apart (its share of search.sqlite cannot).
        public var bytes: Int64
        /// Emails whose original message cannot be read (the file it was imported from is gone):
        /// an mbox export leaves them out.
        public var missingOriginals: Int
        /// `bytes` is over `limits.accountBytes` (001 §8.1 asks for a warning).
        public var overLimit: Bool
    }

    public struct DataDirectoryUsage: Sendable, Codable, Hashable {
        public var path: String
        /// Every file under it, measured now.
        public var bytes: Int64
        /// mail.sqlite with its -wal and -shm files.
        public var mailDatabase: Int64
        /// search.sqlite (the keyword index, a cache of mail.sqlite) with its -wal and -shm files.
        public var searchIndex: Int64
        /// `messages/`: every account's copies of fetched messages.
        public var messageFiles: FileUsage
        /// The rest: settings, the secret store, the model when it is kept here.
        public var other: Int64
    }

    public struct ModelUsage: Sendable, Codable, Hashable {
        public var name: String
        public var path: String
        public var installed: Bool
        /// Its files; 0 when not installed.
        public var bytes: Int64
        /// The model's folder is inside the data directory (its bytes are in `dataDirectory.bytes`).
        public var insideDataDirectory: Bool
    }

    public struct Limits: Sendable, Codable, Hashable {
        /// 001 §8.1: warn when an account's storage is over 2 GB.
        public var accountBytes: Int64
        /// 001 §8.3: warn when everything is over 5 GB.
        public var totalBytes: Int64
    }

    public var accounts: [AccountUsage]
    public var dataDirectory: DataDirectoryUsage
    public var model: ModelUsage
    /// What "Clear caches" would empty now (`CacheReport`).
    public var caches: CacheReport
    /// The data directory and the model (counted once when the model is inside the data directory).
    public var totalBytes: Int64
    public var limits: Limits
    /// Sentences for what is over a limit; empty when nothing is.
    public var warnings: [String]
}

/// The caches: what is computed from the mail and computed again when needed, never the user's
/// own data (mail, flags, drafts, the outbox, category choices, settings, recent searches).
public struct CacheReport: Sendable, Codable, Hashable {
    public struct Cache: Sendable, Codable, Hashable {
        /// `threadSummaries`, `summaryAnswers`, `searchResults`, `replyModel`.
        public var name: String
        public var description: String
        /// Rows or entries.
        public var entries: Int
        /// Their bytes where they can be measured (rows of mail.sqlite); nil for what is in memory.
        public var bytes: Int64?
    }

    public var caches: [Cache]
    /// The sum of the measured bytes.
    public var bytes: Int64
}

/// What `clearCaches` emptied.
public struct CachesCleared: Sendable, Codable, Hashable {
    /// Each cache as it was just before it was emptied.
    public var cleared: [CacheReport.Cache]
    /// The bytes of the rows deleted from mail.sqlite.
    public var bytes: Int64
    /// The background queue summarizes the conversations again now (`serve` without
    /// `--no-background-summaries`); else a summary is made when its conversation is opened.
    public var summariesInBackground: Bool
    public var note: String
}

extension ServiceCore {
    static let storageLimits = StorageReport.Limits(accountBytes: 2_000_000_000, totalBytes: 5_000_000_000)

    func storageReport() throws -> StorageReport {
        let directory = store.directory.url.standardizedFileURL
        let walk = Self.measure(directory)
        let imap = Set(try store.imapAccounts().map { $0.account.id })
        let usage = Dictionary(uniqueKeysWithValues: try store.accountUsage().map { ($0.accountId, $0) })
        var accounts: [StorageReport.AccountUsage] = []
        for account in try store.accounts() {
            guard let row = usage[account.id] else { continue }
            let files = walk.perAccount[String(account.id)] ?? StorageReport.FileUsage(count: 0, bytes: 0)
            let database = StorageReport.MailDatabaseUsage(text: row.textBytes, vectors: row.vectorBytes, attachmentText: row.attachmentTextBytes,
                                                           summaries: row.summaryBytes, bytes: row.databaseBytes)
            let bytes = database.bytes + files.bytes
            accounts.append(StorageReport.AccountUsage(
                id: account.id, name: account.name, kind: imap.contains(account.id) ? "imap" : "imported", emails: row.emails,
                conversations: row.conversations, attachments: StorageReport.FileUsage(count: row.attachments, bytes: row.attachmentBytes),
                messageBytes: row.messageBytes, mailDatabase: database, messageFiles: files, bytes: bytes,
                missingOriginals: MessageSource.countMissing(try store.sourceRefs(accountId: account.id)),
                overLimit: bytes > Self.storageLimits.accountBytes))
        }
        let modelStatus = ModelStore(directory: modelDirectory, model: model).status()
        let modelPath = modelDirectory.standardizedFileURL.path
        let modelInside = modelPath.hasPrefix(directory.path + "/")
        let modelBytes = modelStatus.isInstalled ? modelStatus.totalBytes : 0
        let mailBytes = MailStore.fileSize(store.directory.mailDatabaseURL)
        let indexBytes = MailStore.fileSize(store.directory.searchDatabaseURL)
        let dataDirectory = StorageReport.DataDirectoryUsage(
            path: directory.path, bytes: walk.bytes, mailDatabase: mailBytes, searchIndex: indexBytes, messageFiles: walk.messages,
            other: max(0, walk.bytes - mailBytes - indexBytes - walk.messages.bytes))
        let total = walk.bytes + (modelInside ? 0 : modelBytes)
        var warnings: [String] = []
        for account in accounts where account.overLimit {
            warnings.append("\(account.name) takes \(Self.gigabytes(account.bytes)) on this computer, over \(Self.gigabytes(Self.storageLimits.accountBytes))")
        }
        if total > Self.storageLimits.totalBytes {
            warnings.append("MailSearch takes \(Self.gigabytes(total)) on this computer, over \(Self.gigabytes(Self.storageLimits.totalBytes))")
        }
        return StorageReport(
            accounts: accounts, dataDirectory: dataDirectory,
            model: StorageReport.ModelUsage(name: model.name, path: modelPath, installed: modelStatus.isInstalled, bytes: modelBytes,
                                            insideDataDirectory: modelInside),
            caches: try cacheReport(), totalBytes: total, limits: Self.storageLimits, warnings: warnings)
    }

    static func gigabytes(_ bytes: Int64) -> String {
        let tenths = (bytes + 50_000_000) / 100_000_000
        return "\(tenths / 10).\(tenths % 10) GB"
    }

    /// Every regular file under `directory`: the total, `messages/` in all and per account folder.
    static func measure(_ directory: URL) -> (bytes: Int64, messages: StorageReport.FileUsage, perAccount: [String: StorageReport.FileUsage]) {
        var total: Int64 = 0
        var messages = StorageReport.FileUsage(count: 0, bytes: 0)
        var perAccount: [String: StorageReport.FileUsage] = [:]
        let keys: [URLResourceKey] = [.isRegularFileKey, .fileSizeKey]
        guard let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: keys) else {
            return (0, messages, perAccount)
        }
        let messagesPrefix = directory.path + "/messages/"
        for case let url as URL in enumerator {
            guard let values = try? url.resourceValues(forKeys: Set(keys)), values.isRegularFile == true else { continue }
            let size = Int64(values.fileSize ?? 0)
            total += size
            let path = url.standardizedFileURL.path
            guard path.hasPrefix(messagesPrefix) else { continue }
            messages.count += 1
            messages.bytes += size
            let account = String(path.dropFirst(messagesPrefix.count).prefix { $0 != "/" })
            perAccount[account, default: StorageReport.FileUsage(count: 0, bytes: 0)].count += 1
            perAccount[account, default: StorageReport.FileUsage(count: 0, bytes: 0)].bytes += size
        }
        return (total, messages, perAccount)
    }

    func cacheReport() throws -> CacheReport {
        let summaries = try store.storedSummaryUsage()
        let memory = insights.cachedCounts
        return Self.cacheReport(summaries: summaries, summaryAnswers: memory.summaries, searchResults: cache.count, replyModel: memory.replyModel)
    }

    static func cacheReport(summaries: StoredSummaryUsage, summaryAnswers: Int, searchResults: Int, replyModel: Int) -> CacheReport {
        let caches = [
            CacheReport.Cache(name: "threadSummaries", description: "conversations' summaries stored in mail.sqlite, computed again when a conversation is opened (and in the background when that is on)",
                              entries: summaries.rows, bytes: summaries.bytes),
            CacheReport.Cache(name: "summaryAnswers", description: "summaries kept in memory for the mail as it is now", entries: summaryAnswers, bytes: nil),
            CacheReport.Cache(name: "searchResults", description: "search results kept in memory for two minutes", entries: searchResults, bytes: nil),
            CacheReport.Cache(name: "replyModel", description: "the suggested replies' vectors and the mailbox's word counts, in memory, made again at the next suggestion",
                              entries: replyModel, bytes: nil),
        ]
        return CacheReport(caches: caches, bytes: caches.reduce(0) { $0 + ($1.bytes ?? 0) })
    }

    /// Empties the caches (`CacheReport`): stored summaries, and what is kept in memory. Searches,
    /// summaries and suggestions are computed again when asked for; with background summaries
    /// on, the queue summarizes again. The user's own data is not touched.
    func clearCaches() throws -> CachesCleared {
        guard !configuration.readOnly else { throw ServiceError(.unavailable, "the mailbox is open read-only") }
        let summaries = try store.deleteAllThreadSummaries()
        let memory = insights.clear()
        let searchResults = cache.count
        cache.removeAll()
        // Cached answers are keyed by the generation: none of this process's is used again.
        state.changed()
        if configuration.backgroundSummaries { self.summaries.wake() }
        let report = Self.cacheReport(summaries: summaries, summaryAnswers: memory.summaries, searchResults: searchResults,
                                      replyModel: memory.replyModel)
        return CachesCleared(cleared: report.caches, bytes: report.bytes, summariesInBackground: configuration.backgroundSummaries,
                             note: "mail.sqlite keeps its size: SQLite reuses the freed pages for new rows")
    }
}
