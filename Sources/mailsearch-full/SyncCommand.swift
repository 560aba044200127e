import ArgumentParser
import CLIOutput
import Foundation
import IMAPSync
import Logging
import MailModel
import MailSearchKit
import SearchCLI
import ServiceLifecycle

struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Sync IMAP accounts: new mail, flag changes and deletions, into the search index.",
        discussion: """
            Without a name, every IMAP account is synced. New mail is searchable by keyword as soon as its batch is stored (newest first); embeddings for semantic search follow with `mailsearch index embed` (or in the background with --watch and `mailsearch serve`). Interrupt it any time: the next run goes on where it stopped. With --watch it stays connected and listens (IMAP IDLE): new mail is searchable within seconds of its arrival. Ctrl-C stops it.

              mailsearch sync                 # every account, once
              mailsearch sync work --watch    # keep "work" in sync until Ctrl-C
            """)

    @Argument(help: "The account to sync (default: every IMAP account).")
    var name: String?

    @Flag(help: "Stay connected and sync as mail arrives (IMAP IDLE), until Ctrl-C.")
    var watch = false

    @Flag(help: "No progress output.")
    var quiet = false

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let service = try global.openService(backgroundEmbedding: watch)
        defer { service.shutdown() }
        do {
            try await StoreVault.register(for: service, dataDirectory: global.dataDirectory.url)
        } catch {
            throw CLIError("cannot open the password store: \(error)")
        }
        let engines = try await IMAPSyncEngine.engines(service: service, accountNamed: name)
        if engines.isEmpty {
            if let name {
                if try await service.mailbox.account(named: name) != nil {
                    throw CLIError("account \"\(name)\" was imported from files, not added from an IMAP server: there is nothing to sync")
                }
                throw CLIError("no account named \"\(name)\"; `mailsearch account list` shows the accounts")
            }
            throw CLIError("no IMAP account to sync; add one with `mailsearch account add NAME --imap HOST --user USER --password-command CMD`")
        }
        let progress = SyncProgress(enabled: !quiet && !global.json)
        engines.first?.board.observe { progress.show($0) }
        if watch { return try await watchAll(engines, service: service) }

        var summaries: [SyncSummary] = []
        var failures: [String] = []
        for engine in engines {
            do {
                summaries.append(try await engine.sync())
                progress.finish()
            } catch {
                progress.finish()
                failures.append("\(engine.account.name): \(error)")
            }
        }
        // New mail gets its category before the command ends, as after an import.
        if summaries.contains(where: { $0.newEmails > 0 }) { await service.categories.waitForCategorization() }
        if global.json {
            try Output.printJSON(summaries)
        } else {
            for s in summaries { print(Self.describe(s)) }
        }
        if !failures.isEmpty {
            throw CLIError(failures.joined(separator: "\nerror: "))
        }
    }

    private func watchAll(_ engines: [IMAPSyncEngine], service: MailSearchService) async throws {
        var logger = Logger(label: "mailsearch.sync")
        logger.logLevel = .warning
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [BackgroundSync(engines: engines)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        if !quiet {
            FileHandle.standardError.write(Data("Watching \(engines.map(\.account.name).joined(separator: ", ")) (Ctrl-C to stop)\n".utf8))
        }
        try await group.run()
    }

    static func describe(_ s: SyncSummary) -> String {
        var parts = ["\(s.newEmails) new emails"]
        if s.linked > 0 { parts.append("\(s.linked) already stored (linked to their folders)") }
        if s.flagChanges > 0 { parts.append("\(s.flagChanges) flag changes") }
        if s.removedFromFolders > 0 { parts.append("\(s.removedFromFolders) removed from folders") }
        if s.deletedEmails > 0 { parts.append("\(s.deletedEmails) emails deleted") }
        if s.revalidatedFolders > 0 { parts.append("\(s.revalidatedFolders) folders matched again after a UIDVALIDITY change") }
        if !s.failures.isEmpty { parts.append("\(s.failures.count) messages could not be read") }
        if !s.skippedFolders.isEmpty { parts.append("\(s.skippedFolders.count) folders the server would not open") }
        let rate = s.seconds > 0 && s.fetched > 0 ? String(format: ", %.0f msgs/s", Double(s.fetched) / s.seconds) : ""
        var text = "Synced \(s.account): \(parts.joined(separator: ", ")); \(s.folders) folders (\(s.unchangedFolders) unchanged) in \(String(format: "%.1f", s.seconds)) s\(rate)."
        for failure in s.failures.prefix(5) { text += "\n  could not read \(failure.source): \(failure.reason)" }
        for skipped in s.skippedFolders.prefix(5) { text += "\n  could not open \(skipped.folder): \(skipped.reason)" }
        return text
    }
}

/// The progress bar of a sync: the account's state, folder, messages, rate and ETA (one folder
/// at a time: a new folder ends the last one's bar).
private final class SyncProgress: @unchecked Sendable {
    private let enabled: Bool
    private let lock = NSLock()
    private var current: (key: String, bar: TerminalProgress, started: Date)?

    init(enabled: Bool) {
        self.enabled = enabled
    }

    func show(_ status: SyncStatus) {
        guard enabled else { return }
        lock.withLock {
            switch status.state {
            case .syncingHeaders, .syncingBodies, .indexing:
                // A folder's messages; not the threading at the end of a pass (no folder, no count).
                guard let folder = status.folder, let total = status.messagesTotal else { return }
                let key = "\(status.account)/\(folder)"
                if current?.key != key {
                    current?.bar.finish()
                    current = (key, TerminalProgress(label: "\(status.account) \(folder)", unit: "msgs"), Date())
                }
                guard let current else { return }
                let fraction = total > 0 ? Double(status.messagesDone) / Double(total) : nil
                current.bar.update(done: status.messagesDone, total: total, fraction: fraction,
                                   elapsed: Date().timeIntervalSince(current.started))
            case .error:
                if let error = status.lastError {
                    let retry = status.nextAttempt.map { " (trying again at \(Output.date($0)))" } ?? ""
                    FileHandle.standardError.write(Data("\n\(status.account): \(error)\(retry)\n".utf8))
                }
            default:
                break
            }
        }
    }

    func finish() {
        lock.withLock {
            current?.bar.finish()
            current = nil
        }
    }
}
