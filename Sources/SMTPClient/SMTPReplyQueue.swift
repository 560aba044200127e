import ClientSupport
import MailModel
import SMTPProtocol

/// The replies the channel handler read, in order, for the one task that consumes them. The
/// handler `push`es replies and, once, `fail`s with the reason the connection ended; replies
/// pushed before the failure are still handed out first.
final class SMTPReplyQueue: Sendable {
    private typealias Waiter = CheckedContinuation<Result<SMTPReply, SMTPClientError>, Never>

    private struct State {
        var buffer: [SMTPReply] = []
        var failure: SMTPClientError?
        var waiter: Waiter?
    }

    private let state = LockedBox(State())

    func push(_ reply: SMTPReply) {
        let waiter: Waiter? = state.withLockedValue { state in
            guard state.failure == nil else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.buffer.append(reply)
            return nil
        }
        waiter?.resume(returning: .success(reply))
    }

    /// Ends the queue; the first failure wins.
    func fail(_ error: SMTPClientError) {
        let resume: (Waiter, SMTPClientError)? = state.withLockedValue { state in
            if state.failure == nil { state.failure = error }
            guard let waiter = state.waiter else { return nil }
            state.waiter = nil
            return (waiter, state.failure ?? error)
        }
        if let (waiter, failure) = resume { waiter.resume(returning: .failure(failure)) }
    }

    var failure: SMTPClientError? { state.withLockedValue { $0.failure } }

    /// The replies buffered now, without waiting (for tests of the channel handler).
    func drainBuffered() -> [SMTPReply] {
        state.withLockedValue { state in
            defer { state.buffer.removeAll() }
            return state.buffer
        }
    }

    /// The next reply; throws the queue's failure once the buffer is empty, `.cancelled` when the
    /// task is cancelled (the caller then closes the connection: a reply may still be on its way).
    func next() async throws(SMTPClientError) -> SMTPReply {
        let result: Result<SMTPReply, SMTPClientError> = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: Waiter) in
                let immediate: Result<SMTPReply, SMTPClientError>? = state.withLockedValue { state in
                    if !state.buffer.isEmpty { return .success(state.buffer.removeFirst()) }
                    if let failure = state.failure { return .failure(failure) }
                    if Task.isCancelled { return .failure(SMTPClientError(kind: .cancelled, message: "cancelled")) }
                    state.waiter = continuation
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLockedValue { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: .failure(SMTPClientError(kind: .cancelled, message: "cancelled")))
        }
        return try result.get()
    }
}
