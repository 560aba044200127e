/// Whether an email is similar enough to a query to be a semantic match, decided per query and
/// per mailbox instead of by one global cosine (which, calibrated on some mailboxes, halves the
/// recall of natural-language questions on others).
///
/// A hit counts when `similarity ≥ threshold + unknownWordPenalty × (1 − known) − spreadWeight × sd`:
/// - `sd`, the query's background spread: the standard deviation of its similarity to the mailbox
///   (`VectorSearchEngine.background`). A query that means something here is much closer to some
///   mail than to the rest; nonsense is about as similar to everything, so its spread is narrow.
/// - `known`, the share of the query's words the model has as whole words
///   (`Embedder.knownWordShare`): strings of random letters reach cosines that real questions
///   reach, but are no words.
///
/// The constants were calibrated with `scripts/eval/calibrate_semantic.py` on one labelled corpus
/// and judged on another (README, "Search quality"): the threshold is the least that keeps every
/// nonsense query of the calibration corpus without a hit, plus a margin.
///
/// With filters (a sender, a date, a folder), the query must pass that test over the whole
/// mailbox — its best match anywhere clears its floor, so nonsense with a filter still finds
/// nothing — and then the filtered mail counts down to `filteredDepth` below the floor: within one
/// sender's mail the nearest emails are the right ones even when their cosines are low — but only
/// those within `filteredSpan` of the best filtered match, so a sender's unrelated mail stays out.
///
/// The numbers are each model's (`EmbeddingModel.relevance`); `VectorSemanticRanker` applies them.
public struct SemanticRelevance: Sendable, Hashable {
    public var threshold: Double
    public var spreadWeight: Double
    public var unknownWordPenalty: Double
    public var filteredDepth: Double
    public var filteredSpan: Double
    /// Without filters, one of the query's nearest emails up to this far below the floor still
    /// counts when the keyword index agrees: the email is among the `agreementKeywordDepth` best
    /// BM25 matches of mail holding `agreementWords` of the query's words when it has three or
    /// more, any of them otherwise (`FTS5QueryBuilder.agreementExpression`).
    public var agreementDepth: Double
    public var agreementKeywordDepth: Int
    public var agreementWords: Int
    /// For a query of three words, how far below the floor a near miss counts when it is among the
    /// best matches of only one of its words (one word in common is weaker evidence: "purple
    /// elephant tapdancing" and a thread about a Jupiter synthesizer).
    public var singleWordAgreementDepth: Double
    /// The most content words a query may have for one word in common to count as agreement
    /// (`singleWordAgreementDepth`): one word of four or more ("purple elephant tapdancing on
    /// jupiter") is chance. A judgment for precision, not fitted: on the eight labelled sets 27 fewer
    /// strings of random words find something, no paraphrase question loses its answer, and 4 topic
    /// queries whose one shared word was a rare name do (docs/benchmarks.md).
    public static let singleWordAgreementMaximumWords = 3
    /// When some mail holds every word of the query, a semantic match without them (a related
    /// result) counts only within this much similarity of the query's best semantic match: the
    /// tail is cut where similarity falls off. Infinity keeps every match above the floor.
    public var relatedSpan: Double
    /// A question written as a sentence (`sentenceMinimumWords` content words or more) that no email
    /// holds whole has a second floor of its own, lower the more the sentence means beyond its words:
    /// `sentenceThreshold − sentenceBagWeight × (1 − bag) + unknownWordPenalty × (1 − known) −
    /// spreadWeight × sd`, where `bag` is the cosine between the query's vector and the mean of its
    /// words' vectors, each word embedded alone (`wordBag`): near 1 for a heap of words ("rabbit
    /// sapphire camera accordion"), lower for a sentence. When its best match clears that floor, its
    /// nearest count down to `sentenceSpan` below it. nil: no such floor.
    public var sentenceThreshold: Double?
    public var sentenceBagWeight: Double
    public var sentenceSpan: Double
    public var sentenceMinimumWords: Int
    /// The word bag reads at most this many of the query's content words (the first): a pasted
    /// paragraph costs no more than a long question. No labelled question here has more than 17.
    public static let maximumBagWords = 32

    public init(threshold: Double, spreadWeight: Double, unknownWordPenalty: Double, filteredDepth: Double,
                filteredSpan: Double, agreementDepth: Double = 0, agreementKeywordDepth: Int = 0,
                agreementWords: Int = 1, singleWordAgreementDepth: Double? = nil, relatedSpan: Double = .infinity,
                sentenceThreshold: Double? = nil, sentenceBagWeight: Double = 0.8, sentenceSpan: Double = 0.2,
                sentenceMinimumWords: Int = 4) {
        self.threshold = threshold
        self.spreadWeight = spreadWeight
        self.unknownWordPenalty = unknownWordPenalty
        self.filteredDepth = filteredDepth
        self.filteredSpan = filteredSpan
        self.agreementDepth = agreementDepth
        self.agreementKeywordDepth = agreementKeywordDepth
        self.agreementWords = agreementWords
        self.singleWordAgreementDepth = singleWordAgreementDepth ?? agreementDepth
        self.relatedSpan = relatedSpan
        self.sentenceThreshold = sentenceThreshold
        self.sentenceBagWeight = sentenceBagWeight
        self.sentenceSpan = sentenceSpan
        self.sentenceMinimumWords = sentenceMinimumWords
    }

    /// What ships for the default model (README, "Search quality"); each model carries its own
    /// (`EmbeddingModel.relevance`): each places unrelated text at its own cosine.
    public static let calibrated = EmbeddingModel.default.relevance

    /// The least similarity a hit of this query needs.
    public func floor(deviation: Double, knownWordShare: Double) -> Double {
        threshold + unknownWordPenalty * (1 - min(1, max(0, knownWordShare))) - spreadWeight * deviation
    }

    /// The sentence floor (`sentenceThreshold`) of a query with this word bag, or nil without one.
    public func sentenceFloor(deviation: Double, knownWordShare: Double, bag: Double) -> Double? {
        guard let sentenceThreshold else { return nil }
        return sentenceThreshold - sentenceBagWeight * (1 - min(1, max(0, bag)))
            + unknownWordPenalty * (1 - min(1, max(0, knownWordShare))) - spreadWeight * deviation
    }

    /// The cosine between a query's vector and the mean of its words' vectors (each of unit length,
    /// each word embedded alone): near 1 for a heap of words, lower for a sentence that means more
    /// than its words; 1 without words.
    public static func wordBag(query: [Float], words: [[Float]]) -> Double {
        guard let first = words.first else { return 1 }
        var mean = [Double](repeating: 0, count: first.count)
        for vector in words {
            for i in 0..<min(mean.count, vector.count) { mean[i] += Double(vector[i]) }
        }
        let norm = mean.reduce(0) { $0 + $1 * $1 }.squareRoot()
        guard norm > 0 else { return 1 }
        var dot = 0.0
        for i in 0..<min(mean.count, query.count) { dot += mean[i] * Double(query[i]) }
        return dot / norm
    }
}
