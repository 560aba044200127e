import Foundation
import MailModel

/// Recognises date phrases ("last week", "in March 2024", "3 days ago", "before 2024-03-01") in a
/// token stream and resolves them against an injected clock and calendar (its time zone decides
/// where days begin). Hand-written: no `DateFormatter`, no `NSDataDetector`.
struct DateExpressionParser {
    let calendar: Calendar
    let now: Date

    /// A date phrase found at some token index.
    struct Match {
        /// How many tokens the phrase spans.
        var length: Int
        var range: DateRange
        /// True for phrases that are dates only when no free text follows them
        /// ("in January", "on Monday"): "meeting in January notes" stays text.
        var needsFilterAfter: Bool
    }

    /// A calendar period: a day, week, month or year, or a rolling window ending now.
    private struct Period {
        var start: Date
        /// Exclusive end; nil for rolling windows that run up to now.
        var end: Date?

        var range: DateRange { DateRange(start: start, end: end) }
    }

    private enum Unit {
        case day, week, month, year

        var component: Calendar.Component {
            switch self {
            case .day: return .day
            case .week: return .weekOfYear
            case .month: return .month
            case .year: return .year
            }
        }
    }

    // MARK: - Phrases

    func match(_ tokens: [QueryToken], at index: Int) -> Match? {
        guard let first = word(tokens, index) else { return nil }
        switch first {
        case "today", "yesterday":
            return periodWord(first).map { Match(length: 1, range: $0.range, needsFilterAfter: false) }
        case "this":
            guard let unit = unit(word(tokens, index + 1), allowPlural: false),
                  let period = calendarPeriod(unit, containing: now) else { return nil }
            return Match(length: 2, range: period.range, needsFilterAfter: false)
        case "last", "past":
            return lastOrPast(tokens, at: index)
        case "in", "within", "over", "during":
            // "in the last 7 days", "within the past week", "within 3 days"
            if word(tokens, index + 1) == "the", let inner = lastOrPast(tokens, at: index + 2) {
                return Match(length: inner.length + 2, range: inner.range, needsFilterAfter: false)
            }
            if first == "within", let rolling = rollingCount(tokens, at: index + 1) {
                return Match(length: rolling.length + 1, range: rolling.range, needsFilterAfter: false)
            }
            guard first == "in" || first == "during",
                  let (length, period) = monthOrYear(tokens, at: index + 1) else { return nil }
            return Match(length: length + 1, range: period.range, needsFilterAfter: true)
        case "older", "newer":
            // "older than a month", "newer than 3 days"
            guard word(tokens, index + 1) == "than",
                  let count = number(word(tokens, index + 2)),
                  let unit = unit(word(tokens, index + 3), allowPlural: true),
                  let instant = calendar.date(byAdding: unit.component, value: -count, to: now) else { return nil }
            let range = first == "older" ? DateRange(end: instant) : DateRange(start: instant)
            return Match(length: 4, range: range, needsFilterAfter: false)
        case "before", "after", "since", "until", "till", "on", "from", "between":
            return anchored(first, tokens, at: index)
        default:
            // "3 days ago", "a week ago"
            guard let count = number(first),
                  let unit = unit(word(tokens, index + 1), allowPlural: true),
                  word(tokens, index + 2) == "ago",
                  let instant = calendar.date(byAdding: unit.component, value: -count, to: now),
                  let period = calendarPeriod(unit, containing: instant) else { return nil }
            return Match(length: 3, range: period.range, needsFilterAfter: false)
        }
    }

    /// "last week", "past month", "last 7 days", "past 2 weeks", "last Monday".
    private func lastOrPast(_ tokens: [QueryToken], at index: Int) -> Match? {
        guard let first = word(tokens, index), first == "last" || first == "past" else { return nil }
        if let unit = unit(word(tokens, index + 1), allowPlural: false) {
            guard let period = rolling(1, unit) else { return nil }
            return Match(length: 2, range: period.range, needsFilterAfter: false)
        }
        if let rolling = rollingCount(tokens, at: index + 1) {
            return Match(length: rolling.length + 1, range: rolling.range, needsFilterAfter: false)
        }
        if first == "last", let weekday = QueryVocabulary.weekdays[word(tokens, index + 1) ?? ""],
           let day = mostRecent(weekday: weekday, includingToday: false) {
            return Match(length: 2, range: day.range, needsFilterAfter: false)
        }
        return nil
    }

    /// "7 days", "2 weeks" as a rolling window ending now.
    private func rollingCount(_ tokens: [QueryToken], at index: Int) -> Match? {
        guard let count = number(word(tokens, index)),
              let unit = unit(word(tokens, index + 1), allowPlural: true),
              let period = rolling(count, unit) else { return nil }
        return Match(length: 2, range: period.range, needsFilterAfter: false)
    }

    /// "before March", "after 2024-03-01", "since Monday", "on 2024-03-01", "until 2023",
    /// "from last week", and the ranges "from March to May", "between 2024-01-01 and 2024-02-01".
    private func anchored(_ preposition: String, _ tokens: [QueryToken], at index: Int) -> Match? {
        guard let (length, period, isWeekday) = anchor(tokens, at: index + 1,
                                                        allowRelative: preposition == "since" || preposition == "from")
        else { return nil }
        if preposition == "from" || preposition == "between",
           let joiner = word(tokens, index + 1 + length),
           joiner == (preposition == "between" ? "and" : "to") || (preposition == "from" && (joiner == "until" || joiner == "till")),
           let (endLength, endPeriod, _) = anchor(tokens, at: index + 2 + length, allowRelative: false),
           let end = endPeriod.end, period.start < end {
            return Match(length: length + endLength + 2, range: DateRange(start: period.start, end: end),
                         needsFilterAfter: false)
        }
        let range: DateRange
        switch preposition {
        case "before": range = DateRange(end: period.start)
        case "after":
            guard let end = period.end else { return nil }
            range = DateRange(start: end)
        case "since": range = DateRange(start: period.start)
        case "until", "till":
            guard let end = period.end else { return nil }
            range = DateRange(end: end)
        case "on", "from": range = period.range
        default: return nil  // "between" without its second half
        }
        return Match(length: length + 1, range: range, needsFilterAfter: isWeekday && preposition == "on")
    }

    /// The period a preposition points at: a date literal, `today`, `yesterday`, a weekday,
    /// a month with or without year, a year, or (when `allowRelative`) "last/past/this …".
    private func anchor(_ tokens: [QueryToken], at index: Int, allowRelative: Bool) -> (Int, Period, Bool)? {
        guard let first = word(tokens, index) else { return nil }
        if let day = dateLiteral(first) { return (1, day, false) }
        if first == "today" || first == "yesterday" { return periodWord(first).map { (1, $0, false) } }
        if let weekday = QueryVocabulary.weekdays[first] {
            return mostRecent(weekday: weekday, includingToday: true).map { (1, $0, true) }
        }
        if let (length, period) = monthOrYear(tokens, at: index) { return (length, period, false) }
        if allowRelative, first == "last" || first == "past" || first == "this",
           let inner = match(tokens, at: index), let start = inner.range.start {
            return (inner.length, Period(start: start, end: inner.range.end), false)
        }
        return nil
    }

    /// "March", "March 2024", "2023" starting at `index`: the token count and the period.
    private func monthOrYear(_ tokens: [QueryToken], at index: Int) -> (Int, Period)? {
        guard let first = word(tokens, index) else { return nil }
        if let month = QueryVocabulary.months[first] {
            if let year = year(word(tokens, index + 1)) {
                return monthPeriod(year: year, month: month).map { (2, $0) }
            }
            let today = calendar.dateComponents([.year, .month], from: now)
            guard let currentYear = today.year, let currentMonth = today.month else { return nil }
            let year = month <= currentMonth ? currentYear : currentYear - 1
            return monthPeriod(year: year, month: month).map { (1, $0) }
        }
        if let year = year(first) {
            guard let start = calendar.date(from: DateComponents(year: year, month: 1, day: 1)),
                  let end = calendar.date(byAdding: .year, value: 1, to: start) else { return nil }
            return (1, Period(start: start, end: end))
        }
        return nil
    }

    // MARK: - Operator values

    /// `after:2024-03-01` (inclusive, as in Gmail) and `before:2024/03/01` (exclusive).
    func operatorDate(_ value: String, isAfter: Bool) -> DateRange? {
        guard let day = dateLiteral(value) else { return nil }
        return isAfter ? DateRange(start: day.start) : DateRange(end: day.start)
    }

    /// `older_than:3d`, `newer_than:2w` (d, w, m, y), measured from the exact current instant.
    func operatorAge(_ value: String, isOlder: Bool) -> DateRange? {
        let utf8 = Array(value.utf8)
        guard utf8.count >= 2, utf8.count <= 6 else { return nil }
        var count = 0
        for byte in utf8.dropLast() {
            guard byte >= 48, byte <= 57 else { return nil }
            count = count * 10 + Int(byte - 48)
        }
        let unit: Unit
        switch utf8[utf8.count - 1] {
        case UInt8(ascii: "d"): unit = .day
        case UInt8(ascii: "w"): unit = .week
        case UInt8(ascii: "m"): unit = .month
        case UInt8(ascii: "y"): unit = .year
        default: return nil
        }
        guard let instant = calendar.date(byAdding: unit.component, value: -count, to: now) else { return nil }
        return isOlder ? DateRange(end: instant) : DateRange(start: instant)
    }

    // MARK: - Resolution

    private func periodWord(_ word: String) -> Period? {
        let today = calendar.startOfDay(for: now)
        if word == "today" {
            return calendar.date(byAdding: .day, value: 1, to: today).map { Period(start: today, end: $0) }
        }
        return calendar.date(byAdding: .day, value: -1, to: today).map { Period(start: $0, end: today) }
    }

    /// The day, week, month or year that contains `date` (weeks start on `calendar.firstWeekday`).
    private func calendarPeriod(_ unit: Unit, containing date: Date) -> Period? {
        let component: Calendar.Component = unit == .day ? .day : unit.component
        guard let interval = calendar.dateInterval(of: component, for: date) else { return nil }
        return Period(start: interval.start, end: interval.end)
    }

    /// The last `count` units up to now, from the start of that day: "last 7 days" starts at
    /// midnight seven days ago and stays open at the end.
    private func rolling(_ count: Int, _ unit: Unit) -> Period? {
        guard let back = calendar.date(byAdding: unit.component, value: -count, to: now) else { return nil }
        return Period(start: calendar.startOfDay(for: back), end: nil)
    }

    private func monthPeriod(year: Int, month: Int) -> Period? {
        guard let start = calendar.date(from: DateComponents(year: year, month: month, day: 1)),
              let end = calendar.date(byAdding: .month, value: 1, to: start) else { return nil }
        return Period(start: start, end: end)
    }

    /// The most recent such weekday, today included or not, as a whole day.
    private func mostRecent(weekday: Int, includingToday: Bool) -> Period? {
        let today = calendar.startOfDay(for: now)
        let current = calendar.component(.weekday, from: today)
        var back = (current - weekday + 7) % 7
        if back == 0, !includingToday { back = 7 }
        guard let start = calendar.date(byAdding: .day, value: -back, to: today),
              let end = calendar.date(byAdding: .day, value: 1, to: start) else { return nil }
        return Period(start: start, end: end)
    }

    // MARK: - Words

    private func word(_ tokens: [QueryToken], _ index: Int) -> String? {
        guard index < tokens.count, tokens[index].isWord else { return nil }
        return tokens[index].word
    }

    private func unit(_ word: String?, allowPlural: Bool) -> Unit? {
        switch word {
        case "day": return .day
        case "week": return .week
        case "month": return .month
        case "year": return .year
        case "days" where allowPlural: return .day
        case "weeks" where allowPlural: return .week
        case "months" where allowPlural: return .month
        case "years" where allowPlural: return .year
        default: return nil
        }
    }

    /// "3", "a", "seven": a count from 0 to 9999.
    private func number(_ word: String?) -> Int? {
        guard let word else { return nil }
        if let value = QueryVocabulary.numberWords[word] { return value }
        let utf8 = word.utf8
        guard !utf8.isEmpty, utf8.count <= 4 else { return nil }
        var value = 0
        for byte in utf8 {
            guard byte >= 48, byte <= 57 else { return nil }
            value = value * 10 + Int(byte - 48)
        }
        return value
    }

    /// A four-digit year from 1900 to 2199.
    private func year(_ word: String?) -> Int? {
        guard let word, word.utf8.count == 4, let value = number(word), value >= 1900, value < 2200 else { return nil }
        return value
    }

    /// `YYYY-MM-DD` or `YYYY/MM/DD` (month and day may have one digit) as that whole day;
    /// impossible dates (2024-02-30) are rejected.
    private func dateLiteral(_ word: String) -> Period? {
        var parts: [Int] = []
        var current = 0
        var digits = 0
        var separator: UInt8 = 0
        var yearDigits = 0
        for byte in word.utf8 {
            if byte >= 48, byte <= 57 {
                guard digits < 4 else { return nil }
                current = current * 10 + Int(byte - 48)
                digits += 1
            } else if byte == UInt8(ascii: "-") || byte == UInt8(ascii: "/") {
                guard digits > 0, separator == 0 || separator == byte, parts.count < 2 else { return nil }
                if parts.isEmpty { yearDigits = digits }
                separator = byte
                parts.append(current)
                current = 0
                digits = 0
            } else {
                return nil
            }
        }
        guard digits > 0, parts.count == 2 else { return nil }
        parts.append(current)
        let (year, month, day) = (parts[0], parts[1], parts[2])
        guard yearDigits == 4, year >= 1900, year < 2200, (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        guard let start = calendar.date(from: DateComponents(year: year, month: month, day: day)),
              calendar.component(.day, from: start) == day,
              let end = calendar.date(byAdding: .day, value: 1, to: start) else { return nil }
        return Period(start: start, end: end)
    }
}
