import ArgumentParser
import CLIOutput
import Embedding
import Foundation
import MailImport
import MailSearchKit
import SearchCLI

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import mail from an mbox file, a Maildir, or a folder of message files.",
        discussion: """
            The kind of source is detected: an mbox file (mboxo/mboxrd; Gmail Takeout labels become \
            folders, flags and categories), a Maildir or Maildir++ tree (cur/new, flags from the file \
            names, subfolders become folders), or a directory tree with one message per file (the \
            directory path becomes the folder; Maildir folders inside it are read as Maildirs). \
            Folders or files that cannot be read are listed as failures. Importing again adds nothing \
            new; an interrupted import can simply be run again.
            """)

    @Argument(help: ArgumentHelp("The mbox file, Maildir, or directory to import.", valueName: "path"))
    var path: String

    @Option(help: "The account to import into (created when missing).")
    var account = "local"

    @Option(help: "Put every message in this folder instead of the source's own layout.")
    var folder: String?

    @Option(help: "Messages per transaction.")
    var batchSize = ImportPipeline.defaultBatchSize

    @Flag(help: "No progress output.")
    var quiet = false

    @Flag(help: "Do not read the text of attachments now (`mailsearch index attachments` reads it later); their names are indexed either way.")
    var noAttachmentText = false

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard batchSize > 0 else { throw ValidationError("--batch-size must be at least 1") }
        guard !account.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("--account must not be empty") }
    }

    func run() async throws {
        let service = try global.openService()
        let bar = TerminalProgress(label: "Importing", unit: "msgs", enabled: !quiet)
        let summary: ImportSummary
        do {
            summary = try await service.mailbox.importMail(path: path, account: account, folder: folder, batchSize: batchSize) { p in
                let fraction: Double? = p.messagesTotal.map { $0 > 0 ? Double(p.messagesDone) / Double($0) : 1 }
                    ?? (p.bytesTotal > 0 ? Double(p.bytesDone) / Double(p.bytesTotal) : nil)
                bar.update(done: p.messagesDone, total: p.messagesTotal, fraction: fraction, elapsed: p.elapsed)
            }
        } catch let error as ImportError {
            bar.finish()
            throw CLIError(error.description)
        } catch let error as ServiceError {
            bar.finish()
            throw CLIError(error.description)
        }
        bar.finish()
        // The text of the new mail's attachments, each read in a limited child process.
        var attachments: AttachmentReadSummary?
        if !noAttachmentText, summary.imported > 0 {
            let reading = TerminalProgress(label: "Reading attachments", unit: "emails", enabled: !quiet && !global.json)
            let start = Date()
            do {
                attachments = try await service.readAttachments { done, total in
                    reading.update(done: done, total: total, fraction: total > 0 ? Double(done) / Double(total) : 1,
                                   elapsed: Date().timeIntervalSince(start))
                }
            } catch let error as ServiceError {
                reading.finish()
                FileHandle.standardError.write(Data("note: attachments not read: \(error.description); `mailsearch index attachments` reads them later\n".utf8))
            }
            reading.finish()
        }
        if global.json {
            try Output.printJSON(summary)
            return
        }
        let rate = summary.seconds > 0 ? Double(summary.imported + summary.duplicates + summary.failed) / summary.seconds : 0
        print("Imported \(summary.imported) new messages into account \"\(summary.account)\" from \(summary.kind.rawValue) \(summary.source)")
        print("  \(summary.duplicates) already present, \(summary.failed) failed, \(String(format: "%.1f", summary.seconds)) s (\(Int(rate)) msgs/s)")
        for failure in summary.failures.prefix(20) {
            print("  failed: \(failure.source): \(failure.reason)")
        }
        if summary.failures.count > 20 { print("  … and \(summary.failures.count - 20) more (use --json for all)") }
        if let attachments { AttachmentReport.print(attachments) }
        let waiting = try await service.emailsWithoutEmbedding()
        if waiting > 0 {
            print(ModelStore(directory: service.modelDirectory, model: service.model).status().isInstalled
                  ? "  \(waiting) emails have no embedding yet: keyword search works now; run `mailsearch index embed` for semantic search."
                  : "  Keyword search is ready. For semantic search: `mailsearch model install`, then `mailsearch index embed`.")
        }
    }
}
