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
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "alpha OR NOT beta"), "\"alpha\"* \"OR\" \"NOT\"* \"beta\"*")
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "subject:x"), "\"subject:x\"*")
    }

    func testAQuoteInsideAWordStartsAPhrase() {
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "alpha\"beta"), "\"alpha\"* \"beta\"")
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
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "alpha\u{0}beta"), "\"alpha\"* \"beta\"*")
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "\"alpha\u{0}beta\""), "\"alpha beta\"")
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

final class FTS5QueryBuilderPrefixTests: XCTestCase {
    func testShortLastFragmentsAreNotPrefixesUnlessAlone() {
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "month's services"), "\"month's\" \"services\"*")
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "budget q3"), "\"budget\"* \"q3\"")
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "pr"), "\"pr\"*", "E-02: a short query alone is a prefix")
    }
}
