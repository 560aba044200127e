import Foundation

/// IMAP's `date-time` (INTERNALDATE, APPEND): `"17-Jul-1996 02:44:25 -0700"`, with the day
/// written in one or two digits or space-padded (` 7-Jul-1996`).
///
/// Computed by hand rather than with a `DateFormatter`: the formats are fixed, the parser must be
/// cheap for thousands of FETCH responses, and nothing here may depend on the process's locale.
public enum IMAPDateTime {
    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The instant `bytes` names, or nil when they are not a valid date-time.
    public static func parse(_ bytes: some Collection<UInt8>) -> Date? {
        var text = Array(bytes)
        while text.first == UInt8(ascii: " ") { text.removeFirst() }
        // day-month-year SP hh:mm:ss SP zone
        let parts = text.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true)
        guard parts.count == 3 else { return nil }
        let dayMonthYear = parts[0].split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        let clock = parts[1].split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard dayMonthYear.count == 3, clock.count == 3,
              let day = number(dayMonthYear[0], digits: 1...2),
              let month = month(dayMonthYear[1]),
              let year = number(dayMonthYear[2], digits: 4...4),
              let hour = number(clock[0], digits: 2...2), hour < 24,
              let minute = number(clock[1], digits: 2...2), minute < 60,
              let second = number(clock[2], digits: 2...2), second <= 60,
              let offset = zoneOffset(parts[2]),
              day >= 1, day <= daysIn(month: month, year: year)
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// `date` written as a date-time in the zone `secondsFromGMT` (whole minutes), without quotes.
    public static func format(_ date: Date, secondsFromGMT: Int = 0) -> String {
        let offset = (Swift.min(Swift.max(secondsFromGMT, -86_340), 86_340) / 60) * 60
        let local = IMAPDateTime.wholeSeconds(date) + offset
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let secondOfDay = local - days * 86_400
        let (year, month, day) = civilFromDays(days)
        let sign = offset < 0 ? "-" : "+"
        let zoneMinutes = abs(offset) / 60
        return "\(pad(day, 2))-\(monthNames[month - 1])-\(pad(year, 4)) "
            + "\(pad(secondOfDay / 3_600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)) "
            + "\(sign)\(pad(zoneMinutes / 60, 2))\(pad(zoneMinutes % 60, 2))"
    }

    /// Seconds since 1970 rounded down, clamped to years 1…9999 (a `Date` can hold infinities and
    /// instants no IMAP date can write; converting those to `Int` would trap).
    static func wholeSeconds(_ date: Date) -> Int {
        let t = date.timeIntervalSince1970
        guard t.isFinite else { return t < 0 ? -62_135_596_800 : 253_402_300_799 }
        return Int(Swift.min(Swift.max(t, -62_135_596_800), 253_402_300_799).rounded(.down))
    }

    static func pad(_ n: Int, _ width: Int) -> String {
        let s = String(n)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    private static func number(_ bytes: ArraySlice<UInt8>, digits: ClosedRange<Int>) -> Int? {
        guard digits.contains(bytes.count) else { return nil }
        var n = 0
        for b in bytes {
            guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { return nil }
            n = n * 10 + Int(b - UInt8(ascii: "0"))
        }
        return n
    }

    private static func month(_ bytes: ArraySlice<UInt8>) -> Int? {
        let name = String(decoding: bytes, as: UTF8.self).lowercased()
        return monthNames.firstIndex { $0.lowercased() == name }.map { $0 + 1 }
    }

    /// `+hhmm` / `-hhmm` → seconds east of UTC.
    private static func zoneOffset(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count == 5, let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"),
              let hours = number(bytes.dropFirst().prefix(2), digits: 2...2), hours < 24,
              let minutes = number(bytes.dropFirst(3), digits: 2...2), minutes < 60
        else { return nil }
        let seconds = hours * 3_600 + minutes * 60
        return sign == UInt8(ascii: "-") ? -seconds : seconds
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The inverse of `daysFromCivil`.
    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
