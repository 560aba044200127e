/// Small text clean-ups shared by the parsers: whitespace collapsing, line-ending normalisation, snippets.
enum TextNormalizer {
    @inline(__always) static func isWS(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0A || c == 0x0B || c == 0x0C }

    /// Collapses runs of ASCII whitespace to one space and trims both ends.
    static func collapseWhitespace(_ s: String) -> String {
        var needs = false
        var prevWS = true
        for c in s.utf8 {
            let ws = isWS(c)
            if ws && (prevWS || c != 0x20) { needs = true; break }
            prevWS = ws
        }
        if !needs && !prevWS { return s }
        var out = [UInt8]()
        out.reserveCapacity(s.utf8.count)
        var pending = false
        for c in s.utf8 {
            if isWS(c) {
                pending = !out.isEmpty
            } else {
                if pending { out.append(0x20); pending = false }
                out.append(c)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Replaces CRLF and lone CR with LF, in place.
    static func normalizeLineEndings(_ bytes: inout [UInt8]) {
        guard bytes.contains(0x0D) else { return }
        var out = [UInt8]()
        out.reserveCapacity(bytes.count)
        var i = 0
        let n = bytes.count
        while i < n {
            let c = bytes[i]
            if c == 0x0D {
                out.append(0x0A)
                if i + 1 < n && bytes[i + 1] == 0x0A { i += 1 }
            } else {
                out.append(c)
            }
            i += 1
        }
        bytes = out
    }

    /// About `limit` characters (Unicode scalars) from the start of `text`, whitespace collapsed,
    /// cut at a word boundary when one falls in the last third.
    static func snippet(_ text: String, limit: Int = 100) -> String {
        var out = [UInt8]()
        out.reserveCapacity(limit + 16)
        var count = 0
        var pendingSpace = false
        var lastSpace: Int? = nil
        var lastSpaceCount = 0
        var truncated = false
        var prevWasC2 = false
        for c in text.utf8 {
            // U+00A0 (C2 A0) counts as whitespace.
            if prevWasC2 {
                prevWasC2 = false
                if c == 0xA0 {
                    out.removeLast()
                    count -= 1
                    pendingSpace = count > 0
                    continue
                }
            }
            if isWS(c) {
                pendingSpace = count > 0
                continue
            }
            let startsScalar = c & 0xC0 != 0x80
            if startsScalar {
                if pendingSpace {
                    if count >= limit { truncated = true; break }
                    lastSpace = out.count
                    lastSpaceCount = count
                    out.append(0x20)
                    count += 1
                    pendingSpace = false
                }
                if count >= limit { truncated = true; break }
                count += 1
            }
            out.append(c)
            if c == 0xC2 { prevWasC2 = true }
        }
        if truncated, let cut = lastSpace, lastSpaceCount >= limit * 2 / 3 {
            out.removeSubrange(cut...)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
