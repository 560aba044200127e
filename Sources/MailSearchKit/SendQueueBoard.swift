import Foundation

/// The send queue's settings and what the sender last learnt, shared by the service (which
/// queues) and the sender (which sends): the undo window, each account's SMTP SIZE, whether a
/// sender runs in this process, and its last connection error.
public final class SendQueueBoard: @unchecked Sendable {
    private let lock = NSLock()
    private var undo: TimeInterval = 5
    private var sizes: [Int64: Int] = [:]
    private var running = false
    private var error: String?
    private var wakers: [@Sendable () -> Void] = []

    public init() {}

    /// Seconds between Send and the SMTP transaction, during which Undo takes the message back
    /// (spec 001 §5.5.2: 0, 5, 10, 15 or 30; this server: 0 to 300). Default 5, as the spec says.
    public var undoWindow: TimeInterval {
        get { lock.withLock { undo } }
        set { lock.withLock { undo = max(0, min(300, newValue)) } }
    }

    /// The largest message the account's SMTP server takes (its SIZE), once a session told.
    public func maximumSize(accountId: Int64) -> Int? { lock.withLock { sizes[accountId] } }
    public func setMaximumSize(_ size: Int?, accountId: Int64) { lock.withLock { sizes[accountId] = size } }

    /// Whether a sender runs in this process (`serve`): without one, queued mail waits.
    public var senderRunning: Bool {
        get { lock.withLock { running } }
        set { lock.withLock { running = newValue } }
    }

    /// The sender's last failure to reach a server (nil after a success).
    public var lastError: String? {
        get { lock.withLock { error } }
        set { lock.withLock { error = newValue } }
    }

    /// Called when something is queued or a draft changes: the sender looks at once.
    public func onWake(_ body: @escaping @Sendable () -> Void) { lock.withLock { wakers.append(body) } }
    public func wake() {
        for waker in lock.withLock({ wakers }) { waker() }
    }
}
