import Foundation
import GRDB
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
/// - Filters alone (E-03): no ranker runs; matching mail, newest first.
/// - 1–2 character text (E-02): FTS5 prefix match only.
/// - No semantic ranker, or one that is unavailable or fails (E-04): keyword results, and the
///   response says why semantic search did not run.
public final class SearchEmailsUseCase: Sendable {
    public let index: SearchIndexManager
    public let parser: SearchQueryParser
    public let semantic: (any SemanticRanker)?
    public let merger: RRFMerger
    /// How many matches the keyword ranker contributes before fusion and grouping (at least twice
    /// the requested number of results).
    public let candidateLimit: Int
    /// How many results the semantic ranker returns (FR-SEARCH-07: top 50).
    public let semanticLimit: Int

    public init(index: SearchIndexManager, parser: SearchQueryParser, semantic: (any SemanticRanker)? = nil,
                merger: RRFMerger = RRFMerger(), candidateLimit: Int = 200, semanticLimit: Int = 50) {
        self.index = index
        self.parser = parser
        self.semantic = semantic
        self.merger = merger
        self.candidateLimit = candidateLimit
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
        let filter = EmailFilterSQL(filters: query.filters, scope: query.scope)
        let match = FTS5QueryBuilder.matchExpression(for: query.text)
        let candidateLimit = max(self.candidateLimit, 2 * limit)

        var fused: [RRFMerger.Fused]
        var threadOf: [Int64: Int64] = [:]
        var lowerBound = false
        var report: SemanticReport
        if let match {
            let semanticText = query.text.trimmingCharacters(in: .whitespacesAndNewlines)
            var skipReason: String?
            if mode == .keyword {
                skipReason = "keyword-only search requested"
            } else if semanticText.count <= 2 {
                skipReason = "query shorter than 3 characters: prefix match only"
            } else if let semantic, let why = semantic.unavailableReason {
                skipReason = why
            } else if semantic == nil {
                skipReason = "no embedding model installed"
            }
            let keywordLimit = mode == .semantic ? 0 : candidateLimit
            async let keywordHits = index.read { db -> (hits: [KeywordHit], broad: Bool) in
                guard keywordLimit > 0 else { return ([], false) }
                return try FTS5Manager.search(match: match, filter: filter, limit: keywordLimit, db: db)
            }
            var semanticIds: [Int64] = []
            if skipReason == nil, let semantic {
                do {
                    let candidates: Set<Int64>? = filter.isEmpty ? nil : try await filteredIds(filter)
                    semanticIds = try await semantic.rank(text: semanticText, candidates: candidates, limit: semanticLimit)
                    report = SemanticReport(ran: true)
                } catch {
                    report = SemanticReport(ran: false, reason: "semantic search failed (\(error)); keyword results only")
                }
            } else {
                report = SemanticReport(ran: false, reason: skipReason)
            }
            let (hits, broad) = try await keywordHits
            for hit in hits { if let thread = hit.threadId { threadOf[hit.emailId] = thread } }
            lowerBound = broad || hits.count >= candidateLimit
            fused = merger.merge(keyword: hits.map(\.emailId), semantic: semanticIds)
        } else if !query.filters.isEmpty || query.scope != .allMail {
            let rows = try await index.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT e.id, e.threadId FROM mail.emails e WHERE \(filter.condition)
                    ORDER BY e.sortDate DESC, e.id DESC LIMIT \(candidateLimit)
                    """, arguments: filter.arguments).map { (id: $0["id"] as Int64, thread: $0["threadId"] as Int64?) }
            }
            for row in rows { threadOf[row.id] = row.thread ?? -row.id }
            let ids = rows.map(\.id)
            lowerBound = ids.count >= candidateLimit
            fused = ids.enumerated().map { i, id in
                RRFMerger.Fused(emailId: id, score: 1 / (merger.k + Double(i + 1)), source: .filter, keywordRank: nil, semanticRank: nil)
            }
            report = SemanticReport(ran: false, reason: "filters only: no text to rank")
        } else {
            fused = []
            report = SemanticReport(ran: false, reason: "empty query")
        }

        let (results, conversations) = try await buildResults(fused: fused, threadOf: threadOf, match: match,
                                                               queryText: query.text, limit: limit)
        let elapsed = clock.now - started
        let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        return SearchResponse(query: query, conversationCount: conversations, conversationCountIsLowerBound: lowerBound,
                              results: results, semantic: report, tookMs: ms)
    }

    private func filteredIds(_ filter: EmailFilterSQL) async throws -> Set<Int64> {
        try await index.read { db in
            Set(try Int64.fetchAll(db, sql: "SELECT e.id FROM mail.emails e WHERE \(filter.condition)", arguments: filter.arguments))
        }
    }

    /// Groups fused emails into conversations (one row per thread, at its best message); only
    /// the page that is returned is read in full.
    private func buildResults(fused: [RRFMerger.Fused], threadOf known: [Int64: Int64], match: String?,
                              queryText: String, limit: Int) async throws -> ([SearchResult], Int) {
        guard !fused.isEmpty else { return ([], 0) }
        var threadOf = known
        let unknown = fused.map(\.emailId).filter { threadOf[$0] == nil }
        if !unknown.isEmpty {
            let found = try await index.read { db in
                try Self.rows(db, sql: "SELECT id, threadId FROM mail.emails WHERE id IN", ids: unknown)
                    .map { (id: $0["id"] as Int64, thread: $0["threadId"] as Int64?) }
            }
            for row in found { threadOf[row.id] = row.thread ?? -row.id }
        }
        var order: [Int64] = []
        var best: [Int64: RRFMerger.Fused] = [:]
        var matched: [Int64: Int] = [:]
        for f in fused {
            guard let thread = threadOf[f.emailId] else { continue } // deleted meanwhile
            matched[thread, default: 0] += 1
            if best[thread] == nil {
                best[thread] = f
                order.append(thread)
            }
        }
        let page = Array(order.prefix(max(0, limit)))
        let pageIds = page.compactMap { best[$0]?.emailId }
        let highlighter = MatchHighlighter(queryText: match == nil ? "" : queryText)
        let rows = try await index.read { db -> [Int64: EmailRow] in
            var rows: [Int64: EmailRow] = [:]
            for r in try Self.rows(db, sql: """
                SELECT id, threadId, accountId, subject, fromName, fromEmail, sortDate, snippet, hasAttachment,
                       \(highlighter.isEmpty ? "''" : "substr(bodyPlain, 1, 4000)") AS body
                FROM mail.emails WHERE id IN
                """, ids: pageIds) {
                rows[r["id"]] = EmailRow(row: r)
            }
            return rows
        }
        // Snippets come from the first 4,000 characters of the body. A match deeper than that (or
        // only in the subject) shows the stored snippet: re-tokenizing long bodies (FTS5's
        // snippet() does) costs tens of milliseconds on mail with long quoted chains.
        var snippets: [Int64: (text: String, ranges: [HighlightRange])] = [:]
        for thread in page {
            guard let f = best[thread], f.keywordRank != nil, let row = rows[f.emailId], !highlighter.isEmpty else { continue }
            if let s = highlighter.snippet(of: row.body) { snippets[row.id] = s }
        }
        let results = page.compactMap { thread -> SearchResult? in
            guard let f = best[thread], let row = rows[f.emailId] else { return nil }
            let subject = row.subject
            var snippet = row.snippet
            var ranges: [HighlightRange] = []
            if f.keywordRank != nil, !highlighter.isEmpty {
                ranges = highlighter.ranges(in: subject, field: .subject)
                if let s = snippets[row.id] {
                    snippet = s.text
                    ranges += s.ranges
                }
            }
            return SearchResult(
                threadId: row.threadId ?? 0, emailId: row.id, subject: subject, senderName: row.fromName ?? "",
                senderEmail: row.fromEmail ?? "", date: row.date, snippet: snippet, highlights: ranges,
                hasAttachment: row.hasAttachment, score: f.score, matchSource: f.source, accountId: row.accountId,
                matchedMessages: matched[thread] ?? 1)
        }
        return (results, order.count)
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
private struct EmailRow: Sendable {
    var id: Int64
    var threadId: Int64?
    var accountId: Int64
    var subject: String
    var fromName: String?
    var fromEmail: String?
    var date: Date?
    var snippet: String
    var hasAttachment: Bool
    /// The start of the body, for highlighting (empty when not needed).
    var body: String

    init(row: Row) {
        id = row["id"]; threadId = row["threadId"]; accountId = row["accountId"]; subject = row["subject"]
        fromName = row["fromName"]; fromEmail = row["fromEmail"]
        date = (row["sortDate"] as Double?).map(Date.init(timeIntervalSince1970:))
        snippet = row["snippet"]; hasAttachment = row["hasAttachment"]
        body = row["body"] ?? ""
    }
}
