import Foundation
import MailStore

/// Brute-force cosine search over L2-normalised vectors (FR-SEARCH-07): all embeddings in one
/// contiguous row-major matrix, loaded once and updated incrementally; a query is one
/// dot-product scan with SIMD, keeping the best `k`. A candidate set (filters, scope) restricts
/// the scan itself, so a filter never empties a fixed top-50.
public final class VectorSearchEngine: @unchecked Sendable {
    public let dimension: Int
    private let lock = NSLock()
    private var matrix: [Float] = []
    private var ids: [Int64] = []
    private var rowOf: [Int64: Int] = [:]

    public init(dimension: Int = 384) {
        self.dimension = dimension
    }

    public var count: Int { lock.withLock { ids.count } }

    /// Loads every stored embedding of `store` (replacing what was loaded).
    public func load(from store: MailStore) throws {
        var m: [Float] = []
        var list: [Int64] = []
        try store.forEachEmbedding { id, data in
            guard data.count == dimension * 4 else { return }
            data.withUnsafeBytes { raw in m.append(contentsOf: raw.bindMemory(to: Float.self)) }
            list.append(id)
        }
        lock.withLock {
            matrix = m
            ids = list
            rowOf = Dictionary(uniqueKeysWithValues: list.enumerated().map { ($1, $0) })
        }
    }

    /// Adds or replaces vectors.
    public func upsert(_ items: [(emailId: Int64, vector: [Float])]) {
        lock.withLock {
            for item in items where item.vector.count == dimension {
                if let row = rowOf[item.emailId] {
                    matrix.replaceSubrange(row * dimension..<(row + 1) * dimension, with: item.vector)
                } else {
                    rowOf[item.emailId] = ids.count
                    ids.append(item.emailId)
                    matrix.append(contentsOf: item.vector)
                }
            }
        }
    }

    /// Removes vectors (swapping the last row into the hole).
    public func remove(_ emailIds: [Int64]) {
        lock.withLock {
            for id in emailIds {
                guard let row = rowOf.removeValue(forKey: id) else { continue }
                let last = ids.count - 1
                if row != last {
                    let lastId = ids[last]
                    for d in 0..<dimension { matrix[row * dimension + d] = matrix[last * dimension + d] }
                    ids[row] = lastId
                    rowOf[lastId] = row
                }
                ids.removeLast()
                matrix.removeLast(dimension)
            }
        }
    }

    /// The `k` most similar emails to `query` (normalised), best first, with their cosine similarity.
    public func search(_ query: [Float], k: Int = 50, candidates: Set<Int64>? = nil) -> [(emailId: Int64, score: Float)] {
        guard query.count == dimension, k > 0 else { return [] }
        return lock.withLock {
            if let candidates, candidates.count < ids.count / 4 {
                var top = TopK(k: k)
                matrix.withUnsafeBufferPointer { m in
                    query.withUnsafeBufferPointer { q in
                        for id in candidates {
                            guard let row = rowOf[id] else { continue }
                            top.offer(row: row, score: Self.dot(m.baseAddress! + row * dimension, q.baseAddress!, dimension))
                        }
                    }
                }
                return top.sorted().map { (ids[$0.row], $0.score) }
            }
            // The full scan is memory-bound: split it over the cores, then merge the partial top-k lists.
            let parts = ids.count >= 20_000 ? ProcessInfo.processInfo.activeProcessorCount : 1
            let chunk = (ids.count + parts - 1) / max(1, parts)
            let partials = UnsafeMutableBufferPointer<TopK>.allocate(capacity: parts)
            partials.initialize(repeating: TopK(k: k))
            defer { partials.deallocate() }
            let box = PartialsBox(partials)
            matrix.withUnsafeBufferPointer { m in
                query.withUnsafeBufferPointer { q in
                    ids.withUnsafeBufferPointer { rowIds in
                        let context = ScanContext(matrix: m, query: q, ids: rowIds, candidates: candidates, chunk: chunk,
                                                  k: k, dimension: dimension, results: box)
                        if parts == 1 { context.scan(0) } else { DispatchQueue.concurrentPerform(iterations: parts, execute: context.scan) }
                    }
                }
            }
            var merged = TopK(k: k)
            for part in partials { for item in part.items { merged.offer(row: item.row, score: item.score) } }
            return merged.sorted().map { (ids[$0.row], $0.score) }
        }
    }

    @inline(__always)
    static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int) -> Float {
        var acc = SIMD16<Float>()
        var i = 0
        let rawA = UnsafeRawPointer(a), rawB = UnsafeRawPointer(b)
        while i + 16 <= n {
            acc += rawA.loadUnaligned(fromByteOffset: i * 4, as: SIMD16<Float>.self)
                * rawB.loadUnaligned(fromByteOffset: i * 4, as: SIMD16<Float>.self)
            i += 16
        }
        var sum = acc.sum()
        while i < n { sum += a[i] * b[i]; i += 1 }
        return sum
    }

    /// What one part of a parallel scan reads, and where it writes its top-k.
    private struct ScanContext: @unchecked Sendable {
        let matrix: UnsafeBufferPointer<Float>
        let query: UnsafeBufferPointer<Float>
        let ids: UnsafeBufferPointer<Int64>
        let candidates: Set<Int64>?
        let chunk: Int
        let k: Int
        let dimension: Int
        let results: PartialsBox

        func scan(_ part: Int) {
            var top = TopK(k: k)
            let m = matrix.baseAddress!, q = query.baseAddress!
            for row in (part * chunk)..<min(ids.count, (part + 1) * chunk) {
                if let candidates, !candidates.contains(ids[row]) { continue }
                top.offer(row: row, score: VectorSearchEngine.dot(m + row * dimension, q, dimension))
            }
            results.buffer[part] = top
        }
    }

    /// Lets the parallel scan write each part's result into its own slot.
    private struct PartialsBox: @unchecked Sendable {
        let buffer: UnsafeMutableBufferPointer<TopK>
        init(_ buffer: UnsafeMutableBufferPointer<TopK>) { self.buffer = buffer }
    }

    /// Keeps the best `k` (row, score) pairs; cheap rejection below the current k-th score.
    struct TopK {
        let k: Int
        var items: [(row: Int, score: Float)] = []
        var floor: Float = -.infinity

        init(k: Int) {
            self.k = k
            items.reserveCapacity(k + 1)
        }

        mutating func offer(row: Int, score: Float) {
            guard items.count < k || score > floor else { return }
            // Insert keeping descending order.
            var i = items.count
            while i > 0 && items[i - 1].score < score { i -= 1 }
            items.insert((row, score), at: i)
            if items.count > k { items.removeLast() }
            if items.count == k { floor = items[k - 1].score }
        }

        func sorted() -> [(row: Int, score: Float)] { items }
    }
}
