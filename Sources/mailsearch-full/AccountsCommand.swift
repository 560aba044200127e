import ArgumentParser
import CLIOutput
import Foundation
import MailModel
import MailStore
import SearchCLI

struct AccountsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "accounts", abstract: "List accounts.")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let accounts = try global.openStore(readOnly: true).accounts()
        if global.json { return try Output.printJSON(accounts) }
        if accounts.isEmpty { print("No accounts yet. Import mail with: mailsearch import PATH --account NAME") }
        for a in accounts {
            print("\(a.id)\t\(a.name)\(a.email.map { "\t<\($0)>" } ?? "")")
        }
    }
}

struct FoldersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "folders", abstract: "List folders with message and unread counts.")

    @Option(help: "Only this account's folders.")
    var account: String?

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let store = try global.openStore(readOnly: true)
        var accountId: Int64?
        if let account {
            guard let found = try store.findAccount(named: account) else {
                throw CLIError("no account named \"\(account)\"; `mailsearch accounts` lists them")
            }
            accountId = found.id
        }
        let folders = try store.folders(accountId: accountId)
        if global.json { return try Output.printJSON(folders) }
        let accounts = Dictionary(uniqueKeysWithValues: try store.accounts().map { ($0.id, $0.name) })
        for f in folders {
            print("\(accounts[f.accountId] ?? "?")\t\(f.path)\t\(f.totalCount) messages\t\(f.unreadCount) unread\t\(f.folderType.rawValue)")
        }
    }
}
