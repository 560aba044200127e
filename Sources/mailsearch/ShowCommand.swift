import ArgumentParser
import Foundation
import MailModel
import MailStore

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
        let store = try global.openStore(readOnly: true)
        switch try parsedTarget() {
        case .email(let n):
            guard let stored = try store.email(id: n) else { throw CLIError("no email with id \(n)") }
            if global.json { return try Output.printJSON(EmailJSON(stored, includeHTML: html)) }
            printEmail(stored)
        case .thread(let n):
            guard let (thread, emails) = try store.thread(id: n) else { throw CLIError("no thread with id \(n)") }
            if global.json { return try Output.printJSON(ThreadJSON(thread: thread, emails: emails.map { EmailJSON($0, includeHTML: html) })) }
            print("Thread t\(thread.id): \(thread.subject)")
            print("\(thread.messageCount) messages, \(thread.unreadCount) unread, latest \(Output.date(thread.latestDate))")
            print("Participants: \(thread.participants.map(\.formatted).joined(separator: ", "))")
            for e in emails {
                print(String(repeating: "─", count: 60))
                printEmail(e)
            }
        }
    }

    private func printEmail(_ s: StoredEmail) {
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
        print("")
        print(e.bodyPlain)
        if html, let body = e.bodyHTML { print("\n--- HTML ---\n\(body)") }
    }
}

/// JSON shape of an email for `show --json`.
struct EmailJSON: Encodable {
    var emailId: Int64
    var threadId: Int64?
    var accountId: Int64
    var messageId: String
    var inReplyTo: String?
    var references: [String]
    var from: Address?
    var to: [Address]
    var cc: [Address]
    var subject: String
    var date: Date?
    var folders: [String]
    var isRead: Bool
    var isStarred: Bool
    var category: String
    var hasAttachment: Bool
    var attachments: [Attachment]
    var body: String
    var html: String?
    var source: String?
    var defects: [String]

    init(_ s: StoredEmail, includeHTML: Bool) {
        let e = s.email
        emailId = e.id; threadId = e.threadId; accountId = e.accountId; messageId = e.messageId
        inReplyTo = e.inReplyTo; references = e.references; from = e.from; to = e.to; cc = e.cc
        subject = e.subject; date = e.date; folders = s.folders; isRead = e.isRead; isStarred = e.isStarred
        category = e.category.rawValue; hasAttachment = e.hasAttachment; attachments = e.attachments
        body = e.bodyPlain; html = includeHTML ? e.bodyHTML : nil; source = s.sourceRef; defects = s.defects
    }
}

struct ThreadJSON: Encodable {
    var thread: MailThread
    var emails: [EmailJSON]
}
