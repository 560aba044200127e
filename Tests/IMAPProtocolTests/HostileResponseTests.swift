import Foundation
import XCTest
@testable import IMAPProtocol

/// Bytes a broken or hostile server may send: each must end in a value, a typed error or "need
/// more bytes", quickly, never in a crash, a hang or unbounded memory.
final class HostileResponseTests: XCTestCase {
    /// Frames and parses `bytes` in one go; returns how many responses parsed.
    @discardableResult
    private func survive(_ bytes: [UInt8], limit: TimeInterval = 5, file: StaticString = #filePath, line: UInt = #line) -> Int {
        let start = Date()
        var framer = IMAPResponseFramer()
        framer.append(bytes)
        var parsed = 0
        while true {
            guard let frame = try? framer.nextResponse() else { break }
            if (try? IMAPResponseParser.parse(frame)) != nil { parsed += 1 }
        }
        _ = try? IMAPResponseParser.parse(bytes)
        XCTAssertLessThan(Date().timeIntervalSince(start), limit, file: file, line: line)
        return parsed
    }

    func testHugeAndGarbageLiteralLengthsInTheParser() {
        for text in ["* 1 FETCH (BODY[] {99999999999999999999}\r\nabc)", "* 1 FETCH (BODY[] {18446744073709551615}\r\n)",
                     "* 1 FETCH (BODY[] {-5}\r\nabc)", "* 1 FETCH (BODY[] {5x}\r\nabcde)", "* 1 FETCH (BODY[] {5}abcde)",
                     "* 1 FETCH (BODY[] {5}\r\nabc"] {
            XCTAssertThrowsError(try IMAPResponseParser.parse(Array(text.utf8)), text)
        }
    }

    func testNegativeAndOversizedNumbers() throws {
        XCTAssertEqual(try untagged("* -1 EXISTS"), .unknown(name: "-1", raw: Array("* -1 EXISTS\r\n".utf8)))
        for text in ["* 1 FETCH (UID -5)", "* 1 FETCH (RFC822.SIZE 99999999999999999999)", "* 1 FETCH (MODSEQ (1 2))",
                     "* 1 FETCH (MODSEQ ())", "* SEARCH 1 2 99999999999", "* VANISHED 0:5", "* VANISHED 1:", "* VANISHED (EARLIER)",
                     "* 1 FETCH (X-GM-MSGID 18446744073709551616)"] {
            XCTAssertThrowsError(try parse(text), text)
        }
        guard case .status(let status)? = try untagged("* OK [UIDNEXT 99999999999] x") else { return XCTFail("not a status") }
        XCTAssertEqual(status.code, .other(name: "UIDNEXT", arguments: "99999999999"))
    }

    func testUnbalancedParenthesesAndBrackets() {
        for text in ["* 1 FETCH ((((", "* 1 FETCH (UID 1", "* 1 FETCH )", "* 1 FETCH (BODY[HEADER {3}\r\nabc)", "* FLAGS (\\Seen",
                     "* LIST (\\Noselect", "* LIST () \"/", "* STATUS INBOX (MESSAGES 1", "* ESEARCH (TAG \"A1\"", "* ID (\"a\" \"b\""] {
            XCTAssertThrowsError(try parse(text), text)
        }
        XCTAssertNoThrow(try parse("* OK [[[[[ ]]]]"))
    }

    func testDeepNestingIsRefusedAtTheDepthLimit() {
        func nested(_ depth: Int) -> String {
            "* 1 FETCH (X " + String(repeating: "(", count: depth) + String(repeating: ")", count: depth) + ")"
        }
        // The FETCH list is the first level.
        XCTAssertNoThrow(try parse(nested(IMAPByteReader.maxDepth - 1)))
        for depth in [IMAPByteReader.maxDepth, 100_000] {
            XCTAssertThrowsError(try parse(nested(depth))) { XCTAssertTrue("\($0)".contains("nested deeper"), "\($0)") }
            survive(Array(nested(depth).utf8))
        }
        survive(Array(("* 1 FETCH (X " + String(repeating: "(", count: 500_000)).utf8))
    }

    func testNULBytesAreCarriedOrRefusedButNeverTruncateAnything() throws {
        XCTAssertEqual(try IMAPResponseParser.parse([0x2A, 0x20, 0x4F, 0x4B, 0x20, 0x00, 0x61]),
                       .untagged(.status(IMAPStatusResponse(status: .ok, text: "\u{0}a"))))
        guard case .untagged(.fetch(let f)) = try IMAPResponseParser.parse(Array("* 1 FETCH (BODY[] \"a\u{0}b\")".utf8)) else {
            return XCTFail("not a FETCH")
        }
        XCTAssertEqual(f.body(), [0x61, 0, 0x62])
        XCTAssertThrowsError(try IMAPResponseParser.parse([0, 0, 0]))
        XCTAssertEqual(survive(Array(repeating: 0, count: 100_000) + Array("\r\n* 1 EXISTS\r\n".utf8)), 1)
    }

    func testALiteralThatNeverCompletesOnlyAsksForMore() throws {
        var framer = IMAPResponseFramer()
        framer.append(Array("* 1 FETCH (BODY[] {60000000}\r\n".utf8))
        for _ in 0..<1000 {
            framer.append(Array(repeating: 0x0D, count: 1000))
            XCTAssertNil(try framer.nextResponse())
        }
        XCTAssertEqual(framer.bufferedByteCount, 30 + 1_000_000)
    }

    func testLongButLegalInputsParseInLinearTime() throws {
        let words = (0..<100_000).map { "X-CAP\($0)" }.joined(separator: " ")
        guard case .capability(let caps)? = try untagged("* CAPABILITY " + words) else { return XCTFail("not CAPABILITY") }
        XCTAssertEqual(caps.count, 100_000)
        let numbers = (1...100_000).map(String.init).joined(separator: " ")
        guard case .search(let found, _)? = try untagged("* SEARCH " + numbers) else { return XCTFail("not SEARCH") }
        XCTAssertEqual(found.count, 100_000)
        let set = (1...50_000).map { "\($0 * 2)" }.joined(separator: ",")
        guard case .vanished(_, let uids)? = try untagged("* VANISHED (EARLIER) " + set) else { return XCTFail("not VANISHED") }
        XCTAssertEqual(uids.ranges.count, 50_000)
        guard case .vanished(_, let all)? = try untagged("* VANISHED 1:4294967295") else { return XCTFail("not VANISHED") }
        XCTAssertEqual(all.count, 4_294_967_295, "one range, never expanded")
        survive(Array(("* 1 FETCH (" + String(repeating: "\"\\", count: 200_000)).utf8))
        survive(Array(("* OK [" + String(repeating: "[", count: 500_000)).utf8) + [0x0D, 0x0A])
        survive(Array(("* 1 FETCH (" + String(repeating: "BODY[", count: 100_000) + ")").utf8) + [0x0D, 0x0A])
    }

    func testRandomBytesNeverCrash() {
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array("* ()[]{}\"\\+~0123456789 \r\nUIDFETCHBODYOKNILX-GM-LABELS:,".utf8)
        for round in 0..<2_000 {
            let length = Int.random(in: 0..<600, using: &rng)
            let bytes = (0..<length).map { _ in
                round % 2 == 0 ? UInt8.random(in: 0...255, using: &rng) : alphabet.randomElement(using: &rng) ?? 0
            }
            survive(bytes)
        }
    }

    func testEveryTruncationAndByteFlipOfTheTranscriptsNeverCrashes() throws {
        var rng = SystemRandomNumberGenerator()
        for (_, transcript) in try Transcript.all() {
            for frame in try frames(of: transcript.server) where frame.count < 2_000 {
                for end in 0..<frame.count { _ = try? IMAPResponseParser.parse(Array(frame[..<end])) }
                for _ in 0..<20 {
                    var mutated = frame
                    mutated[Int.random(in: 0..<mutated.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                    _ = try? IMAPResponseParser.parse(mutated)
                    survive(mutated + [0x0D, 0x0A])
                }
            }
        }
    }
}
