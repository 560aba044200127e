import Foundation
import MailParsing
import XCTest

/// How an attachment's text is cut into the passages semantic search embeds.
final class AttachmentPassagesTests: XCTestCase {
    private func passages(_ text: String, max: Int = 1_000, count: Int = 24) -> ([String], Bool) {
        let (ranges, truncated) = AttachmentPassages.ranges(of: text, maxCharacters: max, maxPassages: count)
        return (ranges.map { AttachmentPassages.text(of: $0, in: text) }, truncated)
    }

    func testAShortTextIsOnePassageTrimmed() {
        XCTAssertEqual(passages("\n  Payment terms: 30 days.  \n").0, ["Payment terms: 30 days."])
        XCTAssertEqual(passages("").0, [])
        // No visible character: one passage, whole, so the attachment is not waiting forever.
        XCTAssertEqual(AttachmentPassages.ranges(of: "\u{3000} \n").ranges, [.init(start: 0, length: 3)])
    }

    func testLongTextIsCutAtParagraphsThenSentencesThenSpacesAndKeepsEveryWord() {
        let paragraph = (0..<30).map { "Sentence number \($0) of the contract." }.joined(separator: " ")
        let text = [paragraph, paragraph, "Short closing paragraph."].joined(separator: "\n\n")
        let (parts, truncated) = passages(text, max: 400)
        XCTAssertFalse(truncated)
        XCTAssertTrue(parts.allSatisfy { $0.unicodeScalars.count <= 400 })
        XCTAssertTrue(parts.dropLast().allSatisfy { $0.hasSuffix(".") }, "cut after a sentence: \(parts)")
        XCTAssertEqual(parts.joined(separator: " ").split(whereSeparator: \.isWhitespace), text.split(whereSeparator: \.isWhitespace))
        XCTAssertEqual(parts.last?.hasSuffix("contract.\n\nShort closing paragraph."), true, "paragraphs are packed")
        // A word longer than a passage is cut where it must be.
        let long = String(repeating: "x", count: 950)
        XCTAssertEqual(passages(long, max: 400).0.map(\.count), [400, 400, 150])
    }

    func testOnlyTheFirstPassagesOfALongDocumentAndItSaysSo() {
        let text = (0..<100).map { "Paragraph \($0) holds a few words." }.joined(separator: "\n\n")
        let (parts, truncated) = passages(text, max: 100, count: 5)
        XCTAssertEqual(parts.count, 5)
        XCTAssertTrue(truncated)
        XCTAssertTrue(parts[0].hasPrefix("Paragraph 0 "))
        XCTAssertEqual(passages("One.\n\nTwo.", max: 100, count: 2).0, ["One.\n\nTwo."], "paragraphs are packed")
        let (all, notTruncated) = passages("One.\n\nTwo.", max: 6, count: 2)
        XCTAssertEqual(all, ["One.", "Two."])
        XCTAssertFalse(notTruncated)
        XCTAssertFalse(passages("One.\n\nTwo.\n\n   ", max: 4, count: 2).1, "trailing whitespace is not text left")
    }

    func testChineseAndJapaneseAreCutAtTheirFullStops() {
        let sentence = "我们下周在北京开会讨论项目预算报告。"
        let text = String(repeating: sentence, count: 20)
        let (parts, _) = passages(text, max: 100)
        XCTAssertTrue(parts.allSatisfy { $0.hasSuffix("。") }, "\(parts)")
        XCTAssertEqual(parts.joined(), text)
    }

    /// Ranges count Unicode scalars, as SQLite's substr does on TEXT: an emoji with a skin tone
    /// (two scalars) or a combining accent does not shift later passages.
    func testRangesCountUnicodeScalars() {
        let text = "👍🏽 e\u{301}té " + String(repeating: "word ", count: 60)
        let (ranges, _) = AttachmentPassages.ranges(of: text, maxCharacters: 100)
        XCTAssertEqual(ranges.first?.start, 0)
        let scalars = Array(text.unicodeScalars)
        for range in ranges {
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars[range.start..<(range.start + range.length)])
            XCTAssertEqual(String(view), AttachmentPassages.text(of: range, in: text))
        }
    }

    func testTheModelReadsTheNameThenThePassage() {
        XCTAssertEqual(AttachmentPassages.embeddingText(filename: "Q3-budget.xlsx", passage: "Travel 1200"),
                       "Q3-budget.xlsx\nTravel 1200")
        XCTAssertEqual(AttachmentPassages.embeddingText(filename: nil, passage: "Travel"), "Travel")
    }
}
