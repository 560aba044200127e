import ArgumentParser
import Foundation
import MailModel
import MailSearchKit
import MailStore
import SearchEngine
import SearchIndex

extension SearchMode: ExpressibleByArgument {}

struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search mail the way you talk.",
        discussion: """
            Filters are taken out of the text, the rest is searched as keywords (prefix matching, BM25):
              mailsearch search "budget report from sarah last week with attachments"
              mailsearch search 'from:john is:unread after:2024-03-01 "deployment schedule"'
            Results are conversations, best first. See docs/query-language.md for every form.
            """)

    @Argument(help: "The query.")
    var query: String

    @Option(help: ArgumentHelp("all, or folder:NAME to search one folder.", valueName: "scope"))
    var scope: String?

    @Option(help: "How many conversations to show.")
    var limit = 20

    @Flag(help: "Do not add this query to the recent searches.")
    var noHistory = false

    @Option(help: ArgumentHelp("hybrid (keyword and semantic, fused), keyword or semantic.", valueName: "mode"))
    var mode: SearchMode = .hybrid

    @Option(help: ArgumentHelp(
        "A fixed least cosine similarity (0–1) for a semantic match, instead of each query's own floor (from how its similarities spread over your mail); lower finds more, and more noise.",
        valueName: "similarity"))
    var minSimilarity: Double?

    @Flag(help: "Say why each result matched: the keyword terms and BM25 rank, the semantic similarity.")
    var why = false

    @OptionGroup var clock: ClockOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard (1...1000).contains(limit) else { throw ValidationError("--limit must be between 1 and 1000") }
        if let minSimilarity, !(-1...1).contains(minSimilarity) || minSimilarity.isNaN {
            throw ValidationError("--min-similarity must be between -1 and 1 (a cosine similarity); got \(minSimilarity)")
        }
    }

    func run() async throws {
        let service = try global.openService(readOnly: noHistory, clock: clock, minimumSimilarity: minSimilarity)
        let page: SearchPage
        do {
            page = try await service.search(SearchRequest(text: query, scope: scope, limit: limit, mode: mode,
                                                          recordHistory: !noHistory))
        } catch let error as ServiceError {
            throw CLIError(error.description)
        }
        if global.json {
            try Output.printJSON(page)
            service.storeCopiesForNextProcess()
            return
        }
        if page.results.isEmpty {
            print("No results for \"\(query)\" — try fewer words or remove a filter")
            service.storeCopiesForNextProcess()
            return
        }
        print("\(page.conversationCount) conversation\(page.conversationCount == 1 ? "" : "s")  (\(String(format: "%.1f", page.tookMs)) ms)")
        if case .skipped(let reason, let error) = page.semantic, reason == .failed || reason == .noEmbeddings {
            print("note: semantic search \(Wording.semantic(reason, error: error))")
        }
        let bold = Output.stdoutIsTerminal
        for r in page.results {
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
        // Done: keep what the next search needs, leave without closing the databases one by one.
        fflush(nil)
        service.storeCopiesForNextProcess()
        Foundation.exit(0)
    }

    /// "matched gas, prices (BM25 #3) · similarity 0.52 (#7)".
    static func explain(_ why: MatchExplanation) -> String {
        var parts: [String] = []
        if let k = why.keyword {
            parts.append("matched \(k.terms.joined(separator: ", ")) (keyword #\(k.rank), BM25 \(String(format: "%.2f", k.bm25)))")
        }
        if let s = why.semantic {
            parts.append("similarity \(String(format: "%.2f", s.similarity)) (semantic #\(s.rank))")
        }
        return parts.isEmpty ? "passes the filters" : parts.joined(separator: " · ")
    }

    /// Renders highlight ranges as ANSI bold (or leaves the text plain).
    static func render(_ text: String, _ ranges: [HighlightRange], bold: Bool) -> String {
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

struct ParseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parse", abstract: "Show how a query is understood: free text, filters and scope.")

    @Argument(help: "The query.")
    var query: String

    @OptionGroup var clock: ClockOptions

    @Flag(help: "Print JSON (the default output is JSON too; the flag is accepted for symmetry).")
    var json = false

    func run() throws {
        let parsed = clock.parser().parse(query)
        try Output.printJSON(SearchPage.Query(parsed))
    }
}

struct RecentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "recent", abstract: "The last 10 searches, most recent first.")

    @Flag(help: "Forget all recent searches.")
    var clear = false

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let store = try global.openStore()
        if clear {
            try store.clearRecentSearches()
            if !global.json { print("Recent searches cleared.") } else { try Output.printJSON([String]()) }
            return
        }
        let recent = try store.recentSearches()
        if global.json { return try Output.printJSON(recent) }
        if recent.isEmpty { print("No recent searches.") }
        recent.forEach { print($0) }
    }
}

struct SuggestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suggest", abstract: "The zero state: recent searches and the five most frequent contacts.")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let s = try global.openService(readOnly: true).suggestions()
        if global.json { return try Output.printJSON(s) }
        print("Recent searches:")
        if s.recentSearches.isEmpty { print("  (none)") }
        s.recentSearches.forEach { print("  \($0)") }
        print("Frequent contacts:")
        if s.contacts.isEmpty { print("  (none)") }
        s.contacts.forEach { print("  \($0.name.map { "\($0) " } ?? "")<\($0.email)>  — try: \($0.suggestedQuery)") }
    }
}
