/// Content-Transfer-Encoding decoders that never fail: base64 and quoted-printable.
public enum TransferDecoder {
    private static let base64Table: [UInt8] = {
        var t = [UInt8](repeating: 0xFF, count: 256)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        for (i, c) in alphabet.enumerated() { t[Int(c)] = UInt8(i) }
        // URL-safe variants, seen in the wild.
        t[Int(UInt8(ascii: "-"))] = 62
        t[Int(UInt8(ascii: "_"))] = 63
        return t
    }()

    /// Decodes base64, skipping whitespace and garbage; tolerates missing or early padding.
    /// `clean` is false when characters other than whitespace had to be skipped or bits were left over.
    public static func decodeBase64(_ input: [UInt8]) -> (bytes: [UInt8], clean: Bool) {
        input.withUnsafeBufferPointer { decodeBase64(buffer: $0) }
    }

    static func decodeBase64(buffer input: UnsafeBufferPointer<UInt8>) -> (bytes: [UInt8], clean: Bool) {
        var out = [UInt8]()
        out.reserveCapacity(input.count / 4 * 3 + 3)
        var acc: UInt32 = 0
        var bits = 0
        var clean = true
        base64Table.withUnsafeBufferPointer { table in
            for c in input {
                let v = table[Int(c)]
                if v == 0xFF {
                    if c == UInt8(ascii: "=") {
                        // Padding ends a quantum; a stream may continue after it (concatenated chunks).
                        acc = 0
                        bits = 0
                    } else if c != 0x20 && c != 0x09 && c != 0x0A && c != 0x0D {
                        clean = false
                    }
                    continue
                }
                acc = (acc << 6) | UInt32(v)
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
                    acc &= (1 << UInt32(bits)) - 1
                }
            }
        }
        if bits >= 6 { clean = false }
        return (out, clean)
    }

    /// The number of bytes `decodeBase64` would produce, without producing them.
    public static func base64DecodedLength(_ input: UnsafeBufferPointer<UInt8>) -> Int {
        var bits = 0
        var total = 0
        base64Table.withUnsafeBufferPointer { table in
            for c in input {
                if table[Int(c)] != 0xFF {
                    bits += 6
                    if bits >= 8 { bits -= 8; total += 1 }
                } else if c == UInt8(ascii: "=") {
                    bits = 0
                }
            }
        }
        return total
    }

    @inline(__always)
    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x41 + 10
        case 0x61...0x66: return c - 0x61 + 10
        default: return nil
        }
    }

    /// Decodes quoted-printable: `=XX` escapes (either case), soft line breaks (`=` before CRLF or LF,
    /// trailing whitespace allowed). Malformed escapes are kept literally and make `clean` false.
    /// With `header` true, `_` means a space (RFC 2047 Q encoding).
    public static func decodeQuotedPrintable(_ input: [UInt8], header: Bool = false) -> (bytes: [UInt8], clean: Bool) {
        input.withUnsafeBufferPointer { decodeQuotedPrintable(buffer: $0, header: header) }
    }

    static func decodeQuotedPrintable(buffer input: UnsafeBufferPointer<UInt8>, header: Bool) -> (bytes: [UInt8], clean: Bool) {
        var out = [UInt8]()
        out.reserveCapacity(input.count)
        var clean = true
        var i = input.startIndex
        let end = input.endIndex
        while i < end {
            let c = input[i]
            if c == UInt8(ascii: "=") {
                if i + 2 < end, let h = hexValue(input[i + 1]), let l = hexValue(input[i + 2]) {
                    out.append(h << 4 | l)
                    i += 3
                    continue
                }
                // Soft line break, possibly with trailing whitespace before the line end.
                var j = i + 1
                while j < end && (input[j] == 0x20 || input[j] == 0x09) { j += 1 }
                if j == end { i = j; continue }
                if input[j] == 0x0A { i = j + 1; continue }
                if input[j] == 0x0D {
                    i = j + 1
                    if i < end && input[i] == 0x0A { i += 1 }
                    continue
                }
                clean = false
                out.append(c)
                i += 1
                continue
            }
            if header && c == UInt8(ascii: "_") {
                out.append(0x20)
            } else {
                out.append(c)
            }
            i += 1
        }
        return (out, clean)
    }
}
