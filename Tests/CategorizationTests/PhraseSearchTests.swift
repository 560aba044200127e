@testable import Categorization
import XCTest

/// `TextFeatures.contains(phrase:)` rules a phrase out by the text's byte pairs, else finds it with
/// the C library's memchr and memcmp: the same answers as the byte loop it replaced, on the
/// vocabulary's phrases and on random text.
final class PhraseSearchTests: XCTestCase {
    /// The byte loop as it was.
    static func containsBefore(_ hay: [UInt8], _ needle: [UInt8]) -> Bool {
        let n = needle.count
        guard n > 0, hay.count >= n else { return false }
        var i = 0
        while i <= hay.count - n {
            if hay[i] == needle[0] {
                var j = 1
                while j < n && hay[i + j] == needle[j] { j += 1 }
                if j == n { return true }
            }
            i += 1
        }
        return false
    }

    func testSameAnswersAsTheByteLoop() {
        var random = SystemRandomNumberGenerator()
        let alphabet = Array("ab a-#".utf8)
        var checked = 0, found = 0
        for _ in 0..<20_000 {
            let hay = (0..<Int.random(in: 0...40, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            let needle = (0..<Int.random(in: 1...5, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            let text = TextFeatures(String(decoding: hay, as: UTF8.self))
            let expected = Self.containsBefore(text.bytes, needle)
            XCTAssertEqual(text.contains(phrase: needle), expected, "\"\(String(decoding: hay, as: UTF8.self))\" / \"\(String(decoding: needle, as: UTF8.self))\"")
            checked += 1
            if expected { found += 1 }
        }
        XCTAssertGreaterThan(found, 1_000, "the random texts should hold their phrase often enough to test both answers")
        XCTAssertGreaterThan(checked - found, 1_000)
    }

    /// With many distinct bytes most phrases have a pair the text lacks, which the pair filter
    /// answers without a search: the same answers still, phrases taken from the text found.
    func testThePairFilterAnswersAsTheByteLoop() {
        var random = SystemRandomNumberGenerator()
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789 .,-!é".utf8)
        var found = 0, missing = 0
        for _ in 0..<5_000 {
            let hay = (0..<Int.random(in: 0...300, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            let text = TextFeatures(String(decoding: hay, as: UTF8.self))
            var needles = (0..<4).map { _ in (0..<Int.random(in: 1...12, using: &random)).map { _ in alphabet.randomElement(using: &random)! } }
            if text.bytes.count > 2 {
                let start = Int.random(in: 0..<(text.bytes.count - 1), using: &random)
                needles.append(Array(text.bytes[start..<min(text.bytes.count, start + Int.random(in: 2...14, using: &random))]))
            }
            for needle in needles {
                let expected = Self.containsBefore(text.bytes, needle)
                XCTAssertEqual(text.contains(phrase: needle), expected)
                if expected { found += 1 } else { missing += 1 }
            }
        }
        XCTAssertGreaterThan(found, 4_000)
        XCTAssertGreaterThan(missing, 10_000)
    }

    func testEdgesOfTheText() {
        let text = TextFeatures("Out for delivery")
        XCTAssertTrue(text.contains(phrase: Array("out for".utf8)), "at the start")
        XCTAssertTrue(text.contains(phrase: Array("for delivery".utf8)), "at the end")
        XCTAssertTrue(text.contains(phrase: Array("out for delivery".utf8)), "the whole text")
        XCTAssertFalse(text.contains(phrase: Array("out for delivery!".utf8)), "longer than the text")
        XCTAssertFalse(text.contains(phrase: Array("delivery ".utf8)), "past the end")
        XCTAssertFalse(TextFeatures("").contains(phrase: Array("a".utf8)))
        XCTAssertFalse(text.contains(phrase: []))
        // Beyond the prefix the features keep, a phrase is not seen (as before).
        let long = TextFeatures(String(repeating: "x", count: 1_500) + " unsubscribe")
        XCTAssertFalse(long.contains(phrase: Array("unsubscribe".utf8)))
    }

    func testVocabularyHitsAsBefore() {
        let body = TextFeatures("You are receiving this because you signed up. To stop receiving these, unsubscribe. All rights reserved.")
        XCTAssertEqual(CategoryVocabulary.bulkBody.hits(in: body, limit: 8),
                       ["unsubscribe", "you are receiving this", "to stop receiving", "all rights reserved"])
    }
}
