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
    /// A conversation of the page: its thread, its best fused match, and how many of its messages
    /// match (an email found by both rankers is one).
    struct Entry {
        var thread: Int64
        var best: RRFMerger.Fused
        var matched: Int
    }

    /// The page, best first. Kept in arrays and bitsets rather than dictionaries keyed by id: the
    /// same answers, and a one-shot process spares the runtime's conformance look-ups for them.
    private(set) var entries: [Entry] = []
    /// Every conversation with a match.
    let conversations: Int
    /// The conversations with a keyword match (or passing the filters, for filters alone).
    let matchedConversations: Int

    init(ranking: KeywordRanking, semantic: [SemanticHit], filtersOnly: Bool, directory: EmailDirectory.Snapshot,
         merger: RRFMerger, limit: Int) {
        let semanticIds = semantic.map(\.emailId)
        conversations = directory.conversationCount(ofHits: ranking.hits, and: semanticIds)
        matchedConversations = semanticIds.isEmpty ? conversations : directory.conversationCount(ofHits: ranking.hits, and: [])
        guard conversations > 0 else { return }
        var k = max(4 * limit, 200)
        while true {
            entries = []
            // Threads already on the page (a thread id below 0 is one email's own conversation: never twice).
            var seen = EmailIdSet()
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
                guard entries.count < limit else { break }
                if f.source == .semantic, merger.relatedLast {
                    // Related results follow every keyword match: only once all of them are ordered.
                    guard k >= ranking.count else { break }
                } else {
                    guard f.score > boundary else { break }
                }
                guard let thread = directory.thread(of: f.emailId) else { continue }
                if thread > 0 {
                    guard !seen.contains(thread) else { continue }
                    seen.insert(thread)
                }
                entries.append(Entry(thread: thread, best: f, matched: 0))
            }
            if entries.count >= limit || k >= ranking.count { break }
            k *= 4
        }
        // Each page thread's matching messages: its position found by binary search over the page
        // sorted by thread, each email counted once.
        let byThread = entries.indices.sorted { entries[$0].thread < entries[$1].thread }
        let sortedThreads = byThread.map { entries[$0].thread }
        var counted = EmailIdSet()
        func count(_ id: Int64) {
            guard let thread = directory.thread(of: id), let i = Self.index(of: thread, in: sortedThreads),
                  !counted.contains(id) else { return }
            counted.insert(id)
            entries[byThread[i]].matched += 1
        }
        for hit in ranking.hits { count(hit.emailId) }
        for id in semanticIds { count(id) }
    }

    /// The email that represents each thread of the page, in page order: the rows to read.
    var pageIds: [Int64] { entries.map(\.best.emailId) }

    /// The page's emails found by the keyword ranker (whose matched terms `--why` names).
    var keywordPageIds: [Int64] { entries.filter { $0.best.keywordRank != nil }.map(\.best.emailId) }

    /// The results, in page order, from the page's rows (in any order); a thread whose row is
    /// missing is left out. `matchedTerms` names the terms an email matched.
    ///
    /// `attachments` holds, for page emails with attachments, each attachment's name and the start
    /// of its text (`AttachmentExcerpt`): a keyword match whose body shows none of the terms gets
    /// its snippet from the first attachment that has them ("in attachment NAME: …").
    ///
    /// `passages` holds, for page emails whose semantic match was a passage of an attachment, that
    /// passage: `why.semantic` names it, and it is the snippet when no keyword term shows.
    func results(rows: [EmailRow], highlighter: MatchHighlighter, matchedTerms: (Int64) -> [String],
                 agreed: Set<Int64>, attachments: [Int64: [AttachmentExcerpt]] = [:],
                 passages: [Int64: MatchedPassage] = [:]) -> [SearchResult] {
        let sortedRows = rows.sorted { $0.id < $1.id }
        let rowIds = sortedRows.map(\.id)
        return entries.compactMap { entry -> SearchResult? in
            let f = entry.best
            guard let i = Self.index(of: f.emailId, in: rowIds) else { return nil }
            let row = sortedRows[i]
            let subject = row.subject
            var snippet = row.snippet
            var ranges: [HighlightRange] = []
            var why = MatchExplanation()
            var snippetShowsMatch = false
            if f.keywordRank != nil, !highlighter.isEmpty {
                ranges = highlighter.ranges(in: subject, field: .subject)
                if let s = highlighter.snippet(of: row.body) {
                    snippet = s.text
                    ranges += s.ranges
                    snippetShowsMatch = true
                } else if let found = Self.attachmentSnippet(attachments[row.id] ?? [], highlighter: highlighter) {
                    snippet = found.text
                    ranges += found.ranges
                    why.attachment = found.name
                    snippetShowsMatch = true
                }
            }
            let passage = f.semanticRank == nil ? nil : passages[row.id]
            if let passage, !snippetShowsMatch {
                snippet = "in attachment \(passage.name): " + passage.excerpt
                why.attachment = passage.name
            }
            if let rank = f.keywordRank, let bm25 = f.bm25 {
                why.keyword = MatchExplanation.Keyword(terms: matchedTerms(row.id), bm25: bm25, rank: rank)
            }
            if let rank = f.semanticRank, let similarity = f.similarity {
                why.semantic = MatchExplanation.Semantic(
                    similarity: similarity, rank: rank, keywordAgreement: agreed.contains(row.id) ? true : nil,
                    attachment: passage?.name, passage: passage.map { $0.passage + 1 })
            }
            return SearchResult(
                threadId: row.threadId ?? entry.thread, emailId: row.id, subject: subject, senderName: row.fromName ?? "",
                senderEmail: row.fromEmail ?? "", date: row.date, snippet: snippet, highlights: ranges,
                hasAttachment: row.hasAttachment, score: f.score, matchSource: f.source, accountId: row.accountId,
                matchedMessages: entry.matched == 0 ? 1 : entry.matched, why: why, isRead: row.isRead, category: row.category)
        }
    }

    /// The snippet of the first attachment whose text (then whose name) has the terms:
    /// "in attachment NAME: …passage…" or "attachment NAME", with its highlights.
    static func attachmentSnippet(_ excerpts: [AttachmentExcerpt], highlighter: MatchHighlighter)
        -> (name: String, text: String, ranges: [HighlightRange])? {
        func shifted(_ ranges: [HighlightRange], by label: String) -> [HighlightRange] {
            let shift = label.utf16.count
            return ranges.map { HighlightRange(field: .snippet, start: $0.start + shift, length: $0.length) }
        }
        for excerpt in excerpts {
            if let s = highlighter.snippet(of: excerpt.text, scanLimit: AttachmentExcerpt.characters) {
                let label = "in attachment \(excerpt.name): "
                return (excerpt.name, label + s.text, shifted(s.ranges, by: label))
            }
        }
        for excerpt in excerpts {
            let found = highlighter.ranges(in: excerpt.name, field: .snippet)
            if !found.isEmpty {
                let label = "attachment "
                return (excerpt.name, label + excerpt.name, shifted(found, by: label))
            }
        }
        return nil
    }

    /// Where `value` is in `sorted` (ascending, no repeats), or nil.
    private static func index(of value: Int64, in sorted: [Int64]) -> Int? {
        var low = 0, high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if sorted[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low < sorted.count && sorted[low] == value ? low : nil
    }

    /// The positive terms' names (`"phrase"` for a phrase) when every matching email matched them
    /// all — a MATCH without OR (or of one term) —, [] without a MATCH or terms; nil when the MATCH
    /// has an OR, and each term must be looked up in FTS5 for the emails of the page.
    static func termNamesMatchedByAll(_ terms: [FTS5QueryBuilder.Term], match: String?) -> [String]? {
        guard let match, !terms.isEmpty else { return [] }
        guard match.utf8.firstRange(of: " OR ".utf8) != nil, terms.count > 1 else { return termNames(terms) }
        return nil
    }

    static func termNames(_ terms: [FTS5QueryBuilder.Term]) -> [String] {
        terms.map { $0.isPhrase ? "\"\($0.text)\"" : $0.text }
    }
}

/// The passage of an attachment that a semantic match was: the attachment's name, the passage's
/// place among its passages (from 0) and the start of its text, as a snippet shows it.
struct MatchedPassage: Sendable {
    var name: String
    var passage: Int
    var excerpt: String

    /// How much of a passage a snippet shows (characters), cut at a space.
    static let excerptCharacters = 240

    /// The statement that reads a passage: rows of name and text, for an attachment id and the
    /// passage's start and length (Unicode scalars, as `substr` counts them).
    static let sql = """
        SELECT COALESCE(a.filename, ''), substr(t.text, ? + 1, ?)
        FROM mail.attachments a JOIN mail.attachment_text t ON t.attachmentId = a.id WHERE a.id = ?
        """

    /// The start of `text`, whitespace folded, at most `excerptCharacters`, ending at a word.
    static func excerpt(_ text: String) -> String {
        let folded = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard folded.count > excerptCharacters else { return folded }
        let cut = folded.prefix(excerptCharacters)
        let end = cut.lastIndex(of: " ").map { cut[..<$0] } ?? cut
        return end + "…"
    }
}

/// An attachment of a result's email: its name and the start of the text read from it.
struct AttachmentExcerpt: Sendable {
    var name: String
    var text: String

    /// How much of an attachment's text a snippet is looked for in.
    static let characters = 100_000

    /// The statement that reads the excerpts of emails, up to its `IN`: the ids follow in
    /// parentheses. Rows: email id, name, text.
    static let sql = """
        SELECT a.emailId, COALESCE(a.filename, ''), substr(COALESCE(t.text, ''), 1, \(characters))
        FROM mail.attachments a LEFT JOIN mail.attachment_text t ON t.attachmentId = a.id WHERE a.emailId IN
        """
}
