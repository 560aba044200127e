import Foundation
import MailModel
import SearchEngine

/// A pinned clock (Saturday 2024-06-15 10:00 local) and calendar (weeks from Monday) in one zone.
struct QueryParsingClock {
    let calendar: Calendar
    let now: Date

    init(zone: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        calendar.firstWeekday = 2
        self.calendar = calendar
        self.now = calendar.date(from: DateComponents(year: 2024, month: 6, day: 15, hour: 10))!
    }

    var parser: SearchQueryParser { parser(at: now) }

    func parser(at instant: Date) -> SearchQueryParser {
        SearchQueryParser(calendar: calendar, now: { instant })
    }

    /// Local midnight at the start of the day.
    func day(_ year: Int, _ month: Int, _ day: Int) -> Date {
        time(year, month, day, 0)
    }

    func time(_ year: Int, _ month: Int, _ day: Int, _ hour: Int) -> Date {
        calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour))!
    }
}

enum QueryParsingProperties {
    /// True when `output`, ignoring whitespace, is a subsequence of `input`, ignoring whitespace:
    /// the parser may drop words and change spacing, but never writes anything new.
    static func textIsDrawnFromInput(_ output: String, _ input: String) -> Bool {
        var source = input.unicodeScalars.filter { !$0.properties.isWhitespace }.makeIterator()
        for scalar in output.unicodeScalars where !scalar.properties.isWhitespace {
            var found = false
            while let candidate = source.next() {
                if candidate == scalar { found = true; break }
            }
            if !found { return false }
        }
        return true
    }
}

/// Seeded random queries from a soup of filter words, operators, quotes, punctuation and unicode.
struct QueryParsingRandomInput {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    private static let soup: [String] = [
        "from", "to", "From", "To", "john", "John", "Smith", "sarah@example.com", "the", "our", "with", "has",
        "attachments", "attachment", "files", "a", "pdf", "images", "in", "sent", "inbox", "promotions", "social",
        "updates", "forums", "primary", "emails", "unread", "read", "starred", "last", "past", "this", "week",
        "month", "year", "days", "7", "3", "ago", "today", "yesterday", "before", "after", "since", "on", "until",
        "March", "january", "2023", "2024-03-01", "2024/13/45", "Monday", "older", "newer", "than",
        "from:", "to:", "subject:", "is:unread", "is:", "has:attachment", "filename:pdf", "category:social",
        "in:Work", "label:", "after:2024-01-01", "before:", "older_than:3d", "newer_than:", "-from:x",
        "\"", "\u{201C}", "\u{201D}", ":", ",", ".", "(", ")", "*", "^", "NEAR", "AND", "OR", "NOT",
        "😀", "🎉", "é", "\u{0301}", "\u{200B}", "日本語", "\u{FEFF}", "\t", "\n", "  ", "\u{3000}", "\r\n",
    ]

    mutating func next() -> String {
        let count = Int(random() % 12)
        var text = ""
        for _ in 0..<count {
            text += Self.soup[Int(random() % UInt64(Self.soup.count))]
            switch random() % 4 {
            case 0: break  // glue to the next piece
            default: text += " "
            }
        }
        return text
    }

    /// SplitMix64.
    private mutating func random() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
