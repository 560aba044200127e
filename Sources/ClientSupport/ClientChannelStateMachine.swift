import NIOSSL

/// The read side of a client's channel as a state machine: reading responses, the STARTTLS upgrade
/// (the answer decides whether TLS starts, and what came in clear after it is never read), failure.
/// Pure: the channel handler does what each transition returns.
public struct ClientChannelStateMachine<Key: Sendable>: Sendable {
    public enum State: Sendable {
        /// Reading responses: in clear, or over TLS from the first byte.
        case reading
        /// STARTTLS is on its way: the response that answers it decides.
        case awaitingStartTLSAnswer(StartTLSRequest<Key>)
        /// TLS started after STARTTLS's yes.
        case upgradedToTLS
        /// The connection failed: nothing more is read, written or handed out.
        case failed
    }

    public enum StartTLSAction: Sendable {
        /// Remembered: the answer will come.
        case awaitAnswer
        /// Nothing to do: the connection already failed (the command's write will fail).
        case ignore
        /// A second STARTTLS (one is under way, or TLS already runs): a mistake of the client.
        case refuse
    }

    public enum ResponseAction: Sendable {
        /// Hand the response to the queue.
        case deliver
        /// The yes to STARTTLS: drop the bytes buffered after it (sent in clear: an injection),
        /// start TLS at the front of the pipeline, then hand the response to the queue.
        case startTLSAndDeliver(context: NIOSSLContext, serverHostname: String?)
    }

    public private(set) var state: State = .reading

    public init() {}

    public var isFailed: Bool {
        if case .failed = state { return true }
        return false
    }

    /// The client is about to send STARTTLS.
    public mutating func startTLSRequested(_ request: StartTLSRequest<Key>) -> StartTLSAction {
        switch state {
        case .reading:
            state = .awaitingStartTLSAnswer(request)
            return .awaitAnswer
        case .failed:
            return .ignore
        case .awaitingStartTLSAnswer, .upgradedToTLS:
            return .refuse
        }
    }

    /// A response was read. `answersStartTLS` tells whether it answers the STARTTLS with that key:
    /// nil when it does not, else whether TLS starts.
    public mutating func responseReceived(answersStartTLS: (Key) -> Bool?) -> ResponseAction {
        guard case .awaitingStartTLSAnswer(let request) = state, let yes = answersStartTLS(request.key) else { return .deliver }
        guard yes else {
            state = .reading
            return .deliver
        }
        state = .upgradedToTLS
        return .startTLSAndDeliver(context: request.context, serverHostname: request.serverHostname)
    }

    /// The connection failed; false when it had already (the first failure is the one reported).
    public mutating func failed() -> Bool {
        if case .failed = state { return false }
        state = .failed
        return true
    }
}
