import Foundation
import MailModel
import MailStore
import SearchIndex
import XCTest

final class VectorSearchEngineTests: XCTestCase {
    func unit(_ values: [Float], dimension: Int = 384) -> [Float] {
        var v = values + Array(repeating: 0, count: dimension - values.count)
        let norm = v.reduce(0) { $0 + $1 * $1 }.squareRoot()
        if norm > 0 { v = v.map { $0 / norm } }
        return v
    }

    func testCosineSimilarityIsTheDotProductOfNormalisedVectors() {
        let engine = VectorSearchEngine()
        engine.upsert([(1, unit([1, 0])), (2, unit([1, 1])), (3, unit([0, 1]))])
        let r = engine.search(unit([1, 0]), k: 3)
        XCTAssertEqual(r.map(\.emailId), [1, 2, 3])
        XCTAssertEqual(r[0].score, 1, accuracy: 1e-6)
        XCTAssertEqual(r[1].score, Float(0.5).squareRoot(), accuracy: 1e-6)
        XCTAssertEqual(r[2].score, 0, accuracy: 1e-6)
    }

    func testTopKMatchesAFullSortOnRandomData() {
        let engine = VectorSearchEngine(dimension: 384)
        var rng = SystemRandomNumberGenerator()
        var rows: [(Int64, [Float])] = []
        for id in 0..<2_000 { rows.append((Int64(id), unit((0..<384).map { _ in Float.random(in: -1...1, using: &rng) }))) }
        engine.upsert(rows.map { (emailId: $0.0, vector: $0.1) })
        let q = unit((0..<384).map { _ in Float.random(in: -1...1, using: &rng) })
        let expected = rows.map { row in (row.0, zip(row.1, q).reduce(Float(0)) { $0 + $1.0 * $1.1 }) }
            .sorted { $0.1 > $1.1 }.prefix(50).map(\.0)
        XCTAssertEqual(engine.search(q, k: 50).map(\.emailId), Array(expected))
    }

    private func randomUnitVectors(_ count: Int, seed: UInt64) -> [[Float]] {
        var state = seed
        func next() -> Float {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Float(Int64(bitPattern: state >> 11) % 2_000_001 - 1_000_000) / 1_000_000
        }
        return (0..<count).map { _ in unit((0..<384).map { _ in next() }) }
    }

    /// The int8 scan with exact re-scoring returns the exact top-50 (recall ≥ 0.99 over 20
    /// queries) with exact scores, also under a filter mask.
    func testQuantizedScanKeepsTheExactTopFifty() {
        let engine = VectorSearchEngine(dimension: 384, quantizedScanThreshold: 0)
        let vectors = randomUnitVectors(12_000, seed: 7)
        engine.upsert(vectors.enumerated().map { (emailId: Int64($0), vector: $1) })
        let half = EmailIdSet((0..<12_000).filter { $0 % 2 == 0 }.map(Int64.init))
        var found = 0, wanted = 0
        for query in randomUnitVectors(20, seed: 99) {
            for candidates in [EmailIdSet?.none, half] {
                let exact = engine.search(query, k: 50, candidates: candidates, exact: true)
                let approximate = engine.search(query, k: 50, candidates: candidates)
                XCTAssertEqual(approximate.count, 50)
                let exactScores = Dictionary(uniqueKeysWithValues: exact.map { ($0.emailId, $0.score) })
                for result in approximate {
                    if let candidates { XCTAssertTrue(candidates.contains(result.emailId)) }
                    if let score = exactScores[result.emailId] { XCTAssertEqual(result.score, score) }
                }
                found += Set(approximate.map(\.emailId)).intersection(exactScores.keys).count
                wanted += exact.count
            }
        }
        XCTAssertGreaterThanOrEqual(Double(found) / Double(wanted), 0.99)
    }

    /// Replacing and removing rows keeps the int8 copy in step with the float rows.
    func testQuantizedCopyFollowsUpsertAndRemove() {
        let engine = VectorSearchEngine(dimension: 384, quantizedScanThreshold: 0)
        let vectors = randomUnitVectors(300, seed: 3)
        engine.upsert(vectors.enumerated().map { (emailId: Int64($0), vector: $1) })
        engine.upsert([(emailId: 5, vector: vectors[299])])  // 5 now equals 299
        engine.remove((100..<200).map(Int64.init))
        let results = engine.search(vectors[299], k: 3)
        XCTAssertEqual(Set(results.prefix(2).map(\.emailId)), [5, 299])
        XCTAssertEqual(results[0].score, 1, accuracy: 1e-5)
        for query in randomUnitVectors(5, seed: 11) {
            XCTAssertEqual(engine.search(query, k: 10).map(\.emailId), engine.search(query, k: 10, exact: true).map(\.emailId))
        }
        XCTAssertTrue(engine.search([Float](repeating: 0, count: 384), k: 5).count == 5, "a zero query still answers")
    }

    func testEmptyCorpusReturnsNothing() {
        XCTAssertTrue(VectorSearchEngine().search(unit([1]), k: 50).isEmpty)
        XCTAssertTrue(VectorSearchEngine().search([1, 2], k: 50).isEmpty, "a vector of the wrong size is rejected")
    }

    func testCandidatesRestrictTheScanInsteadOfFilteringATopK() {
        let engine = VectorSearchEngine()
        // 100 near-perfect matches outside the candidate set, one weak match inside it.
        engine.upsert((0..<100).map { (emailId: Int64($0), vector: unit([1, 0.01 * Float($0)])) })
        engine.upsert([(emailId: 1000, vector: unit([0.1, 1]))])
        XCTAssertEqual(engine.search(unit([1, 0]), k: 50, candidates: [1000]).map(\.emailId), [1000])
        let wide = Set((0..<100).map(Int64.init)).union([1000])
        XCTAssertEqual(engine.search(unit([1, 0]), k: 101, candidates: wide).count, 101)
    }

    func testUpsertReplacesAndRemoveForgets() {
        let engine = VectorSearchEngine()
        engine.upsert([(1, unit([1, 0])), (2, unit([0, 1])), (3, unit([1, 1]))])
        engine.upsert([(1, unit([0, 1]))])
        engine.remove([2])
        XCTAssertEqual(engine.count, 2)
        let r = engine.search(unit([0, 1]), k: 5)
        XCTAssertEqual(r.map(\.emailId), [1, 3])
    }

    func testEmbeddingsLoadFromTheStoreAndGoWithTheirEmail() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vec-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try MailStore(directory: DataDirectory(url: dir))
        let account = try store.account(named: "a").id
        let result = try store.ingest((0..<3).map { i in
            IncomingEmail(email: Email(accountId: account, messageId: "v\(i)@x", subject: "s\(i)"), folders: [])
        }, accountId: account)
        let ids = result.inserted.map(\.id)
        try store.saveEmbeddings(ids.enumerated().map { (emailId: $1, vector: unit([Float($0 + 1), 1])) }, model: "test")
        XCTAssertEqual(try store.emailsWithoutEmbedding(limit: 10, model: nil).count, 0)
        let engine = VectorSearchEngine()
        try engine.load(from: store, model: nil)
        XCTAssertEqual(engine.count, 3)
        try store.deleteEmail(id: ids[0])
        XCTAssertEqual(try store.embeddingCount(model: nil), 2, "the embedding is deleted with its email")
        try store.deleteAccount(id: account)
        XCTAssertEqual(try store.embeddingCount(model: nil), 0, "and with its account (AC-S-09)")
    }
}
