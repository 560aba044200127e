import ArgumentParser
import Embedding
import Foundation
import SearchEngine
import SearchIndex

struct IndexCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index", abstract: "Inspect or rebuild the search index.",
        subcommands: [IndexStatusCommand.self, IndexRebuildCommand.self, IndexEmbedCommand.self])
}

struct IndexStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Index size, rows, embedding coverage and health.")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let context = try SearchContext(global: global, readOnly: true)
        let s = try context.indexStatus()
        if global.json { return try Output.printJSON(s) }
        print("Search index: \(s.path)")
        print("  size              \(Output.bytes(s.bytes))")
        print("  keyword rows      \(s.indexedEmails) of \(s.mailEmails) emails")
        print("  health            \(s.healthy ? "ok" : "\(s.missing) missing, \(s.orphaned) orphaned — run `mailsearch index rebuild`")")
        print("  embeddings        \(s.embeddedEmails) (\(String(format: "%.1f", s.embeddingCoverage * 100)) % coverage)")
        print("  semantic search   \(s.semanticSearch)")
    }
}

struct IndexRebuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rebuild", abstract: "Rebuild the keyword index from mail.sqlite.")

    @Flag(help: "No progress output.")
    var quiet = false

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let context = try SearchContext(global: global, readOnly: true)
        let bar = TerminalProgress(label: "Indexing", unit: "emails", enabled: !quiet)
        let start = Date()
        try context.index.rebuild { done, total in
            bar.update(done: done, total: total, fraction: total > 0 ? Double(done) / Double(total) : 1,
                       elapsed: Date().timeIntervalSince(start))
        }
        bar.finish()
        let s = try context.indexStatus()
        if global.json { return try Output.printJSON(s) }
        print("Rebuilt the keyword index: \(s.indexedEmails) emails, \(Output.bytes(s.bytes)), \(String(format: "%.1f", Date().timeIntervalSince(start))) s")
    }
}

struct AccountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account", abstract: "Manage accounts.", subcommands: [AccountRemoveCommand.self])
}

struct AccountRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Delete an account and all of its local data (emails, index rows, contacts).")

    @Argument(help: "The account's name.")
    var name: String

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let context = try SearchContext(global: global)
        guard let account = try context.store.findAccount(named: name) else {
            throw CLIError("no account named \"\(name)\"; `mailsearch accounts` lists them")
        }
        let removed = try context.index.deleteAccount(id: account.id)
        if global.json { return try Output.printJSON(["account": name, "removedEmails": String(removed)]) }
        print("Removed account \"\(name)\" and its \(removed) emails.")
    }
}

struct IndexEmbedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "embed",
        abstract: "Compute embeddings for emails that have none yet, newest first (semantic search).",
        discussion: "Safe to interrupt: finished batches are kept, and the next run continues where this one stopped.")

    @Option(help: "Embed at most this many emails.")
    var limit: Int?

    @Option(help: "Emails per batch.")
    var batchSize = 64

    @Flag(help: "No progress output.")
    var quiet = false

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let context = try SearchContext(global: global)
        let status = ModelStore().status()
        guard status.isInstalled else {
            throw CLIError("no embedding model at \(status.directory) (\(status.problems.joined(separator: "; "))). Install it with `mailsearch model install`.")
        }
        // One encoder per core on one BLAS thread each: batches are split between them.
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        if workers > 1 { BLAS.setThreadCount(1) }
        let embedders: [any Embedder] = try (0..<workers).map { _ in
            try MiniLMEmbedder(modelDirectory: URL(fileURLWithPath: status.directory))
        }
        let indexer = EmbeddingIndexer(store: context.store, embedders: embedders, batchSize: batchSize)
        let bar = TerminalProgress(label: "Embedding", unit: "docs", enabled: !quiet)
        let start = Date()
        let done = try indexer.run(limit: limit) { done, total in
            bar.update(done: done, total: total, fraction: total > 0 ? Double(done) / Double(total) : 1,
                       elapsed: Date().timeIntervalSince(start))
        }
        bar.finish()
        let seconds = Date().timeIntervalSince(start)
        let s = try context.indexStatus()
        if global.json { return try Output.printJSON(s) }
        print(String(format: "Embedded %d emails in %.1f s (%.1f docs/s); coverage %.1f %%", done, seconds,
                     seconds > 0 ? Double(done) / seconds : 0, s.embeddingCoverage * 100))
    }
}
