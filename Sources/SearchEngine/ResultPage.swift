import Foundation
import MailModel
import SearchIndex

/// The page of a search once its matches are known: matches grouped into conversations (one row
/// per thread, at its best message), every conversation counted, and the best `limit` of them in
/// order. Keyword matches are ordered lazily: the best few hundred are sorted and fused, more only
/// when the page needs them. Pure: the rows of the page are read by the caller
/// (`SearchEmailsUseCase` through the index's pool, `OneShotKeywordSearch` on its own connection)
/// and turned into results by `results`.
struct ResultPage {
    /// The page's thread ids, best first.
    private(set) var threads: [Int64] = []
    /// The best fused match of each thread of the page.
    private(set) var best: [Int64: RRFMerger.Fused] = [:]
    /// How many matching messages each thread of the page has (an email found by both rankers is one).
    private(set) var matched: [Int64: Int] = [:]
    /// Every conversation with a match.
    let conversations: Int

    init(ranking: KeywordRanking, semantic: [SemanticHit], filtersOnly: Bool, directory: EmailDirectory.Snapshot,
         merger: RRFMerger, limit: Int) {
        let allIds = ranking.hits.lazy.map(\.emailId) + semantic.lazy.map(\.emailId)
        conversations = directory.conversationCount(of: allIds)
        guard conversations > 0 else { return }
        var k = max(4 * limit, 200)
        while true {
            threads = []
            best = [:]
            let top = ranking.top(k)
            let fused: [RRFMerger.Fused]
            if filtersOnly {
                fused = top.enumerated().map { i, hit in
                    RRFMerger.Fused(emailId: hit.emailId, score: 1 / (merger.k + Double(i + 1)), source: .filter,
                                    keywordRank: nil, semanticRank: nil, bm25: nil, similarity: nil)
                }
            } else {
                var ranked = top.enumerated().map { (hit: $1, position: $0 + 1) }
                if !semantic.isEmpty, k < ranking.count {
                    // Semantic matches that also match by keyword, further down than `k`: fused at their true rank.
                    let shown = Set(top.map(\.emailId))
                    ranked += ranking.positions(of: Set(semantic.map(\.emailId)).subtracting(shown))
                }
                fused = merger.merge(ranked: ranked, semantic: semantic)
            }
            // Past this score the fused order depends on keyword matches not yet sorted (a date order needs no such stop).
            let boundary = k < ranking.count && !filtersOnly ? merger.keywordWeight / (merger.k + Double(k + 1)) : -Double.infinity
            for f in fused {
                guard threads.count < limit, f.score > boundary else { break }
                guard let thread = directory.thread(of: f.emailId), best[thread] == nil else { continue }
                best[thread] = f
                threads.append(thread)
            }
            if threads.count >= limit || k >= ranking.count { break }
            k *= 4
        }
        var matchedIds: [Int64: Set<Int64>] = [:]
        for thread in threads { matchedIds[thread] = [] }
        for id in allIds {
            if let thread = directory.thread(of: id), matchedIds[thread] != nil { matchedIds[thread]!.insert(id) }
        }
        matched = matchedIds.mapValues(\.count)
    }

    /// The email that represents each thread of the page, in page order: the rows to read.
    var pageIds: [Int64] { threads.compactMap { best[$0]?.emailId } }

    /// The page's emails found by the keyword ranker (whose matched terms `--why` names).
    var keywordPageIds: [Int64] { threads.compactMap { best[$0] }.filter { $0.keywordRank != nil }.map(\.emailId) }

    /// The results, in page order, from the page's rows (`rows[emailId]`); a thread whose row is
    /// missing is left out.
    func results(rows: [Int64: EmailRow], highlighter: MatchHighlighter, matchedTerms: [Int64: [String]],
                 agreed: Set<Int64>) -> [SearchResult] {
        threads.compactMap { thread -> SearchResult? in
            guard let f = best[thread], let row = rows[f.emailId] else { return nil }
            let subject = row.subject
            var snippet = row.snippet
            var ranges: [HighlightRange] = []
            if f.keywordRank != nil, !highlighter.isEmpty {
                ranges = highlighter.ranges(in: subject, field: .subject)
                if let s = highlighter.snippet(of: row.body) {
                    snippet = s.text
                    ranges += s.ranges
                }
            }
            var why = MatchExplanation()
            if let rank = f.keywordRank, let bm25 = f.bm25 {
                why.keyword = MatchExplanation.Keyword(terms: matchedTerms[row.id] ?? [], bm25: bm25, rank: rank)
            }
            if let rank = f.semanticRank, let similarity = f.similarity {
                why.semantic = MatchExplanation.Semantic(
                    similarity: similarity, rank: rank, keywordAgreement: agreed.contains(row.id) ? true : nil)
            }
            return SearchResult(
                threadId: row.threadId ?? thread, emailId: row.id, subject: subject, senderName: row.fromName ?? "",
                senderEmail: row.fromEmail ?? "", date: row.date, snippet: snippet, highlights: ranges,
                hasAttachment: row.hasAttachment, score: f.score, matchSource: f.source, accountId: row.accountId,
                matchedMessages: matched[thread] ?? 1, why: why, isRead: row.isRead, category: row.category)
        }
    }

    /// Which positive terms each email matched when the MATCH has no OR: all of them (with an OR,
    /// each term is looked up in FTS5 for these emails; nil here).
    static func termsMatchedWithoutOR(_ terms: [FTS5QueryBuilder.Term], by emailIds: [Int64],
                                      match: String?) -> [Int64: [String]]? {
        guard let match, !emailIds.isEmpty, !terms.isEmpty else { return [:] }
        let names = terms.map { $0.isPhrase ? "\"\($0.text)\"" : $0.text }
        guard match.utf8.firstRange(of: " OR ".utf8) != nil, terms.count > 1 else {
            return Dictionary(uniqueKeysWithValues: emailIds.map { ($0, names) })
        }
        return nil
    }
}
