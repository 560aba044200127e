import Foundation

/// A thread of its own that runs one pass at a time whenever asked, for the service's background
/// queues (embedding, categorising). `wake()` during a pass asks for one more after it; `stop()`
/// lets the pass in flight end (passes look at `isStopping` between batches) and waits for the
/// thread; `waitUntilIdle()` returns once no pass is wanted or running.
final class WakeableWorker: @unchecked Sendable {
    private let condition = NSCondition()
    private var wanted = false
    private var stopping = false
    private var running = false
    private var thread: Thread?
    private let name: String
    private let pass: @Sendable () -> Void

    init(name: String, pass: @escaping @Sendable () -> Void) {
        self.name = name
        self.pass = pass
    }

    func wake() {
        condition.withLock {
            wanted = true
            if thread == nil, !stopping {
                let t = Thread { [weak self] in self?.loop() }
                t.name = name
                t.stackSize = 8 << 20
                thread = t
                t.start()
            }
            condition.broadcast()
        }
    }

    func stop() {
        condition.withLock {
            stopping = true
            condition.broadcast()
        }
        while condition.withLock({ thread != nil }) { Thread.sleep(forTimeInterval: 0.005) }
    }

    var isStopping: Bool { condition.withLock { stopping } }

    func waitUntilIdle() {
        condition.lock()
        while wanted || running { condition.wait() }
        condition.unlock()
    }

    private func loop() {
        while true {
            condition.lock()
            while !wanted && !stopping { condition.wait() }
            if stopping {
                thread = nil
                wanted = false
                condition.broadcast()
                condition.unlock()
                return
            }
            wanted = false
            running = true
            condition.unlock()
            pass()
            condition.withLock {
                running = false
                condition.broadcast()
            }
        }
    }
}
