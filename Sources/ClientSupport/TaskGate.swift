import MailModel

/// Lets one operation at a time onto a connection, in the order the tasks asked (an IMAP command,
/// an SMTP transaction): a session's responses answer one request at a time.
public final class TaskGate: Sendable {
    private struct State {
        var busy = false
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextID: UInt64 = 0
    }

    private let state = LockedBox(State())

    public init() {}

    /// Waits for the gate; false when the task was cancelled first.
    public func acquire() async -> Bool {
        let id = state.withLockedValue { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let immediate: Bool? = state.withLockedValue { state in
                    if Task.isCancelled { return false }
                    if !state.busy {
                        state.busy = true
                        return true
                    }
                    state.waiters.append((id, continuation))
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter: CheckedContinuation<Bool, Never>? = state.withLockedValue { state in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(returning: false)
        }
    }

    /// Takes the gate if it is free.
    public func tryAcquire() -> Bool {
        state.withLockedValue { state in
            guard !state.busy else { return false }
            state.busy = true
            return true
        }
    }

    /// Hands the gate to the next waiter, or frees it.
    public func release() {
        let next: CheckedContinuation<Bool, Never>? = state.withLockedValue { state in
            guard !state.waiters.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        next?.resume(returning: true)
    }
}
