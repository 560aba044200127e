import ArgumentParser
import Foundation
import MailStore

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Counts of accounts, folders, emails, threads and contacts, and on-disk sizes.")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let store = try global.openStore(readOnly: true)
        let s = try store.statistics()
        if global.json {
            try Output.printJSON(s)
            return
        }
        print("Data directory: \(store.directory.url.path)")
        print("  accounts      \(s.accounts)")
        print("  folders       \(s.folders)")
        print("  emails        \(s.emails)  (\(s.folderLinks) folder memberships, \(s.unread) unread, \(s.emailsWithAttachments) with attachments)")
        print("  threads       \(s.threads)")
        print("  contacts      \(s.contacts)")
        print("  attachments   \(s.attachments)")
        print("  dated         \(s.emailsWithDate) of \(s.emails) have a Date header or fallback date")
        print("  date range    \(Output.date(s.oldest)) … \(Output.date(s.newest))")
        print("  mail.sqlite   \(Output.bytes(s.mailDatabaseBytes))")
        print("  search.sqlite \(Output.bytes(s.searchDatabaseBytes))")
    }
}
