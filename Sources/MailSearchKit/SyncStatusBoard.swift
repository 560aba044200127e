import Foundation

/// Where one account's sync stands: the state machine of spec 001 §5.2.2 with its progress.
/// `GET /api/status` and `mailsearch sync` show it; the sync engine writes it.
public struct SyncStatus: Sendable, Codable, Hashable {
    public enum State: String, Sendable, Codable, Hashable {
        case idle, connecting, authenticating, syncingFolders, syncingHeaders, syncingBodies, indexing, listening, error
    }

    public var account: String
    public var state: State
    /// The folder being synced, when one is.
    public var folder: String?
    /// Messages fetched in this pass, and how many the pass has to fetch in all (when known).
    public var messagesDone: Int
    public var messagesTotal: Int?
    /// Messages per second over this pass so far.
    public var messagesPerSecond: Double?
    /// When the last whole pass over the account's folders finished.
    public var lastSync: Date?
    /// Why the last attempt failed (no secrets, no mail content); nil after a success.
    public var lastError: String?
    /// When the next attempt starts, after an error.
    public var nextAttempt: Date?

    public init(account: String, state: State = .idle, folder: String? = nil, messagesDone: Int = 0,
                messagesTotal: Int? = nil, messagesPerSecond: Double? = nil, lastSync: Date? = nil,
                lastError: String? = nil, nextAttempt: Date? = nil) {
        self.account = account
        self.state = state
        self.folder = folder
        self.messagesDone = messagesDone
        self.messagesTotal = messagesTotal
        self.messagesPerSecond = messagesPerSecond
        self.lastSync = lastSync
        self.lastError = lastError
        self.nextAttempt = nextAttempt
    }
}

/// The sync state of every account the process syncs, shared between the sync engines (which
/// write it) and the status readers.
public final class SyncStatusBoard: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String: SyncStatus] = [:]
    private var observers: [@Sendable (SyncStatus) -> Void] = []

    public init() {}

    /// Changes one account's entry (created in `.idle` when missing) and tells the observers.
    public func update(_ account: String, _ change: (inout SyncStatus) -> Void) {
        let (status, observers) = lock.withLock {
            var status = entries[account] ?? SyncStatus(account: account)
            change(&status)
            entries[account] = status
            return (status, self.observers)
        }
        for observer in observers { observer(status) }
    }

    public func remove(_ account: String) {
        lock.withLock { _ = entries.removeValue(forKey: account) }
    }

    /// Every account's entry, by account name.
    public var snapshot: [SyncStatus] {
        lock.withLock { entries.values.sorted { $0.account < $1.account } }
    }

    /// Calls `observer` after every update (a progress bar).
    public func observe(_ observer: @escaping @Sendable (SyncStatus) -> Void) {
        lock.withLock { observers.append(observer) }
    }
}
