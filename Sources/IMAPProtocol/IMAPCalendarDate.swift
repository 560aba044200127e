import Foundation

/// A calendar day for SEARCH's SINCE and BEFORE, written `1-Feb-2024` (RFC 3501 `date`).
///
/// Servers compare it with each message's INTERNALDATE day in their own zone, so a search by day
/// is only as exact as a day: the sync engine asks from a day earlier and filters by date itself.
public struct IMAPCalendarDate: Hashable, Sendable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    /// Nil unless the date exists (1…12, the month's days, years 1…9999).
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month),
              day >= 1, day <= IMAPDateTime.daysIn(month: month, year: year)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The day `date` falls on in the zone `secondsFromGMT` east of UTC.
    public init(_ date: Date, secondsFromGMT: Int = 0) {
        let local = IMAPDateTime.wholeSeconds(date) + Swift.min(Swift.max(secondsFromGMT, -86_400), 86_400)
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let civil = IMAPDateTime.civilFromDays(days)
        year = Swift.min(Swift.max(civil.year, 1), 9999)
        month = civil.month
        day = civil.day
    }

    /// `d-MMM-yyyy`, as IMAP writes it: `5-Mar-2024`.
    public var description: String {
        "\(day)-\(IMAPDateTime.monthNames[month - 1])-\(IMAPDateTime.pad(year, 4))"
    }
}
