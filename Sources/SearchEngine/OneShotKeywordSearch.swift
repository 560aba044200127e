import Foundation
import GRDBSQLite
import MailModel
import MailStore
import SearchIndex

/// A keyword search of plain words (and at most a plain `from:`), for a process that runs one
/// search and ends (a cold `mailsearch search --mode keyword`): the steps of `SearchEmailsUseCase`
/// for such a query, on `OneShotIndex`'s single connection, synchronously on the calling thread — no GRDB
/// set-up, no service, no threads, no calendar. It ranks every match with the same BM25, groups
/// and counts them with the same `ResultPage`, reads the same rows and highlights them with the
/// same `MatchHighlighter`, so its results, counts and snippets are those of the regular path
/// (`OneShotKeywordSearchTests` compares the two).
///
/// `search` returns nil whenever it cannot be sure of that (a query that may hold a filter, an
/// index or mail the regular path would bring up to date first, any SQLite error): the caller then
/// runs the regular search.
public enum OneShotKeywordSearch {
    /// Searches the mail in the data directory at `dataDirectory` for `text` (at most `limit`
    /// conversations), or returns nil (see the type's comment).
    /// - Parameter recordHistory: record `text` in the recent searches, as the service does.
    public static func search(dataDirectory: String, text: String, limit: Int, recordHistory: Bool = false) -> SearchResponse? {
        guard let plain = SearchQueryParser.plainQuery(text) else { return nil }
        let freeText = plain.text
        let compiled = FTS5QueryBuilder.query(for: freeText)
        guard let match = compiled.match, compiled.exclusion == nil else { return nil }
        let migrations = MailStore.migrationIdentifiers
        guard let index = OneShotIndex.open(dataDirectory: dataDirectory, migrations: migrations) else { return nil }
        let clock = ContinuousClock()
        let started = clock.now
        // `from:`: the emails of the sender, from the stored sender index (the regular path's candidates).
        var candidates: EmailIdSet?
        if let sender = plain.sender {
            guard let set = index.senderCandidates(sender) else { return nil }
            candidates = set
        }
        // No email of that sender: nothing to rank (the regular path runs no keyword search either).
        let searched = candidates?.isEmpty == true ? [] : index.keywordMatches(match: match, candidates: candidates)
        guard let hits = searched else { return nil }
        let ranking = KeywordRanking(hits: hits)
        let page = ResultPage(ranking: ranking, semantic: [], filtersOnly: false, directory: index.directory,
                              merger: RRFMerger(), limit: limit)
        let terms = compiled.positiveTerms
        var results: [SearchResult] = []
        if page.conversations > 0 {
            let highlighter = MatchHighlighter(terms: terms)
            guard let names = ResultPage.termNamesMatchedByAll(terms, match: match),
                  let rows = rows(index, ids: page.pageIds, highlighting: !highlighter.isEmpty) else { return nil }
            var attachments: [Int64: [AttachmentExcerpt]] = [:]
            let withAttachments = highlighter.isEmpty ? [] : rows.filter(\.hasAttachment).map(\.id)
            guard index.forEachRow(AttachmentExcerpt.sql + " (?1)", ids: withAttachments, { statement in
                let text = { (i: Int32) in sqlite3_column_text(statement, i).map { String(cString: $0) } ?? "" }
                attachments[sqlite3_column_int64(statement, 0), default: []].append(AttachmentExcerpt(name: text(1), text: text(2)))
            }) else { return nil }
            results = page.results(rows: rows, highlighter: highlighter, matchedTerms: { _ in names }, agreed: [],
                                   attachments: attachments)
        }
        let elapsed = clock.now - started
        let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        // Recorded once the answer is certain: a search left to the regular path is recorded there.
        if recordHistory {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            guard OneShotIndex.recordSearch(text, dataDirectory: dataDirectory, migrations: migrations,
                                            at: Double(now.tv_sec) + Double(now.tv_nsec) / 1e9) else { return nil }
        }
        var filters = SearchFilters()
        filters.sender = plain.sender
        return SearchResponse(query: SearchQuery(text: freeText, filters: filters, scope: .allMail), conversationCount: page.conversations,
                              matchedConversations: page.conversations, keywordMatches: hits.count, results: results,
                              semantic: SemanticReport(ran: false, reason: .keywordOnlyRequested), tookMs: ms)
    }

    /// The page's rows; nil when SQLite fails or a row cannot be read.
    private static func rows(_ index: OneShotIndex, ids: [Int64], highlighting: Bool) -> [EmailRow]? {
        guard !ids.isEmpty else { return [] }
        var rows: [EmailRow] = []
        var complete = true
        let ok = index.forEachRow(EmailRow.sql(highlighting: highlighting) + " (?1)", ids: ids) { statement in
            guard let row = EmailRow(statement: statement) else { complete = false; return }
            rows.append(row)
        }
        return ok && complete ? rows : nil
    }
}
