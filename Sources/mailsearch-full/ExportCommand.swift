import ArgumentParser
import CLIOutput
import Foundation
import MailModel
import MailSearchKit
import SearchCLI

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export every email's metadata, one JSON object a line.",
        discussion: "Fields: emailId, messageId, threadId, accountId, folders, date, from, subject, hasAttachment, isRead, category.")

    enum Format: String, ExpressibleByArgument, CaseIterable { case jsonl }

    @Option(help: "Output format.")
    var format: Format = .jsonl

    @Option(name: .shortAndLong, help: "Write to this file instead of standard output.")
    var output: String?

    @OptionGroup var global: GlobalOptions

    struct Line: Encodable {
        var emailId: Int64
        var messageId: String
        var threadId: Int64?
        var accountId: Int64
        var folders: [String]
        var date: Date?
        var from: String?
        var subject: String
        var hasAttachment: Bool
        var isRead: Bool
        var category: String
    }

    func run() async throws {
        let service = try global.openService(readOnly: true)
        defer { service.shutdown() }
        let handle: FileHandle
        if let output {
            guard FileManager.default.createFile(atPath: output, contents: nil) , let h = FileHandle(forWritingAtPath: output) else {
                throw CLIError("cannot write \(output): check that its folder exists and is writable")
            }
            handle = h
        } else {
            handle = FileHandle.standardOutput
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let buffer = LockedBox(Data())
        try await service.mailbox.forEachEmail { email, folders in
            let line = Line(emailId: email.id, messageId: email.messageId, threadId: email.threadId,
                            accountId: email.accountId, folders: folders, date: email.date,
                            from: email.from?.email, subject: email.subject, hasAttachment: email.hasAttachment,
                            isRead: email.isRead, category: email.category.rawValue)
            let encoded = try encoder.encode(line)
            buffer.withLockedValue { buffer in
                buffer.append(encoded)
                buffer.append(0x0A)
                if buffer.count > 1 << 20 { handle.write(buffer); buffer.removeAll(keepingCapacity: true) }
            }
        }
        handle.write(buffer.value)
        if output != nil { try handle.close() }
    }
}
