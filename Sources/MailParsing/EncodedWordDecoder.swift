/// Decodes RFC 2047 encoded words (`=?charset?B|Q?text?=`) in header text, best effort.
///
/// Adjacent encoded words separated only by whitespace are joined without that whitespace, and the
/// bytes of adjacent words in the same charset are decoded together (so a multi-byte character split
/// across two words survives). Encoded words are also recognised where RFC 2047 forbids them: inside
/// quoted strings, glued to other text, or containing spaces. Anything that is not a well-formed
/// encoded word is kept as written. Runs in linear time.
public enum EncodedWordDecoder {
    /// Decodes every encoded word in `text`.
    public static func decode(_ text: String) -> String {
        guard mayContainEncodedWord(text) else { return text }
        let decoder = CharsetDecoder()
        return decode(text, using: decoder)
    }

    static func mayContainEncodedWord(_ text: String) -> Bool {
        var prev: UInt8 = 0
        for c in text.utf8 {
            if prev == UInt8(ascii: "=") && c == UInt8(ascii: "?") { return true }
            prev = c
        }
        return false
    }

    /// Decodes every encoded word in `text`, reusing `decoder`'s iconv descriptors.
    static func decode(_ text: String, using decoder: CharsetDecoder) -> String {
        guard mayContainEncodedWord(text) else { return text }
        let b = Array(text.utf8)
        let n = b.count
        var out = [UInt8]()
        out.reserveCapacity(n)
        var pendingCharset: String? = nil
        var pendingBytes = [UInt8]()
        var lastWasEncoded = false
        var i = 0
        var searchable = true

        func flush() {
            if let cs = pendingCharset {
                let s = decoder.decode(pendingBytes, charset: cs).text
                out.append(contentsOf: s.utf8)
                pendingCharset = nil
                pendingBytes.removeAll(keepingCapacity: true)
            }
        }

        while i < n {
            // Find the next "=?".
            var p = i
            var found = false
            if searchable {
                while p + 1 < n {
                    if b[p] == UInt8(ascii: "=") && b[p + 1] == UInt8(ascii: "?") { found = true; break }
                    p += 1
                }
            }
            if !found {
                flush()
                out.append(contentsOf: b[i..<n])
                break
            }
            // Parse charset.
            var q = p + 2
            while q < n && q - p < 80 && b[q] != UInt8(ascii: "?") && b[q] > 0x20 { q += 1 }
            var word: (charset: String, bytes: [UInt8], end: Int)? = nil
            if q < n && b[q] == UInt8(ascii: "?") && q > p + 2 && q + 2 < n && b[q + 2] == UInt8(ascii: "?") {
                let enc = b[q + 1] | 0x20
                if enc == UInt8(ascii: "b") || enc == UInt8(ascii: "q") {
                    // Find the terminating "?=".
                    var r = q + 3
                    var terminated = false
                    while r + 1 < n {
                        if b[r] == UInt8(ascii: "?") && b[r + 1] == UInt8(ascii: "=") { terminated = true; break }
                        r += 1
                    }
                    if terminated {
                        let payload = b[(q + 3)..<r]
                        let decoded = enc == UInt8(ascii: "b")
                            ? TransferDecoder.decodeBase64(Array(payload)).bytes
                            : TransferDecoder.decodeQuotedPrintable(Array(payload), header: true).bytes
                        let charset = String(decoding: b[(p + 2)..<q], as: UTF8.self)
                        word = (charset, decoded, r + 2)
                    } else {
                        // No "?=" anywhere after here: no later encoded word can end either.
                        searchable = false
                    }
                }
            }
            guard let w = word else {
                // Not an encoded word: keep "=?" literally and continue after it.
                flush()
                out.append(contentsOf: b[i..<(p + 1)])
                lastWasEncoded = false
                i = p + 1
                continue
            }
            let between = b[i..<p]
            let onlySpace = between.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
            if !(lastWasEncoded && onlySpace) {
                flush()
                out.append(contentsOf: between)
            }
            let label = CharsetDecoder.normalizedLabel(w.charset)
            if pendingCharset != label { flush(); pendingCharset = label }
            pendingBytes.append(contentsOf: w.bytes)
            lastWasEncoded = true
            i = w.end
        }
        flush()
        return String(decoding: out, as: UTF8.self)
    }
}
