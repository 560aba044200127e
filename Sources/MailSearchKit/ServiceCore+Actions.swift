import Foundation
import MailModel
internal import MailStore

/// What a mailbox action did (the object of `mark`/`archive`/`move`/`delete --json` and of the
/// API's action endpoints).
public struct ActionResult: Sendable, Codable, Hashable {
    /// `read`, `unread`, `star`, `unstar`, `archive`, `move` or `delete`.
    public var action: String
    /// The emails asked for (a thread's: all of them).
    public var emailIds: [Int64]
    /// Those whose flags or folders changed.
    public var changed: [Int64]
    /// Emails deleted for good (they were only in the Trash).
    public var deleted: [Int64]
    /// Where the mail went (archive, move, delete), per account.
    public var folders: [String]
    /// IMAP operations queued for the server (written back by `sync`, `serve` or `--now`).
    public var queued: Int

    public init(action: String, emailIds: [Int64], changed: [Int64], deleted: [Int64], folders: [String], queued: Int) {
        self.action = action
        self.emailIds = emailIds
        self.changed = changed
        self.deleted = deleted
        self.folders = folders
        self.queued = queued
    }
}

extension ServiceCore {
    /// Acts on emails (`threadId`: every message of a conversation), local first: mail.sqlite
    /// changes at once (searches and pages see it), and for IMAP accounts the server operations
    /// are queued in the outbox, which `IMAPSyncEngine` replays in order. Mail imported from
    /// files changes locally only.
    public func perform(_ action: MailboxAction, emailIds: [Int64] = [], threadId: Int64? = nil) throws -> ActionResult {
        guard !configuration.readOnly else { throw ServiceError(.unavailable, "the mailbox is open read-only") }
        var ids = emailIds
        if let threadId {
            let inThread = try store.emailIds(threadId: threadId)
            guard !inThread.isEmpty else { throw ServiceError.notFound("no thread with id \(threadId)") }
            ids += inThread
        }
        var seen = Set<Int64>()
        ids = ids.filter { seen.insert($0).inserted }
        guard !ids.isEmpty else { throw ServiceError.invalid("no email named", hint: "give e<id> or t<id>") }
        if case .move(let folder) = action, folder.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ServiceError.invalid("no folder to move to", hint: "name a folder of the account, as `folders` lists them")
        }
        let outcome: MailboxActionOutcome
        do {
            outcome = try store.perform(action, emailIds: ids, now: configuration.now())
        } catch MailStoreError.notFound(let message) {
            throw ServiceError.notFound(message, hint: action.name == "move" ? "`mailsearch folders` lists each account's folders" : nil)
        }
        if !outcome.deletedForGood.isEmpty { try delete(emailIds: outcome.deletedForGood) }
        if !outcome.changed.isEmpty { state.changed() }
        if outcome.queued > 0 { outboxQueued.announce() }
        return ActionResult(action: action.name, emailIds: ids, changed: outcome.changed, deleted: outcome.deletedForGood,
                            folders: outcome.folders, queued: outcome.queued)
    }

    /// Each IMAP account's outbox: operations waiting, failed, overruled by the server, done.
    public func outboxStatus() throws -> [OutboxCounts] {
        try store.outboxCounts()
    }
}
