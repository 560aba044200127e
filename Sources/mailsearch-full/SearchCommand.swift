import ArgumentParser
import CLIOutput
import Foundation
import MailModel
import MailSearchKit
import SearchCLI
import SearchEngine
import SearchIndex

extension SearchMode: ExpressibleByArgument {}

/// `mailsearch search` through ArgumentParser: `--help`, and whatever the lean front end
/// (`Sources/mailsearch`) hands over. Both run `SearchRun`.
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

    @Option(help: ArgumentHelp("all; folder:NAME to search one folder; account:NAME for one account's mail; inboxes for every account's inbox.", valueName: "scope"))
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
        var search = SearchRun(query: query)
        search.limit = limit
        search.minSimilarity = minSimilarity
        if let message = search.invalidity { throw ValidationError(message) }
    }

    func run() async throws {
        var search = SearchRun(query: query)
        search.scope = scope
        search.limit = limit
        search.noHistory = noHistory
        search.mode = mode
        search.minSimilarity = minSimilarity
        search.why = why
        search.now = clock.now
        search.timeZone = clock.timeZone
        search.dataDir = global.dataDir
        search.json = global.json
        try await search.run()
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

struct RecentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "recent", abstract: "The last 10 searches, most recent first.")

    @Flag(help: "Forget all recent searches.")
    var clear = false

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let service = try global.openService()
        defer { service.shutdown() }
        if clear {
            try await service.search.clearRecentSearches()
            if !global.json { print("Recent searches cleared.") } else { try Output.printJSON([String]()) }
            return
        }
        let recent = try await service.search.recentSearches()
        if global.json { return try Output.printJSON(recent) }
        if recent.isEmpty { print("No recent searches.") }
        recent.forEach { print($0) }
    }
}

struct SuggestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suggest", abstract: "The zero state: recent searches and the five most frequent contacts.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let s = try await global.openService(readOnly: true).search.suggestions()
        if global.json { return try Output.printJSON(s) }
        print("Recent searches:")
        if s.recentSearches.isEmpty { print("  (none)") }
        s.recentSearches.forEach { print("  \($0)") }
        print("Frequent contacts:")
        if s.contacts.isEmpty { print("  (none)") }
        s.contacts.forEach { print("  \($0.name.map { "\($0) " } ?? "")<\($0.email)>  — try: \($0.suggestedQuery)") }
    }
}
