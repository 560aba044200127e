import Foundation

/// Counts the requests a user waits for (searches, summaries and replies asked for now), so
/// that background work of the lowest priority (`SummaryQueue`) can step aside while they run:
/// they share the encoder and the cores.
final class ForegroundActivity: @unchecked Sendable {
    private let lock = NSLock()
    private var inFlight = 0
    private var lastEnded = Date.distantPast

    func begin() { lock.withLock { inFlight += 1 } }

    func end() {
        lock.withLock {
            inFlight -= 1
            lastEnded = Date()
        }
    }

    /// Nothing in flight, and nothing ended in the last `seconds` (a user typing sends the next
    /// search soon after the last).
    func isQuiet(for seconds: TimeInterval) -> Bool {
        lock.withLock { inFlight == 0 && Date().timeIntervalSince(lastEnded) >= seconds }
    }
}
