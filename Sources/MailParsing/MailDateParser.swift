import Foundation

/// Parses the dates found in mail: RFC 5322 and its obsolete forms, asctime (mbox `From ` lines),
/// ISO 8601-ish and US slash dates.
///
/// Accepts 2- and 3-digit years, a missing day of week, missing seconds, named zones (UT, GMT, Z,
/// EST/EDT, CST/CDT, MST/MDT, PST/PDT, CET, and more), zones in comments (`(PST)`), numeric zones
/// with or without sign, `am`/`pm`, and stray spaces and commas. A hand-written scanner: no
/// `DateFormatter`, no allocation beyond the input's bytes. Dates without a zone are taken as UTC.
public enum MailDateParser {
    /// Parses a date header value (or any text holding one); nil when no plausible date is found.
    public static func parse(_ text: String) -> Date? {
        var s = text
        return s.withUTF8 { buf in parse(bytes: buf) }
    }

    /// Parses a date from UTF-8 bytes.
    public static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard let t = epochSeconds(bytes) else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(t))
    }

    private static func pack(_ s: String) -> UInt64 {
        var v: UInt64 = 0
        for c in s.utf8.prefix(8) { v = (v << 8) | UInt64(c) }
        return v
    }

    private static let monthNames = ["january", "february", "march", "april", "may", "june", "july", "august",
                                     "september", "october", "november", "december"]

    private static let zones: [UInt64: Int] = {
        let table: [(String, Int)] = [
            ("ut", 0), ("utc", 0), ("gmt", 0), ("z", 0), ("wet", 0), ("bst", 60), ("ist", 330), ("west", 60),
            ("est", -300), ("edt", -240), ("cst", -360), ("cdt", -300), ("mst", -420), ("mdt", -360),
            ("pst", -480), ("pdt", -420), ("akst", -540), ("akdt", -480), ("hst", -600), ("hdt", -540),
            ("ast", -240), ("adt", -180), ("nst", -210), ("ndt", -150),
            ("cet", 60), ("cest", 120), ("met", 60), ("mest", 120), ("mez", 60), ("mesz", 120),
            ("eet", 120), ("eest", 180), ("msk", 180), ("msd", 240), ("jst", 540), ("kst", 540), ("hkt", 480),
            ("sgt", 480), ("awst", 480), ("acst", 570), ("aest", 600), ("aedt", 660), ("nzst", 720), ("nzdt", 780),
        ]
        var d: [UInt64: Int] = [:]
        for (name, minutes) in table { d[pack(name)] = minutes * 60 }
        return d
    }()

    private static let monthKeys: [UInt64: Int] = {
        var d: [UInt64: Int] = [:]
        for (i, name) in monthNames.enumerated() {
            let u = Array(name.utf8)
            for len in 3...min(8, u.count) {
                d[pack(String(decoding: u[0..<len], as: UTF8.self))] = i + 1
            }
        }
        d[pack("sept")] = 9
        return d
    }()

    @inline(__always) private static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
    @inline(__always) private static func isAlpha(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A }
    @inline(__always) private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0A }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    static func epochSeconds(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        let n = min(b.count, 512)  // dates are short; ignore runaway input
        var i = 0
        var hour = -1, minute = 0, second = 0
        var year = -1, month = -1, day = -1
        var zone: Int? = nil
        var namedZone: Int? = nil
        var commentZone: Int? = nil
        var pm: Bool? = nil
        var lastWasTime = false
        // Unsigned numbers in order: value, digit count, seen after the time.
        var nums: [(value: Int, digits: Int, afterTime: Bool)] = []
        nums.reserveCapacity(6)

        func readNumber(_ start: Int) -> (value: Int, digits: Int, end: Int) {
            var j = start
            var v = 0
            while j < n && isDigit(b[j]) {
                if j - start < 9 { v = v * 10 + Int(b[j] - 0x30) }
                j += 1
            }
            return (v, j - start, j)
        }

        while i < n {
            let c = b[i]
            if c == UInt8(ascii: "(") {
                // Comment, possibly holding a zone name.
                var depth = 0
                var j = i
                while j < n {
                    let d = b[j]
                    if d == UInt8(ascii: "(") { depth += 1 } else if d == UInt8(ascii: ")") { depth -= 1; if depth == 0 { break } }
                    else if isAlpha(d) && commentZone == nil {
                        var k = j
                        var key: UInt64 = 0
                        while k < n && isAlpha(b[k]) { if k - j < 8 { key = (key << 8) | UInt64(b[k] | 0x20) }; k += 1 }
                        if k - j <= 5, let z = zones[key] { commentZone = z }
                        j = k
                        continue
                    }
                    j += 1
                }
                i = j + 1
                lastWasTime = false
                continue
            }
            if isDigit(c) {
                let num = readNumber(i)
                let next: UInt8 = num.end < n ? b[num.end] : 0
                let prev: UInt8 = i > 0 ? b[i - 1] : 0
                let prev2: UInt8 = i > 1 ? b[i - 2] : 0x20
                if (prev == UInt8(ascii: "+") || prev == UInt8(ascii: "-")) && hour >= 0
                    && (isSpace(prev2) || lastWasTime || isAlpha(prev2)) && zone == nil {
                    // Numeric zone: +hhmm, -hhmm, +hh, +hh:mm.
                    let sign = prev == UInt8(ascii: "-") ? -1 : 1
                    var hh = 0, mm = 0
                    var end = num.end
                    if num.digits == 4 || num.digits == 3 {
                        hh = num.value / 100; mm = num.value % 100
                    } else if num.digits <= 2 {
                        hh = num.value
                        if next == UInt8(ascii: ":") && num.end + 1 < n && isDigit(b[num.end + 1]) {
                            let m2 = readNumber(num.end + 1)
                            mm = m2.value; end = m2.end
                        }
                    } else {
                        i = num.end; continue
                    }
                    if hh <= 23 && mm <= 59 { zone = sign * (hh * 3600 + mm * 60) }
                    i = end
                    lastWasTime = false
                    continue
                }
                if next == UInt8(ascii: ":") && hour < 0 && num.digits <= 2 && num.end + 1 < n && isDigit(b[num.end + 1]) {
                    // Time: h:mm[:ss[.fraction]]
                    hour = num.value
                    let m = readNumber(num.end + 1)
                    minute = m.value
                    var end = m.end
                    if end + 1 < n && b[end] == UInt8(ascii: ":") && isDigit(b[end + 1]) {
                        let s = readNumber(end + 1)
                        second = s.value
                        end = s.end
                        if end + 1 < n && (b[end] == UInt8(ascii: ".") || b[end] == UInt8(ascii: ",")) && isDigit(b[end + 1]) {
                            end = readNumber(end + 1).end
                        }
                    }
                    i = end
                    lastWasTime = true
                    // ISO "Z" right after the time.
                    if i < n && (b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z")) && (i + 1 == n || !isAlpha(b[i + 1])) {
                        zone = 0; i += 1
                    }
                    continue
                }
                if next == UInt8(ascii: "-") && num.digits == 4 && year < 0 && month < 0
                    && num.end + 1 < n && isDigit(b[num.end + 1]) {
                    // ISO date yyyy-mm-dd.
                    let m = readNumber(num.end + 1)
                    if m.end + 1 < n && b[m.end] == UInt8(ascii: "-") && isDigit(b[m.end + 1]) {
                        let d = readNumber(m.end + 1)
                        year = num.value; month = m.value; day = d.value
                        i = d.end
                        if i < n && (b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: "t")) { i += 1 }
                        lastWasTime = false
                        continue
                    }
                }
                if next == UInt8(ascii: "/") && month < 0 && num.end + 1 < n && isDigit(b[num.end + 1]) {
                    // Slash date: m/d/y (US), d/m/y when the first part exceeds 12, y/m/d with a 4-digit first part.
                    let p2 = readNumber(num.end + 1)
                    if p2.end + 1 < n && b[p2.end] == UInt8(ascii: "/") && isDigit(b[p2.end + 1]) {
                        let p3 = readNumber(p2.end + 1)
                        if num.digits == 4 {
                            year = num.value; month = p2.value; day = p3.value
                        } else {
                            year = p3.value
                            if num.value > 12 { day = num.value; month = p2.value } else { month = num.value; day = p2.value }
                        }
                        i = p3.end
                        lastWasTime = false
                        continue
                    }
                }
                if nums.count < 8 { nums.append((num.value, num.digits, hour >= 0)) }
                i = num.end
                lastWasTime = false
                continue
            }
            if isAlpha(c) {
                var j = i
                var key: UInt64 = 0
                while j < n && isAlpha(b[j]) { if j - i < 8 { key = (key << 8) | UInt64(b[j] | 0x20) }; j += 1 }
                let len = j - i
                if len >= 3 && len <= 9 && month < 0, let m = monthKeys[key] {
                    month = m
                } else if len == 2 && (key == pack("am") || key == pack("pm")) {
                    pm = key == pack("pm")
                } else if len <= 5, let z = zones[key], namedZone == nil {
                    namedZone = z
                }
                i = j
                lastWasTime = false
                continue
            }
            // Spaces, commas and signs keep "just after the time" alive: "14:11:14 -0800", "14:11:14+01:00".
            if !isSpace(c) && c != UInt8(ascii: ",") && c != UInt8(ascii: "+") && c != UInt8(ascii: "-") { lastWasTime = false }
            i += 1
        }

        // Assign day and year from the unsigned numbers.
        var used = [Bool](repeating: false, count: nums.count)
        if day < 0 {
            for (k, x) in nums.enumerated() where x.digits <= 2 && x.value >= 1 && x.value <= 31 {
                day = x.value; used[k] = true; break
            }
        }
        if year < 0 {
            for (k, x) in nums.enumerated() where !used[k] {
                year = x.value; used[k] = true; break
            }
        }
        if zone == nil {
            // An unsigned 4-digit number after the time is an obsolete numeric zone (taken as positive).
            for (k, x) in nums.enumerated() where !used[k] && x.afterTime && x.digits == 4 {
                let hh = x.value / 100, mm = x.value % 100
                if hh <= 23 && mm <= 59 { zone = hh * 3600 + mm * 60 }
                break
            }
        }
        guard month >= 1, month <= 12, day >= 1, day <= 31, year >= 0 else { return nil }
        // Two-digit years (also written "0001" by some clients): 00-49 are 2000s, 50-99 1900s (RFC 5322 4.3).
        if year < 50 { year += 2000 } else if year < 100 { year += 1900 } else if year < 1000 { year += 1900 }
        guard year >= 1000, year <= 9999 else { return nil }
        if hour < 0 { hour = 0; minute = 0; second = 0 }
        if let pm = pm {
            if pm && hour < 12 { hour += 12 } else if !pm && hour == 12 { hour = 0 }
        }
        guard hour <= 24, minute <= 59, second <= 61 else { return nil }
        let offset = zone ?? namedZone ?? commentZone ?? 0
        let days = daysFromCivil(year, month, day)
        return days * 86400 + hour * 3600 + minute * 60 + min(second, 59) - offset
    }
}
