import SearchIndex
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
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "a AND NOT b"), "\"a\"* \"AND\"* \"NOT\"* \"b\"*")
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "subject:x"), "\"subject:x\"*")
    }

    func testEmbeddedQuotesAreDoubled() {
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "a\"b"), "\"a\"* \"b\"")
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
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "a\u{0}b"), "\"a\"* \"b\"*")
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "\"a\u{0}b\""), "\"a b\"")
    }
}
