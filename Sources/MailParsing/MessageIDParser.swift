/// Extracts message ids from Message-ID, In-Reply-To, References and Content-ID values.
enum MessageIDParser {
    /// The `<...>` ids without brackets, in order. Without any `<`, whitespace- or comma-separated
    /// words are taken as ids (for Message-ID and Content-ID any word; otherwise words holding '@').
    static func ids(_ b: [UInt8], bareWordsNeedAt: Bool = false) -> [String] {
        var out: [String] = []
        let n = b.count
        var i = 0
        var sawAngle = false
        var comment = 0
        while i < n {
            let c = b[i]
            if comment > 0 {
                if c == UInt8(ascii: "(") { comment += 1 } else if c == UInt8(ascii: ")") { comment -= 1 }
                i += 1
                continue
            }
            if c == UInt8(ascii: "(") { comment = 1; i += 1; continue }
            if c == UInt8(ascii: "<") {
                sawAngle = true
                var j = i + 1
                while j < n && b[j] != UInt8(ascii: ">") && b[j] != UInt8(ascii: "<") { j += 1 }
                let id = b[(i + 1)..<j].filter { $0 > 0x20 }
                if !id.isEmpty && out.count < 10_000 { out.append(String(decoding: id, as: UTF8.self)) }
                i = (j < n && b[j] == UInt8(ascii: ">")) ? j + 1 : j
                continue
            }
            i += 1
        }
        if sawAngle { return out }
        for word in b.split(whereSeparator: { $0 <= 0x20 || $0 == UInt8(ascii: ",") }) {
            if bareWordsNeedAt && !word.contains(UInt8(ascii: "@")) { continue }
            if out.count < 10_000 { out.append(String(decoding: word, as: UTF8.self)) }
        }
        return out
    }
}
