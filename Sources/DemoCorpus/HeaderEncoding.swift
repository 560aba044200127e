/// RFC 2047 encoded words and RFC 5322 display names.
enum HeaderEncoding {
    /// A display name as it appears before `<address>`: an atom phrase, a quoted string, or
    /// RFC 2047 Q-encoded words when it is not ASCII.
    static func displayName(_ name: String) -> [UInt8] {
        let bytes = Array(name.utf8)
        var out: [UInt8] = []
        if !bytes.isASCII {
            out.appendEncodedWords(bytes, qEncoding: true, firstLineUsed: 6)
            return out
        }
        let needsQuotes = bytes.contains { byte in
            switch byte {
            case UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: "("), UInt8(ascii: ")"),
                 UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "@"), UInt8(ascii: ":"),
                 UInt8(ascii: ";"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "\""),
                 UInt8(ascii: "\\"):
                return true
            default:
                return false
            }
        }
        if needsQuotes {
            out.append(UInt8(ascii: "\""))
            for byte in bytes {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { out.append(UInt8(ascii: "\\")) }
                out.append(byte)
            }
            out.append(UInt8(ascii: "\""))
        } else {
            out = bytes
        }
        return out
    }
}

extension Array where Element == UInt8 {
    /// UTF-8 text as RFC 2047 encoded words of at most 75 characters, never splitting a
    /// character, folded with LF + space between words.
    mutating func appendEncodedWords(_ text: [UInt8], qEncoding: Bool, firstLineUsed: Int) {
        let maxPayload = qEncoding ? 60 : 45   // keeps each word under 75 characters
        var start = 0
        var first = true
        while start < text.count {
            // Take whole characters until the encoded payload would exceed the limit.
            var end = start
            var cost = 0
            while end < text.count {
                var charEnd = end + 1
                while charEnd < text.count && text[charEnd] & 0xC0 == 0x80 { charEnd += 1 }
                var charCost = 0
                if qEncoding {
                    for k in end..<charEnd { charCost += Self.qIsLiteral(text[k]) ? 1 : 3 }
                } else {
                    charCost = charEnd - end
                }
                if cost + charCost > maxPayload && end > start { break }
                cost += charCost
                end = charEnd
            }
            if !first { append("\n ") }
            first = false
            append("=?UTF-8?")
            if qEncoding {
                append("Q?")
                let hex: StaticString = "0123456789ABCDEF"
                hex.withUTF8Buffer { table in
                    for k in start..<end {
                        let byte = text[k]
                        if byte == 32 {
                            append(UInt8(ascii: "_"))
                        } else if Self.qIsLiteral(byte) {
                            append(byte)
                        } else {
                            append(UInt8(ascii: "="))
                            append(table[Int(byte >> 4)])
                            append(table[Int(byte & 15)])
                        }
                    }
                }
            } else {
                append("B?")
                appendBase64(text[start..<end])
            }
            append("?=")
            start = end
        }
    }

    private static func qIsLiteral(_ byte: UInt8) -> Bool {
        (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
            || byte == 32 || byte == UInt8(ascii: "!") || byte == UInt8(ascii: "*")
            || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "/")
    }

    /// An RFC 2231 extended value: `UTF-8''Pr%C3%A4sentation%20Q3.pdf`.
    mutating func appendRFC2231Value(_ text: [UInt8]) {
        append("UTF-8''")
        let hex: StaticString = "0123456789ABCDEF"
        hex.withUTF8Buffer { table in
            for byte in text {
                let safe = (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
                    || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                if safe {
                    append(byte)
                } else {
                    append(UInt8(ascii: "%"))
                    append(table[Int(byte >> 4)])
                    append(table[Int(byte & 15)])
                }
            }
        }
    }
}
