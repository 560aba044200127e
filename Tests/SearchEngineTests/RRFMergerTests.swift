import MailModel
import SearchEngine
import SearchIndex
import XCTest

/// The five RRFMerger scenarios of spec 002 §6.
final class RRFMergerTests: XCTestCase {
    let merger = RRFMerger()

    func testSingleSource() {
        let fused = merger.merge(keyword: [3, 1, 2], semantic: [])
        XCTAssertEqual(fused.map(\.emailId), [3, 1, 2])
        XCTAssertEqual(fused[0].score, 1.0 / 61, accuracy: 1e-12)
        XCTAssertTrue(fused.allSatisfy { $0.source == .keyword })
        XCTAssertEqual(merger.merge(keyword: [], semantic: [9]).first?.source, .semantic)
    }

    func testDualSourceSumsContributions() {
        let fused = merger.merge(keyword: [1, 2], semantic: [2, 3])
        let byId = Dictionary(uniqueKeysWithValues: fused.map { ($0.emailId, $0) })
        XCTAssertEqual(byId[2]!.score, 1.0 / 62 + 1.5 / 61, accuracy: 1e-12)
        XCTAssertEqual(byId[2]!.source, .both)
        XCTAssertEqual(fused.first?.emailId, 2)
    }

    func testSemanticWeightIsOnePointFive() {
        let plain = RRFMerger(protectedKeywordResults: 0, relatedLast: false)
        let fused = plain.merge(keyword: [1], semantic: [2])
        XCTAssertEqual(fused.map(\.emailId), [2, 1], "rank 1 semantic (1.5/61) beats rank 1 keyword (1/61)")
        let unweighted = RRFMerger(semanticWeight: 1.0, protectedKeywordResults: 0, relatedLast: false).merge(keyword: [1], semantic: [2])
        XCTAssertEqual(unweighted.map(\.emailId), [1, 2], "equal scores break on the keyword rank")
    }

    func testRelatedResultsComeAfterEveryKeywordMatchByDefault() {
        let fused = merger.merge(keyword: [1, 2, 3, 4, 5], semantic: [10, 4, 11])
        XCTAssertEqual(fused.map(\.emailId), [4, 1, 2, 3, 5, 10, 11], "4 has the words and rises by both ranks")
        XCTAssertEqual(fused.map(\.source), [.both, .keyword, .keyword, .keyword, .keyword, .semantic, .semantic])
    }

    func testInterleavedTheBestKeywordMatchesAreNeverPushedDownBySemanticOnlyResults() {
        // Plain RRF would put the three semantic-only neighbours (1.5/61, 1.5/62, 1.5/63) above
        // every keyword hit; the best three keyword matches come first instead.
        let merger = RRFMerger(relatedLast: false)
        let fused = merger.merge(keyword: [1, 2, 3, 4, 5], semantic: [10, 11, 12])
        XCTAssertEqual(Array(fused.map(\.emailId).prefix(3)), [1, 2, 3])
        XCTAssertEqual(Array(fused.map(\.emailId).dropFirst(3).prefix(3)), [10, 11, 12], "then RRF order resumes")
        XCTAssertEqual(fused.count, 8)
        // A document both rankers found still rises above keyword-only ones.
        let both = merger.merge(keyword: [1, 2, 3, 4], semantic: [4, 10])
        XCTAssertEqual(both.first?.emailId, 4)
        XCTAssertEqual(both.first?.source, .both)
        XCTAssertEqual(Array(both.map(\.emailId).prefix(4)), [4, 1, 2, 3], "semantic-only 10 waits for the top 3 keyword hits")
    }

    func testScoresTravelWithTheFusedResult() {
        let fused = merger.merge(keyword: [KeywordHit(emailId: 1, rank: -7.5)], semantic: [SemanticHit(emailId: 1, similarity: 0.61)])
        XCTAssertEqual(fused.count, 1)
        XCTAssertEqual(fused[0].bm25, -7.5)
        XCTAssertEqual(fused[0].similarity, 0.61)
        XCTAssertEqual(fused[0].keywordRank, 1)
        XCTAssertEqual(fused[0].semanticRank, 1)
    }

    func testDuplicatesCountOnceAtTheirBestRank() {
        let fused = merger.merge(keyword: [5, 5, 6], semantic: [7, 7])
        XCTAssertEqual(fused.count, 3)
        XCTAssertEqual(fused.first { $0.emailId == 5 }!.score, 1.0 / 61, accuracy: 1e-12)
        XCTAssertEqual(fused.first { $0.emailId == 7 }!.score, 1.5 / 61, accuracy: 1e-12)
    }

    func testEmpty() {
        XCTAssertTrue(merger.merge(keyword: [Int64](), semantic: [Int64]()).isEmpty)
    }
}

final class SearchCacheTests: XCTestCase {
    final class Clock: @unchecked Sendable { var now = Date(timeIntervalSince1970: 0) }

    func testKeysAreNormalisedAndEntriesExpireAfterTwoMinutes() {
        let clock = Clock()
        let cache = SearchCache<Int>(now: { clock.now })
        cache.insert(1, for: "  Budget ", generation: 0)
        XCTAssertEqual(cache.value(for: "budget", generation: 0), 1)
        clock.now = clock.now.addingTimeInterval(119)
        XCTAssertEqual(cache.value(for: "BUDGET", generation: 0), 1)
        clock.now = clock.now.addingTimeInterval(2)
        XCTAssertNil(cache.value(for: "budget", generation: 0))
    }

    func testAtMostTwentyEntriesLeastRecentlyUsedGoesFirst() {
        let cache = SearchCache<Int>()
        for i in 0..<20 { cache.insert(i, for: "q\(i)", generation: 0) }
        _ = cache.value(for: "q0", generation: 0)
        cache.insert(20, for: "q20", generation: 0)
        XCTAssertEqual(cache.count, 20)
        XCTAssertEqual(cache.value(for: "q0", generation: 0), 0)
        XCTAssertNil(cache.value(for: "q1", generation: 0), "q1 was the least recently used")
    }

    func testAnIndexChangeInvalidates() {
        let cache = SearchCache<Int>()
        cache.insert(1, for: "x", generation: 3)
        XCTAssertNil(cache.value(for: "x", generation: 4))
    }
}
