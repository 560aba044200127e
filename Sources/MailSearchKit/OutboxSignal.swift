import Foundation

/// Tells the outbox runners of this process that a mailbox action queued server operations, so
/// that they write them back at once instead of at their next poll (which remains, for what
/// another process queued).
public final class OutboxSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var count: UInt64 = 0
    private var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]

    public init() {}

    /// How many times operations were queued so far: pass it to `wait(after:upTo:)`.
    public var current: UInt64 { lock.withLock { count } }

    /// Operations were queued: every waiter wakes.
    public func notify() {
        let woken = lock.withLock {
            count &+= 1
            let all = Array(waiters.values)
            waiters.removeAll()
            return all
        }
        for waiter in woken { waiter.resume() }
    }

    /// Returns when `notify` has been called since the count was `seen`, after `timeout`, or when
    /// the task is cancelled, whichever comes first.
    public func wait(after seen: UInt64, upTo timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.next(after: seen) }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }

    private func next(after seen: UInt64) async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = lock.withLock {
                    if count != seen || Task.isCancelled { return true }
                    waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = lock.withLock { waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}
