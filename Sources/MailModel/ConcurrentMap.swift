import Foundation

extension Array where Element: Sendable {
    /// `map` on every core (`DispatchQueue.concurrentPerform`: this thread and Dispatch's workers take
    /// the elements), the results in order. For pure, independent work of some size: parsing a batch
    /// of messages, cleaning a conversation's bodies.
    public func concurrentMap<T>(_ transform: @Sendable (Element) -> T) -> [T] {
        guard count > 1 else { return map(transform) }
        let results = UnsafeMutableBufferPointer<T?>.allocate(capacity: count)
        results.initialize(repeating: nil)
        defer {
            results.deinitialize()
            results.deallocate()
        }
        let box = DisjointWrites(results)
        DispatchQueue.concurrentPerform(iterations: count) { i in
            box.buffer[i] = transform(self[i])
        }
        return results.map { $0! }
    }
}

/// Hands a buffer to `concurrentPerform`, whose iterations write disjoint elements.
private struct DisjointWrites<T>: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<T?>
    init(_ buffer: UnsafeMutableBufferPointer<T?>) { self.buffer = buffer }
}
