import Foundation

/// Normalises a subject for the subject fallback of threading (spec 001 §5.2.4 step 4): strips
/// the reply and forward prefixes `Re:`, `Fwd:` and `Fw:` in any case (`RE:`, `re:`, `FW:`, `fwd:` …),
/// also with a counter (`Re[2]:`, `Re(2):`) or a space before the colon (`Re :`), recursively, then
/// trims and collapses runs of whitespace (header folding may leave them). Nothing else is removed
/// and case is kept, so the fallback groups subjects that are exactly equal once the prefixes are
/// gone: `[PATCH RFC 00/67] Add MIPS R6 support` and `[PATCH RFC v2 00/70] Add MIPS R6 support` stay
/// apart, as do `AW: Budget` and `Budget`.
///
/// One bracketed tag at the start is kept but looked behind: the Re/Fwd forms right after it are
/// stripped too, because mailing-list software puts its tag in front of a reply's `Re:` or behind
/// it, depending on the client: `[USRP-users] Re: B210 issue`, `Re: [USRP-users] B210 issue` and
/// `[USRP-users] B210 issue` all normalise to `[USRP-users] B210 issue`. Patch tags stay, so
/// `Re: [PATCH v2 3/5] mm: fix` is `[PATCH v2 3/5] mm: fix`.
public enum SubjectNormalizer {
    public static func normalize(_ subject: String) -> String {
        var s = strippingPrefixes(Substring(subject))
        var tag: Substring = ""
        if s.first == "[", let close = s.firstIndex(of: "]") {
            tag = s[...close]
            s = strippingPrefixes(s[s.index(after: close)...])
        }
        var out = ""
        var pendingSpace = false
        for ch in tag.isEmpty ? s : tag + " " + s {
            if ch.isWhitespace { pendingSpace = !out.isEmpty; continue }
            if pendingSpace { out.append(" "); pendingSpace = false }
            out.append(ch)
        }
        return out
    }

    /// Drops leading `Re:`/`Fwd:`/`Fw:` forms and whitespace, as many as there are.
    private static func strippingPrefixes(_ subject: Substring) -> Substring {
        var s = subject.drop(while: \.isWhitespace)
        while let rest = afterPrefix(s) { s = rest.drop(while: \.isWhitespace) }
        return s
    }

    /// What follows one leading `re`/`fwd`/`fw` (any case), an optional `[n]` or `(n)` counter,
    /// optional spaces and the colon; nil when `s` does not start with such a prefix.
    private static func afterPrefix(_ s: Substring) -> Substring? {
        var rest: Substring?
        for word in ["fwd", "fw", "re"] where s.count > word.count {
            let head = s.prefix(word.count)
            if head.lowercased() == word { rest = s.dropFirst(word.count); break }
        }
        guard var r = rest else { return nil }
        if let open = r.first, open == "[" || open == "(" {
            let close: Character = open == "[" ? "]" : ")"
            let digits = r.dropFirst().prefix(while: \.isNumber)
            let after = r.dropFirst(1 + digits.count)
            guard !digits.isEmpty, after.first == close else { return nil }
            r = after.dropFirst()
        }
        r = r.drop(while: { $0 == " " || $0 == "\t" })
        guard r.first == ":" else { return nil }
        return r.dropFirst()
    }
}
