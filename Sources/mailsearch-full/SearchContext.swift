import ArgumentParser
import Embedding
import Foundation
import MailModel
import MailSearchKit
import MailStore
import SearchEngine
import SearchIndex

/// Options that pin the clock and time zone, so date words ("last week") give reproducible results.
struct ClockOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Pretend it is this moment (ISO-8601, e.g. 2024-06-15T10:00:00Z).", valueName: "iso-8601"))
    var now: String?

    @Option(help: ArgumentHelp("Time zone for date words (e.g. Europe/Berlin). Default: the system's.", valueName: "id"))
    var timeZone: String?

    func validate() throws {
        if let now, Self.parseDate(now) == nil { throw ValidationError("--now \"\(now)\" is not an ISO-8601 date-time like 2024-06-15T10:00:00Z") }
        if let timeZone, TimeZone(identifier: timeZone) == nil { throw ValidationError("--time-zone \"\(timeZone)\" is not a known time zone identifier (like Europe/Berlin)") }
    }

    func parser() -> SearchQueryParser {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone.flatMap(TimeZone.init(identifier:)) ?? TimeZone.current
        if let now, let fixed = Self.parseDate(now) {
            return SearchQueryParser(calendar: calendar, now: { fixed })
        }
        return SearchQueryParser(calendar: calendar, now: { Date() })
    }

    static func parseDate(_ text: String) -> Date? {
        let f = ISO8601DateFormatter()
        if let d = f.date(from: text) { return d }
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = f.date(from: text) { return d }
        f.formatOptions = [.withFullDate]
        return f.date(from: text)
    }
}

extension GlobalOptions {
    /// Opens the mailbox through the service (index notices, E-05, go to standard error).
    func openService(readOnly: Bool = false, clock: ClockOptions? = nil,
                     minimumSimilarity: Double? = nil,
                     backgroundEmbedding: Bool = false, cacheEntries: Int = 20) throws -> MailSearchService {
        var configuration = MailSearchService.Configuration(
            dataDirectory: dataDirectory, readOnly: readOnly, minimumSimilarity: minimumSimilarity,
            backgroundEmbedding: backgroundEmbedding, cacheCapacity: cacheEntries,
            notices: { message in FileHandle.standardError.write(Data("note: \(message)\n".utf8)) })
        if let clock {
            let parser = clock.parser()
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
enum Wording {
    static func semantic(_ reason: SemanticSkipReason, error: String? = nil) -> String {
        switch reason {
        case .modelNotInstalled: return "no embedding model installed (`mailsearch model install`)"
        case .noEmbeddings: return "no email has an embedding yet (`mailsearch index embed`)"
        case .keywordOnlyRequested: return "keyword-only search requested"
        case .queryTooShort: return "query shorter than 3 characters: prefix match only"
        case .filtersOnly: return "filters only: no text to rank"
        case .emptyQuery: return "empty query"
        case .failed: return "semantic search failed (\(error ?? "unknown error")); keyword results only"
        }
    }
}
