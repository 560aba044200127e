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
            var top = TopK(k: k)
            matrix.withUnsafeBufferPointer { m in
                query.withUnsafeBufferPointer { q in
                    if let candidates, candidates.count < ids.count / 4 {
                        for id in candidates {
                            guard let row = rowOf[id] else { continue }
                            top.offer(row: row, score: Self.dot(m.baseAddress! + row * dimension, q.baseAddress!, dimension))
                        }
                    } else {
                        for row in 0..<ids.count {
                            if let candidates, !candidates.contains(ids[row]) { continue }
                            top.offer(row: row, score: Self.dot(m.baseAddress! + row * dimension, q.baseAddress!, dimension))
                        }
                    }
                }
            }
            return top.sorted().map { (ids[$0.row], $0.score) }
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
