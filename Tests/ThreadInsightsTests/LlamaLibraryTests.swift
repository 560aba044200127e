import Foundation
import MailModel
import ThreadInsights
import XCTest

/// The local model backend for real: needs `scripts/install-llm.sh --smollm2` (the library and a
/// GGUF); skipped without them. `MAILSEARCH_LLM_MODEL` names another GGUF.
final class LlamaLibraryTests: XCTestCase {
    static func installedModel() throws -> String {
        let environment = ProcessInfo.processInfo.environment
        let library = LlamaLibrary.defaultLibraryPath()
        let model = environment["MAILSEARCH_LLM_MODEL"]
            ?? URL(fileURLWithPath: library).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("models/SmolLM2-135M-Instruct.Q4_1.gguf").path
        guard FileManager.default.fileExists(atPath: library), FileManager.default.fileExists(atPath: model) else {
            throw XCTSkip("no local model: scripts/install-llm.sh --smollm2 installs \(library) and \(model)")
        }
        return model
    }

    func testMissingLibraryAndModelAreClearErrors() throws {
        let gguf = FileManager.default.temporaryDirectory.appendingPathComponent("x-\(UUID().uuidString).gguf")
        try Data("GGUF".utf8).write(to: gguf)
        defer { try? FileManager.default.removeItem(at: gguf) }
        XCTAssertThrowsError(try LlamaLibrary(modelPath: "/nonexistent/model.gguf")) { error in
            XCTAssertTrue("\(error)".contains("no model file at /nonexistent/model.gguf"), "\(error)")
        }
        XCTAssertThrowsError(try LlamaLibrary(modelPath: gguf.path, libraryPath: "/nonexistent/libmailsearch-llm.so")) { error in
            XCTAssertTrue("\(error)".contains("not installed"), "\(error)")
            XCTAssertEqual((error as? LocalModelError)?.hint, "run scripts/install-llm.sh, or set MAILSEARCH_LLM_LIBRARY")
        }
        // A library that is not ours: refused by name, no crash.
        XCTAssertThrowsError(try LlamaLibrary(modelPath: gguf.path, libraryPath: "/lib/x86_64-linux-gnu/libz.so.1")) { error in
            XCTAssertTrue("\(error)".contains("has no ms_llm_load"), "\(error)")
        }
    }

    func testABrokenModelFileIsAnErrorNotACrash() throws {
        _ = try Self.installedModel()
        let gguf = FileManager.default.temporaryDirectory.appendingPathComponent("broken-\(UUID().uuidString).gguf")
        try Data("GGUF".utf8 + [UInt8](repeating: 7, count: 64)).write(to: gguf)
        defer { try? FileManager.default.removeItem(at: gguf) }
        XCTAssertThrowsError(try LlamaLibrary(modelPath: gguf.path)) { error in
            XCTAssertTrue("\(error)".contains("could not load the model"), "\(error)")
        }
    }

    func testTheRealModelWritesAndTheGuardJudges() throws {
        let model = try Self.installedModel()
        let llm = try LlamaLibrary(modelPath: model)
        let thread = try FixtureThread.all().first { $0.id == "offsite" }.map(\.conversation)
        let messages = try XCTUnwrap(thread)
        let result = try LLMSummarizer(generator: llm).summarize(messages)
        XCTAssertFalse(result.text.isEmpty)
        // Whatever it wrote, the verdict follows the check.
        XCTAssertEqual(result.verdict == .accepted, result.unsupported.isEmpty && result.problem == nil)
        print("local model \(llm.name), \(Int(result.milliseconds)) ms, \(result.verdict.rawValue) \(result.unsupported):\n\(result.text)")
    }
}
