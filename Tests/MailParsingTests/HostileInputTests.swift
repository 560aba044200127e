import XCTest
@testable import MailParsing

/// Inputs meant to crash, hang or blow up the parser: each must finish quickly with a result.
final class HostileInputTests: XCTestCase {
    private func timed(_ bytes: [UInt8], limit: TimeInterval = 20, file: StaticString = #filePath, line: UInt = #line) -> ParsedMessage {
        let t0 = Date()
        let m = MIMEParser.parse(bytes)
        XCTAssertLessThan(Date().timeIntervalSince(t0), limit, file: file, line: line)
        XCTAssertEqual(m.size, bytes.count, file: file, line: line)
        return m
    }

    func testEmptyAndTinyInputs() {
        XCTAssertTrue(timed([]).defects.contains { $0.code == "empty-message" })
        _ = timed([0x0A])
        _ = timed([0x0D])
        _ = timed(Array(":".utf8))
        _ = timed(Array("From ".utf8))
        _ = timed(Array("Content-Type: multipart/mixed; boundary=\"\"\n\n--\n".utf8))
    }

    func testBinaryGarbage() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            let bytes = (0..<Int.random(in: 0..<20_000, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            _ = timed(bytes)
        }
    }

    func testOneMegabyteHeaderLine() {
        let m = timed(Array(("Subject: " + String(repeating: "x", count: 1_000_000) + "\nTo: " + String(repeating: "a@b, ", count: 100_000) + "\n\nb").utf8))
        XCTAssertEqual(m.subject.count, 1_000_000)
        XCTAssertEqual(m.to.count, 100_000)
    }

    func testFiveThousandNestedMultiparts() {
        var s = "Content-Type: multipart/mixed; boundary=b0\n\n"
        for i in 1...5_000 { s += "--b\(i - 1)\nContent-Type: multipart/mixed; boundary=b\(i)\n\n" }
        s += "--b5000\nContent-Type: text/plain\n\ndeep\n"
        let m = timed(Array(s.utf8))
        XCTAssertTrue(m.defects.contains { $0.code == "nesting-too-deep" })
    }

    func testManyPartsAreCapped() {
        var s = "Content-Type: multipart/mixed; boundary=b\n\n"
        for _ in 0..<20_000 { s += "--b\n\nx\n" }
        let m = timed(Array(s.utf8))
        XCTAssertTrue(m.defects.contains { $0.code == "too-many-parts" })
    }

    func testUnterminatedBoundariesAndHeaders() {
        _ = timed(Array(("Content-Type: multipart/mixed; boundary=b\n\n" + String(repeating: "--b\nContent-Type: multipart/mixed; boundary=b\n", count: 50_000)).utf8))
        _ = timed(Array(("Subject: x\n" + String(repeating: " folded\n", count: 200_000)).utf8))
        _ = timed(Array(("Content-Type: text/html\n\n" + String(repeating: "<", count: 5_000_000)).utf8))
        _ = timed(Array(("Subject: " + String(repeating: "=?utf-8?q?", count: 200_000)).utf8))
        _ = timed(Array(("Content-Type: text/plain; " + String(repeating: "name*9=x;", count: 100_000) + "\n\nb").utf8))
        _ = timed(Array(("From: " + String(repeating: "(", count: 200_000) + "\n\nb").utf8))
        _ = timed(Array(("From: " + String(repeating: "\"", count: 200_001) + "\n\nb").utf8))
        _ = timed(Array(("Date: " + String(repeating: "1:", count: 200_000) + "\n\nb").utf8))
    }

    func testMboxOfGarbage() {
        var bytes: [UInt8] = []
        for i in 0..<100_000 { bytes.append(contentsOf: i % 3 == 0 ? Array("From \n\n".utf8) : [UInt8(i & 0xFF)]) }
        let t0 = Date()
        var total = 0
        for m in MboxReader(data: Data(bytes)) { total += m.bytes.count; _ = MIMEParser.parse(m.bytes) }
        XCTAssertLessThan(Date().timeIntervalSince(t0), 30)
    }
}
