import ArgumentParser
import CLIOutput
import Foundation
import MailModel
import MailSearchKit
import SearchCLI

struct AccountsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "accounts", abstract: "List accounts.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let service = try global.openService(readOnly: true)
        defer { service.shutdown() }
        let accounts = try await service.mailbox.accounts()
        if global.json { return try Output.printJSON(accounts) }
        if accounts.isEmpty { print("No accounts yet. Import mail with: mailsearch import PATH --account NAME") }
        for a in accounts {
            print("\(a.id)\t\(a.name)\(a.email.map { "\t<\($0)>" } ?? "")")
        }
    }
}

struct FoldersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "folders", abstract: "List folders with message and unread counts.")

    @Option(help: "Only this account's folders.")
    var account: String?

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let service = try global.openService(readOnly: true)
        defer { service.shutdown() }
        let folders: [Folder]
        do {
            folders = try await service.mailbox.folders(accountNamed: account)
        } catch let error as ServiceError where error.kind == .notFound {
            throw CLIError("no account named \"\(account ?? "")\"; `mailsearch accounts` lists them")
        }
        if global.json { return try Output.printJSON(folders) }
        let accounts = Dictionary(uniqueKeysWithValues: try await service.mailbox.accounts().map { ($0.id, $0.name) })
        for f in folders {
            print("\(accounts[f.accountId] ?? "?")\t\(f.path)\t\(f.totalCount) messages\t\(f.unreadCount) unread\t\(f.folderType.rawValue)")
        }
    }
}
