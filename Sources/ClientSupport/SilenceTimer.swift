import NIOCore

/// The silence (inactivity) timer of a connection as a state machine: the server must send
/// something within `timeout` of the last bytes read or written while a response is awaited. Pure:
/// every time is given (the event loop's `now`, virtual on an `EmbeddedEventLoop`), and every
/// transition returns what the channel handler must do with its one scheduled check.
///
/// Reads only record their time; the check, when it fires, waits again if bytes came since (a
/// large literal or message that keeps flowing never times out).
public struct SilenceTimer: Sendable, Equatable {
    public enum State: Sendable, Equatable {
        /// No limit: between commands, while idling.
        case disarmed
        /// The server must speak within `timeout` of `lastActivity`; `waitingFor` is for the message.
        case armed(timeout: TimeAmount, waitingFor: String, lastActivity: NIODeadline)
        /// The connection failed or the silence expired: never armed again.
        case stopped
    }

    public enum Action: Sendable, Equatable {
        case none
        /// Cancel the check scheduled, if any, and schedule one at `deadline`.
        case schedule(at: NIODeadline)
        /// Cancel the check scheduled, if any.
        case cancel
        /// The server was silent for `timeout` while `waitingFor`: fail the connection.
        case expired(timeout: TimeAmount, waitingFor: String)
    }

    public private(set) var state: State = .disarmed

    public init() {}

    /// Expects the server within `timeout` from `now` (nil: no limit).
    public mutating func arm(_ timeout: TimeAmount?, waitingFor: String, now: NIODeadline) -> Action {
        switch state {
        case .stopped:
            return .none
        case .disarmed, .armed:
            guard let timeout else {
                state = .disarmed
                return .cancel
            }
            state = .armed(timeout: timeout, waitingFor: waitingFor, lastActivity: now)
            return .schedule(at: now + timeout)
        }
    }

    /// Bytes read or written at `now`.
    public mutating func activity(now: NIODeadline) {
        guard case .armed(let timeout, let waitingFor, _) = state else { return }
        state = .armed(timeout: timeout, waitingFor: waitingFor, lastActivity: now)
    }

    /// The scheduled check fired at `now`.
    public mutating func fired(now: NIODeadline) -> Action {
        guard case .armed(let timeout, let waitingFor, let lastActivity) = state else { return .none }
        let deadline = lastActivity + timeout
        if deadline > now { return .schedule(at: deadline) }
        state = .stopped
        return .expired(timeout: timeout, waitingFor: waitingFor)
    }

    /// The connection failed.
    public mutating func stop() -> Action {
        state = .stopped
        return .cancel
    }
}
