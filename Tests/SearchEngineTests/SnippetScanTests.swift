import Foundation
import SearchEngine
import XCTest

/// The snippet scan jumps to the first possible match in ASCII text; it must give exactly what the
/// scan from the first character gives (forced here by a non-ASCII punctuation mark at the end).
final class SnippetScanTests: XCTestCase {
    func testASCIIFastPathGivesTheSameSnippetAsTheFullScan() {
        var rng = SystemRandomNumberGenerator()
        let words = ["gas", "Gasoline", "price", "prices", "the", "theory", "pipeline", "a", "ferc", "888", "order",
                     "x-ray", "e-mail", "re:", "(budget)", "report.", "Q3", "deriv", "derivatives"]
        let queries = ["gas", "gas prices", "the", "ferc order 888", "\"pipeline price\"", "deriv", "Q3 budget", "zzz"]
        for _ in 0..<300 {
            let count = Int.random(in: 0...900, using: &rng)
            var body = (0..<count).map { _ in words.randomElement(using: &rng)! }.joined(separator: " ")
            if Bool.random(using: &rng) { body = "\n\n" + body.replacingOccurrences(of: " a ", with: "\n> a ") }
            let slowBody = body + " —"
            for q in queries {
                let highlighter = MatchHighlighter(queryText: q)
                let fast = highlighter.snippet(of: body)
                let slow = highlighter.snippet(of: slowBody)
                // The mark after the body only adds the trailing "…" of a snippet that reaches the body's end.
                func trimmed(_ t: String?) -> String? { t.map { $0.hasSuffix("…") ? String($0.dropLast()) : $0 } }
                XCTAssertEqual(trimmed(fast?.text), trimmed(slow?.text), "query \(q)")
                XCTAssertEqual(fast?.ranges, slow?.ranges, "query \(q)")
            }
        }
    }

    /// Highlight ranges of ASCII text are found on its bytes; they must equal the general path's
    /// (forced by a non-ASCII mark after the text, which adds no word).
    func testASCIIRangesEqualTheGeneralPath() {
        var rng = SystemRandomNumberGenerator()
        let words = ["Gas", "gasoline", "PRICE", "prices", "the", "theory", "pipeline", "ferc", "888", "order",
                     "e-mail", "(budget)", "report.", "Q3", "deriv", "derivatives", "  ", "\n>"]
        let queries = ["gas", "gas prices", "the", "ferc order 888", "\"pipeline price\"", "deriv", "Q3 budget", "zzz", "e-mail"]
        for _ in 0..<300 {
            let text = (0..<Int.random(in: 0...60, using: &rng)).map { _ in words.randomElement(using: &rng)! }.joined(separator: " ")
            for q in queries {
                let highlighter = MatchHighlighter(queryText: q)
                XCTAssertEqual(highlighter.ranges(in: text, field: .subject), highlighter.ranges(in: text + " —", field: .subject),
                               "query \(q) in \(text)")
            }
        }
    }

    func testSnippetsAreOneLineWithSingleSpaces() {
        let highlighter = MatchHighlighter(queryText: "budget")
        let snippet = highlighter.snippet(of: "Hello,\r\n\r\n  the\tbudget\u{00A0}\u{00A0}is\n\nattached.  ")
        XCTAssertEqual(snippet?.text, "Hello, the budget is attached…")
        XCTAssertEqual(snippet?.ranges.map(\.start), [11])
    }
}
