import ArgumentParser
import CLIOutput
import Foundation
import MailModel
import MailSearchKit
import SearchCLI
import ThreadInsights

struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one email, or a whole thread.",
        discussion: """
            IDs are printed by `search` and `export`. Use e123 for email 123 and t45 for thread 45; a bare number is an email id.
            `--summary` summarizes a thread of 3 or more messages with sentences of its own mail (needs the model);
            `--replies` suggests short replies to an email that asks or requests something.
            """)

    @Argument(help: ArgumentHelp("e<EMAIL_ID>, t<THREAD_ID>, or a bare email id.", valueName: "id"))
    var id: String

    @Flag(help: "Include the HTML body.")
    var html = false

    @Flag(help: "A thread's extractive summary (t<THREAD_ID>; 3 or more messages) instead of its messages.")
    var summary = false

    @Flag(help: "Reply suggestions for an email (e<EMAIL_ID>) that asks or requests something, instead of the email.")
    var replies = false

    @OptionGroup var llm: LLMOptions

    @OptionGroup var global: GlobalOptions

    enum Target { case email(Int64), thread(Int64) }

    func parsedTarget() throws -> Target {
        let lower = id.lowercased()
        if lower.hasPrefix("t"), let n = Int64(lower.dropFirst()) { return .thread(n) }
        if lower.hasPrefix("e"), let n = Int64(lower.dropFirst()) { return .email(n) }
        if let n = Int64(lower) { return .email(n) }
        throw ValidationError("\"\(id)\" is not an id: use e<number> for an email or t<number> for a thread")
    }

    func validate() throws {
        let target = try parsedTarget()
        if summary, case .email = target { throw ValidationError("--summary is for a thread: t<THREAD_ID>") }
        if replies, case .thread = target { throw ValidationError("--replies is for an email: e<EMAIL_ID>") }
        if summary && replies { throw ValidationError("--summary and --replies cannot go together") }
        if llm.modelPath != nil, !summary { throw ValidationError("--llm-model is for --summary") }
    }

    func run() async throws {
        let service = try global.openService(readOnly: true, llm: llm.configuration)
        do {
            switch try parsedTarget() {
            case .thread(let n) where summary: try printSummary(try await service.insights.threadSummary(threadId: n))
            case .email(let n) where replies: try printReplies(try await service.insights.replySuggestions(emailId: n))
            default: try await show(service)
            }
        } catch let error as ServiceError {
            throw CLIError(error.description)
        }
    }

    private func printSummary(_ answer: ThreadSummaryAnswer) throws {
        if global.json { return try Output.printJSON(answer) }
        print("Thread t\(answer.threadId): \(answer.subject) (\(answer.messageCount) messages)")
        guard let summary = answer.summary else {
            print(answer.reason ?? "no summary")
            return
        }
        if let generated = answer.generated, answer.backend == .llm {
            print("Written by the local model \(generated.model) in \(Int(generated.milliseconds)) ms (every name, number and date in it is in the thread):")
            for line in generated.lines { print("• \(line)") }
            return
        }
        if let generated = answer.generated {
            let why = [generated.unsupported.isEmpty ? nil : "names, numbers or dates not in the thread: \(generated.unsupported.joined(separator: ", "))",
                       generated.problem].compactMap { $0 }.joined(separator: "; ")
            print("The local model's summary was rejected (\(why)); the extractive summary:")
        } else if let error = answer.llmError {
            print("No summary from the local model (\(error)); the extractive summary:")
        }
        for point in summary.points { print("• \(point.text)  [e\(point.source.emailId)]") }
    }

    private func printReplies(_ answer: ReplySuggestionsAnswer) throws {
        if global.json { return try Output.printJSON(answer) }
        print("Email e\(answer.emailId): \(answer.subject)")
        if answer.addressedToYou == false {
            print("It is not addressed to you (none of your accounts' addresses is in To or Cc): no reply suggested.")
            return
        }
        guard answer.replies.triggered else {
            print("It asks nothing and requests nothing: no reply suggested.")
            return
        }
        for (i, reply) in answer.replies.suggestions.enumerated() { print("\(i + 1). \(reply.text)  (\(reply.intent))") }
    }

    private func show(_ service: MailSearchService) async throws {
        switch try parsedTarget() {
        case .email(let n):
            let detail = try await service.reader.email(id: n, includeHTML: html)
            if global.json { return try Output.printJSON(detail) }
            printEmail(detail)
        case .thread(let n):
            let detail = try await service.reader.thread(id: n, includeHTML: html)
            if global.json { return try Output.printJSON(detail) }
            let thread = detail.thread
            print("Thread t\(thread.id): \(thread.subject)")
            print("\(thread.messageCount) messages, \(thread.unreadCount) unread, latest \(Output.date(thread.latestDate))")
            print("Participants: \(thread.participants.map(\.formatted).joined(separator: ", "))")
            for e in detail.emails {
                print(String(repeating: "─", count: 60))
                printEmail(e)
            }
        }
    }

    private func printEmail(_ e: EmailDetail) {
        print("Email e\(e.emailId)  thread t\(e.threadId.map(String.init) ?? "-")")
        print("From:    \(e.from?.formatted ?? "")")
        if !e.to.isEmpty { print("To:      \(e.to.map(\.formatted).joined(separator: ", "))") }
        if !e.cc.isEmpty { print("Cc:      \(e.cc.map(\.formatted).joined(separator: ", "))") }
        print("Date:    \(Output.date(e.date))")
        print("Subject: \(e.subject)")
        print("Folders: \(e.folders.joined(separator: ", "))   \(e.isRead ? "read" : "unread")\(e.isStarred ? ", starred" : "")")
        if !e.attachments.isEmpty {
            print("Attachments: " + e.attachments.map { "\($0.filename ?? "(unnamed)") (\($0.mimeType), \(Output.bytes(Int64($0.sizeBytes))))" }.joined(separator: ", "))
            // What could not be read for search is said, with why.
            for a in e.attachments {
                let name = a.filename ?? "(unnamed)"
                switch a.textStatus {
                case nil, "ok", "unsupported": break
                case "pending": print("  \(name): text not read yet (`mailsearch index attachments`)")
                case "truncated": print("  \(name): text read in part" + (a.textDetail.map { " (\($0))" } ?? ""))
                case let status?: print("  \(name): text unreadable, \(status)" + (a.textDetail.map { ": \($0)" } ?? ""))
                }
            }
        }
        if !e.defects.isEmpty { print("Defects: \(e.defects.joined(separator: "; "))") }
        print("Category: \(e.category)" + (e.categorization.map { " (\($0.method.rawValue), \($0.reason))" } ?? " (waiting)"))
        print("")
        print(e.body)
        if html, let body = e.html { print("\n--- HTML ---\n\(body)") }
    }
}

