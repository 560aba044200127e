import ArgumentParser
import Embedding
import Foundation
import MailModel
import MailSearchKit
import MailStore
import SearchEngine
import SearchCLI
import SearchIndex

/// Options that pin the clock and time zone, so date words ("last week") give reproducible results.
struct ClockOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Pretend it is this moment (ISO-8601, e.g. 2024-06-15T10:00:00Z).", valueName: "iso-8601"))
    var now: String?

    @Option(help: ArgumentHelp("Time zone for date words (e.g. Europe/Berlin). Default: the system's.", valueName: "id"))
    var timeZone: String?

    func validate() throws {
        if let now, !CLIClock.validNow(now) { throw ValidationError("--now \"\(now)\" is not an ISO-8601 date-time like 2024-06-15T10:00:00Z") }
        if let timeZone, !CLIClock.validTimeZone(timeZone) { throw ValidationError("--time-zone \"\(timeZone)\" is not a known time zone identifier (like Europe/Berlin)") }
    }

    func parser() -> SearchQueryParser { CLIClock.parser(now: now, timeZone: timeZone) }
}

extension GlobalOptions {
    /// Opens the mailbox through the service (index notices, E-05, go to standard error).
    func openService(readOnly: Bool = false, clock: ClockOptions? = nil,
                     minimumSimilarity: Double? = nil,
                     backgroundEmbedding: Bool = false, cacheEntries: Int = 20) throws -> MailSearchService {
        try CLIService.open(dataDirectory: dataDirectory, readOnly: readOnly, parser: clock?.parser(),
                            minimumSimilarity: minimumSimilarity, backgroundEmbedding: backgroundEmbedding,
                            cacheEntries: cacheEntries)
    }
}
