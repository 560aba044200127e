import Foundation

/// A bounded queue between two threads of the import pipeline (parser → mail writer → indexer).
/// Either side can fail it: the first error reaches the other side on its next `put` or `take`.
final class HandOff<Item>: @unchecked Sendable {
    private let condition = NSCondition()
    private let capacity: Int
    private var items: [Item] = []
    private var finished = false
    private var drained = false
    private var failure: Error?

    init(capacity: Int) { self.capacity = capacity }

    /// True once either side has failed; a producer checks it to stop early.
    var hasFailed: Bool { condition.withLock { failure != nil } }

    /// Adds an item, waiting while the queue is full. Throws the error the consumer failed with.
    func put(_ item: Item) throws {
        try condition.withLock {
            while items.count >= capacity && failure == nil { condition.wait() }
            if let failure { throw failure }
            items.append(item)
            condition.broadcast()
        }
    }

    /// The next item, or nil once the producer has finished and everything was taken.
    /// Throws the error the producer failed with.
    func take() throws -> Item? {
        try condition.withLock {
            while items.isEmpty && !finished && failure == nil { condition.wait() }
            if let failure { throw failure }
            guard !items.isEmpty else {
                drained = true
                condition.broadcast()
                return nil
            }
            let item = items.removeFirst()
            condition.broadcast()
            return item
        }
    }

    /// No more items will be put.
    func finish() {
        condition.withLock {
            finished = true
            condition.broadcast()
        }
    }

    /// Stops both sides with `error` (the first error wins).
    func fail(_ error: Error) {
        condition.withLock {
            if failure == nil { failure = error }
            items.removeAll()
            condition.broadcast()
        }
    }

    /// Finishes and waits until the consumer has taken everything; rethrows its failure.
    func finishAndWaitUntilDrained() throws {
        try condition.withLock {
            finished = true
            condition.broadcast()
            while !drained && failure == nil { condition.wait() }
            if let failure { throw failure }
        }
    }
}
