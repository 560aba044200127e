/// Calendar arithmetic on Unix seconds, without Foundation's calendars, locales or time zones,
/// so that every platform prints the same dates.
struct CivilTime {
    var year: Int
    var month: Int      // 1...12
    var day: Int        // 1...31
    var hour: Int
    var minute: Int
    var second: Int
    var weekday: Int    // 0 = Sunday

    /// The wall-clock time at `unixSeconds` in a zone `offsetMinutes` east of UTC.
    init(unixSeconds: Int64, offsetMinutes: Int) {
        let local = unixSeconds + Int64(offsetMinutes) * 60
        var days = local / 86_400
        var secondsOfDay = local % 86_400
        if secondsOfDay < 0 {
            secondsOfDay += 86_400
            days -= 1
        }
        hour = Int(secondsOfDay / 3600)
        minute = Int(secondsOfDay / 60 % 60)
        second = Int(secondsOfDay % 60)
        weekday = Int(((days % 7) + 11) % 7)   // 1970-01-01 was a Thursday (4)
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        day = Int(doy - (153 * mp + 2) / 5 + 1)
        month = Int(mp < 10 ? mp + 3 : mp - 9)
        year = Int(yoe + era * 400) + (month <= 2 ? 1 : 0)
    }

    /// Unix seconds of 00:00 UTC on the given civil date (Hinnant's days_from_civil).
    static func unixSeconds(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return (era * 146_097 + doe - 719_468) * 86_400
    }

    static let weekdayNames: [StaticString] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let monthNames: [StaticString] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    static let longWeekdayNames: [StaticString] = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    static let longMonthNames: [StaticString] = [
        "January", "February", "March", "April", "May", "June",
        "July", "August", "September", "October", "November", "December",
    ]
}

extension Array where Element == UInt8 {
    /// `Tue, 4 Mar 2025`: the start of both date forms below.
    mutating func appendWeekdayAndDate(_ t: CivilTime) {
        append(CivilTime.weekdayNames[t.weekday])
        append(", ")
        appendDecimal(t.day)
        append(32)
        append(CivilTime.monthNames[t.month - 1])
        append(32)
        appendDecimal(t.year, width: 4)
    }

    /// An RFC 5322 date: `Tue, 4 Mar 2025 09:15:22 -0500`.
    mutating func appendRFC5322Date(_ unixSeconds: Int64, offsetMinutes: Int) {
        let t = CivilTime(unixSeconds: unixSeconds, offsetMinutes: offsetMinutes)
        appendWeekdayAndDate(t)
        append(32)
        appendClock(t)
        append(32)
        appendZone(offsetMinutes)
    }

    mutating func appendClock(_ t: CivilTime) {
        appendDecimal(t.hour, width: 2)
        append(UInt8(ascii: ":"))
        appendDecimal(t.minute, width: 2)
        append(UInt8(ascii: ":"))
        appendDecimal(t.second, width: 2)
    }

    mutating func appendZone(_ offsetMinutes: Int) {
        append(offsetMinutes < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
        let magnitude = offsetMinutes < 0 ? -offsetMinutes : offsetMinutes
        appendDecimal(magnitude / 60, width: 2)
        appendDecimal(magnitude % 60, width: 2)
    }

    /// The mbox separator date (UTC), Gmail Takeout style: `Tue Mar 04 09:15:22 +0000 2025`.
    mutating func appendMboxDate(_ unixSeconds: Int64) {
        let t = CivilTime(unixSeconds: unixSeconds, offsetMinutes: 0)
        append(CivilTime.weekdayNames[t.weekday])
        append(32)
        append(CivilTime.monthNames[t.month - 1])
        append(32)
        appendDecimal(t.day, width: 2)
        append(32)
        appendClock(t)
        append(" +0000 ")
        appendDecimal(t.year, width: 4)
    }

    /// The date in a reply's attribution line: `Tue, 4 Mar 2025 at 09:15`.
    mutating func appendAttributionDate(_ unixSeconds: Int64, offsetMinutes: Int) {
        let t = CivilTime(unixSeconds: unixSeconds, offsetMinutes: offsetMinutes)
        appendWeekdayAndDate(t)
        append(" at ")
        appendDecimal(t.hour, width: 2)
        append(UInt8(ascii: ":"))
        appendDecimal(t.minute, width: 2)
    }
}
