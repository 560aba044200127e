/// IMAP's modified UTF-7 for mailbox names (RFC 3501 §5.1.3): printable ASCII stands for itself
/// (`&` is written `&-`), anything else is UTF-16BE in base64 with `,` for `/` between `&` and `-`.
/// `&AOQ-` is "ä", `&ZeVnLIqe-` is "日本語".
public enum ModifiedUTF7 {
    /// Decodes `bytes`, or nil when they are not valid modified UTF-7 (a byte outside printable
    /// ASCII, a bad base64 run, an unpaired surrogate, an unterminated `&`).
    public static func decode(_ bytes: some Collection<UInt8>) -> String? {
        var result = String.UnicodeScalarView()
        var iterator = bytes.makeIterator()
        while let byte = iterator.next() {
            guard byte >= 0x20, byte <= 0x7E else { return nil }
            guard byte == UInt8(ascii: "&") else {
                result.append(Unicode.Scalar(byte))
                continue
            }
            var run: [UInt8] = []
            var terminated = false
            while let b = iterator.next() {
                if b == UInt8(ascii: "-") { terminated = true; break }
                run.append(b)
            }
            guard terminated else { return nil }
            if run.isEmpty {
                result.append("&")
                continue
            }
            guard let units = decodeBase64UTF16(run) else { return nil }
            var utf16 = units.makeIterator()
            var decoder = UTF16()
            decoding: while true {
                switch decoder.decode(&utf16) {
                case .scalarValue(let scalar): result.append(scalar)
                case .emptyInput: break decoding
                case .error: return nil
                }
            }
        }
        return String(result)
    }

    /// Encodes `string`; every string has an encoding.
    public static func encode(_ string: String) -> [UInt8] {
        var out: [UInt8] = []
        var pending: [UInt16] = []
        func flush() {
            guard !pending.isEmpty else { return }
            out.append(UInt8(ascii: "&"))
            out.append(contentsOf: encodeBase64UTF16(pending))
            out.append(UInt8(ascii: "-"))
            pending.removeAll()
        }
        for scalar in string.unicodeScalars {
            if scalar.value >= 0x20, scalar.value <= 0x7E {
                flush()
                out.append(UInt8(scalar.value))
                if scalar == "&" { out.append(UInt8(ascii: "-")) }
            } else {
                pending.append(contentsOf: String(scalar).utf16)
            }
        }
        flush()
        return out
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+,".utf8)

    private static func value(of byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return UInt32(byte - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return UInt32(byte - UInt8(ascii: "a")) + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0")) + 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: ","): return 63
        default: return nil
        }
    }

    /// Base64 without padding → UTF-16 code units; nil on a bad character or leftover bits that
    /// are not zero padding of less than one code unit.
    private static func decodeBase64UTF16(_ run: [UInt8]) -> [UInt16]? {
        var units: [UInt16] = []
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in run {
            guard let v = value(of: byte) else { return nil }
            accumulator = (accumulator << 6) | v
            bits += 6
            if bits >= 16 {
                bits -= 16
                units.append(UInt16(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        guard bits < 6, accumulator == 0, !units.isEmpty else { return nil }
        return units
    }

    private static func encodeBase64UTF16(_ units: [UInt16]) -> [UInt8] {
        var out: [UInt8] = []
        var accumulator: UInt32 = 0
        var bits = 0
        for unit in units {
            accumulator = (accumulator << 16) | UInt32(unit)
            bits += 16
            while bits >= 6 {
                bits -= 6
                out.append(alphabet[Int((accumulator >> UInt32(bits)) & 0x3F)])
            }
            accumulator &= (1 << UInt32(bits)) - 1
        }
        if bits > 0 {
            out.append(alphabet[Int((accumulator << UInt32(6 - bits)) & 0x3F)])
        }
        return out
    }
}
