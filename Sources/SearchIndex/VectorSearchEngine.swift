import CKernels
import Foundation
import MailStore

/// Brute-force cosine search over L2-normalised vectors (FR-SEARCH-07): all embeddings in one
/// contiguous row-major matrix, loaded once and updated incrementally; a query is one
/// dot-product scan, keeping the best `k`. A candidate set (filters, scope) restricts the scan
/// itself, so a filter never empties a fixed top-50.
///
/// Beside the float32 matrix the engine keeps an int8 copy (one scale per row, a quarter of the
/// bytes). From `quantizedScanThreshold` vectors on, a full scan reads the int8 copy, which is
/// memory-bound four times less, keeps the best `rescoreCount(k:)` rows by the approximate score,
/// and re-scores those exactly from the float32 rows. Scores returned are always exact.
/// `mailsearch-bench vector` measures the top-50 recall of this against the exact scan.
public final class VectorSearchEngine: @unchecked Sendable {
    public let dimension: Int
    /// Collections of at least this many vectors scan the int8 copy (`Int.max`: never).
    public let quantizedScanThreshold: Int
    private let lock = NSLock()
    private let writeLock = NSLock()
    private var matrix: [Float] = []
    private var quantized: [Int8] = []
    /// Per row: the float value of one int8 step.
    private var scales: [Float] = []
    private var ids: [Int64] = []
    private var rowOf: [Int64: Int] = [:]

    public init(dimension: Int = 384, quantizedScanThreshold: Int = 10_000) {
        self.dimension = dimension
        self.quantizedScanThreshold = quantizedScanThreshold
    }

    /// How many rows of the int8 scan are re-scored exactly for a top-`k`.
    public static func rescoreCount(k: Int) -> Int {
        max(4 * k, 200)
    }

    public var count: Int { lock.withLock { ids.count } }

    /// Loads every stored embedding of `model` (nil: any) in `store`, replacing what was loaded. Upserts and removals
    /// wait for a load to finish, so one that follows a store commit the load did not see still
    /// lands (writers are serialised by `writeLock`; searches go on under `lock`).
    public func load(from store: MailStore, model: String?) throws {
        try load { expectedCount, body in
            try withoutActuallyEscaping(expectedCount) { count in
                try store.forEachEmbeddingBytes(model: model, expectedCount: count, body)
            }
        }
    }

    /// Loads the vectors `rows` gives (id and bytes each, after an optional count for
    /// preallocation), replacing what was loaded; rows of the wrong size are skipped.
    public func load(
        _ rows: (_ expectedCount: (Int) -> Void, _ body: (Int64, UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws {
        try writeLock.withLock { try loadLocked(rows) }
    }

    private func loadLocked(
        _ rows: (_ expectedCount: (Int) -> Void, _ body: (Int64, UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws {
        var m: [Float] = []
        var q: [Int8] = []
        var s: [Float] = []
        var list: [Int64] = []
        let dimension = dimension
        var row = [Int8](repeating: 0, count: dimension)
        try rows({ count in
            m.reserveCapacity(count * dimension)
            q.reserveCapacity(count * dimension)
            s.reserveCapacity(count)
            list.reserveCapacity(count)
        }) { id, bytes in
            guard bytes.count == dimension * 4 else { return }
            let floats = bytes.bindMemory(to: Float.self)
            m.append(contentsOf: floats)
            s.append(row.withUnsafeMutableBufferPointer { Self.quantize(floats, into: $0.baseAddress!) })
            q.append(contentsOf: row)
            list.append(id)
        }
        lock.withLock {
            matrix = m
            quantized = q
            scales = s
            ids = list
            rowOf = Dictionary(uniqueKeysWithValues: list.enumerated().map { ($1, $0) })
        }
    }

    /// Adds or replaces vectors.
    public func upsert(_ items: [(emailId: Int64, vector: [Float])]) {
        writeLock.lock()
        defer { writeLock.unlock() }
        lock.withLock {
            var bytes = [Int8](repeating: 0, count: dimension)
            for item in items where item.vector.count == dimension {
                let scale = item.vector.withUnsafeBufferPointer { vector in
                    bytes.withUnsafeMutableBufferPointer { Self.quantize(vector, into: $0.baseAddress!) }
                }
                if let row = rowOf[item.emailId] {
                    matrix.replaceSubrange(row * dimension..<(row + 1) * dimension, with: item.vector)
                    quantized.replaceSubrange(row * dimension..<(row + 1) * dimension, with: bytes)
                    scales[row] = scale
                } else {
                    rowOf[item.emailId] = ids.count
                    ids.append(item.emailId)
                    matrix.append(contentsOf: item.vector)
                    quantized.append(contentsOf: bytes)
                    scales.append(scale)
                }
            }
        }
    }

    /// Removes vectors (swapping the last row into the hole).
    public func remove(_ emailIds: [Int64]) {
        writeLock.lock()
        defer { writeLock.unlock() }
        lock.withLock {
            for id in emailIds {
                guard let row = rowOf.removeValue(forKey: id) else { continue }
                let last = ids.count - 1
                if row != last {
                    let lastId = ids[last]
                    for d in 0..<dimension {
                        matrix[row * dimension + d] = matrix[last * dimension + d]
                        quantized[row * dimension + d] = quantized[last * dimension + d]
                    }
                    scales[row] = scales[last]
                    ids[row] = lastId
                    rowOf[lastId] = row
                }
                ids.removeLast()
                scales.removeLast()
                matrix.removeLast(dimension)
                quantized.removeLast(dimension)
            }
        }
    }

    /// The `k` most similar emails to `query` (normalised), best first, with their cosine
    /// similarity. `exact` forces the float32 scan (for measuring the int8 scan's recall).
    public func search(
        _ query: [Float], k: Int = 50, candidates: Set<Int64>, exact: Bool = false
    ) -> [(emailId: Int64, score: Float)] {
        search(query, k: k, candidates: EmailIdSet(candidates), exact: exact)
    }

    /// The `k` most similar emails to `query` among `candidates` (all when nil).
    public func search(
        _ query: [Float], k: Int = 50, candidates: EmailIdSet? = nil, exact: Bool = false
    ) -> [(emailId: Int64, score: Float)] {
        guard query.count == dimension, k > 0 else { return [] }
        return lock.withLock {
            guard !ids.isEmpty else { return [] }
            if let candidates, candidates.count < ids.count / 16 {
                // A narrow filter: score just its rows (each costs a hash lookup and a random
                // read, about ten times a row of the sequential int8 scan).
                return exactTop(query, k: k, rows: candidates.ids.lazy.compactMap { self.rowOf[$0] })
                    .map { (ids[$0.row], $0.score) }
            }
            let mask = candidates.map(rowMask)
            let quantizedQuery = exact || ids.count < quantizedScanThreshold ? nil : Self.quantizeQuery(query)
            let kept = quantizedQuery == nil ? k : min(ids.count, Self.rescoreCount(k: k))
            var rows = scan(query: query, quantizedQuery: quantizedQuery, keep: kept, mask: mask)
            if quantizedQuery != nil {
                rows = exactTop(query, k: k, rows: rows.lazy.map(\.row))  // re-score the shortlist exactly
            }
            return rows.map { (ids[$0.row], $0.score) }
        }
    }

    /// The query's background on this mailbox: the mean and standard deviation of its exact
    /// similarity to up to `sampleSize` stored vectors spread evenly over the matrix (every one when
    /// there are fewer; 4,096 rows cost about 0.3 ms). A relevance decision compares a hit with this, not with one global cosine.
    public func background(_ query: [Float], sampleSize: Int = 4_096) -> (mean: Float, deviation: Float, count: Int) {
        guard query.count == dimension, sampleSize > 0 else { return (0, 0, 0) }
        return lock.withLock {
            let n = ids.count
            guard n > 0 else { return (0, 0, 0) }
            let taken = min(n, sampleSize)
            var sum = 0.0, squares = 0.0
            matrix.withUnsafeBufferPointer { m in
                query.withUnsafeBufferPointer { q in
                    for i in 0..<taken {
                        let row = taken == n ? i : Int((Double(i) + 0.5) * Double(n) / Double(taken))
                        let s = Double(Self.dot(m.baseAddress! + row * dimension, q.baseAddress!, dimension))
                        sum += s
                        squares += s * s
                    }
                }
            }
            let mean = sum / Double(taken)
            let variance = max(0, squares / Double(taken) - mean * mean)
            return (Float(mean), Float(variance.squareRoot()), taken)
        }
    }

    /// The best `k` of `rows` by their exact (float32) score.
    private func exactTop<Rows: Sequence<Int>>(_ query: [Float], k: Int, rows: Rows) -> [(row: Int, score: Float)] {
        var top = TopK(k: k)
        matrix.withUnsafeBufferPointer { m in
            query.withUnsafeBufferPointer { q in
                for row in rows {
                    top.offer(row: row, score: Self.dot(m.baseAddress! + row * dimension, q.baseAddress!, dimension))
                }
            }
        }
        return top.sorted()
    }

    /// One bit per row: set when the row's email is a candidate.
    private func rowMask(_ candidates: EmailIdSet) -> [UInt64] {
        var mask = [UInt64](repeating: 0, count: (ids.count + 63) / 64)
        for (row, id) in ids.enumerated() where candidates.contains(id) {
            mask[row >> 6] |= 1 << UInt64(row & 63)
        }
        return mask
    }

    /// The best `keep` rows over the whole matrix (within `mask`): exact scores, or approximate
    /// ones from the int8 copy when `quantizedQuery` is given. The scan is memory-bound: it is
    /// split over the cores from 20K rows on, and the partial lists merged.
    private func scan(query: [Float], quantizedQuery: [Int16]?, keep: Int, mask: [UInt64]?) -> [(row: Int, score: Float)] {
        let parts = ids.count >= 20_000 ? ProcessInfo.processInfo.activeProcessorCount : 1
        let chunk = (ids.count + parts - 1) / max(1, parts)
        let partials = UnsafeMutableBufferPointer<TopK>.allocate(capacity: parts)
        partials.initialize(repeating: TopK(k: keep))
        defer { partials.deinitialize().deallocate() }
        let box = PartialsBox(partials)
        matrix.withUnsafeBufferPointer { m in
            quantized.withUnsafeBufferPointer { q8 in
                scales.withUnsafeBufferPointer { s in
                    query.withUnsafeBufferPointer { q in
                        (quantizedQuery ?? []).withUnsafeBufferPointer { q16 in
                            (mask ?? []).withUnsafeBufferPointer { bits in
                                let context = ScanContext(
                                    matrix: m, quantized: q8, scales: s, query: q,
                                    quantizedQuery: quantizedQuery == nil ? nil : q16,
                                    mask: mask == nil ? nil : bits, rows: ids.count, chunk: chunk, keep: keep,
                                    dimension: dimension, results: box)
                                if parts == 1 {
                                    context.scan(0)
                                } else {
                                    DispatchQueue.concurrentPerform(iterations: parts, execute: context.scan)
                                }
                            }
                        }
                    }
                }
            }
        }
        var merged = TopK(k: keep)
        for part in partials { for item in part.items { merged.offer(row: item.row, score: item.score) } }
        return merged.sorted()
    }

    /// Writes `vector` as int8 steps of max|x|/127 and returns that step (0 for a zero vector).
    static func quantize(_ vector: UnsafeBufferPointer<Float>, into bytes: UnsafeMutablePointer<Int8>) -> Float {
        guard let base = vector.baseAddress else { return 0 }
        return ms_quantize_int8(base, vector.count, bytes)
    }

    /// The query as int16 steps of max|x|/32767 (its scale is the same for every row, so it is
    /// left out of the approximate scores); nil for a zero or non-finite query.
    static func quantizeQuery(_ query: [Float]) -> [Int16]? {
        let largest = query.reduce(Float(0)) { Swift.max($0, $1.magnitude) }
        guard largest > 0, largest.isFinite else { return nil }
        let inverse = 32767 / largest
        return query.map { value in
            let step = (value * inverse).rounded(.toNearestOrEven)
            return step.isNaN ? 0 : Int16(Swift.max(-32767, Swift.min(32767, step)))
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

    /// What one part of a parallel scan reads, and where it writes its best rows.
    private struct ScanContext: @unchecked Sendable {
        let matrix: UnsafeBufferPointer<Float>
        let quantized: UnsafeBufferPointer<Int8>
        let scales: UnsafeBufferPointer<Float>
        let query: UnsafeBufferPointer<Float>
        let quantizedQuery: UnsafeBufferPointer<Int16>?
        let mask: UnsafeBufferPointer<UInt64>?
        let rows: Int
        let chunk: Int
        let keep: Int
        let dimension: Int
        let results: PartialsBox

        /// Rows per call of the int8 kernel: their scores stay in the L1 cache.
        static let block = 1024

        @inline(__always)
        func included(_ row: Int) -> Bool {
            guard let mask else { return true }
            return mask[row >> 6] & (1 << UInt64(row & 63)) != 0
        }

        func scan(_ part: Int) {
            var top = TopK(k: keep)
            let start = part * chunk, end = min(rows, (part + 1) * chunk)
            if let quantizedQuery, start < end {
                let scores = UnsafeMutablePointer<Int32>.allocate(capacity: Self.block)
                defer { scores.deallocate() }
                for first in stride(from: start, to: end, by: Self.block) {
                    let count = min(Self.block, end - first)
                    ms_dot_int8(quantized.baseAddress! + first * dimension, count, dimension, quantizedQuery.baseAddress!, scores)
                    for index in 0..<count where included(first + index) {
                        top.offer(row: first + index, score: Float(scores[index]) * scales[first + index])
                    }
                }
            } else {
                let m = matrix.baseAddress!, q = query.baseAddress!
                for row in start..<max(start, end) where included(row) {
                    top.offer(row: row, score: VectorSearchEngine.dot(m + row * dimension, q, dimension))
                }
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

        @inline(__always)
        mutating func offer(row: Int, score: Float) {
            guard items.count < k || score > floor else { return }
            insert(row: row, score: score)
        }

        private mutating func insert(row: Int, score: Float) {
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
