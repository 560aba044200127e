import Foundation
import MailSearchKit
import XCTest

/// The service's one lane for blocking work: jobs that wait never hold up others, CPU-bound jobs
/// run at most `computeSlots` at once.
final class BlockingPoolTests: XCTestCase {
    /// A gate jobs wait at until it opens.
    final class Gate: @unchecked Sendable {
        private let condition = NSCondition()
        private var open = false
        private(set) var waiting = 0
        func wait() {
            condition.withLock {
                waiting += 1
                while !open { condition.wait() }
                waiting -= 1
            }
        }
        func release() { condition.withLock { open = true; condition.broadcast() } }
        var waitingNow: Int { condition.withLock { waiting } }
    }

    func testJobsThatWaitNeverHoldUpAnotherJob() async throws {
        let pool = BlockingPool(threads: 2)
        defer { pool.shutdown() }
        let gate = Gate()
        // More waiting jobs than compute slots, as writers waiting on another process's lock would be.
        let blocked = (0..<6).map { _ in Task { try await pool.run { gate.wait() } } }
        while gate.waitingNow < 6 { try await Task.sleep(nanoseconds: 1_000_000) }
        let answered = try await pool.run { 42 }
        XCTAssertEqual(answered, 42, "a seventh job ran while six waited")
        XCTAssertGreaterThanOrEqual(pool.threadCount, 7)
        gate.release()
        for task in blocked { try await task.value }
    }

    func testComputeJobsRunAtMostComputeSlotsAtOnce() async throws {
        let pool = BlockingPool(threads: 2)
        defer { pool.shutdown() }
        let counter = NSLock()
        nonisolated(unsafe) var running = 0
        nonisolated(unsafe) var most = 0
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    try await pool.compute {
                        counter.withLock { running += 1; most = max(most, running) }
                        Thread.sleep(forTimeInterval: 0.01)
                        counter.withLock { running -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        XCTAssertEqual(counter.withLock { most }, 2)
        // A waiting job beside them still runs at once.
        let gate = Gate()
        let compute = Task { try await pool.compute { gate.wait() } }
        let compute2 = Task { try await pool.compute { gate.wait() } }
        while gate.waitingNow < 2 { try await Task.sleep(nanoseconds: 1_000_000) }
        let value = try await pool.run { "read" }
        XCTAssertEqual(value, "read", "compute slots full, a plain job ran")
        gate.release()
        try await compute.value
        try await compute2.value
    }

    func testErrorsReachTheCaller() async {
        let pool = BlockingPool(threads: 1)
        defer { pool.shutdown() }
        struct Refused: Error {}
        do {
            try await pool.run { throw Refused() }
            XCTFail("no error")
        } catch {
            XCTAssertTrue(error is Refused)
        }
    }
}
