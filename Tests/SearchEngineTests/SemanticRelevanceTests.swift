import Embedding
import Foundation
import SearchEngine
import SearchIndex
import XCTest

/// The semantic ranker's relevance decision (`SemanticRelevance`) on hand-made vectors.
final class SemanticRelevanceTests: XCTestCase {
    /// Maps known texts to fixed unit vectors (4 dimensions); "qzxv" is no word to the tokenizer.
    struct FixedEmbedder: Embedder {
        let dimension = 4
        let vectors: [String: [Float]]
        func embed(_ texts: [String]) throws -> [[Float]] { texts.map { vectors[$0] ?? [0, 0, 0, 1] } }
        func knownWordShare(_ text: String) -> Double { text.contains("qzxv") ? 0 : 1 }
    }

    static func unit(_ v: [Float]) -> [Float] {
        let norm = v.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return v.map { $0 / norm }
    }

    /// e1 is the query's twin, e2 close-ish (0.3), e3 and e4 unrelated.
    func fixture() -> (VectorSemanticRanker, SemanticRelevance) {
        let vectors = VectorSearchEngine(dimension: 4)
        vectors.upsert([(1, [1, 0, 0, 0]), (2, Self.unit([0.3, 0.954, 0, 0])), (3, [0, 0, 1, 0]), (4, [0, 0, 0, 1])])
        let embedder = FixedEmbedder(vectors: [
            "twin": [1, 0, 0, 0],
            "vague": Self.unit([0.3, 0.3, 0.3, -0.866]),
            "twin qzxv": [1, 0, 0, 0],
        ])
        let relevance = SemanticRelevance(threshold: 0.5, spreadWeight: 0, unknownWordPenalty: 0.6, filteredDepth: 0.3,
                                          filteredSpan: 0.2)
        return (VectorSemanticRanker(embedder: embedder, vectors: vectors, relevance: relevance), relevance)
    }

    func testAHitCountsAboveTheQuerysFloor() throws {
        let (ranker, relevance) = fixture()
        XCTAssertEqual(try ranker.rankNow(text: "twin", candidates: nil, limit: 10).map(\.emailId), [1])
        XCTAssertEqual(relevance.floor(deviation: 0, knownWordShare: 1), 0.5, accuracy: 1e-9)
        XCTAssertEqual(relevance.floor(deviation: 0.1, knownWordShare: 0.5), 0.5 + 0.3, accuracy: 1e-9)
    }

    func testUnknownWordsRaiseTheFloor() throws {
        let (ranker, _) = fixture()
        // Same vector as "twin", but no word the model knows: the floor is 0.5 + 0.6 > 1.
        XCTAssertEqual(try ranker.rankNow(text: "twin qzxv", candidates: nil, limit: 10).map(\.emailId), [])
    }

    func testWithAFilterTheFilteredMailCountsFurtherDownOnceTheTextPassesOverTheWholeMailbox() throws {
        let (ranker, _) = fixture()
        // "twin" passes over the whole mailbox (e1 at 1.0): among e2 and e3, e2 (0.3) clears 0.5 - 0.3.
        XCTAssertEqual(try ranker.rankNow(text: "twin", candidates: EmailIdSet([2, 3]), limit: 10).map(\.emailId), [2])
        // With e1 among the filtered mail, e2 is more than 0.2 below the best of them: out.
        XCTAssertEqual(try ranker.rankNow(text: "twin", candidates: EmailIdSet([1, 2, 3]), limit: 10).map(\.emailId), [1])
        // "vague" reaches 0.37 at best anywhere: with a filter it still finds nothing, though that is e2.
        let vague = try ranker.rankNow(text: "vague", candidates: EmailIdSet([2, 3]), limit: 10)
        XCTAssertEqual(vague.map(\.emailId), [])
        // A fixed floor replaces the decision, filter or not.
        let fixed = VectorSemanticRanker(embedder: ranker.embedder, vectors: ranker.vectors, minimumSimilarity: 0.35)
        XCTAssertEqual(try fixed.rankNow(text: "vague", candidates: EmailIdSet([2, 3]), limit: 10).map(\.emailId), [2])
    }
}
