import Foundation
import MailImport
import MailModel
internal import MailStore

/// The mailbox: importing, acting on mail (read, star, archive, move, delete; queued for the
/// server through the outbox), deleting mail and accounts.
public struct MailboxService: Sendable {
    let core: ServiceCore

    /// Imports an mbox, Maildir or folder of messages into `account` (created when missing),
    /// reporting progress after each batch; new mail is searchable by keyword at once, and
    /// embedded in the background when that is on.
    public func importMail(path: String, account: String, folder: String? = nil, batchSize: Int = ImportPipeline.defaultBatchSize,
                           progress: @escaping @Sendable (ImportProgress) -> Void = { _ in }) async throws -> ImportSummary {
        try await core.importMail(path: path, account: account, folder: folder, batchSize: batchSize, progress: progress)
    }

    /// Starts `importMail` in the background (the API's POST /api/import): when it returns, the
    /// status shows the import running; its progress and outcome follow there.
    public func startImport(path: String, account: String, folder: String? = nil) async throws {
        try await core.pool.run { [core] in try core.startImport(path: path, account: account, folder: folder) }
    }

    /// Acts on emails (`threadId`: every message of a conversation), local first: mail.sqlite
    /// changes at once, and for IMAP accounts the server operations are queued in the outbox,
    /// which the sync engine replays in order (README, "Last action wins").
    public func perform(_ action: MailboxAction, emailIds: [Int64] = [], threadId: Int64? = nil) async throws -> ActionResult {
        try await core.pool.run { [core] in try core.perform(action, emailIds: emailIds, threadId: threadId) }
    }

    /// The outbox's operations by account and state.
    public func outboxStatus() async throws -> [OutboxCounts] {
        try await core.pool.run { [core] in try core.outboxStatus() }
    }

    /// Deletes emails everywhere: mail, FTS5 rows, embeddings, in-memory vectors and the local
    /// copies of fetched messages.
    public func delete(emailIds: [Int64]) async throws {
        try await core.pool.run { [core] in try core.delete(emailIds: emailIds) }
    }

    /// Deletes an account and every local trace of it (AC-S-09). Returns how many emails went.
    @discardableResult
    public func deleteAccount(named name: String) async throws -> Int {
        try await core.pool.run { [core] in try core.deleteAccount(named: name) }
    }

    /// Stores a batch of incoming mail and indexes it (FTS5 now, embeddings in the background).
    @discardableResult
    public func ingest(_ batch: [IncomingEmail], accountId: Int64) async throws -> IngestResult {
        try await core.pool.run { [core] in try core.ingest(batch, accountId: accountId) }
    }

    // MARK: Accounts and folders

    /// Every account, in id order.
    public func accounts() async throws -> [Account] {
        try await core.pool.run { [core] in try core.store.accounts() }
    }

    /// The account named `name`, or nil.
    public func account(named name: String) async throws -> Account? {
        try await core.pool.run { [core] in try core.store.findAccount(named: name) }
    }

    /// The folders with their counts: every account's, or the one named `accountNamed`'s.
    public func folders(accountNamed name: String? = nil) async throws -> [Folder] {
        try await core.pool.run { [core] in
            try core.store.folders(accountId: try name.map { try core.account(named: $0).id })
        }
    }

    /// Every account that syncs from an IMAP server, with its settings, in id order.
    public func imapAccounts() async throws -> [(account: Account, settings: IMAPAccountSettings)] {
        try await core.pool.run { [core] in try core.store.imapAccounts() }
    }

    /// Adds an IMAP account; a conflict when an account of that name exists already.
    public func addIMAPAccount(named name: String, email: String?, displayName: String? = nil,
                               settings: IMAPAccountSettings) async throws -> Account {
        try await core.pool.run { [core] in
            guard !core.configuration.readOnly else { throw ServiceError(.unavailable, "the mailbox is open read-only") }
            guard try core.store.findAccount(named: name) == nil else {
                throw ServiceError(.conflict, "an account named \"\(name)\" exists already", hint: "`mailsearch account list` shows the accounts")
            }
            return try core.store.addIMAPAccount(named: name, email: email, displayName: displayName, settings: settings)
        }
    }

    /// Changes an IMAP account's settings, address and display name.
    public func updateIMAPAccount(id: Int64, email: String?, displayName: String?, settings: IMAPAccountSettings) async throws {
        try await core.pool.run { [core] in
            guard !core.configuration.readOnly else { throw ServiceError(.unavailable, "the mailbox is open read-only") }
            try core.store.updateIMAPAccount(id: id, email: email, displayName: displayName, settings: settings)
            core.mailChanged()
        }
    }

    /// Makes one account the default sender (nil: none, the first that can send).
    public func setDefaultSender(accountId: Int64?) async throws {
        try await core.pool.run { [core] in
            guard !core.configuration.readOnly else { throw ServiceError(.unavailable, "the mailbox is open read-only") }
            try core.store.setDefaultSender(accountId: accountId)
            core.mailChanged()
        }
    }

    /// How many emails an account holds.
    public func emailCount(accountId: Int64) async throws -> Int {
        try await core.pool.run { [core] in try core.store.emailCount(accountId: accountId) }
    }

    /// Whether the account has operations waiting for its server.
    public func hasPendingOutbox(accountId: Int64) async throws -> Bool {
        try await core.pool.run { [core] in try core.store.hasPendingOutbox(accountId: accountId) }
    }

    /// Calls `body` with every email and its folders, in id order, on one of the service's
    /// threads (`export`: a mailbox of any size, one email in memory at a time).
    public func forEachEmail(_ body: @escaping @Sendable (Email, [String]) throws -> Void) async throws {
        try await core.pool.run { [core] in try core.store.forEachEmail(body) }
    }
}
