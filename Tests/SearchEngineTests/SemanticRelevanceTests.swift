import Embedding
import Foundation
@testable import SearchEngine
import SearchIndex
import XCTest

/// The semantic ranker's relevance decision (`SemanticRelevance`) on hand-made vectors.
final class SemanticRelevanceTests: XCTestCase {
    /// Maps known texts to fixed unit vectors (4 dimensions); "qzxv" is no word to the tokenizer.
    struct FixedEmbedder: Embedder {
        let dimension = 4
        let vectors: [String: [Float]]
        func embed(_ texts: [String]) throws -> [[Float]] { texts.map { vectors[$0] ?? [0, 0, 0, 1] } }
        func knownWordShare(_ text: String) -> Double { text.contains("qzxv") ? 0 : 1 }
    }

    static func unit(_ v: [Float]) -> [Float] {
        let norm = v.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return v.map { $0 / norm }
    }

    /// e1 is the query's twin, e2 close-ish (0.3), e3 and e4 unrelated.
    func fixture() -> (VectorSemanticRanker, SemanticRelevance) {
        let vectors = VectorSearchEngine(dimension: 4)
        vectors.upsert([(1, [1, 0, 0, 0]), (2, Self.unit([0.3, 0.954, 0, 0])), (3, [0, 0, 1, 0]), (4, [0, 0, 0, 1])])
        let embedder = FixedEmbedder(vectors: [
            "twin": [1, 0, 0, 0],
            "vague": Self.unit([0.3, 0.3, 0.3, -0.866]),
            "twin qzxv": [1, 0, 0, 0],
        ])
        let relevance = SemanticRelevance(threshold: 0.5, spreadWeight: 0, unknownWordPenalty: 0.6, filteredDepth: 0.3,
                                          filteredSpan: 0.2)
        return (VectorSemanticRanker(embedder: embedder, vectors: vectors, relevance: relevance), relevance)
    }

    func testAHitCountsAboveTheQuerysFloor() throws {
        let (ranker, relevance) = fixture()
        XCTAssertEqual(try ranker.rankNow(text: "twin", candidates: nil, limit: 10).map(\.emailId), [1])
        XCTAssertEqual(relevance.floor(deviation: 0, knownWordShare: 1), 0.5, accuracy: 1e-9)
        XCTAssertEqual(relevance.floor(deviation: 0.1, knownWordShare: 0.5), 0.5 + 0.3, accuracy: 1e-9)
    }

    func testUnknownWordsRaiseTheFloor() throws {
        let (ranker, _) = fixture()
        // Same vector as "twin", but no word the model knows: the floor is 0.5 + 0.6 > 1.
        XCTAssertEqual(try ranker.rankNow(text: "twin qzxv", candidates: nil, limit: 10).map(\.emailId), [])
    }

    func testWithAFilterTheFilteredMailCountsFurtherDownOnceTheTextPassesOverTheWholeMailbox() throws {
        let (ranker, _) = fixture()
        // "twin" passes over the whole mailbox (e1 at 1.0): among e2 and e3, e2 (0.3) clears 0.5 - 0.3.
        XCTAssertEqual(try ranker.rankNow(text: "twin", candidates: EmailIdSet([2, 3]), limit: 10).map(\.emailId), [2])
        // With e1 among the filtered mail, e2 is more than 0.2 below the best of them: out.
        XCTAssertEqual(try ranker.rankNow(text: "twin", candidates: EmailIdSet([1, 2, 3]), limit: 10).map(\.emailId), [1])
        // "vague" reaches 0.37 at best anywhere: below the floor without the filter, which the ranking
        // says — the search keeps its filtered matches only when the mail has one of its words.
        let vague = try ranker.rankNowWithNearMisses(text: "vague", candidates: EmailIdSet([2, 3]), limit: 10)
        XCTAssertFalse(vague.clearsFloorWithoutFilters)
        XCTAssertTrue(try ranker.rankNowWithNearMisses(text: "twin", candidates: EmailIdSet([2, 3]), limit: 10)
            .clearsFloorWithoutFilters)
        // A fixed floor replaces the decision, filter or not.
        let fixed = VectorSemanticRanker(embedder: ranker.embedder, vectors: ranker.vectors, minimumSimilarity: 0.35)
        XCTAssertEqual(try fixed.rankNow(text: "vague", candidates: EmailIdSet([2, 3]), limit: 10).map(\.emailId), [2])
    }
}

/// Near misses: the nearest emails just below the floor count when the keyword index agrees.
final class SemanticAgreementTests: XCTestCase {
    /// A ranker with fixed matches and near misses (best first), and the agreement its decision asks for.
    struct NearMissRanker: SemanticRanker {
        var matches: [(Int64, Double)] = []
        var nearMisses: [(Int64, Double)]
        var agreementWords = 1
        var floor: Double?
        var singleWordAgreementDepth = Double.infinity
        var unavailableReason: SemanticSkipReason? { nil }

        init(nearMisses: [(Int64, Double)], agreementWords: Int = 1, floor: Double? = nil,
             singleWordAgreementDepth: Double = .infinity) {
            self.nearMisses = nearMisses
            self.agreementWords = agreementWords
            self.floor = floor
            self.singleWordAgreementDepth = singleWordAgreementDepth
        }

        /// Matches at 0.6, near misses at 0.3.
        init(matches: [Int64], nearMisses: [Int64]) {
            self.matches = matches.map { ($0, 0.6) }
            self.nearMisses = nearMisses.map { ($0, 0.3) }
        }

        func rank(text: String, candidates: EmailIdSet?, limit: Int) async throws -> [SemanticHit] {
            try await rankWithNearMisses(text: text, candidates: candidates, limit: limit).matches
        }
        func rankWithNearMisses(text: String, candidates: EmailIdSet?, limit: Int) async throws -> SemanticRanking {
            SemanticRanking(matches: matches.map { SemanticHit(emailId: $0.0, similarity: $0.1) },
                            nearMisses: nearMisses.map { SemanticHit(emailId: $0.0, similarity: $0.1) }, keywordDepth: 100,
                            agreementWords: agreementWords, floor: floor, singleWordAgreementDepth: singleWordAgreementDepth)
        }
    }

    func testANearMissCountsOnlyWhenItHasOneOfTheQuerysWords() async throws {
        let f = try SearchFixture()
        let ids = try f.add([
            .init(subject: "Docker and the FPGA offload", body: "Running the image inside a container."),
            .init(subject: "Lunch on Friday", body: "Shall we meet at noon?"),
            .init(subject: "Hardware notes", body: "The board arrived today."),
        ])
        let ranker = NearMissRanker(matches: [], nearMisses: [ids[0], ids[1]])
        let response = try await f.useCase(semantic: ranker).search(
            "does the offload work from a container", mode: .semantic)
        // ids[0] has "offload" and "container"; ids[1] has none of the words.
        XCTAssertEqual(response.results.map(\.emailId), [ids[0]])
        XCTAssertEqual(response.semantic.matches, 1)
        XCTAssertEqual(response.results.first?.why.semantic?.keywordAgreement, true, "the explanation says why it counts")
    }

    func testANearMissThatAgreesBringsTheNearerOnesAfterIt() async throws {
        let f = try SearchFixture()
        let ids = try f.add([
            .init(subject: "Docker and the FPGA offload", body: "Running the image inside a container."),
            .init(subject: "Lunch on Friday", body: "Shall we meet at noon?"),
            .init(subject: "Hardware notes", body: "The board arrived today."),
            .init(subject: "Weekend plans", body: "Hiking, weather permitting."),
        ])
        // ids[1] is nearer than the one that agrees, ids[2] as near (not nearer), ids[3] further.
        let ranker = NearMissRanker(nearMisses: [(ids[1], 0.40), (ids[0], 0.35), (ids[2], 0.35), (ids[3], 0.30)])
        for mode in [SearchMode.semantic, .hybrid] {
            let response = try await f.useCase(semantic: ranker).search("does the offload work from a container", mode: mode)
            XCTAssertEqual(response.results.map(\.emailId), [ids[0], ids[1]], "\(mode): the one that agrees first, then the nearer one")
            XCTAssertEqual(response.semantic.matches, 2)
            XCTAssertEqual(response.results.first?.why.semantic?.keywordAgreement, true)
            XCTAssertNil(response.results.last?.why.semantic?.keywordAgreement, "the nearer one counts by its similarity alone")
        }
        // None agrees: nothing, however near.
        let response = try await f.useCase(semantic: NearMissRanker(nearMisses: [(ids[1], 0.40), (ids[2], 0.35)]))
            .search("does the offload work from a container", mode: .semantic)
        XCTAssertEqual(response.results.map(\.emailId), [])
    }

    func testOneWordInCommonIsAgreementOnlyForAQueryOfThreeWords() async throws {
        let f = try SearchFixture()
        let ids = try f.add([
            .init(subject: "Jupiter with softsynths?", body: "Anyone running the Jupiter emulation?"),
            .init(subject: "Elephant seen at the zoo", body: "A purple elephant, painted for the parade."),
        ])
        // Both 0.05 below the floor: within the one-word depth (0.1) and the two-word one.
        let useCase = f.useCase(semantic: NearMissRanker(nearMisses: [(ids[0], 0.45), (ids[1], 0.45)], agreementWords: 2,
                                                         floor: 0.5, singleWordAgreementDepth: 0.1))
        // Three words: "jupiter" alone counts, so do "purple" and "elephant".
        let three = try await useCase.search("purple elephant jupiter", mode: .semantic)
        XCTAssertEqual(Set(three.results.map(\.emailId)), Set(ids))
        // Four or more: only the email with two of them.
        let five = try await useCase.search("purple elephant tapdancing on jupiter", mode: .semantic)
        XCTAssertEqual(five.results.map(\.emailId), [ids[1]], "one word of four is chance")
        let four = try await useCase.search("jupiter moons tapdancing telescope", mode: .semantic)
        XCTAssertEqual(four.results.map(\.emailId), [])
    }

    func testAMatchAboveTheFloorIsNotLabelledAsAKeywordAgreement() async throws {
        let f = try SearchFixture()
        let ids = try f.add([.init(subject: "Docker and the FPGA offload", body: "Running the image inside a container.")])
        let response = try await f.useCase(semantic: NearMissRanker(matches: [ids[0]], nearMisses: [])).search(
            "does the offload work from a container", mode: .semantic)
        XCTAssertEqual(response.results.map(\.emailId), [ids[0]])
        XCTAssertNil(response.results.first?.why.semantic?.keywordAgreement)
    }

    func testTheRankerGivesNearMissesOnlyWithoutFiltersAndWithoutAFixedFloor() throws {
        let vectors = VectorSearchEngine(dimension: 4)
        vectors.upsert([(1, [1, 0, 0, 0]), (2, SemanticRelevanceTests.unit([0.45, 0.893, 0, 0])), (3, [0, 0, 1, 0])])
        let embedder = SemanticRelevanceTests.FixedEmbedder(vectors: ["twin": [1, 0, 0, 0]])
        let relevance = SemanticRelevance(threshold: 0.6, spreadWeight: 0, unknownWordPenalty: 0, filteredDepth: 0,
                                          filteredSpan: 0, agreementDepth: 0.2, agreementKeywordDepth: 50)
        let ranker = VectorSemanticRanker(embedder: embedder, vectors: vectors, relevance: relevance)
        let ranking = try ranker.rankNowWithNearMisses(text: "twin", candidates: nil, limit: 10)
        XCTAssertEqual(ranking.matches.map(\.emailId), [1])
        XCTAssertEqual(ranking.nearMisses.map(\.emailId), [2], "0.45 is within 0.2 of the floor 0.6; 0 is not")
        XCTAssertEqual(ranking.keywordDepth, 50)
        XCTAssertEqual(try ranker.rankNowWithNearMisses(text: "twin", candidates: EmailIdSet([1, 2, 3]), limit: 10).nearMisses, [])
        let fixed = VectorSemanticRanker(embedder: embedder, vectors: vectors, minimumSimilarity: 0.6, relevance: relevance)
        XCTAssertEqual(try fixed.rankNowWithNearMisses(text: "twin", candidates: nil, limit: 10).nearMisses, [])
    }

    /// A query that reads as a sentence (its vector far from the mean of its words') has a second,
    /// lower floor; a heap of the same number of words does not; nor has a query of three words.
    func testASentenceHasASecondFloorAndAHeapOfWordsHasNot() throws {
        let vectors = VectorSearchEngine(dimension: 4)
        vectors.upsert([(1, SemanticRelevanceTests.unit([0.55, 0.835, 0, 0])), (2, SemanticRelevanceTests.unit([0.2, 0, 0.98, 0])),
                        (3, [0, 0, 1, 0])])
        let sentence = "when did the budget figures reach finance", heap = "rabbit sapphire camera accordion"
        let long = (0..<100).map { "word\($0)x" }.joined(separator: " ")
        var table: [String: [Float]] = [sentence: [1, 0, 0, 0], heap: [1, 0, 0, 0], "budget figures finance": [1, 0, 0, 0],
                                        long: [1, 0, 0, 0]]
        for word in ["budget", "figures", "reach", "finance"] { table[word] = SemanticRelevanceTests.unit([0.5, 0.866, 0, 0]) }
        for word in ["rabbit", "sapphire", "camera", "accordion"] { table[word] = [1, 0, 0, 0] }
        let embedder = SemanticRelevanceTests.FixedEmbedder(vectors: table)
        let relevance = SemanticRelevance(threshold: 0.6, spreadWeight: 0, unknownWordPenalty: 0, filteredDepth: 0,
                                          filteredSpan: 0, agreementDepth: 0.2, agreementKeywordDepth: 50,
                                          sentenceThreshold: 0.9, sentenceBagWeight: 0.8, sentenceSpan: 0.2)
        let ranker = VectorSemanticRanker(embedder: embedder, vectors: vectors, relevance: relevance)
        // The sentence's words average to a vector at cosine 0.5 to its own: its sentence floor is
        // 0.9 - 0.8 × 0.5 = 0.5, which e1 (0.55) clears; its nearest count down to 0.3 — e1, not e2 (0.2).
        let ranking = try ranker.rankNowWithNearMisses(text: sentence, candidates: nil, limit: 10)
        XCTAssertEqual(ranking.matches, [])
        XCTAssertEqual(ranking.sentenceMatches.map(\.emailId), [1])
        XCTAssertEqual(ranker.wordVectors.count, 4, "its four words' vectors are kept for the next search")
        // A pasted paragraph: the bag reads its first 32 content words only.
        _ = try ranker.rankNowWithNearMisses(text: long, candidates: nil, limit: 10)
        XCTAssertEqual(ranker.wordVectors.count, 4 + SemanticRelevance.maximumBagWords)
        XCTAssertEqual(try ranker.rankNowWithNearMisses(text: sentence, candidates: nil, limit: 10).sentenceMatches, ranking.sentenceMatches)
        XCTAssertEqual(SemanticRelevance.wordBag(query: [1, 0, 0, 0], words: [SemanticRelevanceTests.unit([0.5, 0.866, 0, 0])]),
                       0.5, accuracy: 1e-3)
        XCTAssertEqual(relevance.sentenceFloor(deviation: 0, knownWordShare: 1, bag: 0.5) ?? 0, 0.5, accuracy: 1e-9)
        // Four words that mean no more together than apart: bag 1, floor 0.9.
        XCTAssertEqual(try ranker.rankNowWithNearMisses(text: heap, candidates: nil, limit: 10).sentenceMatches, [])
        // Three content words are no sentence; with filters there is no sentence floor; nor without one configured.
        XCTAssertEqual(try ranker.rankNowWithNearMisses(text: "budget figures finance", candidates: nil, limit: 10).sentenceMatches, [])
        XCTAssertEqual(try ranker.rankNowWithNearMisses(text: sentence, candidates: EmailIdSet([1, 2]), limit: 10).sentenceMatches, [])
        var plain = relevance
        plain.sentenceThreshold = nil
        XCTAssertEqual(try VectorSemanticRanker(embedder: embedder, vectors: vectors, relevance: plain)
            .rankNowWithNearMisses(text: sentence, candidates: nil, limit: 10).sentenceMatches, [])
    }

    /// The sentence floor's matches count only when no email holds every word of the query, ranked
    /// among the other hits by similarity.
    func testSentenceMatchesCountOnlyWhenNoEmailHoldsEveryWord() async throws {
        struct SentenceRanker: SemanticRanker {
            let sentence: [(Int64, Double)]
            let nearMiss: Int64
            var unavailableReason: SemanticSkipReason? { nil }
            func rank(text: String, candidates: EmailIdSet?, limit: Int) async throws -> [SemanticHit] {
                try await rankWithNearMisses(text: text, candidates: candidates, limit: limit).matches
            }
            func rankWithNearMisses(text: String, candidates: EmailIdSet?, limit: Int) async throws -> SemanticRanking {
                var ranking = SemanticRanking(matches: [], nearMisses: [SemanticHit(emailId: nearMiss, similarity: 0.45)],
                                              keywordDepth: 100, floor: 0.6)
                ranking.sentenceMatches = sentence.map { SemanticHit(emailId: $0, similarity: $1) }
                return ranking
            }
        }
        let f = try SearchFixture()
        let ids = try f.add([
            .init(subject: "Quarterly numbers", body: "The spreadsheet went to accounting this morning."),
            .init(subject: "Lunch on Friday", body: "Shall we meet at noon?"),
            .init(subject: "Tight", body: "The budget is tight this year."),
        ])
        let question = "when did the budget figures reach finance"
        // ids[2] is a near miss (0.45) with one of the words; the sentence hits ids[0] (0.5) and ids[1] (0.4)
        // rank around it by similarity.
        let ranker = SentenceRanker(sentence: [(ids[0], 0.5), (ids[1], 0.4)], nearMiss: ids[2])
        let alone = try await f.useCase(semantic: ranker).search(question)
        XCTAssertEqual(alone.results.map(\.emailId), [ids[0], ids[2], ids[1]], "no email holds every word: the sentence floor counts")
        XCTAssertEqual(alone.semantic.matches, 3)
        let more = try f.add([.init(subject: "Budget figures", body: "When did the budget figures reach finance? Last week.")])
        let matched = try await f.useCase(semantic: ranker).search(question)
        XCTAssertFalse(matched.results.contains { $0.emailId == ids[0] || $0.emailId == ids[1] },
                       "an email holds every word: the sentence floor does not count")
        XCTAssertEqual(matched.results.first?.emailId, more.first)
    }

    func testAnyWordExpressionLeavesOutFunctionWordsAndKeepsPhrases() {
        XCTAssertEqual(FTS5QueryBuilder.anyWordExpression(for: "how do I offload work from a Docker container"),
                       "\"offload\" OR \"work\" OR \"Docker\" OR \"container\"")
        XCTAssertEqual(FTS5QueryBuilder.anyWordExpression(for: "\"natural gas\" prices -draft"),
                       "\"natural gas\" OR \"prices\"")
        XCTAssertNil(FTS5QueryBuilder.anyWordExpression(for: "what is it"))
    }
}
