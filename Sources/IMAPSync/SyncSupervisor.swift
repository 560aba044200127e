import Foundation
import IMAPClient
import MailModel
import MailSearchKit

/// `serve`'s syncs: one task per IMAP account, watching its server (`IMAPSyncEngine.watch`), started
/// for every account when it runs and for an account the page adds, started again when its settings
/// change, and stopped before an account is removed. Also what the accounts API tries servers with
/// (`AccountConnector`).
public actor SyncSupervisor: AccountConnector {
    public nonisolated let service: MailSearchService
    public nonisolated let options: SyncOptions
    /// Whether accounts are synced at all (`serve --no-sync` only tries servers and saves accounts).
    public nonisolated let syncing: Bool
    private let board = SyncStatusBoard()
    private var tasks: [String: Task<Void, Never>] = [:]
    private var running = false

    public init(service: MailSearchService, options: SyncOptions = SyncOptions(), syncing: Bool = true) {
        self.service = service
        self.options = options
        self.syncing = syncing
        service.register(syncStatus: board)
    }

    /// Syncs every IMAP account until the task is cancelled; then stops them all and returns.
    public func run() async {
        running = true
        if syncing, let accounts = try? await service.mailbox.imapAccounts() {
            for (account, settings) in accounts { start(account, settings) }
        }
        // Sleeps until cancelled (the ServiceGroup's graceful shutdown); the syncs run in their own tasks.
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3600))
        }
        running = false
        let all = tasks
        tasks = [:]
        for task in all.values { task.cancel() }
        for task in all.values { await task.value }
    }

    /// The names of the accounts syncing now.
    public var syncingAccounts: [String] { tasks.keys.sorted() }

    private func start(_ account: Account, _ settings: IMAPAccountSettings) {
        guard tasks[account.name] == nil else { return }
        let engine = IMAPSyncEngine(service: service, account: account, settings: settings, options: options, board: board)
        tasks[account.name] = Task { await engine.watch() }
    }

    private func stop(_ name: String) async {
        guard let task = tasks.removeValue(forKey: name) else { return }
        task.cancel()
        await task.value
        board.remove(name)
    }

    // MARK: AccountConnector

    public nonisolated func check(accountName: String, settings: IMAPAccountSettings, password: String?) async -> AccountCheck {
        let authentication = password.map { IMAPAuthentication.password(user: settings.username, password: $0) }
        return await AccountChecker.check(accountName: accountName, settings: settings, authentication: authentication,
                                          secrets: service.secrets)
    }

    public func accountChanged(named name: String) async {
        await stop(name)
        guard running, syncing,
              let found = try? await service.mailbox.imapAccounts().first(where: { $0.account.name == name }) else { return }
        start(found.account, found.settings)
    }

    public func accountRemoved(named name: String) async {
        await stop(name)
    }
}
