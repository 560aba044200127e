import XCTest
@testable import MailParsing

final class MboxReaderTests: XCTestCase {
    private func read(_ s: String, start: Int = 0) -> [MboxMessage] {
        Array(MboxReader(data: Data(s.utf8), startOffset: start))
    }

    func testSplitsOnFromLinesAfterBlankLines() {
        let mbox = "From a@x Thu Dec  9 14:01:50 2021\nSubject: one\n\nbody one\nFrom the start, this is body\n\nFrom b@y Fri Dec 10 10:00:00 2021\nSubject: two\n\nbody two\n"
        let msgs = read(mbox)
        XCTAssertEqual(msgs.count, 2)
        XCTAssertEqual(String(decoding: msgs[0].bytes, as: UTF8.self), "Subject: one\n\nbody one\nFrom the start, this is body\n")
        XCTAssertEqual(msgs[0].offset, 0)
        XCTAssertEqual(msgs[0].endOffset, msgs[1].offset)
        XCTAssertEqual(msgs[1].endOffset, mbox.utf8.count)
        XCTAssertEqual(msgs[0].fromLineDate, Date(timeIntervalSince1970: 1_639_058_510))
        XCTAssertEqual(MIMEParser.parse(msgs[1].bytes).subject, "two")
    }

    func testMboxrdUnquoting() {
        let msgs = read("From a@x Thu Dec  9 14:01:50 2021\nSubject: q\n\n>From here\n>>From there\n>not from\n")
        XCTAssertEqual(String(decoding: msgs[0].bytes, as: UTF8.self), "Subject: q\n\nFrom here\n>From there\n>not from\n")
    }

    func testFileNotStartingWithFromLine() {
        let msgs = read("Subject: first\n\nx\n\nFrom b@y Fri Dec 10 10:00:00 2021\nSubject: second\n\ny\n")
        XCTAssertEqual(msgs.count, 2)
        XCTAssertNil(msgs[0].fromLineDate)
        XCTAssertEqual(MIMEParser.parse(msgs[0].bytes).subject, "first")
    }

    func testFromLineWithoutBlankLineNeedsADate() {
        let msgs = read("From a@x Thu Dec  9 14:01:50 2021\nSubject: 1\n\nx\nFrom b@y Fri Dec 10 10:00:00 2021\nSubject: 2\n\ny\nFrom me to you\n")
        XCTAssertEqual(msgs.count, 2)
        XCTAssertTrue(String(decoding: msgs[1].bytes, as: UTF8.self).hasSuffix("From me to you\n"))
    }

    func testStartOffsetResumesAtAMessage() {
        let mbox = "From a@x Thu Dec  9 14:01:50 2021\nSubject: 1\n\nx\n\nFrom b@y Fri Dec 10 10:00:00 2021\nSubject: 2\n\ny\n"
        let first = read(mbox)
        let rest = read(mbox, start: first[0].endOffset)
        XCTAssertEqual(rest.count, 1)
        XCTAssertEqual(MIMEParser.parse(rest[0].bytes).subject, "2")
    }

    func testCRLFAndEmptyFiles() {
        let msgs = read("From a@x Thu Dec  9 14:01:50 2021\r\nSubject: 1\r\n\r\nx\r\n\r\nFrom b@y Fri Dec 10 10:00:00 2021\r\nSubject: 2\r\n\r\ny\r\n")
        XCTAssertEqual(msgs.count, 2)
        XCTAssertEqual(String(decoding: msgs[0].bytes, as: UTF8.self), "Subject: 1\r\n\r\nx\r\n")
        XCTAssertEqual(read("").count, 0)
        XCTAssertEqual(read("\n\n").count, 0)
    }

    func testReadsAFileFromDisk() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mbox-\(UUID().uuidString)")
        try Data("From a@x Thu Dec  9 14:01:50 2021\nSubject: disk\n\nx\n".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let msgs = Array(try MboxReader(path: url.path))
        XCTAssertEqual(msgs.count, 1)
        XCTAssertThrowsError(try MboxReader(path: url.path + ".missing"))
    }
}
