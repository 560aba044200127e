import Foundation
import MailModel
import MailSearchKit

/// The sync state of every account the process syncs, shared between the sync engines (which
/// write it) and the status readers: `IMAPSyncEngine.engines` registers it with the service, whose
/// status then shows it.
public final class SyncStatusBoard: SyncStatusSource, @unchecked Sendable {
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
