import ArgumentParser
import Foundation
import MailModel
import MailSearchKit
import MailStore
import SearchCLI

struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one email, or a whole thread.",
        discussion: "IDs are printed by `search` and `export`. Use e123 for email 123 and t45 for thread 45; a bare number is an email id.")

    @Argument(help: ArgumentHelp("e<EMAIL_ID>, t<THREAD_ID>, or a bare email id.", valueName: "id"))
    var id: String

    @Flag(help: "Include the HTML body.")
    var html = false

    @OptionGroup var global: GlobalOptions

    enum Target { case email(Int64), thread(Int64) }

    func parsedTarget() throws -> Target {
        let lower = id.lowercased()
        if lower.hasPrefix("t"), let n = Int64(lower.dropFirst()) { return .thread(n) }
        if lower.hasPrefix("e"), let n = Int64(lower.dropFirst()) { return .email(n) }
        if let n = Int64(lower) { return .email(n) }
        throw ValidationError("\"\(id)\" is not an id: use e<number> for an email or t<number> for a thread")
    }

    func validate() throws { _ = try parsedTarget() }

    func run() throws {
        let service = try global.openService(readOnly: true)
        do {
            try show(service)
        } catch let error as ServiceError {
            throw CLIError(error.description)
        }
    }

    private func show(_ service: MailSearchService) throws {
        let store = service.store
        switch try parsedTarget() {
        case .email(let n):
            let detail = try service.email(id: n, includeHTML: html)
            if global.json { return try Output.printJSON(detail) }
            guard let stored = try store.email(id: n) else { throw CLIError("no email with id \(n)") }
            try printEmail(stored, store: store)
        case .thread(let n):
            let detail = try service.thread(id: n, includeHTML: html)
            if global.json { return try Output.printJSON(detail) }
            guard let (thread, emails) = try store.thread(id: n) else { throw CLIError("no thread with id \(n)") }
            print("Thread t\(thread.id): \(thread.subject)")
            print("\(thread.messageCount) messages, \(thread.unreadCount) unread, latest \(Output.date(thread.latestDate))")
            print("Participants: \(thread.participants.map(\.formatted).joined(separator: ", "))")
            for e in emails {
                print(String(repeating: "─", count: 60))
                try printEmail(e, store: store)
            }
        }
    }

    private func printEmail(_ s: StoredEmail, store: MailStore) throws {
        let e = s.email
        print("Email e\(e.id)  thread t\(e.threadId.map(String.init) ?? "-")")
        print("From:    \(e.from?.formatted ?? "")")
        if !e.to.isEmpty { print("To:      \(e.to.map(\.formatted).joined(separator: ", "))") }
        if !e.cc.isEmpty { print("Cc:      \(e.cc.map(\.formatted).joined(separator: ", "))") }
        print("Date:    \(Output.date(e.date))")
        print("Subject: \(e.subject)")
        print("Folders: \(s.folders.joined(separator: ", "))   \(e.isRead ? "read" : "unread")\(e.isStarred ? ", starred" : "")")
        if !e.attachments.isEmpty {
            print("Attachments: " + e.attachments.map { "\($0.filename ?? "(unnamed)") (\($0.mimeType), \(Output.bytes(Int64($0.sizeBytes))))" }.joined(separator: ", "))
        }
        if !s.defects.isEmpty { print("Defects: \(s.defects.joined(separator: "; "))") }
        if let c = try store.categorization(emailId: e.id) {
            print("Category: \(c.category.rawValue)" + (c.decision.map { " (\($0.method.rawValue), \($0.reason))" } ?? " (waiting)"))
        }
        print("")
        print(e.bodyPlain)
        if html, let body = e.bodyHTML { print("\n--- HTML ---\n\(body)") }
    }
}

