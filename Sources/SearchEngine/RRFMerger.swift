import MailModel

/// Reciprocal Rank Fusion (FR-SEARCH-05): `score(d) = Σ weight_i / (k + rank_i(d))`, ranks from 1.
/// Semantic results get weight 1.5 by default. A document found by both rankers is marked `.both`;
/// one listed twice in a ranker counts once, at its best rank.
public struct RRFMerger: Sendable {
    public var k: Double
    public var keywordWeight: Double
    public var semanticWeight: Double

    public init(k: Double = 60, keywordWeight: Double = 1.0, semanticWeight: Double = 1.5) {
        self.k = k
        self.keywordWeight = keywordWeight
        self.semanticWeight = semanticWeight
    }

    public struct Fused: Sendable, Hashable {
        public var emailId: Int64
        public var score: Double
        public var source: MatchSource
        public var keywordRank: Int?
        public var semanticRank: Int?
    }

    /// Fuses two rankings (best first) into one, best first; ties break on the keyword rank, then the id.
    public func merge(keyword: [Int64], semantic: [Int64]) -> [Fused] {
        var table: [Int64: Fused] = [:]
        table.reserveCapacity(keyword.count + semantic.count)
        for (i, id) in keyword.enumerated() where table[id]?.keywordRank == nil {
            table[id] = Fused(emailId: id, score: keywordWeight / (k + Double(i + 1)), source: .keyword,
                              keywordRank: i + 1, semanticRank: nil)
        }
        for (i, id) in semantic.enumerated() {
            let contribution = semanticWeight / (k + Double(i + 1))
            if var existing = table[id] {
                guard existing.semanticRank == nil else { continue }
                existing.score += contribution
                existing.semanticRank = i + 1
                existing.source = existing.keywordRank == nil ? .semantic : .both
                table[id] = existing
            } else {
                table[id] = Fused(emailId: id, score: contribution, source: .semantic, keywordRank: nil, semanticRank: i + 1)
            }
        }
        return table.values.sorted {
            if $0.score != $1.score { return $0.score > $1.score }
            let a = $0.keywordRank ?? Int.max, b = $1.keywordRank ?? Int.max
            if a != b { return a < b }
            return $0.emailId < $1.emailId
        }
    }
}
