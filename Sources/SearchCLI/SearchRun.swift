import CLIOutput
import Foundation
import MailModel
import MailSearchKit
import SearchEngine

/// The clock and time zone of date words (`--now`, `--time-zone`), so "last week" gives
/// reproducible results.
public enum CLIClock {
    /// Whether `--now` and `--time-zone` would pass `ClockOptions.validate` (nil passes).
    public static func validNow(_ now: String?) -> Bool { now.map { parseDate($0) != nil } ?? true }
    public static func validTimeZone(_ id: String?) -> Bool { id.map { TimeZone(identifier: $0) != nil } ?? true }

    public static func parser(now: String?, timeZone: String?) -> SearchQueryParser {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone.flatMap(TimeZone.init(identifier:)) ?? TimeZone.current
        if let now, let fixed = parseDate(now) {
            return SearchQueryParser(calendar: calendar, now: { fixed })
        }
        return SearchQueryParser(calendar: calendar, now: { Date() })
    }

    public static func parseDate(_ text: String) -> Date? {
        let f = ISO8601DateFormatter()
        if let d = f.date(from: text) { return d }
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = f.date(from: text) { return d }
        f.formatOptions = [.withFullDate]
        return f.date(from: text)
    }
}

public enum CLIService {
    /// Opens the mailbox through the service (index notices, E-05, go to standard error).
    public static func open(dataDirectory: DataDirectory, readOnly: Bool = false, parser: SearchQueryParser? = nil,
                            minimumSimilarity: Double? = nil,
                            backgroundEmbedding: Bool = false, cacheEntries: Int = 20,
                            memoryMapped: Bool = false, backgroundSummaries: Bool? = nil,
                            llm: LLMConfiguration? = nil) throws -> MailSearchService {
        var configuration = MailSearchService.Configuration(
            dataDirectory: dataDirectory, readOnly: readOnly, minimumSimilarity: minimumSimilarity,
            backgroundEmbedding: backgroundEmbedding, backgroundSummaries: backgroundSummaries, cacheCapacity: cacheEntries,
            notices: { message in FileHandle.standardError.write(Data("note: \(message)\n".utf8)) })
        configuration.memoryMappedIndex = memoryMapped
        configuration.llm = llm
        if let parser {
            configuration.calendar = parser.calendar
            configuration.now = parser.now
        }
        do {
            return try MailSearchService(configuration: configuration)
        } catch let error as ServiceError {
            throw CLIError(error.description)
        }
    }
}

/// How the CLI words the service's typed reasons.
public enum Wording {
    public static func semantic(_ reason: SemanticSkipReason, error: String? = nil) -> String {
        switch reason {
        case .modelNotInstalled: return "no embedding model installed (`mailsearch model install`)"
        case .noEmbeddings: return "no email has an embedding yet (`mailsearch index embed`)"
        case .keywordOnlyRequested: return "keyword-only search requested"
        case .queryTooShort: return "query shorter than 3 characters: prefix match only"
        case .filtersOnly: return "filters only: no text to rank"
        case .notWords: return "none of the query's words is a word the model or your mail knows: nothing to compare"
        case .emptyQuery: return "empty query"
        case .failed: return "semantic search failed (\(error ?? "unknown error")); keyword results only"
        }
    }
}

/// `mailsearch search`, once its arguments are read and valid: what both front ends run (the
/// lean `mailsearch` reads the arguments itself, `mailsearch-full` through ArgumentParser).
public struct SearchRun: Sendable {
    public var query: String
    public var scope: String?
    public var limit = 20
    public var noHistory = false
    public var mode: SearchMode = .hybrid
    public var minSimilarity: Double?
    public var why = false
    public var now: String?
    public var timeZone: String?
    public var dataDir: String?
    public var json = false

    public init(query: String) { self.query = query }

    /// The validation ArgumentParser runs before `run` (nil: valid; else the message).
    public var invalidity: String? {
        guard (1...1000).contains(limit) else { return "--limit must be between 1 and 1000" }
        if let minSimilarity, !(-1...1).contains(minSimilarity) || minSimilarity.isNaN {
            return "--min-similarity must be between -1 and 1 (a cosine similarity); got \(minSimilarity)"
        }
        return nil
    }

    /// Prints the results (text or `--json`). Text output ends the process here (`exit(0)`); JSON returns.
    public func run() async throws {
        // One search a process: no search cache (it would only pay for its key), and the index
        // read through a memory map (no read call per page).
        let service = try CLIService.open(dataDirectory: DataDirectory.resolve(explicit: dataDir), readOnly: noHistory,
                                          parser: CLIClock.parser(now: now, timeZone: timeZone),
                                          minimumSimilarity: minSimilarity, cacheEntries: 0, memoryMapped: true)
        let page: SearchPage
        do {
            page = try await service.search.search(SearchRequest(text: query, scope: scope, limit: limit, mode: mode,
                                                          recordHistory: !noHistory))
        } catch let error as ServiceError {
            throw CLIError(error.description)
        }
        if json {
            try Output.printJSON(page)
            service.saveForNextProcess()
            return
        }
        var note: String?
        if case .skipped(let reason, let error) = page.semantic, reason == .failed || reason == .noEmbeddings {
            note = Wording.semantic(reason, error: error)
        }
        printList(conversationCount: page.conversationCount, matched: page.matchedConversations, tookMs: page.tookMs,
                  semanticNote: note, results: page.results)
        // Done: keep what the next search needs, leave without closing the databases one by one.
        fflush(nil)
        service.saveForNextProcess()
        Foundation.exit(0)
    }

    /// Runs the search as `OneShotKeywordSearch` when it can give the answer `run` would: a
    /// keyword search of plain words (and at most a plain `from:`) printed as text, over an index an
    /// earlier process brought up to date. Returns false, having printed nothing, when `run` must answer.
    public func runOneShot() -> Bool {
        guard mode == .keyword, !json, scope == nil, query.count <= SearchRequest.maximumLength, invalidity == nil,
              let path = DataDirectory.path(explicit: dataDir, variable: { getenv($0).map { String(cString: $0) } }),
              let response = OneShotKeywordSearch.search(dataDirectory: path, text: query, limit: limit, recordHistory: !noHistory)
        else { return false }
        printList(conversationCount: response.conversationCount, matched: response.matchedConversations,
                  tookMs: response.tookMs, semanticNote: nil, results: response.results)
        fflush(nil)
        return true
    }

    /// "3 conversations contain these words · 12 related": the headline of a result list, counting
    /// what matched apart from what is only related by meaning.
    public static func headline(conversations: Int, matched: Int) -> String {
        func plural(_ n: Int) -> String { "\(n) conversation\(n == 1 ? "" : "s")" }
        let related = conversations - matched
        if related <= 0 { return plural(conversations) }
        if matched == 0 { return "\(related) related conversation\(related == 1 ? "" : "s") (none contains all these words)" }
        return "\(plural(matched)) contain\(matched == 1 ? "s" : "") these words · \(related) related"
    }

    /// The text output of a result list ("No results …" for none). Related results (semantic
    /// only) follow the ones with the words, under a divider.
    private func printList(conversationCount: Int, matched: Int, tookMs: Double, semanticNote: String?, results: [SearchResult]) {
        guard !results.isEmpty else {
            print("No results for \"\(query)\" — try fewer words or remove a filter")
            return
        }
        print("\(Self.headline(conversations: conversationCount, matched: matched))  (\(Output.fixed(tookMs, digits: 1)) ms)")
        if let semanticNote { print("note: semantic search \(semanticNote)") }
        let bold = Output.stdoutIsTerminal
        var dividerShown = false
        for r in results {
            if r.matchSource == .semantic, !dividerShown, matched > 0 {
                dividerShown = true
                print("")
                print("── related: similar in meaning, without all these words ──")
            }
            let sender = r.senderName.isEmpty ? r.senderEmail : r.senderName
            let subject = Self.render(r.subject, r.highlights.filter { $0.field == .subject }, bold: bold)
            let snippet = Self.render(r.snippet, r.highlights.filter { $0.field == .snippet }, bold: bold)
            let clip = r.hasAttachment ? " 📎" : ""
            let count = r.matchedMessages > 1 ? " (\(r.matchedMessages))" : ""
            print("")
            print("t\(r.threadId)  \(Output.date(r.date))  \(sender)\(count)\(clip)")
            print("  \(subject.isEmpty ? "(no subject)" : subject)")
            if !snippet.isEmpty { print("  \(snippet)") }
            if why { print("  why: \(Self.explain(r.why))") }
        }
    }

    /// "matched gas, prices (BM25 #3) · similarity 0.52 (#7)".
    public static func explain(_ why: MatchExplanation) -> String {
        var parts: [String] = []
        if let k = why.keyword {
            parts.append("matched \(k.terms.joined(separator: ", ")) (keyword #\(k.rank), BM25 \(Output.fixed(k.bm25, digits: 2)))")
        }
        if let s = why.semantic {
            let agreement = s.keywordAgreement == true ? ", below the floor, kept: among the best keyword matches of the query's words" : ""
            let passage = s.attachment.map { ", passage \(s.passage ?? 1) of attachment \($0)" } ?? ""
            parts.append("similarity \(Output.fixed(s.similarity, digits: 2)) (semantic #\(s.rank)\(passage)\(agreement))")
        }
        return parts.isEmpty ? "passes the filters" : parts.joined(separator: " · ")
    }

    /// Renders highlight ranges as ANSI bold (or leaves the text plain).
    public static func render(_ text: String, _ ranges: [HighlightRange], bold: Bool) -> String {
        guard bold, !ranges.isEmpty else { return text }
        let units = Array(text.utf16)
        var out: [UInt16] = []
        var pos = 0
        for r in ranges.sorted(by: { $0.start < $1.start }) where r.start >= pos && r.start + r.length <= units.count {
            out += units[pos..<r.start]
            out += Array("\u{1B}[1m".utf16) + units[r.start..<r.start + r.length] + Array("\u{1B}[0m".utf16)
            pos = r.start + r.length
        }
        out += units[pos...]
        return String(decoding: out, as: UTF16.self)
    }
}
