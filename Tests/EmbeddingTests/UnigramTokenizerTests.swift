@testable import Embedding
import Foundation
import XCTest

final class UnigramTokenizerTests: XCTestCase {
    struct Reference: Decodable {
        var text: String
        var lang: String
        var ids: [Int32]
    }

    static func references() throws -> [Reference] {
        try ModelTestSupport.e5Reference("e5-tokens", as: Reference.self)
    }

    static func installedTokenizer(maxLength: Int) throws -> UnigramTokenizer {
        let directory = try ModelTestSupport.modelDirectory(for: .multilingualE5Small)
        return try UnigramTokenizer(
            vocabularyFile: directory.appendingPathComponent("unigram.tsv"),
            charsmapFile: directory.appendingPathComponent("normalizer.charsmap"), maxLength: maxLength)
    }

    /// Every reference text (`scripts/reference/e5_reference.py`: real prose in German, French,
    /// Spanish, Russian, Japanese, Chinese and Korean from Debian's manual pages and FAQ, the
    /// English mail and hard cases of tokens.jsonl, and hard cases of its own) gets exactly the
    /// ids of the model's `tokenizer.json` run by Hugging Face `tokenizers`.
    func testTokenIDsMatchReferenceTokenizer() throws {
        let tokenizer = try Self.installedTokenizer(maxLength: 1_000_000)
        let references = try Self.references()
        XCTAssertGreaterThanOrEqual(references.count, 600)
        var mismatches: [String: Int] = [:]
        var counts: [String: Int] = [:]
        var tokens = 0
        for reference in references {
            counts[reference.lang, default: 0] += 1
            tokens += reference.ids.count
            let ids = tokenizer.tokenize(reference.text)
            if ids != reference.ids {
                mismatches[reference.lang, default: 0] += 1
                let first = (0..<min(ids.count, reference.ids.count)).first { ids[$0] != reference.ids[$0] } ?? min(ids.count, reference.ids.count)
                XCTFail("token ids differ for \(reference.text.prefix(80).debugDescription) at \(first):\n got \(ids[max(0, first - 3)...].prefix(12))\nwant \(reference.ids[max(0, first - 3)...].prefix(12))")
            }
        }
        let summary = counts.keys.sorted().map { "\($0) \(counts[$0]! - mismatches[$0, default: 0])/\(counts[$0]!)" }.joined(separator: ", ")
        print("e5 tokenizer: \(references.count - mismatches.values.reduce(0, +)) of \(references.count) texts (\(tokens) tokens) exactly equal to tokenizers: \(summary)")
    }

    /// Cut at `maxLength`: `<s>`, the first ids, `</s>`, as the reference cut there.
    func testTruncationKeepsTheFirstTokens() throws {
        let tokenizer = try Self.installedTokenizer(maxLength: 256)
        var long = 0
        for reference in try Self.references() where reference.ids.count > 256 {
            long += 1
            XCTAssertEqual(tokenizer.tokenize(reference.text), Array(reference.ids.prefix(255)) + [2])
        }
        XCTAssertGreaterThan(long, 10)
    }

    private func toy() throws -> UnigramTokenizer {
        let pieces: [(String, Double)] = [
            ("<s>", 0), ("<pad>", 0), ("</s>", 0), ("<unk>", 0), ("▁", -2), ("▁a", -1), ("b", -3), ("ab", -2.5),
            ("▁ab", -4.5), ("▁c", -1), ("c", -1.5), ("<mask>", 0),
        ]
        return try UnigramTokenizer(pieces: pieces.map { Array($0.0.utf8) }, scores: pieces.map(\.1), charsmap: nil)
    }

    /// Viterbi takes the segmentation whose scores sum highest: "▁ab" (-4.5) loses to "▁a" + "b" (-4).
    func testViterbiPicksTheMostLikelySegmentation() throws {
        let tokenizer = try toy()
        XCTAssertEqual(tokenizer.tokenize("ab"), [0, 5, 6, 2])
        XCTAssertEqual(tokenizer.tokenize("ab c"), [0, 5, 6, 9, 2])
        XCTAssertEqual(tokenizer.tokenize(" c"), [0, 9, 2])
        XCTAssertEqual(tokenizer.tokenize("c "), [0, 9, 4, 2])
        XCTAssertEqual(tokenizer.tokenize(""), [0, 2])
    }

    /// Characters no piece covers are `<unk>`; consecutive ones make one.
    func testUnknownCharactersFuse() throws {
        let tokenizer = try toy()
        XCTAssertEqual(tokenizer.tokenize("axyc"), [0, 5, 3, 10, 2])
        XCTAssertEqual(tokenizer.tokenize("x"), [0, 4, 3, 2])
    }

    func testSpecialTokensInTextAreRecognisedBeforeNormalisation() throws {
        let tokenizer = try toy()
        XCTAssertEqual(tokenizer.tokenize("a</s>c<mask>"), [0, 5, 2, 9, 11, 2])
    }

    /// The XLM-R normaliser: decomposed accents compose, compatibility forms fold, CRLF and runs of
    /// spaces become one space, control characters go.
    func testNormaliser() throws {
        let tokenizer = try Self.installedTokenizer(maxLength: 512)
        func normalized(_ text: String) -> String { String(decoding: tokenizer.normalize(text), as: UTF8.self) }
        XCTAssertEqual(normalized("Cafe\u{301}"), "Café")
        XCTAssertEqual(normalized("ＡＢＣ１"), "ABC1")
        XCTAssertEqual(normalized("a\r\n\tb   c\u{1}"), "a b c")
        XCTAssertEqual(normalized("ﬁ"), "fi")
    }

    func testKnownWords() throws {
        let tokenizer = try Self.installedTokenizer(maxLength: 512)
        XCTAssertTrue(tokenizer.isWholeToken("meeting"))
        XCTAssertFalse(tokenizer.isWholeToken("qzxvbnmw"))
        XCTAssertEqual(tokenizer.knownWordShare("the Meeting qzxvbnmw"), 2.0 / 3.0, accuracy: 1e-9)
    }
}
