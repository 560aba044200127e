import ArgumentParser
import CLIOutput
import Foundation
import MailModel
import MailSearchKit
import SearchCLI

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export mail: every email's metadata, one JSON object a line, or the messages as an mbox.",
        discussion: """
            jsonl fields: \(EmailExportLine.fieldNames).
            mbox: the messages as received, byte for byte (mboxrd), which `mailsearch import` reads back; \
            flags and folders are not in it. An email whose original is gone (the file it was imported from) \
            is left out, and counted on standard error.
            """)

    @Option(help: "Output format: jsonl or mbox.")
    var format: ExportFormat = .jsonl

    @Option(help: "Export only this account's mail (its name, as `mailsearch account list` shows it).")
    var account: String?

    @Option(name: .shortAndLong, help: "Write to this file instead of standard output.")
    var output: String?

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let service = try global.openService(readOnly: true)
        defer { service.shutdown() }
        let export: MailExport
        do {
            export = try await service.mailbox.prepareExport(format, account: account)
        } catch let error as ServiceError {
            throw CLIError(error.description)
        }
        let handle: FileHandle
        if let output {
            guard FileManager.default.createFile(atPath: output, contents: nil), let h = FileHandle(forWritingAtPath: output) else {
                throw CLIError("cannot write \(output): check that its folder exists and is writable")
            }
            handle = h
        } else {
            handle = FileHandle.standardOutput
        }
        let summary = try await export.run(chunkBytes: 1 << 20) { chunk in try handle.write(contentsOf: Data(chunk)) }
        if output != nil { try handle.close() }
        if summary.missingOriginals > 0 {
            FileHandle.standardError.write(Data(("\(summary.missingOriginals) of \(summary.emails + summary.missingOriginals) emails were left out: "
                + "their original message could not be read (the file they were imported from is gone or changed). "
                + "Their metadata is in --format jsonl.\n").utf8))
        }
    }
}

extension ExportFormat: ExpressibleByArgument {}
