import Foundation
import MailModel

/// Turns what a person types into the search box into structured filters plus the free text
/// left for keyword and semantic search (FR-SEARCH-04).
///
/// "from john last week with attachments" becomes sender "john", the previous 7 days and
/// "has an attachment", with no text left; "budget report from sarah" keeps "budget report".
/// Gmail-style operators (`from:`, `is:unread`, `after:2024-03-01` …) work too, and so do Gmail's
/// `-` (negation), `OR`, `{…}` and parentheses, on words and filters alike: text-only parts stay
/// in the free text (which `FTS5QueryBuilder` reads with the same grammar), negated and OR-ed
/// filters become nested `SearchFilters` (`excluded`, `anyOf`). The words it recognises, and how
/// it tells "read the budget report" from "unread promotions", are listed in
/// `docs/query-language.md`.
///
/// Dates resolve against the injected clock and calendar; days start at midnight in
/// `calendar.timeZone`. Parsing is pure and allocation-light: no I/O, no shared mutable state,
/// no regular expressions or date formatters.
public struct SearchQueryParser: Sendable {
    public let calendar: Calendar
    public let now: @Sendable () -> Date

    /// - Parameters:
    ///   - calendar: The calendar, with its time zone and first weekday, that dates resolve in.
    ///   - now: The clock; called once per `parse`.
    public init(calendar: Calendar, now: @escaping @Sendable () -> Date) {
        self.calendar = calendar
        self.now = now
    }

    /// Splits `text` into filters and free text.
    ///
    /// The free text keeps the user's words, casing, quotes, `-`, `OR` and parentheses in their
    /// order, separated by single spaces; a quoted phrase is always text, never a filter. Free text
    /// made only of exclusions (`-draft`) has nothing to rank and moves to `filters.text`. Never
    /// fails: input it does not understand stays text.
    public func parse(_ text: String, scope: SearchScope = .allMail) -> SearchQuery {
        let tokens = QueryTokenizer.tokenize(text)
        guard !tokens.isEmpty else { return SearchQuery(text: "", scope: scope) }
        var scanner = QueryPhraseScanner(
            tokens: tokens,
            dates: DateExpressionParser(calendar: calendar, now: now())
        )
        let (freeText, filters) = scanner.run()
        var query = SearchQuery(text: freeText, filters: filters, scope: scope)
        if filters.sender != nil {
            // "built from git": the same words without prose senders, for when nobody is called that.
            var plain = QueryPhraseScanner(tokens: tokens, dates: DateExpressionParser(calendar: calendar, now: now()))
            plain.proseSenders = false
            let (plainText, plainFilters) = plain.run()
            if plainFilters.sender == nil {
                query.proseSenderFallback = SearchQuery.Reading(text: plainText, filters: plainFilters)
            }
        }
        return query
    }
}
