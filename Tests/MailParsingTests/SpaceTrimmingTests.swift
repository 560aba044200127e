import Foundation
@testable import MailParsing
import XCTest

/// `trimmedOfSpaces` must say what Foundation's `trimmingCharacters(in: .whitespaces)` says: the
/// cleaner and the embedding text read every line through it.
final class SpaceTrimmingTests: XCTestCase {
    func testTheSameScalarsAsFoundationsWhitespaces() {
        var differ: [String] = []
        for value in 0..<0x11_0000 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            if Substring.isSpace(scalar) != CharacterSet.whitespaces.contains(scalar) {
                differ.append(String(format: "U+%04X", value))
            }
        }
        XCTAssertEqual(differ, [], "scalars on which trimmedOfSpaces and CharacterSet.whitespaces disagree")
    }

    func testTrimsBothEndsAndKeepsTheRest() {
        let lines = [
            "", " ", "\t\t", "  hello world  ", "\u{200B}ni.com<https://www.ni.com/>", "example\u{200B}", "\u{A0}a\u{A0}",
            "\u{3000}全角\u{3000}", "line\n", "\n line \n", " \u{301}accent ", "e\u{301} ", "> quoted", "\u{2003}\u{2009}x\u{202F}",
            "\r\n", "tab\tinside",
        ]
        for line in lines {
            XCTAssertEqual(line.trimmedOfSpaces, line.trimmingCharacters(in: .whitespaces), "\(line.unicodeScalars.map { String($0.value, radix: 16) })")
            XCTAssertEqual(line.dropFirst(0).trimmedOfSpaces, line.trimmingCharacters(in: .whitespaces))
        }
    }
}

/// A header's name is found as Foundation's case-insensitive comparison finds it.
final class HeaderNameTests: XCTestCase {
    func testSameNameAgreesWithFoundation() {
        let names = ["Subject", "subject", "SUBJECT", "Subjecu", "Subjec", "Subject ", "X-Mailer", "x-mailer", "X_Mailer",
                     "Message-ID", "message-id", "MESSAGE-Id", "@", "`", "[", "{", "Straße", "STRASSE", "strasse", "Ünïcode", "üNÏCODE", ""]
        for a in names {
            for b in names {
                XCTAssertEqual(ParsedMessage.sameName(a, b), a.caseInsensitiveCompare(b) == .orderedSame, "\(a) / \(b)")
            }
        }
    }
}
