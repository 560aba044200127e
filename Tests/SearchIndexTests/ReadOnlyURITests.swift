import Foundation
@testable import SearchIndex
import XCTest

/// The read-only URI of the attached mail database, written out by hand, is what Foundation's
/// percent-encoding gives.
final class ReadOnlyURITests: XCTestCase {
    func testSameAsFoundationsPercentEncoding() {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        let paths = ["/home/me/.local/share/mailsearch/mail.sqlite", "/tmp/with space/mail.sqlite", "/tmp/100%/a?b#c.sqlite",
                     "/tmp/Ünïcödé/メール/mail.sqlite", "relative/dir/mail.sqlite", "/tmp/!$&'()*+,-.:;=@_~/x", "/tmp/\"<>[]^`{|}\\"]
        for path in paths {
            XCTAssertEqual(SearchDatabase.readOnlyURI(path),
                           "file:" + path.addingPercentEncoding(withAllowedCharacters: allowed)! + "?mode=ro", path)
        }
    }
}

/// `WordList` and `WordTable` answer as a `Set` and a `Dictionary` of the same words.
final class WordListTests: XCTestCase {
    func testSameMembershipAsASet() {
        var generator = SystemRandomNumberGenerator()
        let ascii = ["a", "b", "Z", "-", "e", "'"], other = ["é", "e\u{301}", "ß", "\u{212B}"]
        for _ in 0..<300 {
            let words = (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                (0..<Int.random(in: 1...3, using: &generator)).map { _ in ascii.randomElement(using: &generator)! }.joined()
            }
            let list = WordList(words), set = Set(words)
            XCTAssertEqual(Set(list.words), set)
            XCTAssertEqual(list.words.count, set.count)
            let probes = words + words.map { $0 + other.randomElement(using: &generator)! } + ["x", "", "ab", "e\u{301}a", "A"]
            for probe in probes { XCTAssertEqual(list.contains(probe), set.contains(probe), probe) }
        }
        let table: WordTable<Int> = ["may": 5, "march": 3, "mar": 3, "jan": 1]
        XCTAssertEqual(table["may"], 5)
        XCTAssertEqual(table["mar"], 3)
        XCTAssertNil(table["ma"])
        XCTAssertEqual(table.keys, ["jan", "mar", "march", "may"])
    }
}

/// The sender index's substring search gives the same strings whether it reads its buffer whole
/// or in small overlapping chunks (as a one-shot search reads the stored copy).
final class ChunkedSenderSearchTests: XCTestCase {
    func testChunksFindWhatTheWholeBufferFinds() {
        var generator = SystemRandomNumberGenerator()
        let letters = Array("akyo.@-")
        for _ in 0..<400 {
            let strings = (0..<Int.random(in: 1...30, using: &generator)).map { _ in
                String((0..<Int.random(in: 0...9, using: &generator)).map { _ in letters.randomElement(using: &generator)! })
            }
            let folded = FoldedStrings(strings)
            let needle = Array(String((0..<Int.random(in: 1...3, using: &generator)).map { _ in letters.randomElement(using: &generator)! }).utf8)
            folded.buffer.withUnsafeBytes { buffer in
                folded.starts.withUnsafeBytes { starts in
                    let whole = FoldedStrings.indicesContaining(needle, buffer: buffer, starts: starts)
                    let expected = strings.indices.filter { index in
                        let bytes = Array(strings[index].utf8)
                        return bytes.count >= needle.count
                            && (0...(bytes.count - needle.count)).contains { Array(bytes[$0..<$0 + needle.count]) == needle }
                    }
                    XCTAssertEqual(whole, expected, "\(strings) \(needle)")
                    for chunk in [1, 2, 3, 5, 8, 64] {
                        let chunked = FoldedStrings.indicesContaining(needle, total: buffer.count, starts: starts, chunk: chunk) {
                            UnsafeRawBufferPointer(rebasing: buffer[$0..<$0 + $1])
                        }
                        XCTAssertEqual(chunked, whole, "chunk \(chunk): \(strings) \(needle)")
                    }
                }
            }
        }
    }
}
