import SearchIndex
import SearchEngine
import XCTest

final class FTS5QueryBuilderTests: XCTestCase {
    func testWordsBecomeQuotedPrefixTerms() {
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "budget report"), "\"budget\"* \"report\"*")
    }

    func testQuotedPhrasesStayPhrases() {
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "\"deployment schedule\" friday"),
                       "\"deployment schedule\" \"friday\"*")
    }

    func testOperatorsAreJustWords() {
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "x OR NOT y"), "\"x\"* \"OR\" \"NOT\"* \"y\"*")
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "subject:x"), "\"subject:x\"*")
    }

    func testAQuoteInsideAWordStartsAPhrase() {
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "x\"y"), "\"x\"* \"y\"")
    }

    func testStopWordsAreNotPrefixes() {
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "the budget"), "\"the\" \"budget\"*")
    }

    func testNothingSearchableGivesNil() {
        XCTAssertNil(FTS5QueryBuilder.matchExpression(for: "* - ( ) 🙂 \"\""))
        XCTAssertNil(FTS5QueryBuilder.matchExpression(for: ""))
    }

    func testLongInputIsBounded() {
        let terms = FTS5QueryBuilder.terms(of: String(repeating: "word ", count: 5000))
        XCTAssertEqual(terms.count, FTS5QueryBuilder.maximumTerms)
    }
}

final class FTS5QueryBuilderControlCharacterTests: XCTestCase {
    func testControlCharactersNeverReachFTS5() {
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "x\u{0}y"), "\"x\"* \"y\"*")
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "\"x\u{0}y\""), "\"x y\"")
    }
}

final class MatchHighlighterTests: XCTestCase {
    func testHighlightsWordsByPrefixFoldingCaseAndAccents() {
        let h = MatchHighlighter(queryText: "proj résumé")
        let text = "The Project and the RESUME of Projections"
        let marked = h.ranges(in: text, field: .subject).map { String(Array(text.utf16)[$0.start..<$0.start + $0.length].map { Character(UnicodeScalar($0)!) }) }
        XCTAssertEqual(marked, ["Project", "RESUME", "Projections"])
    }

    func testPhrasesHighlightOnlyTheWholeSequence() {
        let h = MatchHighlighter(queryText: "\"deployment schedule\"")
        let text = "deployment plan; the deployment schedule"
        let r = h.ranges(in: text, field: .subject)
        XCTAssertEqual(r.count, 1)
        XCTAssertEqual(r.first?.start, 21)
        XCTAssertEqual(r.first?.length, "deployment schedule".utf16.count)
    }

    func testSnippetIsOneLineAroundTheFirstMatch() throws {
        let body = (0..<100).map { "word\($0)" }.joined(separator: "\n") + " budget tail"
        let s = try XCTUnwrap(MatchHighlighter(queryText: "budget").snippet(of: body))
        XCTAssertTrue(s.text.hasPrefix("…"))
        XCTAssertFalse(s.text.contains("\n"))
        XCTAssertEqual(s.ranges.count, 1)
    }
}
