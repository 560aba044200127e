import XCTest
@testable import MailParsing

/// `MboxWriter` writes what `MboxReader` reads back byte for byte.
final class MboxWriterTests: XCTestCase {
    func testMessagesReadBackAsWritten() {
        let messages: [String] = [
            "Subject: plain\n\nbody\n",
            "Subject: quoting\n\nFrom the start of a line\n>From once quoted\n>>From twice\n>not a From line\nFrom\n",
            "Subject: crlf\r\n\r\nline one\r\nFrom a CRLF line\r\n",
            "Subject: blank lines at the end\n\nbody\n\n\n",
            "From: first line is a header\nSubject: x\n\nFrom me to you Mon Mar  4 14:11:14 2024\n",
            "Subject: no line break at the end\n\nlast",
        ]
        var out: [UInt8] = []
        for (i, message) in messages.enumerated() {
            MboxWriter.append(Array(message.utf8), sender: "a\(i)@example.com", date: Date(timeIntervalSince1970: 1_709_561_474), to: &out)
        }
        let read = Array(MboxReader(data: Data(out)))
        XCTAssertEqual(read.count, messages.count)
        for (i, message) in messages.enumerated() where i < read.count {
            let expected = message.utf8.last == 0x0A ? message : message + "\n"  // "\r\n" is one Character: not hasSuffix("\n")
            XCTAssertEqual(String(decoding: read[i].bytes, as: UTF8.self), expected, "message \(i)")
            XCTAssertEqual(read[i].fromLineDate, Date(timeIntervalSince1970: 1_709_561_474))
        }
        XCTAssertTrue(String(decoding: out, as: UTF8.self).hasPrefix("From a0@example.com Mon Mar  4 14:11:14 2024\nSubject: plain\n"))
    }

    func testFromLine() {
        XCTAssertEqual(MboxWriter.fromLine(sender: "ann@example.com", date: Date(timeIntervalSince1970: 0)),
                       "From ann@example.com Thu Jan  1 00:00:00 1970\n")
        XCTAssertEqual(MboxWriter.fromLine(sender: "Ann Lee <ann@example.com>", date: Date(timeIntervalSince1970: 1_735_689_599)),
                       "From MAILER-DAEMON Tue Dec 31 23:59:59 2024\n")
        XCTAssertEqual(MboxWriter.fromLine(sender: nil, date: nil), "From MAILER-DAEMON Thu Jan  1 00:00:00 1970\n")
        XCTAssertEqual(MboxWriter.fromLine(sender: "ü@example.com", date: nil), "From MAILER-DAEMON Thu Jan  1 00:00:00 1970\n")
    }
}
