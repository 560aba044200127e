import Embedding
import Foundation
import GRDB
import MailModel
import MailStore
import SearchEngine
import SearchIndex
import XCTest

/// A deterministic embedder: a bag of hashed words, normalised. Texts sharing words are similar.
final class HashingEmbedder: Embedder, @unchecked Sendable {
    let dimension = 384
    private let lock = NSLock()
    private(set) var calls: [[String]] = []
    var failAfter: Int?

    func embed(_ texts: [String]) throws -> [[Float]] {
        try lock.withLock {
            if let limit = failAfter, calls.count >= limit { throw CocoaError(.fileReadUnknown) }
            calls.append(texts)
        }
        return texts.map { text in
            var v = [Float](repeating: 0, count: dimension)
            for word in text.lowercased().split(whereSeparator: { !$0.isLetter }) {
                var h: UInt64 = 1469598103934665603
                for b in word.utf8 { h = (h ^ UInt64(b)) &* 1099511628211 }
                v[Int(h % UInt64(dimension))] += 1
            }
            let n = v.reduce(0) { $0 + $1 * $1 }.squareRoot()
            return n > 0 ? v.map { $0 / n } : v
        }
    }
}

/// GenerateEmbeddingUseCase minimums of spec 002 §6 (single, batch, fallback, model unavailable),
/// as EmbeddingIndexer and VectorSemanticRanker implement them.
final class EmbeddingIndexerTests: XCTestCase {
    typealias Spec = SearchFixture.Spec

    func testSingleEmailIsEmbeddedFromSubjectSenderAndBody() throws {
        let f = try SearchFixture()
        let id = try f.add(Spec(subject: "Quarterly budget review", body: "Numbers for Q3.", fromName: "Ann"))
        let embedder = HashingEmbedder()
        XCTAssertEqual(try EmbeddingIndexer(store: f.store, embedder: embedder).run(), 1)
        XCTAssertEqual(embedder.calls, [["Quarterly budget review\nAnn\nNumbers for Q3."]])
        let vectors = VectorSearchEngine()
        try vectors.load(from: f.store, model: nil)
        XCTAssertEqual(vectors.search(try embedder.embed(["budget review"])[0], k: 1).first?.emailId, id)
    }

    func testBatchesGoNewestFirstAndAnInterruptedRunRepeatsNothing() throws {
        let f = try SearchFixture()
        let ids = try f.add((0..<10).map { i in Spec(subject: "mail \(i)", daysAgo: Double(i)) })
        let failing = HashingEmbedder()
        failing.failAfter = 2
        XCTAssertThrowsError(try EmbeddingIndexer(store: f.store, embedder: failing, batchSize: 3).run())
        XCTAssertEqual(try f.store.embeddingCount(model: nil), 6, "two committed batches survive the failure")
        XCTAssertEqual(failing.calls.first?.first?.hasPrefix("mail 0"), true, "newest first")
        let resumed = HashingEmbedder()
        XCTAssertEqual(try EmbeddingIndexer(store: f.store, embedder: resumed, batchSize: 3).run(), 4)
        XCTAssertEqual(resumed.calls.flatMap { $0 }.count, 4, "only the rest is embedded")
        XCTAssertEqual(try f.store.embeddingCount(model: nil), ids.count)
    }

    /// Another model in use: vectors made by the old one are neither searched nor counted, and
    /// each email is embedded again (its vector replaced), newest first.
    func testAnotherModelEmbedsEveryEmailAgainAndSearchesOnlyItsOwnVectors() throws {
        let f = try SearchFixture()
        let ids = try f.add([Spec(subject: "budget", daysAgo: 1), Spec(subject: "lunch", daysAgo: 2)])
        XCTAssertEqual(try EmbeddingIndexer(store: f.store, embedder: HashingEmbedder(), modelName: "old").run(), 2)
        XCTAssertEqual(try f.store.embeddingCount(model: "old"), 2)
        XCTAssertEqual(try f.store.embeddingCount(model: "new"), 0)
        XCTAssertEqual(try f.store.emailsWithoutEmbeddingCount(model: "new"), 2)
        let vectors = VectorSearchEngine()
        try vectors.load(from: f.store, model: "new")
        XCTAssertEqual(vectors.count, 0, "the old model's vectors are not searched with the new one")
        XCTAssertEqual(try EmbeddingIndexer(store: f.store, embedder: HashingEmbedder(), modelName: "new", batchSize: 1)
            .run(limit: 1), 1)
        try vectors.load(from: f.store, model: "new")
        XCTAssertEqual(vectors.count, 1)
        XCTAssertEqual(try f.store.emailsWithoutEmbedding(limit: 10, model: "new").map(\.emailId), [ids[1]], "newest first")
        XCTAssertEqual(try f.store.embeddingCount(model: "old"), 1, "one vector per email: replaced")
        XCTAssertEqual(try EmbeddingIndexer(store: f.store, embedder: HashingEmbedder(), modelName: "new").run(), 1)
        XCTAssertEqual(try f.store.embeddingCount(model: "new"), 2)
        XCTAssertEqual(try f.store.embeddingCount(model: nil), 2)
    }

    /// The run reads its order once; mail that arrives meanwhile is embedded in the next batch, before
    /// the older mail still waiting, and the run ends with nothing left.
    func testMailArrivingDuringARunIsEmbeddedNextAndNothingIsLeft() throws {
        let f = try SearchFixture()
        try f.add((0..<7).map { i in Spec(subject: "mail \(i)", daysAgo: Double(i + 1)) })
        let embedder = HashingEmbedder()
        let arriving = CallbackEmbedder(inner: embedder) { call in
            if call == 0 { _ = try? f.add(Spec(subject: "arrived meanwhile", daysAgo: 0)) }
        }
        XCTAssertEqual(try EmbeddingIndexer(store: f.store, embedder: arriving, batchSize: 3).run(), 8)
        XCTAssertEqual(embedder.calls.map { $0.map { String($0.prefix(while: { $0 != "\n" })) } }, [
            ["mail 0", "mail 1", "mail 2"], ["arrived meanwhile", "mail 3", "mail 4"], ["mail 5", "mail 6"],
        ])
        XCTAssertEqual(try f.store.emailsWithoutEmbeddingCount(model: nil), 0)
    }

    /// An email embedded by someone else meanwhile is not embedded again, and the batch is filled
    /// from the order instead.
    func testEmailsEmbeddedMeanwhileAreSkipped() throws {
        let f = try SearchFixture()
        let ids = try f.add((0..<6).map { i in Spec(subject: "mail \(i)", daysAgo: Double(i + 1)) })
        let embedder = HashingEmbedder()
        let other = CallbackEmbedder(inner: embedder) { call in
            if call == 0 { try? f.store.saveEmbeddings([(emailId: ids[3], vector: [Float](repeating: 0, count: 384))], model: "m") }
        }
        XCTAssertEqual(try EmbeddingIndexer(store: f.store, embedder: other, modelName: "m", batchSize: 3).run(), 5)
        XCTAssertEqual(embedder.calls.map { $0.map { String($0.prefix(while: { $0 != "\n" })) } }, [
            ["mail 0", "mail 1", "mail 2"], ["mail 4", "mail 5"],
        ])
    }

    func testRankerReportsWhyItCannotRun() async throws {
        let none = VectorSemanticRanker(embedder: nil, vectors: VectorSearchEngine())
        XCTAssertEqual(none.unavailableReason, .modelNotInstalled)
        let empty = VectorSemanticRanker(embedder: HashingEmbedder(), vectors: VectorSearchEngine())
        XCTAssertEqual(empty.unavailableReason, .noEmbeddings)
    }

    func test_AC_S_06_hybridFindsAConceptuallyRelatedEmailKeywordsMiss() async throws {
        let f = try SearchFixture()
        let related = try f.add(Spec(subject: "Quarterly budget review", body: "financial planning for next year"))
        let keyword = try f.add(Spec(subject: "Planning meeting", body: "agenda attached"))
        try f.add((0..<20).map { i in Spec(subject: "lunch \(i)", body: "sandwiches") })
        let embedder = HashingEmbedder()
        let vectors = VectorSearchEngine()
        try EmbeddingIndexer(store: f.store, embedder: embedder).run(vectors: vectors)
        // The default floor is calibrated for all-MiniLM-L6-v2; this bag-of-words embedder scores
        // two shared words of nine at about 0.38.
        let ranker = VectorSemanticRanker(embedder: embedder, vectors: vectors, minimumSimilarity: 0.2)
        let r = try await f.useCase(semantic: ranker).search("financial planning meeting")
        XCTAssertTrue(r.semantic.ran)
        let sources = Dictionary(uniqueKeysWithValues: r.results.map { ($0.emailId, $0.matchSource) })
        XCTAssertEqual(sources[related], .semantic, "found by meaning, not by all keywords")
        XCTAssertNotNil(sources[keyword])
    }
}

final class ParallelEmbeddingTests: XCTestCase {
    func testSplittingABatchBetweenEmbeddersKeepsOrderAndValues() throws {
        let texts = (0..<11).map { "text number \($0) about budgets" }
        let single = try HashingEmbedder().embed(texts)
        let a = HashingEmbedder(), b = HashingEmbedder()
        let parallel = try EmbeddingIndexer.embedInParallel(texts, embedders: [a, b])
        XCTAssertEqual(parallel, single)
        XCTAssertEqual(Set([a.calls.first?.count, b.calls.first?.count]), [5, 6], "texts of about one length: halves")
    }

    /// A text repeated in a batch, or in the batch before, is encoded once and every copy gets its vector.
    func testRepeatedTextsAreEncodedOnce() throws {
        let embedder = HashingEmbedder()
        let timings = EmbeddingTimings()
        var recent: [String: [Float]] = [:]
        let first = ["budget", "offsite plans", "budget", "budget"]
        XCTAssertEqual(try EmbeddingIndexer.embedDistinct(first, recent: &recent, embedders: [embedder], timings: timings),
                       try HashingEmbedder().embed(first))
        XCTAssertEqual(embedder.calls, [["budget", "offsite plans"]])
        let second = ["offsite plans", "new text", "new text"]
        XCTAssertEqual(try EmbeddingIndexer.embedDistinct(second, recent: &recent, embedders: [embedder], timings: timings),
                       try HashingEmbedder().embed(second))
        XCTAssertEqual(embedder.calls.last, ["new text"], "the batch before's text is not encoded again")
        let third = ["budget", "budget"]
        XCTAssertEqual(try EmbeddingIndexer.embedDistinct(third, recent: &recent, embedders: [embedder], timings: timings),
                       try HashingEmbedder().embed(third))
        XCTAssertEqual(embedder.calls.last, ["budget"], "only the batch just before is remembered")
        XCTAssertEqual(embedder.calls.count, 3)
        XCTAssertEqual(timings.texts, 9)
        XCTAssertEqual(timings.encoded, 4)
        let repeats = ["same", "same"]
        var none: [String: [Float]] = [:]
        let a = HashingEmbedder(), b = HashingEmbedder()
        XCTAssertEqual(try EmbeddingIndexer.embedDistinct(repeats, recent: &none, embedders: [a, b]), try HashingEmbedder().embed(repeats))
        XCTAssertEqual(a.calls.count + b.calls.count, 1, "one distinct text: one encoder")
    }

    /// An indexer run over copies of one email (one message kept in two folders) stores a vector for each.
    func testCopiesOfAnEmailAllGetTheirVector() throws {
        let f = try SearchFixture()
        let ids = try f.add((0..<6).map { i in SearchFixture.Spec(subject: "copy", body: i < 4 ? "same words" : "other words \(i)", daysAgo: 1) })
        let embedder = HashingEmbedder()
        XCTAssertEqual(try EmbeddingIndexer(store: f.store, embedder: embedder, batchSize: 3).run(), 6)
        XCTAssertEqual(try f.store.embeddingCount(model: nil), 6)
        XCTAssertEqual(embedder.calls.flatMap { $0 }.count, 3, "the four copies encoded once")
        let vectors = VectorSearchEngine()
        try vectors.load(from: f.store, model: nil)
        let query = try HashingEmbedder().embed(["copy same words"])[0]
        XCTAssertEqual(Set(vectors.search(query, k: 4).map(\.emailId)), Set(ids.prefix(4)))
    }

    /// Parts of equal work, not of equal count: one long text weighs as much as many short ones.
    func testAPartOfLongTextsHoldsFewerOfThem() throws {
        let long = String(repeating: "budget forecast ", count: 80)
        // Both long texts first: halves by count would give both to the first embedder.
        let texts = [long, long] + (0..<12).map { "short note \($0)" }
        let a = HashingEmbedder(), b = HashingEmbedder()
        XCTAssertEqual(try EmbeddingIndexer.embedInParallel(texts, embedders: [a, b]), try HashingEmbedder().embed(texts))
        XCTAssertEqual(a.calls.first?.filter { $0 == long }.count, 1)
        XCTAssertEqual(b.calls.first?.filter { $0 == long }.count, 1)
        XCTAssertEqual(EmbeddingIndexer.balancedParts([10, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], count: 2), [[0], Array(1...10)])
        XCTAssertEqual(EmbeddingIndexer.balancedParts([3, 3, 2, 2, 2], count: 2), [[0, 2, 4], [1, 3]])
        XCTAssertLessThan(EmbeddingIndexer.estimatedWork(utf8Count: 40), EmbeddingIndexer.estimatedWork(utf8Count: 400))
        XCTAssertEqual(EmbeddingIndexer.estimatedWork(utf8Count: 5_000), EmbeddingIndexer.estimatedWork(utf8Count: 50_000),
                       "texts are cut at 256 tokens")
    }
}

/// Runs `before(call number)` ahead of each batch its inner embedder encodes.
final class CallbackEmbedder: Embedder, @unchecked Sendable {
    let inner: HashingEmbedder
    let before: (Int) -> Void
    private var calls = 0
    var dimension: Int { inner.dimension }
    init(inner: HashingEmbedder, before: @escaping (Int) -> Void) {
        self.inner = inner
        self.before = before
    }
    func embed(_ texts: [String]) throws -> [[Float]] {
        before(calls)
        calls += 1
        return try inner.embed(texts)
    }
}
