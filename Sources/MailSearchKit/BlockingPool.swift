import Foundation

/// A fixed set of threads for blocking work (the query encoder, vector scans, SQLite writes), so
/// that it never occupies the threads of Swift's cooperative pool, which must stay free for
/// the HTTP server and other tasks. Jobs run in the order they arrive.
public final class BlockingPool: @unchecked Sendable {
    public let threadCount: Int
    private let condition = NSCondition()
    private var jobs: [() -> Void] = []
    private var stopped = false
    private let name: String
    /// The threads start with the first job: a process that never needs them (a one-shot keyword
    /// search) never makes them.
    private var started = false

    public init(threads: Int, name: String = "mailsearch.blocking") {
        threadCount = max(1, threads)
        self.name = name
    }

    /// Called with `condition` locked.
    private func startThreads() {
        started = true
        for i in 0..<threadCount {
            // Strong: a thread that starts after the pool's last reference went must still find it (shutdown() ends the threads).
            let thread = Thread { [self] in self.work() }
            thread.name = "\(name).\(i)"
            thread.stackSize = 4 << 20
            thread.start()
        }
    }

    /// Runs `body` on one of the pool's threads and returns its result.
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
            enqueue { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Lets the threads finish the queued jobs and end.
    public func shutdown() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func enqueue(_ job: @escaping () -> Void) {
        condition.lock()
        if !started { startThreads() }
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty && stopped {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}
