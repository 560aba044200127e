import ArgumentParser
import CLIOutput
import Foundation
import MailModel
import MailSearchKit
import SearchCLI

struct CategorizeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "categorize",
        abstract: "Set the category of an email or of every message of a thread (your choice is kept).",
        discussion: """
            Categories: primary, social, promotions, updates, forums. Your choice is never changed by
            `recategorize`, and other mail of the same sender follows it (now and when it arrives).
            Use e123 for email 123 and t45 for thread 45; a bare number is an email id.
            """)

    @Argument(help: ArgumentHelp("e<EMAIL_ID>, t<THREAD_ID>, or a bare email id.", valueName: "id"))
    var id: String

    @Argument(help: "primary, social, promotions, updates or forums.")
    var category: String

    @OptionGroup var global: GlobalOptions

    func parsedCategory() throws -> AICategory {
        guard let c = AICategory(rawValue: category.lowercased()), c != .uncategorized else {
            throw ValidationError("\"\(category)\" is not a category: use primary, social, promotions, updates or forums")
        }
        return c
    }

    func validate() throws {
        _ = try parsedCategory()
        _ = try ShowCommand.parse([id]).parsedTarget()
    }

    func run() async throws {
        let service = try global.openService()
        defer { service.shutdown() }
        let change: CategoryChange
        do {
            switch try ShowCommand.parse([id]).parsedTarget() {
            case .email(let n): change = try await service.categories.setCategory(try parsedCategory(), emailIds: [n])
            case .thread(let n): change = try await service.categories.setCategory(try parsedCategory(), threadId: n)
            }
        } catch let error as ServiceError {
            throw CLIError(error.description)
        }
        if global.json { return try Output.printJSON(change) }
        print("\(change.emailIds.count) email\(change.emailIds.count == 1 ? "" : "s") now in \(change.category.rawValue)"
              + (change.sameSenderEmails > 0 ? "; \(change.sameSenderEmails) other emails of the same sender follow" : ""))
    }
}

struct RecategorizeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recategorize",
        abstract: "Categorise the whole mailbox again (after the rules changed); your own choices stay.",
        discussion: "Categories are also set automatically after every import, and refined when mail is embedded.")

    @Flag(help: "Read the header signals again from the messages' source files too (slower).")
    var rereadHeaders = false

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let service = try global.openService()
        defer { service.shutdown() }
        let summary: RecategorizeSummary
        do {
            summary = try await service.categories.recategorize(rereadHeaders: rereadHeaders)
        } catch let error as ServiceError {
            throw CLIError(error.description)
        }
        if global.json { return try Output.printJSON(summary) }
        print("Categorised \(summary.emails) emails (\(summary.decisions) decisions) in \(String(format: "%.2f", summary.seconds)) s; \(summary.changed) changed category")
        for c in AICategory.allCases { print("  \(c.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0))\(summary.counts[c.rawValue] ?? 0)") }
    }
}
