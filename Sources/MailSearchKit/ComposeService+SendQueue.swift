import Foundation
import MailModel
internal import MailStore

/// The send queue as the sender works it (spec 001 §5.5): claims, the moment a message is handed
/// over, its outcome, and the copies in the Sent and Drafts folders. Each runs on the service's pool.
extension ComposeService {
    /// Settles what a previous process left in the queue (once, before this process queues anything).
    public func recoverSendQueue(now: Date) async throws -> (drafted: [Int64], retried: [Int64], uncertain: [Int64]) {
        try await core.pool.run { [core] in try core.store.recoverSendQueue(now: now) }
    }

    /// Claims the next message due (`sending`), nil when none is; see `MailStore.claimDueMessage`.
    public func claimDueMessage(now: Date, retryNow: Bool, retryAccounts: Set<Int64>, tried: Set<Int64>) async throws -> Draft? {
        try await core.pool.run { [core] in
            try core.store.claimDueMessage(now: now, retryNow: retryNow, retryAccounts: retryAccounts, tried: tried)
        }
    }

    /// Claims one queued or waiting message whatever its time (sending now, from the CLI).
    public func claimMessage(id: Int64) async throws -> Draft? {
        try await core.pool.run { [core] in try core.store.claimMessage(id: id) }
    }

    /// The queue's record of a message (any state).
    public func queuedMessage(id: Int64) async throws -> Draft? {
        try await core.pool.run { [core] in try core.store.draft(id: id) }
    }

    /// The message's data is about to go: from here on it may have been sent, and is never sent again.
    public func markHandedOver(id: Int64) async throws {
        try await core.pool.run { [core] in try core.store.markHandedOver(id: id) }
    }

    /// The server took the message.
    public func markSent(id: Int64, reply: String, refused: [String], sentCopy: String, now: Date) async throws {
        try await core.pool.run { [core] in
            try core.store.markSent(id: id, reply: reply, refused: refused, sentCopy: sentCopy, now: now)
            core.mailChanged()
        }
    }

    /// The message did not go: waiting for another attempt at `retryAt`, or failed (nil).
    public func markNotSent(id: Int64, error: String, retryAt: Date?, now: Date) async throws {
        try await core.pool.run { [core] in try core.store.markNotSent(id: id, error: error, retryAt: retryAt, now: now) }
    }

    /// Where the message's copy in the Sent folder stands (`pending`, `done`…).
    public func setSentCopy(id: Int64, _ value: String, error: String? = nil) async throws {
        try await core.pool.run { [core] in try core.store.setSentCopy(id: id, value, error: error) }
    }

    /// Sent messages whose copy in the Sent folder is still to be made.
    public func pendingSentCopies() async throws -> [Draft] {
        try await core.pool.run { [core] in try core.store.pendingSentCopies() }
    }

    /// Drafts whose copy in the Drafts folder is to be saved, or removed.
    public func draftCopiesToSync() async throws -> (upload: [Draft], remove: [Draft]) {
        try await core.pool.run { [core] in try core.store.draftCopiesToSync() }
    }

    /// Records the draft's copy in the Drafts folder; false when the draft was deleted meanwhile.
    public func recordDraftCopy(id: Int64, version: Int, mailbox: [UInt8], uidValidity: UInt32?, uid: UInt32?) async throws -> Bool {
        try await core.pool.run { [core] in
            try core.store.recordDraftCopy(id: id, version: version, mailbox: mailbox, uidValidity: uidValidity, uid: uid)
        }
    }

    /// The draft's copy in the Drafts folder is gone.
    public func forgetDraftCopy(id: Int64) async throws {
        try await core.pool.run { [core] in try core.store.forgetDraftCopy(id: id) }
    }
}
