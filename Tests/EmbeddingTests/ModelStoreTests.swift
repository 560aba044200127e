@testable import Embedding
import Foundation
import XCTest

final class ModelStoreTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("model-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    func testStatusOfEmptyDirectorySaysWhichFilesAreMissing() throws {
        let status = ModelStore(directory: folder).status()
        XCTAssertFalse(status.isInstalled)
        XCTAssertEqual(status.problems, EmbeddingModel.default.required.map { "missing \($0.name)" })
        XCTAssertEqual(status.license, "Apache-2.0")
        XCTAssertEqual(status.totalBytes, 0)
    }

    func testStatusOfAbsentDirectory() {
        let status = ModelStore(directory: folder.appendingPathComponent("nowhere")).status()
        XCTAssertFalse(status.isInstalled)
        XCTAssertEqual(status.problems.count, 1)
    }

    func testStatusReportsSizeMismatch() throws {
        try Data("{}".utf8).write(to: folder.appendingPathComponent("config.json"))
        let status = ModelStore(directory: folder).status()
        XCTAssertTrue(status.problems.contains("config.json has 2 bytes, expected 612"), "\(status.problems)")
    }

    func testDefaultDirectoryFollowsEnvironment() {
        XCTAssertEqual(ModelStore.defaultDirectory(environment: ["MAILSEARCH_MODEL_DIR": "/m"]).path, "/m")
        XCTAssertEqual(
            ModelStore.defaultDirectory(environment: ["XDG_CACHE_HOME": "/c", "HOME": "/h"]).path,
            "/c/mailsearch/models/all-MiniLM-L6-v2")
        XCTAssertEqual(
            ModelStore.defaultDirectory(environment: ["HOME": "/h"]).path,
            "/h/.cache/mailsearch/models/all-MiniLM-L6-v2")
    }

    func testInstallFromFolderThenRemove() throws {
        let source = try ModelTestSupport.modelDirectory()
        let destination = folder.appendingPathComponent("models/all-MiniLM-L6-v2")
        let store = ModelStore(directory: destination)
        try store.install(from: source)
        let status = store.status()
        XCTAssertTrue(status.isInstalled, "\(status.problems)")
        XCTAssertGreaterThanOrEqual(status.totalBytes, 90_868_376)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: destination.deletingLastPathComponent().path)
        XCTAssertEqual(leftovers, ["all-MiniLM-L6-v2"])
        try store.remove()
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
    }

    func testInstallFromFolderWithoutModelFailsAndKeepsNothing() throws {
        let destination = folder.appendingPathComponent("dest")
        XCTAssertThrowsError(try ModelStore(directory: destination).install(from: folder)) { error in
            guard case EmbeddingError.invalidInstallSource = error else { return XCTFail("\(error)") }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
    }

    func testSHA256OfKnownVectors() {
        XCTAssertEqual(SHA256.hex(of: Data()), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex(of: Data("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let million = Data(repeating: UInt8(ascii: "a"), count: 1_000_000)
        XCTAssertEqual(SHA256.hex(of: million), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        var pieces = SHA256()
        pieces.update(Data("ab".utf8))
        pieces.update(Data("c".utf8))
        XCTAssertEqual(pieces.finalize().map { String(format: "%02x", $0) }.joined(),
                       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
