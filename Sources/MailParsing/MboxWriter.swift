import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes messages as mboxrd, the format `MboxReader` reads: each message after a `From sender
/// date` line, every line matching `>*From ` given one more `>`, and a blank line after it. A
/// message read back has the bytes it was written with, except that one not ending in a line
/// break gains one (mbox cannot tell a message's last line break from the separator's).
public enum MboxWriter {
    /// Appends one message to `out`. `sender` is the envelope sender of the `From ` line (an
    /// address without spaces; anything else is written as `MAILER-DAEMON`), `date` its date, in UTC.
    public static func append(_ message: [UInt8], sender: String?, date: Date?, to out: inout [UInt8]) {
        out.append(contentsOf: fromLine(sender: sender, date: date).utf8)
        appendQuotingFromLines(message, to: &out)
        if out.last != 0x0A { out.append(0x0A) }
        out.append(0x0A)
    }

    /// `From sender Thu Mar  4 14:11:14 2024\n`: asctime in UTC.
    public static func fromLine(sender: String?, date: Date?) -> String {
        let envelope: String
        if let sender, !sender.isEmpty, sender.utf8.count <= 320,
           sender.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) {
            envelope = sender
        } else {
            envelope = "MAILER-DAEMON"
        }
        return "From \(envelope) \(asctime(date ?? Date(timeIntervalSince1970: 0)))\n"
    }

    static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Thu Mar  4 14:11:14 2024` (the day padded with a space), in UTC, in English whatever the locale.
    static func asctime(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let day = parts.tm_mday < 10 ? " \(parts.tm_mday)" : "\(parts.tm_mday)"
        return "\(weekdays[Int(parts.tm_wday) % 7]) \(months[Int(parts.tm_mon) % 12]) \(day) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) \(parts.tm_year + 1900)"
    }

    /// mboxrd: a line that matches `^>*From ` gets one more `>`.
    public static func appendQuotingFromLines(_ raw: [UInt8], to out: inout [UInt8]) {
        raw.withUnsafeBufferPointer { bytes in
            let count = bytes.count
            var lineStart = 0
            while lineStart < count {
                var k = lineStart
                while k < count && bytes[k] == UInt8(ascii: ">") { k += 1 }
                if MboxReader.isFromLine(bytes, k) { out.append(UInt8(ascii: ">")) }
                var end = lineStart
                while end < count && bytes[end] != 0x0A { end += 1 }
                let next = end < count ? end + 1 : end
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[lineStart..<next]))
                lineStart = next
            }
        }
    }
}
