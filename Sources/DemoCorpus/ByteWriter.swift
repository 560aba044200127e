/// Helpers that append text and encodings straight into a byte buffer.
extension Array where Element == UInt8 {
    @inline(__always)
    mutating func append(_ string: StaticString) {
        string.withUTF8Buffer { append(contentsOf: $0) }
    }

    @inline(__always)
    mutating func appendString(_ string: String) {
        append(contentsOf: string.utf8)
    }

    /// A non-negative decimal number, zero-padded to `width` digits.
    mutating func appendDecimal(_ value: Int, width: Int = 1) {
        var v = value < 0 ? 0 : value
        var digits = 1
        var scale = 1
        while v / scale >= 10 {
            scale *= 10
            digits += 1
        }
        if width > digits {
            for _ in 0..<(width - digits) { append(48) }
        }
        while scale > 0 {
            append(UInt8(48 + v / scale))
            v %= scale
            scale /= 10
        }
    }

    /// A decimal number with thousands separators: 12,400.
    mutating func appendGrouped(_ value: Int) {
        if value >= 1000 {
            appendGrouped(value / 1000)
            append(UInt8(ascii: ","))
            appendDecimal(value % 1000, width: 3)
        } else {
            appendDecimal(value)
        }
    }

    mutating func appendHex(_ value: UInt64, digits: Int) {
        let table: StaticString = "0123456789abcdef"
        table.withUTF8Buffer { hex in
            var shift = (digits - 1) * 4
            while shift >= 0 {
                append(hex[Int((value >> UInt64(shift)) & 0xF)])
                shift -= 4
            }
        }
    }

    /// Base64 in lines of 76 characters, each ending with LF.
    mutating func appendBase64Lines(_ data: [UInt8]) {
        let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
        alphabet.withUTF8Buffer { table in
            var lineLength = 0
            var i = 0
            while i < data.count {
                let b0 = UInt32(data[i])
                let b1 = i + 1 < data.count ? UInt32(data[i + 1]) : 0
                let b2 = i + 2 < data.count ? UInt32(data[i + 2]) : 0
                let triple = b0 << 16 | b1 << 8 | b2
                append(table[Int(triple >> 18 & 63)])
                append(table[Int(triple >> 12 & 63)])
                append(i + 1 < data.count ? table[Int(triple >> 6 & 63)] : UInt8(ascii: "="))
                append(i + 2 < data.count ? table[Int(triple & 63)] : UInt8(ascii: "="))
                i += 3
                lineLength += 4
                if lineLength >= 76 {
                    append(10)
                    lineLength = 0
                }
            }
            if lineLength > 0 { append(10) }
        }
    }

    /// Base64 without line breaks (for RFC 2047 encoded words).
    mutating func appendBase64(_ data: ArraySlice<UInt8>) {
        let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
        alphabet.withUTF8Buffer { table in
            var i = data.startIndex
            while i < data.endIndex {
                let n = data.endIndex - i
                let b0 = UInt32(data[i])
                let b1 = n > 1 ? UInt32(data[i + 1]) : 0
                let b2 = n > 2 ? UInt32(data[i + 2]) : 0
                let triple = b0 << 16 | b1 << 8 | b2
                append(table[Int(triple >> 18 & 63)])
                append(table[Int(triple >> 12 & 63)])
                append(n > 1 ? table[Int(triple >> 6 & 63)] : UInt8(ascii: "="))
                append(n > 2 ? table[Int(triple & 63)] : UInt8(ascii: "="))
                i += 3
            }
        }
    }

    /// Quoted-printable (RFC 2045 §6.7) of LF-separated text, soft line breaks at 76 columns.
    mutating func appendQuotedPrintable(_ text: [UInt8]) {
        reserveCapacity(count + text.count + text.count / 8 + 16)
        text.withUnsafeBufferPointer { source in
            let count = source.count
            var column = 0
            var runStart = 0
            var i = 0
            while i < count {
                let byte = source[i]
                if byte == 10 {
                    append(contentsOf: UnsafeBufferPointer(rebasing: source[runStart...i]))
                    column = 0
                    i += 1
                    runStart = i
                    continue
                }
                let atLineEnd = i + 1 == count || source[i + 1] == 10
                let literal = (byte >= 33 && byte <= 126 && byte != 61) || ((byte == 32 || byte == 9) && !atLineEnd)
                let width = literal ? 1 : 3
                if column + width > 75 {
                    append(contentsOf: UnsafeBufferPointer(rebasing: source[runStart..<i]))
                    append(UInt8(ascii: "="))
                    append(10)
                    column = 0
                    runStart = i
                }
                column += width
                i += 1
                if !literal {
                    append(contentsOf: UnsafeBufferPointer(rebasing: source[runStart..<(i - 1)]))
                    append(UInt8(ascii: "="))
                    append(Self.hexDigit(byte >> 4))
                    append(Self.hexDigit(byte & 15))
                    runStart = i
                }
            }
            append(contentsOf: UnsafeBufferPointer(rebasing: source[runStart..<count]))
        }
    }

    @inline(__always)
    static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? 48 + value : 55 + value
    }

    /// The text, HTML-escaped.
    mutating func appendHTMLEscaped(_ text: some Collection<UInt8>) {
        for byte in text {
            switch byte {
            case UInt8(ascii: "&"): append("&amp;")
            case UInt8(ascii: "<"): append("&lt;")
            case UInt8(ascii: ">"): append("&gt;")
            case UInt8(ascii: "\""): append("&quot;")
            case UInt8(ascii: "'"): append("&#39;")
            default: append(byte)
            }
        }
    }

    /// The text broken into lines of at most `width` bytes at spaces; each line ends with LF.
    mutating func appendWrapped(_ text: [UInt8], width: Int = 76) {
        var lineStart = 0
        let count = text.count
        while count - lineStart > width {
            var cut = lineStart + width
            while cut > lineStart && text[cut] != 32 { cut -= 1 }
            if cut == lineStart {
                cut = lineStart + width
                while cut < count && text[cut] != 32 { cut += 1 }
                if cut == count { break }
            }
            append(contentsOf: text[lineStart..<cut])
            append(10)
            lineStart = cut + 1
        }
        append(contentsOf: text[lineStart..<count])
        append(10)
    }
}

extension Array where Element == UInt8 {
    var isASCII: Bool {
        for byte in self where byte >= 0x80 { return false }
        return true
    }
}
