import ArgumentParser
import CLIOutput
import Foundation
import IMAPSync
import MailModel
import MailSearchKit
import SearchCLI

/// What every mailbox action command takes: ids, `--now`, the global options.
struct ActionTargets: ParsableArguments {
    @Argument(help: ArgumentHelp("e<EMAIL_ID> for an email, t<THREAD_ID> for a whole conversation, or a bare email id (as `search` and `show` print them).",
                                 valueName: "id"))
    var ids: [String] = []

    @Flag(help: "Write the change to the IMAP server now instead of at the next `sync` or while `serve` runs.")
    var now = false

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard !ids.isEmpty else { throw ValidationError("name at least one email (e123) or conversation (t45)") }
        for id in ids { _ = try ShowCommand.parse([id]).parsedTarget() }
    }

    /// The object `--json` prints: the action's result, and what `--now` wrote to the servers.
    struct ActionOutput: Encodable {
        var result: ActionResult
        var written: [OutboxReplaySummary]?

        enum CodingKeys: String, CodingKey { case action, emailIds, changed, deleted, folders, queued, written }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(result.action, forKey: .action)
            try c.encode(result.emailIds, forKey: .emailIds)
            try c.encode(result.changed, forKey: .changed)
            try c.encode(result.deleted, forKey: .deleted)
            try c.encode(result.folders, forKey: .folders)
            try c.encode(result.queued, forKey: .queued)
            try c.encodeIfPresent(written, forKey: .written)
        }
    }

    /// Applies the action to every id (one call per conversation, one for the emails), then
    /// writes back at once with `--now`, and prints what happened.
    func run(_ action: MailboxAction) async throws {
        let service = try global.openService()
        defer { service.shutdown() }
        var emails: [Int64] = []
        var threads: [Int64] = []
        for id in ids {
            switch try ShowCommand.parse([id]).parsedTarget() {
            case .email(let n): emails.append(n)
            case .thread(let n): threads.append(n)
            }
        }
        var total = ActionResult(action: action.name, emailIds: [], changed: [], deleted: [], folders: [], queued: 0)
        do {
            var parts: [ActionResult] = []
            if !emails.isEmpty { parts.append(try await service.mailbox.perform(action, emailIds: emails)) }
            for thread in threads { parts.append(try await service.mailbox.perform(action, threadId: thread)) }
            for part in parts {
                total.emailIds += part.emailIds
                total.changed += part.changed
                total.deleted += part.deleted
                total.folders = Array(Set(total.folders + part.folders)).sorted()
                total.queued += part.queued
            }
        } catch let error as ServiceError {
            throw CLIError(error.description)
        }
        var written: [OutboxReplaySummary]?
        var writeFailures: [String] = []
        if now, total.queued > 0 {
            written = []
            for engine in try await IMAPSyncEngine.engines(service: service) where try await service.mailbox.hasPendingOutbox(accountId: engine.account.id) {
                do {
                    written?.append(try await engine.replayOutbox())
                } catch {
                    writeFailures.append("\(engine.account.name): \(error)")
                }
            }
        }
        if global.json {
            try Output.printJSON(ActionOutput(result: total, written: written))
        } else {
            print(Self.describe(total))
            if let written {
                for w in written {
                    print("Written to \(w.account): \(w.applied) applied" + (w.conflicts > 0 ? ", \(w.conflicts) overruled by the server" : "")
                          + (w.refused + w.dropped > 0 ? ", \(w.refused + w.dropped) refused" : ""))
                }
            } else if total.queued > 0 {
                print("\(total.queued) change\(total.queued == 1 ? "" : "s") queued for the IMAP server: written by the next `mailsearch sync`, by `serve`, or now with --now")
            }
        }
        if !writeFailures.isEmpty {
            throw CLIError("the change is saved and queued, but could not be written to the server now: " + writeFailures.joined(separator: "; "))
        }
    }

    static func describe(_ r: ActionResult) -> String {
        let n = r.emailIds.count
        let done = r.changed.count
        let emails = done == n ? "\(n) email\(n == 1 ? "" : "s")" : "\(done) of \(n) emails"
        let folders = r.folders.joined(separator: ", ")
        let verb: String = switch r.action {
        case "read": "marked read"
        case "unread": "marked unread"
        case "star": "starred"
        case "unstar": "unstarred"
        case "archive": "archived" + (folders.isEmpty ? "" : " to \(folders)")
        case "move": "moved to \(folders)"
        default: r.deleted.isEmpty ? "moved to \(folders)" : r.deleted.count == done ? "deleted for good" : "deleted (\(r.deleted.count) for good, the others moved to \(folders))"
        }
        var line = "\(emails) \(verb)"
        if done < n {
            line += r.action == "archive" ? " (the others are not in the Inbox)" : " (the others already were)"
        }
        return line
    }
}

struct MarkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mark",
        abstract: "Mark emails or conversations read, unread, starred or not starred.",
        discussion: """
            The change is made in the mailbox at once (searches such as is:unread see it). For mail of an IMAP account it is also queued for the server (\\Seen, \\Flagged) and written by the next `mailsearch sync`, while `mailsearch serve` runs, or at once with --now. When the server's flags of a message changed since the last sync, the server's win.

              mailsearch mark read t45 e123
              mailsearch mark star e123 --now
            """)

    enum What: String, ExpressibleByArgument, CaseIterable {
        case read, unread, star, unstar
    }

    @Argument(help: "read, unread, star or unstar.")
    var what: What

    @OptionGroup var targets: ActionTargets

    func run() async throws {
        let action: MailboxAction = switch what {
        case .read: .markRead
        case .unread: .markUnread
        case .star: .star
        case .unstar: .unstar
        }
        try await targets.run(action)
    }
}

struct ArchiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive",
        abstract: "Archive emails or conversations: out of the Inbox, into the account's archive folder.",
        discussion: """
            The archive folder is the account's folder with the \\Archive role (an "Archive" first; Gmail's All Mail counts), else a new "Archive" (created on the IMAP server too, as Thunderbird does). Mail that is not in the Inbox stays where it is. IMAP accounts: the move is queued for the server (UID MOVE) and written by the next `sync`, by `serve`, or now with --now.

              mailsearch archive t45
            """)

    @OptionGroup var targets: ActionTargets

    func run() async throws { try await targets.run(.archive) }
}

struct MoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "move",
        abstract: "Move emails or conversations to a folder of their account.",
        discussion: """
            The mail leaves every other folder of its account. FOLDER is a folder's path or name as `mailsearch folders` lists them (INBOX moves mail back to the Inbox). IMAP accounts: the move is queued for the server and written by the next `sync`, by `serve`, or now with --now.

              mailsearch move t45 e123 --to Projects/2024
            """)

    @Option(name: .customLong("to"), help: ArgumentHelp("The folder to move to.", valueName: "FOLDER"))
    var folder: String

    @OptionGroup var targets: ActionTargets

    func run() async throws { try await targets.run(.move(to: folder)) }
}

struct DeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete emails or conversations: into the Trash; from the Trash, for good.",
        discussion: """
            Mail goes to the account's Trash (the folder with the \\Trash role, else a new "Trash"). Mail that is only in the Trash is deleted for good: from the mailbox and its indexes at once, and from the IMAP server (\\Deleted, then UID EXPUNGE) by the next `sync`, by `serve`, or now with --now.

              mailsearch delete e123
            """)

    @OptionGroup var targets: ActionTargets

    func run() async throws { try await targets.run(.delete) }
}
