/// The DATA payload (RFC 5321 §4.5.2): every line end made CRLF (a bare LF or CR becomes CRLF), a
/// line starting with `.` gets another `.` in front, the last line ends in CRLF, and `.` CRLF
/// ends the data. Nothing in the message can end the data early.
public enum SMTPDataEncoder {
    public static func encode(_ message: some Collection<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(message.count + message.count / 50 + 5)
        var atLineStart = true
        var previousWasCR = false
        for byte in message {
            if previousWasCR {
                previousWasCR = false
                if byte == 10 { continue }  // CRLF, already written
            }
            switch byte {
            case 13:
                out += [13, 10]
                atLineStart = true
                previousWasCR = true
            case 10:
                out += [13, 10]
                atLineStart = true
            default:
                if atLineStart && byte == UInt8(ascii: ".") { out.append(UInt8(ascii: ".")) }
                out.append(byte)
                atLineStart = false
            }
        }
        if !atLineStart { out += [13, 10] }
        out += [UInt8(ascii: "."), 13, 10]
        return out
    }

    /// The message's size as SIZE= counts it: the bytes with CRLF line ends, before dot-stuffing
    /// (RFC 1870 asks for an estimate; this one is exact for what is sent minus the stuffing).
    public static func wireSize(_ message: some Collection<UInt8>) -> Int {
        var size = 0
        var previousWasCR = false
        var atLineStart = true
        for byte in message {
            if previousWasCR {
                previousWasCR = false
                if byte == 10 { continue }
            }
            switch byte {
            case 13: size += 2; previousWasCR = true; atLineStart = true
            case 10: size += 2; atLineStart = true
            default: size += 1; atLineStart = false
            }
        }
        return atLineStart ? size : size + 2
    }

    /// True when a byte has its high bit set: the message needs BODY=8BITMIME (or SMTPUTF8).
    public static func requires8Bit(_ message: some Collection<UInt8>) -> Bool {
        message.contains { $0 >= 0x80 }
    }

    /// The longest line, in bytes without its line end (RFC 5321 limits lines to 998).
    public static func longestLine(_ message: some Collection<UInt8>) -> Int {
        var longest = 0
        var current = 0
        for byte in message {
            if byte == 10 || byte == 13 { longest = max(longest, current); current = 0 } else { current += 1 }
        }
        return max(longest, current)
    }
}
