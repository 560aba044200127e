import IMAPProtocol
import NIOCore

/// The responses the channel handler read, in order, for the one task that consumes them.
///
/// The handler `push`es responses and, once, `fail`s with the reason the connection ended;
/// responses pushed before the failure are still handed out first. Waiting may end at a
/// deadline or on task cancellation without losing anything: the queue outlives both, so a
/// cancelled IDLE can still send DONE and read the rest.
final class ResponseQueue: Sendable {
    enum Wait: Sendable, Equatable {
        case response(IMAPResponse)
        /// The deadline given to `next` passed first.
        case deadline
        /// The task was cancelled first (only when waiting cancellably).
        case cancelled
    }

    private typealias Waiter = CheckedContinuation<Result<Wait, IMAPClientError>, Never>

    private struct State {
        var buffer = CircularBuffer<IMAPResponse>()
        var failure: IMAPClientError?
        var waiter: (id: UInt64, continuation: Waiter)?
        var nextID: UInt64 = 0
        /// The id of the wait whose deadline passed before it was registered.
        var expired: UInt64?
    }

    private let state = LockedBox(State())

    init() {}

    func push(_ response: IMAPResponse) {
        let waiter: Waiter? = state.withLockedValue { state in
            guard state.failure == nil else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter.continuation
            }
            state.buffer.append(response)
            return nil
        }
        waiter?.resume(returning: .success(.response(response)))
    }

    /// Ends the queue: after the buffered responses, every `next` throws `error`. The first
    /// failure wins.
    func fail(_ error: IMAPClientError) {
        let resume: (Waiter, IMAPClientError)? = state.withLockedValue { state in
            if state.failure == nil { state.failure = error }
            guard let waiter = state.waiter else { return nil }
            state.waiter = nil
            return (waiter.continuation, state.failure ?? error)
        }
        if let (waiter, failure) = resume { waiter.resume(returning: .failure(failure)) }
    }

    var failure: IMAPClientError? { state.withLockedValue { $0.failure } }

    /// The responses buffered now, without waiting (for tests of the channel handler).
    func drainBuffered() -> [IMAPResponse] {
        state.withLockedValue { state in
            defer { state.buffer.removeAll() }
            return Array(state.buffer)
        }
    }

    /// The next response; `.deadline` once `deadline` passes; `.cancelled` when the task is
    /// cancelled and `cancellable` (otherwise cancellation is ignored: the caller bounds the
    /// wait some other way). Throws the queue's failure once the buffer is empty.
    func next(deadline: NIODeadline? = nil, on eventLoop: any EventLoop, cancellable: Bool = true) async throws(IMAPClientError) -> Wait {
        let id = state.withLockedValue { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        let timer = deadline.map { deadline in
            eventLoop.scheduleTask(deadline: deadline) { [self] in self.wake(id, with: .deadline) }
        }
        defer { timer?.cancel() }
        let result: Result<Wait, IMAPClientError> = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: Waiter) in
                let immediate: Result<Wait, IMAPClientError>? = state.withLockedValue { state in
                    if let response = state.buffer.popFirst() { return .success(.response(response)) }
                    if let failure = state.failure { return .failure(failure) }
                    if state.expired == id { return .success(.deadline) }
                    if cancellable, Task.isCancelled { return .success(.cancelled) }
                    state.waiter = (id, continuation)
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            if cancellable { wake(id, with: .cancelled) }
        }
        return try result.get()
    }

    private func wake(_ id: UInt64, with wait: Wait) {
        let waiter: Waiter? = state.withLockedValue { state in
            guard let waiter = state.waiter, waiter.id == id else {
                if wait == .deadline { state.expired = id }
                return nil
            }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume(returning: .success(wait))
    }
}

/// Lets one command at a time onto the connection, in the order the tasks asked.
final class CommandGate: Sendable {
    private struct State {
        var busy = false
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextID: UInt64 = 0
    }

    private let state = LockedBox(State())

    init() {}

    /// Waits for the gate; false when the task was cancelled first.
    func acquire() async -> Bool {
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
    func tryAcquire() -> Bool {
        state.withLockedValue { state in
            guard !state.busy else { return false }
            state.busy = true
            return true
        }
    }

    /// Hands the gate to the next waiter, or frees it.
    func release() {
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
