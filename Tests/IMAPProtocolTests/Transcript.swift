import Foundation
import XCTest
@testable import IMAPProtocol

/// A recorded IMAP session from Tests/Fixtures/imap: every line is one wire line, `S:` from the
/// server and `C:` from the client, CRLF-terminated on the wire (the files hold LF; literal sizes
/// count the CRLFs). `#` lines are comments. The fuzzer's script seeds its corpus from the same files.
struct Transcript {
    var server: [UInt8] = []
    var client: [UInt8] = []

    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()        // IMAPProtocolTests
        .deletingLastPathComponent()        // Tests
        .appendingPathComponent("Fixtures/imap")

    static func load(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> Transcript {
        let url = directory.appendingPathComponent(name)
        let text = try String(contentsOf: url, encoding: .utf8)
        var transcript = Transcript()
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) where !raw.isEmpty && !raw.hasPrefix("#") {
            var content = raw.dropFirst(2)
            if content.first == " " { content = content.dropFirst() }
            let bytes = Array(content.utf8) + [0x0D, 0x0A]
            switch raw.prefix(2) {
            case "S:": transcript.server += bytes
            case "C:": transcript.client += bytes
            default: XCTFail("\(name): a line starts with neither S:, C: nor #", file: file, line: line)
            }
        }
        return transcript
    }

    /// Every transcript in the fixture folder, by file name.
    static func all() throws -> [(String, Transcript)] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".txt") }.sorted()
        return try names.map { ($0, try load($0)) }
    }
}

/// Frames `bytes` fed in the given chunk sizes (cycled), asserting nothing is left over.
func frames(of bytes: [UInt8], chunkSizes: [Int]? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> [[UInt8]] {
    let chunkSizes = chunkSizes ?? [bytes.count]
    var framer = IMAPResponseFramer()
    var result: [[UInt8]] = []
    var offset = 0
    var i = 0
    while offset < bytes.count {
        let size = max(1, chunkSizes[i % chunkSizes.count])
        framer.append(bytes[offset..<min(bytes.count, offset + size)])
        offset += size
        i += 1
        while let frame = try framer.nextResponse() { result.append(frame) }
    }
    XCTAssertEqual(framer.bufferedByteCount, 0, "bytes left in the framer", file: file, line: line)
    return result
}

/// Frames and parses a whole server stream.
func responses(of bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) throws -> [IMAPResponse] {
    try frames(of: bytes, file: file, line: line).map { try IMAPResponseParser.parse($0) }
}

/// Parses one response given as text (CRLF appended).
func parse(_ text: String) throws -> IMAPResponse {
    try IMAPResponseParser.parse(Array((text + "\r\n").utf8))
}

/// The untagged payload of one response, or a test failure.
func untagged(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> IMAPUntaggedResponse? {
    guard case .untagged(let response) = try parse(text) else {
        XCTFail("not an untagged response", file: file, line: line)
        return nil
    }
    return response
}

extension Array where Element == UInt8 {
    var text: String { String(decoding: self, as: UTF8.self) }
}
