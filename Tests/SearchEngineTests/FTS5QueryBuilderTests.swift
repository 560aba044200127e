import GRDB
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

    func testFTS5SyntaxIsJustWords() {
        // Only upper-case OR (and `-`, parentheses, braces) mean something; FTS5's NOT, NEAR, ^, :
        // and * typed by the user are words.
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "alpha NOT beta"), "\"alpha\"* \"NOT\"* \"beta\"*")
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "NEAR(a b) ^c d:e*"),
                       "\"NEAR\"* AND (\"a\" \"b\") AND \"^c\" AND \"d:e*\"*")
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "subject:x"), "\"subject:x\"*")
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "alpha or beta"), "\"alpha\"* \"or\" \"beta\"*", "lower-case or is a word")
    }

    func testAQuoteInsideAWordStartsAPhrase() {
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "alpha\"beta\" gamma"), "\"alpha\"* \"beta\" \"gamma\"*")
    }

    func testAnUnterminatedPhraseIsStillBeingTyped() {
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "alpha \"deployment sc"), "\"alpha\"* \"deployment sc\"*")
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "\"deployment sc\""), "\"deployment sc\"", "a closed phrase is exact")
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

    private func marked(_ query: String, in text: String) -> [String] {
        let units = Array(text.utf16)
        return MatchHighlighter(queryText: query).ranges(in: text, field: .subject).map {
            String(decoding: units[$0.start..<$0.start + $0.length], as: UTF16.self)
        }
    }

    /// FTS5 searched `the` exactly (a stop word before the last word), so "theory" did not match
    /// and must not be marked; as the last word, being typed, it is a prefix in both.
    func testHighlightsFollowThePrefixDecisionsOfTheMatch() {
        let text = "The theory of the budget for Q3x and q3"
        XCTAssertEqual(marked("the budget", in: text), ["The", "the", "budget"])
        XCTAssertEqual(marked("budget the", in: text), ["The", "theory", "the", "budget"])
        XCTAssertEqual(marked("q3 budget", in: text), ["budget", "q3"])
        XCTAssertEqual(marked("budget q3", in: text), ["budget", "Q3x", "q3"])
    }

    func testNegatedTermsAreNotHighlighted() {
        let text = "Budget draft, final budget"
        XCTAssertEqual(marked("budget -draft", in: text), ["Budget", "budget"])
        XCTAssertEqual(marked("-draft", in: text), [])
        XCTAssertEqual(marked("(final OR draft) -budget", in: text), ["draft", "final"])
        XCTAssertEqual(marked("budget -\"final budget\"", in: text), ["Budget", "budget"])
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
    func testShortFragmentsAndStopWordsAreExactBeforeTheLastWord() {
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "month's services"), "\"month's\" \"services\"*")
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "q3 budget"), "\"q3\" \"budget\"*")
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "the budget"), "\"the\" \"budget\"*")
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "pr"), "\"pr\"*", "E-02: a short query alone is a prefix")
    }

    /// Search-as-you-type: the last word is the one being typed, so it is a prefix whatever its
    /// length ("deployment sc" must find "schedule").
    func testTheLastWordIsAlwaysAPrefix() {
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "deployment sc"), "\"deployment\"* \"sc\"*")
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "deployment s"), "\"deployment\"* \"s\"*")
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "budget q3"), "\"budget\"* \"q3\"*")
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "meeting the"), "\"meeting\"* \"the\"*")
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "(budget OR fo)"), "\"budget\"* OR \"fo\"*")
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "budget q3", prefix: false), "\"budget\" \"q3\"")
        // A negated last word follows the rule of the other words.
        XCTAssertEqual(FTS5QueryBuilder.matchExpression(for: "budget -q3"), "\"budget\"* NOT \"q3\"")
    }
}

/// Gmail's `-`, `OR`, `{…}` and parentheses, compiled to FTS5's binary NOT, OR, AND.
final class FTS5QueryBuilderBooleanTests: XCTestCase {
    private func match(_ text: String) -> String? { FTS5QueryBuilder.matchExpression(for: text) }

    func testNegationOrAndGroupsCompileToFTS5Operators() {
        XCTAssertEqual(match("report -draft"), "\"report\"* NOT \"draft\"*")
        XCTAssertEqual(match("report -\"first draft\""), "\"report\"* NOT \"first draft\"")
        XCTAssertEqual(match("budget OR forecast"), "\"budget\"* OR \"forecast\"*")
        XCTAssertEqual(match("{budget forecast}"), "\"budget\"* OR \"forecast\"*")
        XCTAssertEqual(match("(budget OR forecast) report -draft"),
                       "((\"budget\"* OR \"forecast\"*) AND \"report\"*) NOT \"draft\"*")
        XCTAssertEqual(match("budget OR forecast report"), "(\"budget\"* OR \"forecast\"*) AND \"report\"*",
                       "OR binds tighter than the implicit AND")
        XCTAssertEqual(match("report -(draft OR old)"), "\"report\"* NOT (\"draft\"* OR \"old\"*)")
        XCTAssertEqual(match("report -{draft old}"), "\"report\"* NOT (\"draft\"* OR \"old\"*)")
        XCTAssertEqual(match("-(-budget)"), "\"budget\"*", "a double negation is the term")
    }

    func testOnlyExclusionsGiveAnExclusionInsteadOfAMatch() {
        let q = FTS5QueryBuilder.query(for: "-draft -\"old notes\"")
        XCTAssertNil(q.match)
        XCTAssertEqual(q.exclusion, "\"draft\"* OR \"old notes\"")
        XCTAssertEqual(FTS5QueryBuilder.exclusionExpression(for: "budget OR -draft"), "\"draft\"* NOT \"budget\"*")
        XCTAssertNil(FTS5QueryBuilder.exclusionExpression(for: "report -draft"), "with a positive term the NOT is in the MATCH")
    }

    func testHyphensInsideWordsAreNotNegations() {
        XCTAssertEqual(match("e-mail re-org 2024-03-01"), "\"e-mail\"* \"re-org\"* \"2024-03-01\"*")
        XCTAssertEqual(match("budget - draft"), "\"budget\"* \"draft\"*", "a lone - is nothing")
        XCTAssertEqual(match("budget --draft"), "\"budget\"* \"--draft\"*")
        XCTAssertTrue(FTS5QueryBuilder.terms(of: "e-mail").allSatisfy { !$0.isNegated })
    }

    func testMalformedInputDegradesToTheWords() {
        XCTAssertEqual(match("OR budget OR"), "\"budget\"*")
        XCTAssertEqual(match("budget OR OR forecast"), "\"budget\"* OR \"forecast\"*")
        XCTAssertEqual(match("((budget"), "\"budget\"*")
        XCTAssertEqual(match("budget))"), "\"budget\"*")
        XCTAssertEqual(match(")budget("), "\"budget\"*")
        XCTAssertEqual(match("(budget} forecast"), "\"budget\"* \"forecast\"*")
        XCTAssertEqual(match("budget AND forecast"), "\"budget\"* \"forecast\"*", "AND is the implicit AND")
        for text in ["-", "OR", "OR OR", "()", "-()", "{}", "-{}", "( OR )", "-\"\"", "AND"] {
            XCTAssertTrue(FTS5QueryBuilder.query(for: text).isEmpty, text)
        }
    }

    func testTermsCarryTheirPrefixAndNegation() {
        let terms = FTS5QueryBuilder.terms(of: "the budget -draft sc")
        XCTAssertEqual(terms.map(\.text), ["the", "budget", "draft", "sc"])
        XCTAssertEqual(terms.map(\.isPrefix), [false, true, true, true])
        XCTAssertEqual(terms.map(\.isNegated), [false, false, true, false])
    }

    func testTheSemanticRankerGetsOnlyThePositiveWords() {
        XCTAssertEqual(FTS5QueryBuilder.semanticText(for: "(budget OR forecast) report -draft"), "budget forecast report")
        XCTAssertEqual(FTS5QueryBuilder.semanticText(for: "\"deployment schedule\" -\"old plan\" {q3 q4}"), "deployment schedule q3 q4")
        XCTAssertEqual(FTS5QueryBuilder.semanticText(for: "-draft"), "")
    }

    func testDeepNestingIsBounded() {
        let deep = String(repeating: "(", count: 400) + "budget" + String(repeating: ")", count: 400)
        XCTAssertEqual(match(deep), "\"budget\"*")
        let negations = String(repeating: "-(", count: 400) + "budget"
        XCTAssertNotNil(FTS5QueryBuilder.query(for: negations).match ?? FTS5QueryBuilder.query(for: negations).exclusion)
    }
}

/// The expressions run in FTS5: truth tables over every combination of four words, and random
/// input that must never be an FTS5 syntax error.
final class FTS5QueryBuilderExecutionTests: XCTestCase {
    private static let words = ["alpha", "bravo", "charlie", "delta"]

    /// One row per subset of the four words; rowid = bit mask + 1.
    private func makeDatabase() throws -> DatabaseQueue {
        let db = try DatabaseQueue()
        try db.write { db in
            try db.execute(sql: "CREATE VIRTUAL TABLE email_fts USING fts5(body, tokenize='unicode61 remove_diacritics 2')")
            for mask in 0..<16 {
                let body = Self.words.indices.filter { mask & (1 << $0) != 0 }.map { Self.words[$0] } + ["filler"]
                try db.execute(sql: "INSERT INTO email_fts (rowid, body) VALUES (?, ?)",
                               arguments: [mask + 1, body.joined(separator: " ")])
            }
        }
        return db
    }

    /// The masks the text finds: MATCH, or everything but the exclusion's matches.
    private func found(_ text: String, _ db: DatabaseQueue) throws -> Set<Int> {
        let q = FTS5QueryBuilder.query(for: text)
        return try db.read { db in
            if let match = q.match {
                return Set(try Int.fetchAll(db, sql: "SELECT rowid - 1 FROM email_fts WHERE email_fts MATCH ?", arguments: [match]))
            }
            guard let exclusion = q.exclusion else { return Set(0..<16) }
            let out = Set(try Int.fetchAll(db, sql: "SELECT rowid - 1 FROM email_fts WHERE email_fts MATCH ?", arguments: [exclusion]))
            return Set(0..<16).subtracting(out)
        }
    }

    func testTruthTables() throws {
        let db = try makeDatabase()
        let a = 1, b = 2, c = 4, d = 8
        let cases: [(String, (Int) -> Bool)] = [
            ("alpha bravo", { $0 & a != 0 && $0 & b != 0 }),
            ("alpha -bravo", { $0 & a != 0 && $0 & b == 0 }),
            ("-alpha", { $0 & a == 0 }),
            ("-alpha -bravo", { $0 & a == 0 && $0 & b == 0 }),
            ("alpha OR bravo", { $0 & a != 0 || $0 & b != 0 }),
            ("alpha OR bravo charlie", { ($0 & a != 0 || $0 & b != 0) && $0 & c != 0 }),
            ("(alpha OR bravo) charlie -delta", { ($0 & a != 0 || $0 & b != 0) && $0 & c != 0 && $0 & d == 0 }),
            ("{alpha bravo} -{charlie delta}", { ($0 & a != 0 || $0 & b != 0) && $0 & c == 0 && $0 & d == 0 }),
            ("alpha OR -bravo", { $0 & a != 0 || $0 & b == 0 }),
            ("-alpha OR -bravo", { $0 & a == 0 || $0 & b == 0 }),
            ("-alpha OR -bravo OR charlie", { $0 & a == 0 || $0 & b == 0 || $0 & c != 0 }),
            ("-(alpha -bravo)", { !($0 & a != 0 && $0 & b == 0) }),
            ("-(alpha bravo) charlie", { !($0 & a != 0 && $0 & b != 0) && $0 & c != 0 }),
            ("(alpha -bravo) OR (charlie -delta)", { ($0 & a != 0 && $0 & b == 0) || ($0 & c != 0 && $0 & d == 0) }),
            ("-(-alpha)", { $0 & a != 0 }),
            ("alpha (bravo OR -charlie)", { $0 & a != 0 && ($0 & b != 0 || $0 & c == 0) }),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(try found(text, db), Set((0..<16).filter(expected)), text)
        }
    }

    func testRandomInputIsAlwaysValidFTS5() throws {
        let db = try makeDatabase()
        let soup = ["alpha", "bravo", "-charlie", "delta", "OR", "AND", "NOT", "(", ")", "{", "}", "-(", "-{", "-", "\"",
                    "-\"", "e-mail", "*", "^", ":", "NEAR", "th", "the", "🙂", "é", "x", "--y", "OR", "-OR"]
        var state: UInt64 = 0x5EED
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33)
        }
        for _ in 0..<3_000 {
            var text = ""
            for _ in 0..<(next() % 10) {
                text += soup[next() % soup.count]
                if next() % 3 != 0 { text += " " }
            }
            let q = FTS5QueryBuilder.query(for: text)
            for expression in [q.match, q.exclusion].compactMap({ $0 }) {
                do {
                    _ = try db.read { try Int.fetchAll($0, sql: "SELECT rowid FROM email_fts WHERE email_fts MATCH ?", arguments: [expression]) }
                } catch {
                    XCTFail("\(text.debugDescription) → \(expression): \(error)")
                    return
                }
            }
        }
    }
}

/// Search-as-you-type and highlights through the whole search.
final class SearchAsYouTypeTests: XCTestCase {
    typealias Spec = SearchFixture.Spec

    // MARK: Search-as-you-type

    func testTheLastWordIsAPrefixWhateverItsLength() async throws {
        let f = try SearchFixture()
        let ids = try f.add([
            Spec(subject: "Deployment schedule", body: "the rollout", from: "ops@example.com"),
            Spec(subject: "Deployment notes", body: "nothing planned", from: "ops@example.com"),
        ])
        let useCase = f.useCase()
        try await f.assertFinds(useCase, "deployment sc", [ids[0]])
        try await f.assertFinds(useCase, "deployment s", [ids[0]])
        try await f.assertFinds(useCase, "deployment \"the ro", [ids[0]], "an unfinished phrase too")
    }

    // MARK: Highlights

    func testHighlightsMarkOnlyWhatTheMatchFound() async throws {
        let f = try SearchFixture()
        _ = try f.add(Spec(subject: "The theory of the budget draft", body: "the budget theory"))
        let r = try await f.useCase().search("the budget -drafts")
        let result = try XCTUnwrap(r.results.first)
        let units = Array(result.subject.utf16)
        let marked = result.highlights.filter { $0.field == .subject }.map {
            String(decoding: units[$0.start..<$0.start + $0.length], as: UTF16.self)
        }
        XCTAssertEqual(marked, ["The", "the", "budget"])
    }
}
