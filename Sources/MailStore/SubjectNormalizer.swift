/// Normalises a subject for thread grouping (spec 001 §5.2.4 step 4): strips reply and
/// forward prefixes (`Re:`, `Fwd:`, `Fw:`, `AW:`, `SV:`, `WG:`, `Antw:`, `Re[2]:`, `[list]` tags)
/// case-insensitively and recursively, collapses whitespace and lower-cases.
public enum SubjectNormalizer {
    private static let prefixes: Set<String> = ["re", "fwd", "fw", "aw", "sv", "wg", "antw", "vs", "tr", "rif", "ref"]

    public static func normalize(_ subject: String) -> String {
        var s = Substring(subject)
        while true {
            s = s.drop(while: { $0.isWhitespace })
            // A leading [list-tag].
            if s.first == "[", let close = s.firstIndex(of: "]") {
                let rest = s[s.index(after: close)...].drop(while: { $0.isWhitespace })
                if !rest.isEmpty { s = rest; continue }
            }
            guard let colon = s.firstIndex(of: ":") else { break }
            var word = s[..<colon]
            // Re[2]: / Re(2):
            if let bracket = word.firstIndex(where: { $0 == "[" || $0 == "(" }),
               word.last == "]" || word.last == ")",
               word[word.index(after: bracket)..<word.index(before: word.endIndex)].allSatisfy(\.isNumber) {
                word = word[..<bracket]
            }
            let key = word.trimmingSpaces().lowercased()
            guard prefixes.contains(key) else { break }
            s = s[s.index(after: colon)...]
        }
        var out = ""
        var pendingSpace = false
        for ch in s {
            if ch.isWhitespace { pendingSpace = !out.isEmpty; continue }
            if pendingSpace { out.append(" "); pendingSpace = false }
            out.append(ch)
        }
        return out.lowercased()
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var s = self
        while s.first?.isWhitespace == true { s.removeFirst() }
        while s.last?.isWhitespace == true { s.removeLast() }
        return s
    }
}
