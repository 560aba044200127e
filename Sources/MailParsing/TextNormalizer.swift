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

    /// About `limit` characters from the start of `text`, whitespace collapsed, cut at a word boundary
    /// when one falls in the last third.
    static func snippet(_ text: String, limit: Int = 100) -> String {
        var out = ""
        var count = 0
        var pendingSpace = false
        var lastSpaceIndex: String.Index? = nil
        var truncated = false
        for ch in text {
            if ch.isWhitespace {
                pendingSpace = count > 0
                continue
            }
            if pendingSpace {
                if count >= limit { truncated = true; break }
                lastSpaceIndex = out.endIndex
                out.append(" ")
                count += 1
                pendingSpace = false
            }
            if count >= limit { truncated = true; break }
            out.append(ch)
            count += 1
        }
        if truncated, let cut = lastSpaceIndex, out.distance(from: out.startIndex, to: cut) >= limit * 2 / 3 {
            out = String(out[..<cut])
        }
        return out
    }
}
