import ArgumentParser
import CLIOutput
import Foundation
import MailModel
import MailSearchKit
import SearchCLI

struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Counts of accounts, folders, emails, threads and contacts, and on-disk sizes.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let service = try global.openService(readOnly: true)
        defer { service.shutdown() }
        let statistics = try await service.statistics()
        let s = statistics.counts
        let categories = statistics.categories
        let attachmentText = try service.attachmentCounts()
        if global.json {
            try Output.printJSON(StatsWithCategories(s, categories: categories, attachmentText: attachmentText))
            return
        }
        print("Data directory: \(statistics.dataDirectory)")
        print("  accounts      \(s.accounts)")
        print("  folders       \(s.folders)")
        print("  emails        \(s.emails)  (\(s.folderLinks) folder memberships, \(s.unread) unread, \(s.emailsWithAttachments) with attachments)")
        print("  threads       \(s.threads)")
        print("  contacts      \(s.contacts)")
        print("  attachments   \(s.attachments)")
        if s.attachments > 0 {
            let a = attachmentText
            print("  attachment text: \(a.read) read, \(a.truncated) read in part (a limit reached), \(a.unsupported) with none to read, "
                  + "\(a.unreadable) unreadable, \(a.pending) not read yet" + (a.pending > 0 ? " (`mailsearch index attachments`)" : ""))
            if a.embedded + a.toEmbed > 0 {
                print("  attachment meaning: \(a.embedded) attachments searchable by meaning (\(a.passages) passages), "
                      + "\(a.toEmbed) still to embed" + (a.toEmbed > 0 ? " (`mailsearch index embed`, or `serve`)" : "")
                      + (a.embeddedInPart > 0 ? "; \(a.embeddedInPart) longer than \(a.passageLimit) passages: "
                         + "only their start is searched by meaning, all of their text by keyword" : ""))
            }
        }
        print("  dated         \(s.emailsWithDate) of \(s.emails) have a Date header or fallback date")
        print("  date range    \(Output.date(s.oldest)) … \(Output.date(s.newest))")
        print("  mail.sqlite   \(Output.bytes(s.mailDatabaseBytes))")
        print("  search.sqlite \(Output.bytes(s.searchDatabaseBytes))")
        print("  categories    " + AICategory.allCases.map { "\($0.rawValue) \(categories[$0] ?? 0)" }.joined(separator: ", "))
        let waiting = statistics.awaitingCategory
        if waiting > 0 {
            print("                \(waiting) emails wait for a category: `mailsearch recategorize` (or `serve`, or the next import) decides them")
        }
    }
}

/// `stats --json`: the store's counts with the emails per category beside them.
struct StatsWithCategories: Encodable {
    let statistics: StoreStatistics
    let categories: [AICategory: Int]
    let attachmentText: AttachmentCounts

    init(_ statistics: StoreStatistics, categories: [AICategory: Int], attachmentText: AttachmentCounts) {
        self.statistics = statistics
        self.categories = categories
        self.attachmentText = attachmentText
    }

    func encode(to encoder: any Encoder) throws {
        try statistics.encode(to: encoder)
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(Dictionary(uniqueKeysWithValues: categories.map { ($0.key.rawValue, $0.value) }), forKey: .categories)
        try c.encode(attachmentText, forKey: .attachmentText)
    }

    private enum Key: String, CodingKey { case categories, attachmentText }
}
