import Embedding
import Foundation
import GRDB
import GRDBSQLite
import MailModel
import MailStore
import SearchIndex

/// Which rankers a search runs: both (the default), or one alone (evaluation, `--mode`).
public enum SearchMode: String, Sendable, Codable, CaseIterable {
    case hybrid, keyword, semantic
}

/// The hybrid search pipeline (FR-SEARCH-05): parse the query into filters and free text;
/// run the FTS5 ranker and the semantic ranker concurrently, both restricted to the filters
/// and scope; fuse with RRF; group by conversation; highlight.
///
/// Every email that matches all the words, filters and scope is ranked (BM25 over all of them,
/// never a window of them), so the first results are the true best and `conversationCount`
/// counts every conversation with a match. Filters are resolved first to a set of emails that
/// both rankers are restricted to: a filter that keeps little mail makes the search cheaper.
///
/// - Filters alone (E-03): no ranker runs; matching mail, newest first.
/// - 1–2 character text (E-02): FTS5 prefix match only.
/// - No semantic ranker, or one that is unavailable or fails (E-04): keyword results, and the
///   response says why semantic search did not run.
public final class SearchEmailsUseCase: Sendable {
    public let index: SearchIndexManager
    public let parser: SearchQueryParser
    public let semantic: (any SemanticRanker)?
    public let merger: RRFMerger
    /// How many results the semantic ranker returns at most (FR-SEARCH-07: top 50).
    public let semanticLimit: Int

    public init(index: SearchIndexManager, parser: SearchQueryParser, semantic: (any SemanticRanker)? = nil,
                merger: RRFMerger = RRFMerger(), semanticLimit: Int = 50) {
        self.index = index
        self.parser = parser
        self.semantic = semantic
        self.merger = merger
        self.semanticLimit = semanticLimit
    }

    /// Parses `text` and searches.
    public func search(_ text: String, scope: SearchScope = .allMail, limit: Int = 20,
                       mode: SearchMode = .hybrid) async throws -> SearchResponse {
        try await search(parser.parse(text, scope: scope), limit: limit, mode: mode)
    }

    /// Searches an already parsed query.
    public func search(_ query: SearchQuery, limit: Int = 20, mode: SearchMode = .hybrid) async throws -> SearchResponse {
        let clock = ContinuousClock()
        let started = clock.now
        let text = FTS5QueryBuilder.query(for: query.text)
        let match = text.match
        // Text of exclusions only (`-draft`, in a query built by hand; the parser moves it into the
        // filters itself) restricts the mail like a filter.
        var allFilters = query.filters
        if match == nil, text.exclusion != nil { allFilters.merge(SearchFilters(text: query.text)) }
        let filters = allFilters
        let directory = index.directory
        let senders = index.senders
        guard match != nil || !filters.isEmpty || query.scope != .allMail else {
            return SearchResponse(query: query, conversationCount: 0, matchedConversations: 0, keywordMatches: 0, results: [],
                                  semantic: SemanticReport(ran: false, reason: .emptyQuery), tookMs: 0)
        }
        let (snapshot, candidates) = try await index.read { db in
            let snapshot = try directory.snapshot(db)
            return (snapshot, try SearchIndexManager.candidates(filters: filters, scope: query.scope,
                                                                directory: snapshot, senders: senders, db: db))
        }
        if candidates?.isEmpty == true, let reading = query.proseSenderFallback, let sender = query.filters.sender {
            // "built from git": when no email at all has that sender, the words were prose.
            let senderOnly = { var f = SearchFilters(); f.sender = sender; return f }()
            let fromSender = try await index.read { db in
                try SearchIndexManager.candidates(filters: senderOnly, scope: .allMail, directory: snapshot, senders: senders, db: db)
            }
            if fromSender?.isEmpty == true {
                return try await search(SearchQuery(text: reading.text, filters: reading.filters, scope: query.scope),
                                        limit: limit, mode: mode)
            }
        }

        var ranking = KeywordRanking(hits: [])
        var semanticMatches: [SemanticHit] = []
        var agreed: Set<Int64> = []  // near misses kept because the keyword index agrees
        var report: SemanticReport
        var keywordCount = 0
        var filtersOnly = false
        if let match {
            // Positive words only: no OR, no parentheses, no excluded word.
            let semanticText = text.semanticText.trimmingCharacters(in: .whitespacesAndNewlines)
            var skipReason: SemanticSkipReason?
            if mode == .keyword {
                skipReason = .keywordOnlyRequested
            } else if semanticText.count <= 2 {
                skipReason = .queryTooShort
            } else if let semantic, let why = semantic.unavailableReason {
                skipReason = why
            } else if semantic == nil {
                skipReason = .modelNotInstalled
            } else if let semantic, try await isNotWords(semanticText, semantic: semantic) {
                skipReason = .notWords
            }
            let runKeyword = mode != .semantic && candidates?.isEmpty != true
            async let keywordPart = runKeyword ? index.keywordMatches(match: match, candidates: candidates) : []
            var semanticHits: [SemanticHit] = []
            var sentenceHits: [SemanticHit] = []
            var relatedSpan = Double.infinity
            var nearMisses: [SemanticHit] = []
            if skipReason == nil, let semantic {
                do {
                    let ranking = try await semantic.rankWithNearMisses(text: semanticText, candidates: candidates,
                                                                        limit: semanticLimit)
                    semanticHits = ranking.matches
                    sentenceHits = ranking.sentenceMatches
                    relatedSpan = ranking.relatedSpan
                    nearMisses = ranking.nearMisses
                    if !ranking.clearsFloorWithoutFilters, !semanticHits.isEmpty,
                       try await !mailboxHasAWord(of: semanticText) {
                        semanticHits = []
                    }
                    if !ranking.nearMisses.isEmpty, let depth = ranking.keywordDepth {
                        // Near misses the keyword index agrees with: among the best matches of mail with
                        // enough of the words (two of a longer query), or, less far down, of one of them.
                        let kept = try await agreeingNearMisses(ranking, text: semanticText, keywordDepth: depth)
                        semanticHits += kept
                        agreed = Set(kept.map(\.emailId))
                    }
                    report = SemanticReport(ran: true, matches: semanticHits.count)
                } catch {
                    report = SemanticReport(ran: false, reason: .failed, error: "\(error)")
                }
            } else {
                report = SemanticReport(ran: false, reason: skipReason)
            }
            let hits = try await keywordPart
            if hits.isEmpty, !sentenceHits.isEmpty {
                // No email holds every word of a query written as a sentence: its nearest down to its
                // sentence floor count too (`SemanticRelevance.sentenceThreshold`), among the other hits by
                // similarity.
                let have = Set(semanticHits.map(\.emailId))
                semanticHits += sentenceHits.filter { !have.contains($0.emailId) }
                semanticHits.sort { $0.similarity > $1.similarity || ($0.similarity == $1.similarity && $0.emailId < $1.emailId) }
                if report.ran { report.matches = semanticHits.count }
            }
            if hits.isEmpty, !agreed.isEmpty, let best = semanticHits.map(\.similarity).max() {
                // What counts are near misses whose words agree: the near misses more similar than the best
                // of them count too, after them. A result is never shown while a nearer one is hidden (a
                // student's question about driver internals found two posts through its words, not the
                // answer the ranker put third).
                let have = Set(semanticHits.map(\.emailId))
                semanticHits += nearMisses.filter { $0.similarity > best && !have.contains($0.emailId) }
                if report.ran { report.matches = semanticHits.count }
            }
            keywordCount = hits.count
            ranking = KeywordRanking(hits: hits)
            if !hits.isEmpty, relatedSpan.isFinite, let best = semanticHits.map(\.similarity).max(),
               semanticHits.contains(where: { $0.similarity < best - relatedSpan }) {
                // Mail has every word: a related result (no keyword match) counts only near the best semantic
                // match. The keyword matches are looked up only when some semantic hit falls below that.
                let matched = EmailIdSet(hits.map(\.emailId))
                semanticHits = semanticHits.filter { matched.contains($0.emailId) || $0.similarity >= best - relatedSpan }
                agreed.formIntersection(semanticHits.map(\.emailId))
                if report.ran { report.matches = semanticHits.count }
            }
            semanticMatches = semanticHits
        } else {
            // Filters alone: the matching mail, newest first (unknown dates last).
            filtersOnly = true
            ranking = KeywordRanking(hits: (candidates?.ids ?? []).map {
                KeywordHit(emailId: $0, rank: -(snapshot.date(of: $0) ?? -Double.infinity))
            })
            report = SemanticReport(ran: false, reason: .filtersOnly)
        }

        let terms = text.positiveTerms
        let (results, conversations, matched) = try await buildResults(
            ranking: ranking, semantic: semanticMatches, agreed: agreed, filtersOnly: filtersOnly, directory: snapshot,
            match: match, terms: terms, limit: limit)
        let elapsed = clock.now - started
        let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        return SearchResponse(query: query, conversationCount: conversations, matchedConversations: matched,
                              keywordMatches: keywordCount, results: results, semantic: report, tookMs: ms)
    }

    /// The near misses of `ranking` that count because the keyword index agrees (`SemanticRelevance`):
    /// among the `keywordDepth` best BM25 matches of mail holding `agreementWords` of the text's words
    /// (of a text of three or more; any one of fewer), or, for a text of three
    /// (`SemanticRelevance.singleWordAgreementMaximumWords`), within `singleWordAgreementDepth` of the
    /// floor, among the best matches of any one of them.
    private func agreeingNearMisses(_ ranking: SemanticRanking, text: String, keywordDepth: Int) async throws -> [SemanticHit] {
        func agreeing(_ words: Int) async throws -> Set<Int64> {
            guard let expression = FTS5QueryBuilder.agreementExpression(for: text, minimumWords: words) else { return [] }
            return Set(KeywordRanking(hits: try await index.keywordMatches(match: expression, candidates: nil)).top(keywordDepth)
                .map(\.emailId))
        }
        let strong = try await agreeing(ranking.agreementWords)
        let words = FTS5QueryBuilder.contentWords(for: text).count
        let needsTwo = ranking.agreementWords > 1 && words >= 3
        var weak: Set<Int64> = []
        if needsTwo, words <= SemanticRelevance.singleWordAgreementMaximumWords, let floor = ranking.floor,
           ranking.nearMisses.contains(where: { $0.similarity >= floor - ranking.singleWordAgreementDepth }) {
            weak = try await agreeing(1)
        }
        return ranking.nearMisses.filter { hit in
            if strong.contains(hit.emailId) { return true }
            guard let floor = ranking.floor else { return false }
            return weak.contains(hit.emailId) && hit.similarity >= floor - ranking.singleWordAgreementDepth
        }
    }

    /// Whether some email has one of the content words of `text` (`FTS5QueryBuilder.contentWords`).
    private func mailboxHasAWord(of text: String) async throws -> Bool {
        guard let anyWord = FTS5QueryBuilder.anyWordExpression(for: text) else { return false }
        return try await index.read { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM email_fts WHERE email_fts MATCH ? LIMIT 1", arguments: [anyWord]) != nil
        }
    }

    /// Whether every content word of `text` is junk (`QueryWords`): not known to the model as a
    /// word, or keyboard mash, and not a word of any email here.
    public func isNotWords(_ text: String, semantic: any SemanticRanker) async throws -> Bool {
        guard let candidates = QueryWords.junkCandidates(in: text, modelKnows: semantic.knowsWord),
              !candidates.isEmpty else { return false }
        return try await index.read { db in
            for word in candidates {
                if try Bool.fetchOne(db, sql: "SELECT 1 FROM email_fts WHERE email_fts MATCH ? LIMIT 1",
                                     arguments: ["\"" + word + "\""]) != nil { return false }
            }
            return true
        }
    }

    /// Groups matches into conversations (one row per thread, at its best message) and counts
    /// them all; only the page that is returned is read in full.
    private func buildResults(ranking: KeywordRanking, semantic: [SemanticHit], agreed: Set<Int64>, filtersOnly: Bool,
                              directory: EmailDirectory.Snapshot, match: String?,
                              terms: [FTS5QueryBuilder.Term], limit: Int) async throws -> ([SearchResult], Int, Int) {
        let page = ResultPage(ranking: ranking, semantic: semantic, filtersOnly: filtersOnly, directory: directory,
                              merger: merger, limit: limit)
        guard page.conversations > 0 else { return ([], 0, 0) }
        let highlighter = MatchHighlighter(terms: match == nil ? [] : terms)
        let matchedTerms: (Int64) -> [String]
        if let names = ResultPage.termNamesMatchedByAll(terms, match: match) {
            matchedTerms = { _ in names }
        } else {
            let byEmail = try await termsMatched(terms, by: page.keywordPageIds, match: match!)
            matchedTerms = { byEmail[$0] ?? [] }
        }
        let pageIds = page.pageIds
        let keywordIds = Set(page.keywordPageIds)
        let pageSet = Set(pageIds)
        let passageHits = semantic.compactMap { hit in hit.passage.flatMap { pageSet.contains(hit.emailId) ? $0 : nil } }
        let (rows, attachments, passages) = try await index.read {
            db -> ([EmailRow], [Int64: [AttachmentExcerpt]], [Int64: MatchedPassage]) in
            let rows = try Self.rows(db, sql: EmailRow.sql(highlighting: !highlighter.isEmpty), ids: pageIds).map(EmailRow.init(row:))
            // The attachments of keyword matches, for a snippet when the body shows no term.
            let withAttachments = highlighter.isEmpty ? [] : rows.filter { $0.hasAttachment && keywordIds.contains($0.id) }.map(\.id)
            var attachments: [Int64: [AttachmentExcerpt]] = [:]
            for row in try Self.rows(db, sql: AttachmentExcerpt.sql, ids: withAttachments) {
                attachments[row[0], default: []].append(AttachmentExcerpt(name: row[1], text: row[2]))
            }
            // The passages that semantic matches of the page were.
            var passages: [Int64: MatchedPassage] = [:]
            for owner in passageHits {
                guard let row = try Row.fetchOne(db, sql: MatchedPassage.sql,
                                                 arguments: [owner.start, owner.length, owner.attachmentId]) else { continue }
                passages[owner.emailId] = MatchedPassage(name: row[0], passage: owner.passage,
                                                         excerpt: MatchedPassage.excerpt(row[1] ?? ""))
            }
            return (rows, attachments, passages)
        }
        return (page.results(rows: rows, highlighter: highlighter, matchedTerms: matchedTerms, agreed: agreed,
                             attachments: attachments, passages: passages),
                page.conversations, page.matchedConversations)
    }

    /// Which positive terms each of `emailIds` matched, for a MATCH with an OR: each term is looked
    /// up in FTS5 for these emails only.
    private func termsMatched(_ terms: [FTS5QueryBuilder.Term], by emailIds: [Int64],
                              match: String) async throws -> [Int64: [String]] {
        guard !emailIds.isEmpty else { return [:] }
        let names = ResultPage.termNames(terms)
        return try await index.read { db in
            var out: [Int64: [String]] = [:]
            let placeholders = Array(repeating: "?", count: emailIds.count).joined(separator: ",")
            for (term, name) in zip(terms, names) {
                let expression = "\"" + term.text + "\"" + (term.isPrefix ? "*" : "")
                var arguments: StatementArguments = [expression]
                arguments += StatementArguments(emailIds)
                for id in try Int64.fetchAll(db, sql: """
                    SELECT rowid FROM email_fts WHERE email_fts MATCH ? AND rowid IN (\(placeholders))
                    """, arguments: arguments) {
                    out[id, default: []].append(name)
                }
            }
            return out
        }
    }

    /// Runs `sql` (ending in `IN`) over `ids` in chunks that stay below SQLite's variable limit.
    private static func rows(_ db: Database, sql: String, ids: [Int64]) throws -> [Row] {
        var out: [Row] = []
        for start in stride(from: 0, to: ids.count, by: 500) {
            let chunk = Array(ids[start..<min(ids.count, start + 500)])
            let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            out += try Row.fetchAll(db, sql: sql + " (\(placeholders))", arguments: StatementArguments(chunk))
        }
        return out
    }
}

/// The columns a result row needs.
struct EmailRow: Sendable {
    var id: Int64
    var threadId: Int64?
    var accountId: Int64
    var subject: String
    var fromName: String?
    var fromEmail: String?
    var date: Date?
    var snippet: String
    var hasAttachment: Bool
    var isRead: Bool
    var category: AICategory
    /// The start of the body, for highlighting (empty when not needed).
    var body: String

    /// The statement that reads rows, up to its `IN`: the ids follow in parentheses. Snippets come
    /// from the first 4,000 characters of the body. A match deeper than that (or only in the
    /// subject) shows the stored snippet: re-tokenizing long bodies (FTS5's snippet() does) costs
    /// tens of milliseconds on mail with long quoted chains.
    static func sql(highlighting: Bool) -> String {
        """
        SELECT id, threadId, accountId, subject, fromName, fromEmail, sortDate, snippet, hasAttachment, isRead, category,
               \(highlighting ? "substr(bodyPlain, 1, 4000)" : "''") AS body
        FROM mail.emails WHERE id IN
        """
    }

    init(row: Row) {
        id = row["id"]; threadId = row["threadId"]; accountId = row["accountId"]; subject = row["subject"]
        fromName = row["fromName"]; fromEmail = row["fromEmail"]
        date = (row["sortDate"] as Double?).map(Date.init(timeIntervalSince1970:))
        snippet = row["snippet"]; hasAttachment = row["hasAttachment"]
        isRead = row["isRead"]; category = AICategory(rawValue: row["category"]) ?? .uncategorized
        body = row["body"] ?? ""
    }

    /// The same columns read straight from a row of `sql(highlighting:)` (as GRDB decodes them:
    /// text as C strings, booleans as non-zero integers); nil when a column that cannot be NULL is.
    init?(statement row: OpaquePointer) {
        func text(_ i: Int32) -> String? { sqlite3_column_text(row, i).map { String(cString: $0) } }
        func isNull(_ i: Int32) -> Bool { sqlite3_column_type(row, i) == SQLITE_NULL }
        guard !isNull(0), !isNull(2), !isNull(8), !isNull(9), let subject = text(3), let snippet = text(7),
              let category = text(10) else { return nil }
        id = sqlite3_column_int64(row, 0)
        threadId = isNull(1) ? nil : sqlite3_column_int64(row, 1)
        accountId = sqlite3_column_int64(row, 2)
        self.subject = subject
        fromName = text(4)
        fromEmail = text(5)
        date = isNull(6) ? nil : Date(timeIntervalSince1970: sqlite3_column_double(row, 6))
        self.snippet = snippet
        hasAttachment = sqlite3_column_int64(row, 8) != 0
        isRead = sqlite3_column_int64(row, 9) != 0
        self.category = AICategory(rawValue: category) ?? .uncategorized
        body = text(11) ?? ""
    }
}
