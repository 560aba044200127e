import MailModel
import NIOCore

/// The responses a channel handler read (IMAP responses, SMTP replies), in order, for the one task
/// that consumes them.
///
/// The handler `push`es responses and, once, `fail`s with the reason the connection ended;
/// responses pushed before the failure are still handed out first. Waiting may end at a
/// deadline or on task cancellation without losing anything: the queue outlives both, so a
/// cancelled IMAP IDLE can still send DONE and read the rest.
public final class ClientResponseQueue<Response: Sendable, Failure: Error & Sendable>: Sendable {
    public enum Wait: Sendable {
        case response(Response)
        /// The deadline given to `next` passed first.
        case deadline
        /// The task was cancelled first (only when waiting cancellably).
        case cancelled
    }

    private typealias Waiter = CheckedContinuation<Result<Wait, Failure>, Never>

    private struct State {
        var buffer = CircularBuffer<Response>()
        var failure: Failure?
        var waiter: (id: UInt64, continuation: Waiter)?
        var nextID: UInt64 = 0
        /// The id of the wait whose deadline passed before it was registered.
        var expired: UInt64?
    }

    private let state = LockedBox(State())

    public init() {}

    public func push(_ response: Response) {
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
    public func fail(_ error: Failure) {
        let resume: (Waiter, Failure)? = state.withLockedValue { state in
            if state.failure == nil { state.failure = error }
            guard let waiter = state.waiter else { return nil }
            state.waiter = nil
            return (waiter.continuation, state.failure ?? error)
        }
        if let (waiter, failure) = resume { waiter.resume(returning: .failure(failure)) }
    }

    /// Why the queue ended; nil while it is open.
    public var failure: Failure? { state.withLockedValue { $0.failure } }

    /// The responses buffered now, without waiting (for tests of the channel handler).
    public func drainBuffered() -> [Response] {
        state.withLockedValue { state in
            defer { state.buffer.removeAll() }
            return Array(state.buffer)
        }
    }

    /// The next response; `.deadline` once `deadline` passes (on `eventLoop`'s clock); `.cancelled`
    /// when the task is cancelled and `cancellable` (otherwise cancellation is ignored: the caller
    /// bounds the wait some other way). Throws the queue's failure once the buffer is empty.
    public func next(deadline: NIODeadline? = nil, on eventLoop: any EventLoop, cancellable: Bool = true) async throws(Failure) -> Wait {
        let id = state.withLockedValue { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        let timer = deadline.map { deadline in
            eventLoop.scheduleTask(deadline: deadline) { [self] in self.wake(id, with: .deadline) }
        }
        defer { timer?.cancel() }
        let result: Result<Wait, Failure> = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: Waiter) in
                let immediate: Result<Wait, Failure>? = state.withLockedValue { state in
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
                if case .deadline = wait { state.expired = id }
                return nil
            }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume(returning: .success(wait))
    }
}

extension ClientResponseQueue.Wait: Equatable where Response: Equatable {}
