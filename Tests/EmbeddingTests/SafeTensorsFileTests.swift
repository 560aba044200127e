@testable import Embedding
import Foundation
import XCTest

final class SafeTensorsFileTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("safetensors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func write(header: String, payload: [UInt8]) throws -> URL {
        var data = Data()
        var length = UInt64(header.utf8.count).littleEndian
        withUnsafeBytes(of: &length) { data.append(contentsOf: $0) }
        data.append(contentsOf: Array(header.utf8))
        data.append(contentsOf: payload)
        let url = folder.appendingPathComponent("tiny.safetensors")
        try data.write(to: url)
        return url
    }

    private func bytes(_ values: [Float]) -> [UInt8] {
        values.flatMap { value in withUnsafeBytes(of: value.bitPattern.littleEndian) { Array($0) } }
    }

    func testParsesHeaderAndReadsFloat32Tensors() throws {
        let header = #"{"__metadata__":{"format":"pt"},"b":{"dtype":"F32","shape":[3],"data_offsets":[16,28]},"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}}"#
        let url = try write(header: header, payload: bytes([1, 2, 3, 4, -1.5, 0, 7]))
        let file = try SafeTensorsFile(url: url)
        XCTAssertEqual(file.metadata, ["format": "pt"])
        XCTAssertEqual(file.tensors["a"], .init(dtype: "F32", shape: [2, 2], dataOffsets: 0..<16))
        XCTAssertEqual(try file.floats("a", shape: [2, 2]), [1, 2, 3, 4])
        XCTAssertEqual(try file.floats("b"), [-1.5, 0, 7])
        XCTAssertThrowsError(try file.floats("a", shape: [4]))
        XCTAssertThrowsError(try file.floats("missing"))
    }

    func testConvertsHalfAndBFloat16() throws {
        // F16: 1.0 = 0x3C00, -2.0 = 0xC000; BF16: 1.0 = 0x3F80, 0.5 = 0x3F00
        let header = #"{"h":{"dtype":"F16","shape":[2],"data_offsets":[0,4]},"b":{"dtype":"BF16","shape":[2],"data_offsets":[4,8]}}"#
        let url = try write(header: header, payload: [0x00, 0x3C, 0x00, 0xC0, 0x80, 0x3F, 0x00, 0x3F])
        let file = try SafeTensorsFile(url: url)
        XCTAssertEqual(try file.floats("h"), [1, -2])
        XCTAssertEqual(try file.floats("b"), [1, 0.5])
    }

    func testRejectsOffsetsOutsideTheFile() throws {
        let header = #"{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}"#
        let url = try write(header: header, payload: bytes([1, 2]))
        XCTAssertThrowsError(try SafeTensorsFile(url: url))
    }

    func testRejectsHeaderLongerThanFile() throws {
        let url = folder.appendingPathComponent("bad.safetensors")
        try Data([0xFF, 0, 0, 0, 0, 0, 0, 0, 0x7B, 0x7D]).write(to: url)
        XCTAssertThrowsError(try SafeTensorsFile(url: url))
    }
}
