import ArgumentParser
import CLIOutput
import Embedding
import Foundation
import MailSearchKit
import SearchCLI
import SearchEngine
import SearchIndex

struct IndexCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index", abstract: "Inspect or rebuild the search index, embed mail, read attachments.",
        subcommands: [IndexStatusCommand.self, IndexRebuildCommand.self, IndexEmbedCommand.self, IndexAttachmentsCommand.self])
}

struct IndexStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Index size, rows, embedding coverage and health.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let s = try await global.openService(readOnly: true).status()
        if global.json { return try Output.printJSON(s) }
        Self.printStatus(s)
    }

    static func printStatus(_ s: ServiceStatus) {
        let k = s.keywordIndex
        print("Data directory: \(s.dataDirectory)")
        print("  emails            \(s.emails) in \(s.threads) conversations, \(s.accounts) account\(s.accounts == 1 ? "" : "s")")
        print("  keyword index     \(k.indexedEmails) of \(s.emails) emails, \(Output.bytes(s.sizes.fts5)) (FTS5)")
        print("  health            \(k.healthy ? "ok" : "\(k.missing) missing, \(k.orphaned) orphaned — run `mailsearch index rebuild`")")
        print("  embeddings        \(s.embeddedEmails) (\(String(format: "%.1f", s.embeddingCoverage * 100)) % coverage), \(Output.bytes(s.sizes.embeddings))")
        print("  model             \(s.sizes.model > 0 ? Output.bytes(s.sizes.model) : "not installed")")
        print("  semantic search   \(s.semanticUnavailableReason.map { "off: " + Wording.semantic($0) } ?? "on")")
        print("  summaries         \(s.summaries.stored) of \(s.summaries.eligible) conversations of 3+ messages stored (made in the background by `mailsearch serve`)")
    }
}

struct IndexRebuildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rebuild", abstract: "Rebuild the keyword index from mail.sqlite.")

    @Flag(help: "No progress output.")
    var quiet = false

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let service = try global.openService(readOnly: true)
        let bar = TerminalProgress(label: "Indexing", unit: "emails", enabled: !quiet)
        let start = Date()
        try await service.rebuild { done, total in
            bar.update(done: done, total: total, fraction: total > 0 ? Double(done) / Double(total) : 1,
                       elapsed: Date().timeIntervalSince(start))
        }
        bar.finish()
        let s = try await service.status()
        if global.json { return try Output.printJSON(s) }
        print("Rebuilt the keyword index: \(s.keywordIndex.indexedEmails) emails, \(Output.bytes(s.sizes.fts5)), \(String(format: "%.1f", Date().timeIntervalSince(start))) s")
    }
}

struct AccountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account", abstract: "Add, list and remove accounts.",
        subcommands: [AccountAddCommand.self, AccountListCommand.self, AccountRemoveCommand.self])
}

struct AccountRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Delete an account and every local trace of it (emails, index rows, embeddings, contacts, message copies, sync state).")

    @Argument(help: "The account's name.")
    var name: String

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let service = try global.openService()
        guard try await service.mailbox.account(named: name) != nil else {
            throw CLIError("no account named \"\(name)\"; `mailsearch accounts` lists them")
        }
        let removed = try await service.mailbox.deleteAccount(named: name)
        if global.json { return try Output.printJSON(["account": name, "removedEmails": String(removed)]) }
        print("Removed account \"\(name)\" and its \(removed) emails.")
    }
}

struct IndexAttachmentsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attachments",
        abstract: "Read the text of attachments not read yet (PDF, Office, OpenDocument, RTF, HTML, text, calendar, attached mail, archive names) into the search index.",
        discussion: """
            Each attachment is read in a separate process limited in CPU time, memory and wall-clock time, without network;             a file that cannot be read (damaged, a zip bomb, an XML with entities) is counted and listed, and the rest goes on.             `import` does this by itself at its end. Safe to interrupt: what was read is kept.
            """)

    @Option(help: "Read the attachments of at most this many emails.")
    var limit: Int?

    @Flag(help: "No progress output.")
    var quiet = false

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let service = try global.openService()
        let bar = TerminalProgress(label: "Reading attachments", unit: "emails", enabled: !quiet)
        let start = Date()
        let summary: AttachmentReadSummary
        do {
            summary = try await service.readAttachments(limit: limit) { done, total in
                bar.update(done: done, total: total, fraction: total > 0 ? Double(done) / Double(total) : 1,
                           elapsed: Date().timeIntervalSince(start))
            }
        } catch let e as ServiceError {
            bar.finish()
            throw CLIError(e.description)
        }
        bar.finish()
        if global.json { return try Output.printJSON(summary) }
        AttachmentReport.print(summary)
    }
}

/// The lines `import` and `index attachments` print about the attachments they read.
enum AttachmentReport {
    static func print(_ summary: AttachmentReadSummary) {
        guard summary.attachments > 0 else { return }
        Swift.print(String(format: "Read %d attachments of %d emails in %.1f s: %d with text, %d with none to read (images and the like), %d unreadable",
                           summary.attachments, summary.emails, summary.seconds, summary.read, summary.unsupported, summary.unreadable))
        for problem in summary.problems.prefix(10) { Swift.print("  unreadable: \(problem)") }
        if summary.problems.count > 10 { Swift.print("  … and \(summary.problems.count - 10) more (`mailsearch index attachments --json` lists them)") }
    }
}

struct IndexEmbedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "embed",
        abstract: "Compute embeddings for emails that have none yet, newest first (semantic search).",
        discussion: """
            Then the passages of the text read from attachments (up to 24 passages of about 1,000 characters per \
            attachment; the whole text is in the keyword index), unless --limit is given. Safe to interrupt: \
            finished batches are kept, and the next run continues where this one stopped.
            """)

    @Option(help: "Embed at most this many emails.")
    var limit: Int?

    @Option(help: "Emails per batch and encoder.")
    var batchSize = 64

    @Option(help: "Encoders working in parallel (one thread each). Default: the number of cores.")
    var threads = ProcessInfo.processInfo.activeProcessorCount

    @Flag(help: "No progress output.")
    var quiet = false

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard batchSize > 0 else { throw ValidationError("--batch-size must be at least 1") }
        guard threads > 0 else { throw ValidationError("--threads must be at least 1") }
    }

    func run() async throws {
        var configuration = MailSearchService.Configuration(
            dataDirectory: global.dataDirectory, embeddingThreads: threads, embeddingBatchSize: batchSize,
            notices: { FileHandle.standardError.write(Data("note: \($0)\n".utf8)) })
        configuration.backgroundEmbedding = false
        let service: MailSearchService
        do { service = try MailSearchService(configuration: configuration) } catch let e as ServiceError { throw CLIError(e.description) }
        let model = ModelStore(directory: service.modelDirectory, model: service.model).status()
        guard model.isInstalled else {
            throw CLIError("no \(model.model) model at \(model.directory) (\(model.problems.joined(separator: "; "))). Install it with `mailsearch model install --model \(model.model)`.")
        }
        let bar = TerminalProgress(label: "Embedding", unit: "docs", enabled: !quiet)
        let start = Date()
        let done = try await service.embedPending(limit: limit) { done, total in
            bar.update(done: done, total: total, fraction: total > 0 ? Double(done) / Double(total) : 1,
                       elapsed: Date().timeIntervalSince(start))
        }
        bar.finish()
        let seconds = Date().timeIntervalSince(start)
        // Then the passages of attachments' text (all of them, whatever --limit says of emails).
        var attachments = 0
        var passageSeconds = 0.0
        if limit == nil {
            let passageBar = TerminalProgress(label: "Attachment passages", unit: "attachments", enabled: !quiet)
            let passageStart = Date()
            attachments = try await service.embedPendingPassages { done, total in
                passageBar.update(done: done, total: total, fraction: total > 0 ? Double(done) / Double(total) : 1,
                                  elapsed: Date().timeIntervalSince(passageStart))
            }
            passageBar.finish()
            passageSeconds = Date().timeIntervalSince(passageStart)
        }
        let s = try await service.status()
        if global.json { return try Output.printJSON(s) }
        print(String(format: "Embedded %d emails in %.1f s (%.1f docs/s); coverage %.1f %%", done, seconds,
                     seconds > 0 ? Double(done) / seconds : 0, s.embeddingCoverage * 100))
        if attachments > 0 {
            print(String(format: "Embedded the passages of %d attachments in %.1f s", attachments, passageSeconds))
        }
    }
}
