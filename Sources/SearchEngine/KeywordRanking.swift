import SearchIndex

/// Every keyword match of a search, and their order: best BM25 first (FTS5 ranks are negative,
/// lower is better), equal ranks newest (largest id) first. Holding all matches unsorted, it
/// hands out the best `k` in order without sorting the rest, and the exact position of any match,
/// so a search over 30,000 matches sorts only the few hundred it shows.
public struct KeywordRanking: Sendable {
    /// All matches, in no particular order.
    public let hits: [KeywordHit]

    public init(hits: [KeywordHit]) {
        self.hits = hits
    }

    public var count: Int { hits.count }

    @inline(__always)
    static func better(_ a: KeywordHit, _ b: KeywordHit) -> Bool {
        a.rank != b.rank ? a.rank < b.rank : a.emailId > b.emailId
    }

    /// The best `k` matches, best first (all of them when `k` ≥ `count`).
    public func top(_ k: Int) -> [KeywordHit] {
        guard k > 0 else { return [] }
        guard k < hits.count else {
            var all = hits
            InPlaceSort.sort(&all, by: Self.better)  // `better` is a total order: ids are unique
            return all
        }
        // The k-th best rank by selection (linear on average), then the matches up to it, sorted.
        var ranks = hits.map(\.rank)
        let threshold = Self.select(&ranks, k - 1)
        var top = hits.filter { $0.rank <= threshold }
        InPlaceSort.sort(&top, by: Self.better)
        if top.count > k { top.removeLast(top.count - k) }
        return top
    }

    /// Each of `emailIds` that is a match, with its 1-based position in the full order.
    public func positions(of emailIds: Set<Int64>) -> [(hit: KeywordHit, position: Int)] {
        let targets = hits.filter { emailIds.contains($0.emailId) }.sorted(by: Self.better)
        guard !targets.isEmpty else { return [] }
        // positions[i] = 1 + number of matches better than targets[i]; one pass, binary search each.
        var betterCount = [Int](repeating: 0, count: targets.count + 1)
        for hit in hits {
            // The first target that `hit` is better than.
            var lo = 0, hi = targets.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if Self.better(hit, targets[mid]) { hi = mid } else { lo = mid + 1 }
            }
            betterCount[lo] += 1
        }
        var out: [(hit: KeywordHit, position: Int)] = []
        var running = 0
        for (i, target) in targets.enumerated() {
            running += betterCount[i]
            out.append((target, running + 1))
        }
        return out
    }

    /// Quickselect: the value that would sit at index `n` of `values` sorted ascending.
    static func select(_ values: inout [Double], _ n: Int) -> Double {
        var lo = 0, hi = values.count - 1
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        while lo < hi {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let pivot = values[lo + Int((seed >> 33) % UInt64(hi - lo + 1))]
            var i = lo, j = hi
            while i <= j {
                while values[i] < pivot { i += 1 }
                while values[j] > pivot { j -= 1 }
                if i <= j {
                    values.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if n <= j { hi = j } else if n >= i { lo = i } else { return values[n] }
        }
        return values[n]
    }
}
