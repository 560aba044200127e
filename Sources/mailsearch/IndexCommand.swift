import ArgumentParser
import Foundation
import SearchIndex

struct IndexCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index", abstract: "Inspect or rebuild the search index.",
        subcommands: [IndexStatusCommand.self, IndexRebuildCommand.self])
}

struct IndexStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Index size, rows, embedding coverage and health.")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let context = try SearchContext(global: global, readOnly: true)
        let s = try context.index.status()
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
        let s = try context.index.status()
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
