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
        XCTAssertEqual(try store.emailsWithoutEmbedding(limit: 10).count, 0)
        let engine = VectorSearchEngine()
        try engine.load(from: store)
        XCTAssertEqual(engine.count, 3)
        try store.deleteEmail(id: ids[0])
        XCTAssertEqual(try store.embeddingCount(), 2, "the embedding is deleted with its email")
        try store.deleteAccount(id: account)
        XCTAssertEqual(try store.embeddingCount(), 0, "and with its account (AC-S-09)")
    }
}
