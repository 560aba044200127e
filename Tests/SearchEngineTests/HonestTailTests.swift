import Embedding
import Foundation
import SearchEngine
import SearchIndex
import XCTest

/// Keyboard mash and invented words find nothing; results with the query's words come before the
/// ones related by meaning only, and are counted apart; a near miss needs two of the query's words.
final class HonestTailTests: XCTestCase {
    /// A ranker with fixed matches (similarity from the list), near misses, and a vocabulary.
    struct FixedRanker: SemanticRanker {
        var matches: [(Int64, Double)] = []
        var nearMisses: [Int64] = []
        var agreementWords = 1
        var relatedSpan = Double.infinity
        var vocabulary: Set<String>? = nil
        var unavailableReason: SemanticSkipReason? { nil }
        func knowsWord(_ word: String) -> Bool { vocabulary?.contains(word) ?? true }
        func rank(text: String, candidates: EmailIdSet?, limit: Int) async throws -> [SemanticHit] {
            try await rankWithNearMisses(text: text, candidates: candidates, limit: limit).matches
        }
        func rankWithNearMisses(text: String, candidates: EmailIdSet?, limit: Int) async throws -> SemanticRanking {
            SemanticRanking(matches: matches.map { SemanticHit(emailId: $0.0, similarity: $0.1) },
                            nearMisses: nearMisses.map { SemanticHit(emailId: $0, similarity: 0.3) }, keywordDepth: 100,
                            agreementWords: agreementWords, relatedSpan: relatedSpan)
        }
    }

    func testKeyboardRunsAreFourOrMoreNeighbouringKeysOfOneRow() {
        for mash in ["asdf", "lkjhg", "mnbvc", "poiuy", "qwerty", "kjhgf"] {
            XCTAssertTrue(QueryWords.isKeyboardRun(mash), mash)
        }
        for word in ["tree", "budget", "asd", "poll", "gas", "tb0193", "qwaszx"] {
            XCTAssertFalse(QueryWords.isKeyboardRun(word), word)
        }
    }

    func testJunkCandidatesAreTheWordsNeitherTheModelKnowsNorAreTyping() {
        let known: Set<String> = ["purple", "elephant", "jupiter", "budget", "qwerty"]
        let knows = { (w: String) in known.contains(w) }
        XCTAssertEqual(QueryWords.junkCandidates(in: "kjhgf lkjhg mnbvc", modelKnows: knows), ["kjhgf", "lkjhg", "mnbvc"])
        XCTAssertEqual(QueryWords.junkCandidates(in: "frobnicated quuxwidget 4471zz", modelKnows: knows),
                       ["frobnicated", "quuxwidget", "4471zz"])
        XCTAssertEqual(QueryWords.junkCandidates(in: "qwerty", modelKnows: knows), ["qwerty"], "mash even if the model has it")
        XCTAssertEqual(QueryWords.junkCandidates(in: "purple elephant tapdancing on jupiter", modelKnows: knows), [],
                       "one word the model knows makes it words (the floor decides)")
        XCTAssertEqual(QueryWords.junkCandidates(in: "会議 kjhgf", modelKnows: knows), [], "another script is not judged")
        XCTAssertNil(QueryWords.junkCandidates(in: "how do i", modelKnows: knows), "no content word")
    }

    func testMashFindsNothingButARareWordOfTheMailboxStillSearchesByMeaning() async throws {
        let f = try SearchFixture()
        let ids = try f.add([
            .init(subject: "ndiswrapper on the laptop", body: "The wireless card works with ndiswrapper now."),
            .init(subject: "Lunch", body: "Noon at the usual place."),
        ])
        // The ranker would return both for any text: every text has nearest neighbours.
        let ranker = FixedRanker(matches: [(ids[0], 0.7), (ids[1], 0.6)], vocabulary: ["wireless", "lunch"])
        let mash = try await f.useCase(semantic: ranker).search("kjhgf lkjhg mnbvc")
        XCTAssertEqual(mash.results.count, 0)
        XCTAssertEqual(mash.semantic.reason, .notWords)
        let invented = try await f.useCase(semantic: ranker).search("frobnicated quuxwidget 4471zz")
        XCTAssertEqual(invented.results.count, 0)
        // "ndiswrapper" is no word of the model's, but the mailbox has it: searched, by both rankers.
        let rare = try await f.useCase(semantic: ranker).search("ndiswrapper")
        XCTAssertTrue(rare.semantic.ran)
        XCTAssertEqual(rare.results.first?.emailId, ids[0])
    }

    /// One email with the words "offsite budget", two about the same thing in other words.
    func offsiteMail() throws -> (SearchFixture, [Int64]) {
        let f = try SearchFixture()
        let ids = try f.add([
            .init(subject: "Budget for the offsite", body: "The offsite budget is attached."),
            .init(subject: "Costs of the team trip", body: "How much will the trip cost us?"),
            .init(subject: "Planning the retreat", body: "Venue and dates for the retreat."),
        ])
        return (f, ids)
    }

    func testResultsWithTheWordsComeFirstAndAreCountedApartFromRelatedOnes() async throws {
        let (f, ids) = try offsiteMail()
        // The semantic ranker likes the related ones best: still, the match with the words leads.
        let ranker = FixedRanker(matches: [(ids[1], 0.8), (ids[2], 0.75), (ids[0], 0.7)])
        let r = try await f.useCase(semantic: ranker).search("offsite budget")
        XCTAssertEqual(r.results.map(\.emailId), [ids[0], ids[1], ids[2]])
        XCTAssertEqual(r.results.map(\.matchSource), [.both, .semantic, .semantic])
        XCTAssertEqual(r.conversationCount, 3)
        XCTAssertEqual(r.matchedConversations, 1)
        // Interleaved by fused score when asked (the order before related results were put last): a
        // keyword-only match (1/61) then falls below the semantic #1 (1.5/61).
        let semanticOnly = FixedRanker(matches: [(ids[1], 0.8), (ids[2], 0.75)])
        let mixed = SearchEmailsUseCase(index: f.index, parser: SearchFixture.parser, semantic: semanticOnly,
                                        merger: RRFMerger(protectedKeywordResults: 0, relatedLast: false))
        let interleaved = try await mixed.search("offsite budget")
        XCTAssertEqual(interleaved.results.first?.emailId, ids[1])
    }

    func testTheRelatedTailIsCutWhereSimilarityFallsOffOnlyWhenSomeMailHasTheWords() async throws {
        let (f, ids) = try offsiteMail()
        let ranker = FixedRanker(matches: [(ids[1], 0.8), (ids[0], 0.75), (ids[2], 0.55)], relatedSpan: 0.1)
        let r = try await f.useCase(semantic: ranker).search("offsite budget")
        XCTAssertEqual(r.results.map(\.emailId), [ids[0], ids[1]], "0.55 is more than 0.1 below the best, 0.8")
        XCTAssertEqual(r.semantic.matches, 2)
        // No mail has "retreat costs" both: nothing is cut, every match is related.
        let none = try await f.useCase(semantic: ranker).search("venue costs")
        XCTAssertEqual(Set(none.results.map(\.emailId)), Set(ids))
        XCTAssertEqual(none.matchedConversations, 0)
    }

    func testANearMissNeedsTwoOfTheQuerysWordsWhenTheDecisionSaysSo() async throws {
        let f = try SearchFixture()
        let ids = try f.add([
            .init(subject: "Jupiter with softsynths?", body: "Anyone running the Jupiter emulation?"),
            .init(subject: "Elephant seen at the zoo", body: "A purple elephant, painted for the parade."),
        ])
        let oneWord = FixedRanker(nearMisses: [ids[0], ids[1]], agreementWords: 1)
        let twoWords = FixedRanker(nearMisses: [ids[0], ids[1]], agreementWords: 2)
        let query = "purple elephant tapdancing on jupiter"
        let one = try await f.useCase(semantic: oneWord).search(query, mode: .semantic)
        XCTAssertEqual(Set(one.results.map(\.emailId)), Set(ids))
        let two = try await f.useCase(semantic: twoWords).search(query, mode: .semantic)
        XCTAssertEqual(two.results.map(\.emailId), [ids[1]], "\"jupiter\" alone is chance; \"purple\" and \"elephant\" are not")
    }

    func testWithAFilterATextBelowTheFloorEverywhereCountsOnlyWhenTheMailHasOneOfItsWords() async throws {
        let f = try SearchFixture()
        let ids = try f.add([
            .init(subject: "Telescope mirror", body: "The mirror for the telescope is polished.", from: "ann@example.com"),
            .init(subject: "Garden", body: "Tomatoes are ripe.", from: "bob@example.com"),
        ])
        struct BelowFloor: SemanticRanker {
            let hits: [Int64]
            var unavailableReason: SemanticSkipReason? { nil }
            func rank(text: String, candidates: EmailIdSet?, limit: Int) async throws -> [SemanticHit] { [] }
            func rankWithNearMisses(text: String, candidates: EmailIdSet?, limit: Int) async throws -> SemanticRanking {
                var r = SemanticRanking(matches: hits.filter { candidates?.contains($0) ?? true }
                    .map { SemanticHit(emailId: $0, similarity: 0.3) })
                r.clearsFloorWithoutFilters = false
                return r
            }
        }
        let ranker = BelowFloor(hits: [ids[0]])
        // "mirror polishing": the mail has "mirror" — the sender's nearest mail counts.
        let known = try await f.useCase(semantic: ranker).search("from:ann@example.com polishing mirror", mode: .semantic)
        XCTAssertEqual(known.results.map(\.emailId), [ids[0]])
        // No email has any of these words: a filter does not make them mean something.
        let unknown = try await f.useCase(semantic: ranker).search("from:ann@example.com zebra quartz", mode: .semantic)
        XCTAssertEqual(unknown.results.count, 0)
    }

    func testAgreementExpressionAsksForAnyTwoOfTheWords() {
        XCTAssertEqual(FTS5QueryBuilder.agreementExpression(for: "purple elephant jupiter", minimumWords: 2),
                       "(\"purple\" AND \"elephant\") OR (\"purple\" AND \"jupiter\") OR (\"elephant\" AND \"jupiter\")")
        XCTAssertEqual(FTS5QueryBuilder.agreementExpression(for: "how does offload work", minimumWords: 2),
                       "\"offload\" OR \"work\"", "two words: either (mail with both is a keyword match already)")
        XCTAssertEqual(FTS5QueryBuilder.agreementExpression(for: "the offload", minimumWords: 2), "\"offload\"",
                       "one word: that word")
        XCTAssertEqual(FTS5QueryBuilder.contentWords(for: "How do I offload WORK, offload?"), ["offload", "WORK"])
    }
}
