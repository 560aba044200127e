import Foundation

/// The service's one lane for blocking work: SQLite reads and writes, reading message files, the
/// query encoder, vector scans, a whole rebuild. None of it runs on Swift's cooperative pool,
/// whose few threads must stay free for the HTTP server and every other task (GRDB's async
/// `read`/`write` do the same for their own work).
///
/// Two kinds of job share the threads:
/// - `run`: work that may wait (on a disk, or on another process's write lock for up to SQLite's busy
///   timeout). A job never waits for a thread held by another such job: when none is idle a thread
///   is added, up to `maximumThreads`; threads above `computeSlots` end after `idleSeconds` idle.
///   So one slow writer never holds up a search or a status call.
/// - `compute`: CPU-bound work (the query encoder, a vector scan, a summary's sentence vectors), at
///   most `computeSlots` at once, the rest queued in order: more at once would only share the cores.
public final class BlockingPool: @unchecked Sendable {
    /// How many compute jobs run at once (and the threads kept alive when idle).
    public let computeSlots: Int
    /// The most threads the pool makes.
    public let maximumThreads: Int
    private let idleSeconds: TimeInterval
    private let name: String

    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var computeJobs: [Job] = []
    private var computeRunning = 0
    private var threads = 0
    private var idle = 0
    private var stopped = false
    private var made = 0

    private struct Job {
        let body: () -> Void
    }

    /// The threads start with the first job: a process that never needs them (a one-shot keyword
    /// search) never makes them.
    public init(threads: Int, maximumThreads: Int = 64, idleSeconds: TimeInterval = 30, name: String = "mailsearch.blocking") {
        computeSlots = max(1, threads)
        self.maximumThreads = max(computeSlots, maximumThreads)
        self.idleSeconds = idleSeconds
        self.name = name
    }

    /// Runs `body` (work that may wait) on one of the pool's threads and returns its result.
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
            enqueue(Job { continuation.resume(with: Result { try body() }) }, compute: false)
        }
    }

    /// Runs CPU-bound `body` on one of the pool's threads, at most `computeSlots` at once.
    public func compute<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
            enqueue(Job { continuation.resume(with: Result { try body() }) }, compute: true)
        }
    }

    /// Lets the threads finish the queued jobs and end.
    public func shutdown() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// How many threads the pool has now (for tests and status).
    public var threadCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return threads
    }

    private func enqueue(_ job: Job, compute: Bool) {
        condition.lock()
        if compute { computeJobs.append(job) } else { jobs.append(job) }
        wakeOrAdd()
        condition.unlock()
    }

    /// Jobs a thread could take now. Called with `condition` locked.
    private var runnable: Int {
        jobs.count + min(computeJobs.count, max(0, computeSlots - computeRunning))
    }

    /// Wakes an idle thread for each runnable job, adding threads when too few are idle (a thread
    /// woken for a job another took goes back to waiting). Called with `condition` locked.
    private func wakeOrAdd() {
        let work = runnable
        for _ in 0..<min(work, idle) { condition.signal() }
        var missing = work - idle
        while missing > 0, threads < maximumThreads {
            addThread()
            missing -= 1
        }
    }

    /// Called with `condition` locked.
    private func addThread() {
        threads += 1
        made += 1
        // Strong: a thread that starts after the pool's last reference went must still find it (shutdown() ends the threads).
        let thread = Thread { [self] in self.work() }
        thread.name = "\(name).\(made)"
        thread.stackSize = 8 << 20
        thread.start()
    }

    private func work() {
        condition.lock()
        while true {
            if computeRunning < computeSlots, !computeJobs.isEmpty {
                let job = computeJobs.removeFirst()
                computeRunning += 1
                condition.unlock()
                job.body()
                condition.lock()
                computeRunning -= 1
                continue  // this thread takes the next queued compute job itself
            }
            if !jobs.isEmpty {
                let job = jobs.removeFirst()
                condition.unlock()
                job.body()
                condition.lock()
                continue
            }
            if stopped { break }
            idle += 1
            let woken = condition.wait(until: Date(timeIntervalSinceNow: idleSeconds))
            idle -= 1
            if !woken, runnable == 0, threads > computeSlots { break }
        }
        threads -= 1
        condition.unlock()
    }
}
