import MailModel
import SearchIndex

/// Reciprocal Rank Fusion (FR-SEARCH-05): `score(d) = Σ weight_i / (k + rank_i(d))`, ranks from 1.
/// Semantic results get weight 1.5 by default. A document found by both rankers is marked `.both`;
/// one listed twice in a ranker counts once, at its best rank.
///
/// Plain RRF lets a semantic-only neighbour outrank an exact keyword hit (the semantic #1 scores
/// 1.5/61 against the keyword #1's 1/61), and on real mail that pushes the message a user typed
/// the words of out of the first results. So the best `protectedKeywordResults` keyword matches
/// always come before any semantic-only result; documents found by both rankers still rise by
/// their fused score.
public struct RRFMerger: Sendable {
    public var k: Double
    public var keywordWeight: Double
    public var semanticWeight: Double
    /// How many of the best keyword matches no semantic-only result may precede. Default: 3.
    public var protectedKeywordResults: Int
    /// Whether every semantic-only result (a related one: it lacks the query's words) comes after
    /// every result with a keyword match, so that a list reads "these contain your words · these
    /// are related" (the default); false interleaves them by fused score.
    public var relatedLast: Bool

    public init(k: Double = 60, keywordWeight: Double = 1.0, semanticWeight: Double = 1.5, protectedKeywordResults: Int = 3,
                relatedLast: Bool = true) {
        self.k = k
        self.keywordWeight = keywordWeight
        self.semanticWeight = semanticWeight
        self.protectedKeywordResults = protectedKeywordResults
        self.relatedLast = relatedLast
    }

    public struct Fused: Sendable, Hashable {
        public var emailId: Int64
        public var score: Double
        public var source: MatchSource
        public var keywordRank: Int?
        public var semanticRank: Int?
        /// The keyword match's BM25 rank, when it has one.
        public var bm25: Double?
        /// The semantic match's cosine similarity, when it has one.
        public var similarity: Double?
    }

    /// Fuses two rankings of ids (best first): a convenience over `merge(keyword:semantic:)` for
    /// callers without scores.
    public func merge(keyword: [Int64], semantic: [Int64]) -> [Fused] {
        var seen = Set<Int64>()
        return merge(keyword: keyword.filter { seen.insert($0).inserted }.map { KeywordHit(emailId: $0, rank: 0) },
              semantic: semantic.map { SemanticHit(emailId: $0, similarity: 0) })
            .map { var f = $0; f.bm25 = nil; f.similarity = nil; return f }
    }

    /// Fuses every keyword match (best first, each email once, as FTS5 returns them) with the
    /// semantic matches (best first) into one list,
    /// best first; ties break on the keyword rank, then the id. Linear in the keyword matches apart
    /// from the (at most `semantic.count`) documents the semantic ranker found.
    public func merge(keyword: [KeywordHit], semantic: [SemanticHit]) -> [Fused] {
        merge(ranked: keyword.enumerated().map { ($1, $0 + 1) }, semantic: semantic)
    }

    /// The same over keyword matches with their ranks given (ascending; they need not be
    /// contiguous: a search passes its best few hundred plus the matches the semantic ranker found).
    public func merge(ranked keyword: [(hit: KeywordHit, position: Int)], semantic: [SemanticHit]) -> [Fused] {
        var semanticOf: [Int64: (rank: Int, similarity: Double)] = [:]
        for (i, hit) in semantic.enumerated() where semanticOf[hit.emailId] == nil {
            semanticOf[hit.emailId] = (i + 1, hit.similarity)
        }
        var keywordOnly: [Fused] = []
        keywordOnly.reserveCapacity(keyword.count)
        var both: [Fused] = []
        for (hit, rank) in keyword {
            var f = Fused(emailId: hit.emailId, score: keywordWeight / (k + Double(rank)), source: .keyword,
                          keywordRank: rank, semanticRank: nil, bm25: hit.rank, similarity: nil)
            if let s = semanticOf[hit.emailId] {
                f.score += semanticWeight / (k + Double(s.rank))
                f.source = .both
                f.semanticRank = s.rank
                f.similarity = s.similarity
                both.append(f)
            } else {
                keywordOnly.append(f)
            }
        }
        var semanticOnly: [Fused] = []
        let inBoth = Set(both.map(\.emailId))
        for (id, s) in semanticOf where !inBoth.contains(id) {
            semanticOnly.append(Fused(emailId: id, score: semanticWeight / (k + Double(s.rank)), source: .semantic,
                                      keywordRank: nil, semanticRank: s.rank, bm25: nil, similarity: s.similarity))
        }
        both.sort(by: Self.better)
        semanticOnly.sort(by: Self.better)

        let protected = min(protectedKeywordResults, keyword.count)
        var protectedLeft = protected
        var out: [Fused] = []
        out.reserveCapacity(keywordOnly.count + both.count + semanticOnly.count)
        var a = 0, b = 0, c = 0
        while a < keywordOnly.count || b < both.count || c < semanticOnly.count {
            // The better keyword-bearing head (keyword-only or both).
            var keywordHead: Fused?
            var fromBoth = false
            if a < keywordOnly.count { keywordHead = keywordOnly[a] }
            if b < both.count, keywordHead.map({ Self.better(both[b], $0) }) ?? true {
                keywordHead = both[b]
                fromBoth = true
            }
            let takeSemantic: Bool
            if c < semanticOnly.count {
                if let keywordHead {
                    takeSemantic = !relatedLast && protectedLeft == 0 && Self.better(semanticOnly[c], keywordHead)
                } else {
                    takeSemantic = true
                }
            } else {
                takeSemantic = false
            }
            if takeSemantic {
                out.append(semanticOnly[c]); c += 1
            } else if let head = keywordHead {
                out.append(head)
                if fromBoth { b += 1 } else { a += 1 }
                if let r = head.keywordRank, r <= protected { protectedLeft -= 1 }
            }
        }
        return out
    }

    /// Higher score first; ties on the keyword rank (matches first), then the smaller id.
    static func better(_ x: Fused, _ y: Fused) -> Bool {
        if x.score != y.score { return x.score > y.score }
        let a = x.keywordRank ?? Int.max, b = y.keywordRank ?? Int.max
        if a != b { return a < b }
        return x.emailId < y.emailId
    }
}
