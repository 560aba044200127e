/// A mail session's state as the client sees it: the greeting, the STARTTLS upgrade, the login,
/// the close. Pure: each transition says what the connection must do, and a transition that does
/// not fit the state changes nothing (a close may come at any time, from any task).
///
///     awaitingGreeting ──greeted──▶ notAuthenticated ──authenticated──▶ authenticated
///     awaitingGreeting ──greeted with IMAP's PREAUTH──────────────────▶ authenticated
///     notAuthenticated ──startTLSRequested──▶ upgradingToTLS ──tlsStarted──▶ notAuthenticated
///     any state ──closeRequested──▶ closed (for good)
public struct ClientSessionStateMachine: Sendable, Equatable {
    public enum State: Sendable, Equatable {
        /// Connected (TCP, and TLS for implicit TLS); the greeting is not read yet.
        case awaitingGreeting
        /// Greeted; no login yet.
        case notAuthenticated
        /// STARTTLS sent; its answer (and then TLS) is awaited.
        case upgradingToTLS
        /// Logged in (or greeted with IMAP's PREAUTH).
        case authenticated
        /// Closed by the client: nothing is sent any more.
        case closed
    }

    public enum StartTLSAction: Sendable, Equatable {
        /// Send STARTTLS.
        case send
        /// The session is already authenticated (IMAP's PREAUTH): STARTTLS cannot come any more.
        case refuseAuthenticated
        /// Not now: before the greeting, during another upgrade, or after the close.
        case refuseOutOfOrder
    }

    public enum CloseAction: Sendable, Equatable {
        /// Close the channel and wait for it.
        case closeChannel
        /// Closed before: nothing more to do.
        case none
    }

    public private(set) var state: State = .awaitingGreeting

    public init() {}

    public var isAuthenticated: Bool { state == .authenticated }
    public var isClosed: Bool { state == .closed }

    /// The greeting was read and accepted.
    public mutating func greeted(preauthenticated: Bool) {
        guard state == .awaitingGreeting else { return }
        state = preauthenticated ? .authenticated : .notAuthenticated
    }

    /// The client wants to start TLS.
    public mutating func startTLSRequested() -> StartTLSAction {
        switch state {
        case .notAuthenticated:
            state = .upgradingToTLS
            return .send
        case .authenticated:
            return .refuseAuthenticated
        case .awaitingGreeting, .upgradingToTLS, .closed:
            return .refuseOutOfOrder
        }
    }

    /// The server said yes to STARTTLS: TLS runs, the session starts again (no login yet). After a
    /// no, the client closes the connection: it never goes on in clear.
    public mutating func tlsStarted() {
        guard state == .upgradingToTLS else { return }
        state = .notAuthenticated
    }

    /// The server accepted the login.
    public mutating func authenticated() {
        guard state == .notAuthenticated else { return }
        state = .authenticated
    }

    /// The client closes the session; only the first close closes the channel.
    public mutating func closeRequested() -> CloseAction {
        guard state != .closed else { return .none }
        state = .closed
        return .closeChannel
    }
}
