import Embedding
import XCTest

final class WordPieceTokenizerTests: XCTestCase {
    /// Every reference text (hard cases and real emails) gets exactly the ids of the model's
    /// own tokenizer (Hugging Face `tokenizers`, truncation at 256).
    func testTokenIDsMatchReferenceTokenizer() throws {
        let embedder = try ModelTestSupport.embedder()
        let references = try ModelTestSupport.reference("tokens")
        XCTAssertEqual(references.count, 298)
        var mismatches = 0
        for reference in references {
            let ids = embedder.tokenize(reference.text)
            if ids != reference.ids {
                mismatches += 1
                XCTFail("token ids differ for \(reference.text.prefix(80).debugDescription):\n got \(ids.prefix(40))\nwant \((reference.ids ?? []).prefix(40))")
            }
        }
        print("token mismatches: \(mismatches) of \(references.count)")
    }

    func testSpecialTokensInTextAreRecognisedBeforeNormalisation() throws {
        let tokenizer = try WordPieceTokenizer(vocabulary: ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "##b", "cls", "[", "]"])
        XCTAssertEqual(tokenizer.tokenize("a [SEP] ab"), [2, 5, 3, 5, 6, 3])
        XCTAssertEqual(tokenizer.tokenize("[cls]"), [2, 8, 7, 9, 3])
    }

    func testTruncatesToMaxLengthIncludingSpecialTokens() throws {
        let tokenizer = try WordPieceTokenizer(vocabulary: ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "##b"], maxLength: 5)
        XCTAssertEqual(tokenizer.tokenize("ab ab ab"), [2, 5, 6, 5, 3])
    }

    func testWordLongerThanLimitIsUnknown() throws {
        let tokenizer = try WordPieceTokenizer(vocabulary: ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "##a"])
        XCTAssertEqual(tokenizer.tokenize(String(repeating: "a", count: 100)).count, 102)
        XCTAssertEqual(tokenizer.tokenize(String(repeating: "a", count: 101)), [2, 1, 3])
    }

    /// Words of three or more letters that are whole tokens, against those cut into pieces.
    func testKnownWordShare() throws {
        let tokenizer = try WordPieceTokenizer(vocabulary: ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "budget", "meeting", "q", "##z"])
        XCTAssertEqual(tokenizer.knownWordShare("budget meeting"), 1)
        XCTAssertEqual(tokenizer.knownWordShare("Budget-MEETING, 2024!"), 1)
        XCTAssertEqual(tokenizer.knownWordShare("budget qzzz"), 0.5)
        XCTAssertEqual(tokenizer.knownWordShare("qz 12 a"), 0, "no word of three letters")
        XCTAssertEqual(tokenizer.knownWordShare(""), 0)

        let embedder = try ModelTestSupport.embedder()
        XCTAssertEqual(embedder.knownWordShare("zebra tango quartz"), 1)
        XCTAssertEqual(embedder.knownWordShare("xyznonexistent12345"), 0)
        XCTAssertEqual(embedder.knownWordShare("qwxzvb plmkrtq"), 0)
        XCTAssertEqual(embedder.knownWordShare("why does my radio drop samples"), 1)
    }
}
