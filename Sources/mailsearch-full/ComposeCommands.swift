import ArgumentParser
import CLIOutput
import Foundation
import IMAPSync
import MailComposition
import MailSearchKit
import SearchCLI

/// What `reply` and `forward` take: the email, the text, recipients, attachments, and whether to
/// send now, keep a draft, or print the message.
struct ComposeOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("The email: e<ID> or its id (as `search` and `show` print them).", valueName: "email-id"))
    var email: String

    @Option(help: ArgumentHelp("Your text, UTF-8, from a file or - for standard input; written above the quoted or forwarded message.",
                               valueName: "file|-"))
    var bodyFile: String?

    @Option(help: ArgumentHelp("A recipient instead of the ones the reply would have (repeatable).", valueName: "address"))
    var to: [String] = []

    @Option(help: ArgumentHelp("A copy recipient (repeatable; replaces reply-all's copies).", valueName: "address"))
    var cc: [String] = []

    @Option(help: ArgumentHelp("A blind copy recipient (repeatable).", valueName: "address"))
    var bcc: [String] = []

    @Option(help: ArgumentHelp("Another subject than Re:/Fwd: and the original's.", valueName: "text"))
    var subject: String?

    @Option(help: ArgumentHelp("A file to attach (repeatable).", valueName: "file"))
    var attach: [String] = []

    @Option(help: ArgumentHelp("Send from this account (default: the one the email is in, if it can send).", valueName: "name"))
    var account: String?

    @Flag(help: "Keep it as a draft (`mailsearch drafts`; `serve` saves it to the Drafts folder) instead of sending it.")
    var draft = false

    @Flag(help: "Print the message that would be sent, and keep nothing.")
    var dryRun = false

    @OptionGroup var global: GlobalOptions

    func emailId() throws -> Int64 {
        switch try ShowCommand.parse([email]).parsedTarget() {
        case .email(let id): return id
        case .thread: throw ValidationError("name an email (e123), not a conversation")
        }
    }

    func run(_ kind: ComposeKind) async throws {
        let emailId = try emailId()
        let service = try global.openService()
        defer { service.shutdown() }
        var text = ""
        if let bodyFile {
            let data = bodyFile == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Self.read(bodyFile, "--body-file")
            guard let decoded = String(data: data, encoding: .utf8) else { throw CLIError("--body-file \(bodyFile) is not UTF-8 text") }
            text = decoded
        }
        let files = try attach.map { path in
            (name: URL(fileURLWithPath: path).lastPathComponent, type: SendCommand.mimeType(path), bytes: [UInt8](try Self.read(path, "--attach")))
        }
        var detail: DraftDetail
        do {
            detail = try await service.compose.compose(kind, emailId: emailId, input: DraftInput(
                account: account, to: to.isEmpty ? nil : to, cc: cc.isEmpty ? nil : cc, bcc: bcc.isEmpty ? nil : bcc, subject: subject))
            if !text.isEmpty {
                detail = try await service.compose.updateDraft(id: detail.id, input: DraftInput(body: text + (text.hasSuffix("\n") ? "" : "\n") + detail.body))
            }
            for file in files {
                detail = try await service.compose.addAttachment(draftId: detail.id, filename: file.name, mimeType: file.type, content: file.bytes)
            }
        } catch let error as ServiceError {
            throw CLIError(error.description)
        }
        for notice in detail.notices { FileHandle.standardError.write(Data("note: \(notice)\n".utf8)) }
        if dryRun {
            let built: Result<BuiltMessage, Error>
            do {
                built = .success(try await service.compose.message(draftId: detail.id))
            } catch {
                built = .failure(error)
            }
            // The draft made only to print its message goes, whatever happened.
            try? await service.compose.deleteDraft(id: detail.id)
            do {
                FileHandle.standardOutput.write(Data(try built.get().bytes))
            } catch let error as ServiceError {
                throw CLIError(error.description)
            }
            return
        }
        if draft {
            if global.json { return try Output.printJSON(detail) }
            print("Draft \(detail.id) saved: \(detail.subject) (to \(detail.to.joined(separator: ", "))); send it with `mailsearch drafts send \(detail.id)`")
            return
        }
        try await DraftsCommand.Send.sendNow(service: service, id: detail.id, json: global.json)
    }

    static func read(_ path: String, _ option: String) throws -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CLIError("\(option): cannot read \(path): \((error as NSError).localizedDescription)")
        }
    }
}

struct ReplyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reply", abstract: "Answer an email through its account's SMTP server (Re:, quoted text, In-Reply-To and References).",
        discussion: """
            The reply goes to the email's Reply-To or From (--all: everyone else on it too, without your own addresses), with the subject Re: (never Re: Re:), your text above "On DATE, NAME wrote:" and the original's text quoted with "> ". It is sent at once through the account's SMTP server (account add --smtp) and copied to its Sent folder; --draft keeps it as a draft instead.

              mailsearch reply e123 --body-file answer.txt
              echo "Thursday works for me." | mailsearch reply e123 --all --body-file -
              mailsearch reply e123 --body-file answer.txt --draft --json
              mailsearch reply e123 --dry-run          # print the message, send nothing

            Exit status: 0 sent (or saved); 3 sent, but some recipients were refused; 1 not sent.
            """)

    @Flag(help: "Reply to everyone on the email (reply-all).")
    var all = false

    @OptionGroup var options: ComposeOptions

    func run() async throws {
        try await options.run(all ? .replyAll : .reply)
    }
}

struct ForwardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forward", abstract: "Forward an email, with its attachments, through its account's SMTP server.",
        discussion: """
            The subject gets Fwd: (never Fwd: Fwd:), your text comes above the forwarded message's headers and text, and the original's attachments go along (read from its stored copy). Give the recipients with --to.

              mailsearch forward e123 --to carol@example.org --body-file note.txt
              mailsearch forward e123 --to carol@example.org --draft
            """)

    @OptionGroup var options: ComposeOptions

    func validate() throws {
        if options.to.isEmpty && options.cc.isEmpty && options.bcc.isEmpty && !options.draft {
            throw ValidationError("give the recipients with --to (or --cc, --bcc), or keep it as a --draft")
        }
    }

    func run() async throws {
        try await options.run(.forward)
    }
}

struct DraftsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drafts", abstract: "List, send or delete drafts (those of the page, of reply/forward --draft).",
        subcommands: [List.self, Send.self, Delete.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "The drafts, newest first.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let service = try global.openService(readOnly: true)
            defer { service.shutdown() }
            let drafts = try await service.compose.drafts()
            if global.json { return try Output.printJSON(drafts) }
            if drafts.isEmpty { print("No drafts.") }
            for d in drafts {
                print("\(d.id)\t\(d.account)\t\(d.subject.isEmpty ? "(no subject)" : d.subject)\tto \(d.to.isEmpty ? "nobody yet" : d.to.joined(separator: ", "))"
                      + (d.attachments.isEmpty ? "" : "\t\(d.attachments.count) attachment(s)") + (d.lastError.map { "\t(\($0))" } ?? ""))
            }
        }
    }

    struct Send: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "send", abstract: "Send a draft now through its account's SMTP server.")
        @Argument(help: "The draft's id (as `drafts` lists them).") var id: Int64
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let service = try global.openService()
            defer { service.shutdown() }
            try await Self.sendNow(service: service, id: id, json: global.json)
        }

        /// Queues the draft with no undo window and sends it in this process; a running `serve`
        /// that claims it first sends it instead (each message is claimed once).
        static func sendNow(service: MailSearchService, id: Int64, json: Bool) async throws {
            service.sending.undoWindow = 0
            do {
                _ = try await service.compose.send(draftId: id)
            } catch let error as ServiceError {
                throw CLIError(error.description)
            }
            let sentHere = try await MessageSender(service: service).sendNow(id: id)
            let detail = try await service.compose.draftDetail(id: id)
            if json { try Output.printJSON(detail) }
            switch detail.state {
            case "sent":
                if !json {
                    print("Sent <\(detail.messageId)> to \((detail.to + detail.cc + detail.bcc).joined(separator: ", ")) (\(detail.reply ?? ""))"
                          + (detail.sentCopy == "done" ? "; copied to Sent" : detail.sentCopy == "skipped" ? "" : "; not yet copied to Sent (`serve` will)"))
                    for refusal in detail.refused { print("Not sent to \(refusal)") }
                }
                if !detail.refused.isEmpty { throw ExitCode(3) }
            case "waiting":
                throw CLIError("not sent yet: \(detail.lastError ?? "the server could not be reached"); it stays queued (message \(id)): `serve` sends it when the server answers, or run `mailsearch outgoing send`")
            case "failed":
                throw CLIError("not sent: \(detail.lastError ?? "refused"); it is kept (`mailsearch outgoing`, `outgoing reopen \(id)` to edit it again)")
            default:
                if !sentHere, !json { print("Queued as message \(id): a running `mailsearch serve` is sending it") }
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a draft (and its copy in the Drafts folder, by `serve`).")
        @Argument(help: "The draft's id.") var id: Int64
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let service = try global.openService()
            defer { service.shutdown() }
            do {
                try await service.compose.deleteDraft(id: id)
            } catch let error as ServiceError {
                throw CLIError(error.description)
            }
            if global.json { return try Output.printJSON(["deleted": id]) }
            print("Draft \(id) deleted")
        }
    }
}

struct OutgoingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outgoing", abstract: "The send queue: what waits (undo window, offline), was sent, or failed; undo, reopen, send now.",
        discussion: """
            Mail sent from the page waits out its undo window (serve --undo-seconds, default 5), then `serve` sends it; while the server cannot be reached it waits and is tried again (2, 4, 8 … seconds, at most a minute apart). A message whose data reached the server without an answer before a crash is never sent twice: it is marked failed, saying so.

              mailsearch outgoing                 # newest first: state, account, subject, error
              mailsearch outgoing undo 12         # back to the drafts, if not yet handed to the server
              mailsearch outgoing send            # send everything due now, in this process
            """,
        subcommands: [List.self, Undo.self, Reopen.self, SendDue.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "The send queue and its history, newest first.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let service = try global.openService(readOnly: true)
            defer { service.shutdown() }
            let items = try await service.compose.outgoing()
            if global.json { return try Output.printJSON(items) }
            if items.isEmpty { print("Nothing queued or sent.") }
            for d in items {
                var line = "\(d.id)\t\(d.state)\t\(d.account)\t\(d.subject.isEmpty ? "(no subject)" : d.subject)"
                if let until = d.undoUntil { line += "\tsends at \(ISO8601DateFormatter().string(from: until))" }
                if let next = d.nextAttempt { line += "\tnext attempt \(ISO8601DateFormatter().string(from: next))" }
                if let sent = d.sentAt { line += "\tsent \(ISO8601DateFormatter().string(from: sent))" }
                if let error = d.lastError, d.state != "sent" { line += "\t\(error)" }
                print(line)
            }
        }
    }

    struct Undo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "undo", abstract: "Take a queued message back to the drafts (before it is handed to the server).")
        @Argument(help: "The message's id (as `outgoing` lists them).") var id: Int64
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let service = try global.openService()
            defer { service.shutdown() }
            let detail: DraftDetail
            do {
                detail = try await service.compose.undoSend(id: id)
            } catch let error as ServiceError {
                throw CLIError(error.description)
            }
            if global.json { return try Output.printJSON(detail) }
            print("Not sent: message \(id) is a draft again")
        }
    }

    struct Reopen: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "reopen", abstract: "Put a failed message back in the drafts, to edit and send again.")
        @Argument(help: "The message's id.") var id: Int64
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let service = try global.openService()
            defer { service.shutdown() }
            do {
                let detail = try await service.compose.reopen(id: id)
                if global.json { return try Output.printJSON(detail) }
            } catch let error as ServiceError {
                throw CLIError(error.description)
            }
            print("Message \(id) is a draft again")
        }
    }

    struct SendDue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "send",
            abstract: "Send every message that is due now, in this process: past its undo window, and those waiting for another attempt without waiting for it.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let service = try global.openService()
            defer { service.shutdown() }
            let sent = await MessageSender(service: service).sendDue(retryNow: true)
            let status = try await service.status().sending
            if global.json { return try Output.printJSON(status) }
            print("\(sent) sent; \(status.queued) queued, \(status.waiting) waiting for another attempt, \(status.failed) failed"
                  + (status.lastError.map { " (last error: \($0))" } ?? ""))
        }
    }
}
