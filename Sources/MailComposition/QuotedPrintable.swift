/// Quoted-printable (RFC 2045 §6.7) for text parts: CRLF line ends kept as line ends, lines of at
/// most 76 characters with soft breaks, `=`, controls and bytes over 126 encoded, a space or tab
/// before a line end encoded, and a `.` or `F` starting a line encoded (dot-stuffing and mbox's
/// "From " never touch the text).
enum QuotedPrintable {
    static func encode(_ text: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.count + text.count / 8)
        var lineLength = 0
        let hex = Array("0123456789ABCDEF".utf8)
        let lines = splitLines(text)
        for (index, line) in lines.enumerated() {
            lineLength = 0
            for (position, byte) in line.enumerated() {
                let isLast = position == line.count - 1
                let literal: Bool
                switch byte {
                case UInt8(ascii: "="): literal = false
                case UInt8(ascii: " "), UInt8(ascii: "\t"): literal = !isLast
                case UInt8(ascii: "."), UInt8(ascii: "F"): literal = position != 0
                case 33...126: literal = true
                default: literal = false
                }
                let width = literal ? 1 : 3
                // Room for a soft break: a line may hold 75 characters plus `=`.
                if lineLength + width > (isLast ? 76 : 75) {
                    out += [UInt8(ascii: "="), 13, 10]
                    lineLength = 0
                }
                if literal {
                    out.append(byte)
                } else {
                    out += [UInt8(ascii: "="), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
                }
                lineLength += width
            }
            if index < lines.count - 1 { out += [13, 10] }
        }
        return out
    }

    /// Lines without their ends (CRLF, LF or CR).
    static func splitLines(_ text: [UInt8]) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var current: [UInt8] = []
        var previousWasCR = false
        for byte in text {
            if previousWasCR {
                previousWasCR = false
                if byte == 10 { continue }
            }
            if byte == 13 || byte == 10 {
                lines.append(current)
                current = []
                previousWasCR = byte == 13
            } else {
                current.append(byte)
            }
        }
        lines.append(current)
        return lines
    }
}
