import Foundation

extension Array where Element: Sendable {
    /// `map` on every core, the results in order: this thread and up to one helper a further core
    /// (Dispatch's global queue) take the elements one at a time. For a few pieces of pure,
    /// independent work of some size: cleaning a conversation's bodies. Unlike
    /// `concurrentPerform`, which runs every iteration on the calling thread when that is one of
    /// Swift concurrency's, this uses the cores from any thread; and it never waits for a helper
    /// that has not started (a busy queue): this thread then does the work alone.
    public func concurrentMap<T>(_ transform: @escaping @Sendable (Element) -> T) -> [T] {
        let helpers = Swift.min(count, ProcessInfo.processInfo.activeProcessorCount) - 1
        guard helpers > 0 else { return map(transform) }
        let work = SharedWork<T>(count: count)
        let elements = self
        let run: @Sendable () -> Void = {
            while let i = work.take() { work.finish(i, transform(elements[i])) }
        }
        for _ in 0..<helpers { DispatchQueue.global(qos: .userInitiated).async(execute: run) }
        run()
        return work.waitForAll()
    }
}

/// The elements not yet taken and the results: each index is handed out once; `waitForAll`
/// returns when every index taken has its result.
private final class SharedWork<T>: @unchecked Sendable {
    private var results: [T?]
    private var taken = 0
    private var finished = 0
    private let condition = NSCondition()

    init(count: Int) {
        results = Array(repeating: nil, count: count)
    }

    func take() -> Int? {
        condition.lock()
        defer { condition.unlock() }
        guard taken < results.count else { return nil }
        taken += 1
        return taken - 1
    }

    func finish(_ index: Int, _ result: T) {
        condition.lock()
        results[index] = result
        finished += 1
        if finished == results.count { condition.broadcast() }
        condition.unlock()
    }

    func waitForAll() -> [T] {
        condition.lock()
        defer { condition.unlock() }
        while finished < results.count { condition.wait() }
        return results.map { $0! }
    }
}
