/// Parses address-list headers (From, To, Cc, Bcc, Reply-To, Sender), tolerating what real mail does.
///
/// Handles display names with RFC 2047 encoded words (also inside quoted strings), quoted strings
/// with escapes, comments (`a@b (Name)` gives the name when there is no phrase), groups
/// (`undisclosed-recipients:;`, `Team: a@x, b@y;` yield their members), angle addresses with
/// obsolete routes, bare addr-specs, missing angle brackets (`Name a@b`), empty items and trailing
/// commas, and Outlook's unquoted `Last, First <x@y>`, which becomes one address named "Last, First".
/// Addresses are kept as written (no case folding); whitespace inside them is removed.
public enum AddressParser {
    /// Parses a comma-separated address list; never fails, possibly returns an empty list.
    public static func parseList(_ text: String) -> [ParsedAddress] {
        let decoder = CharsetDecoder()
        return parseList(text, decoder: decoder)
    }

    private struct Item {
        var name: String?
        var address: String
        var hasAngle: Bool
        var bareWord: String?  // text without '@' and without angle brackets
        var phraseQuoted: Bool
    }

    static func parseList(_ text: String, decoder: CharsetDecoder) -> [ParsedAddress] {
        let b = Array(text.utf8)
        let n = b.count
        var items: [Item] = []
        var start = 0
        var i = 0
        var inQuote = false
        var comment = 0
        var inAngle = false
        func endItem(_ end: Int) {
            if end > start, let item = parseItem(b[start..<end], decoder: decoder) { items.append(item) }
        }
        while i < n {
            let c = b[i]
            if inQuote {
                if c == UInt8(ascii: "\\") { i += 2; continue }
                if c == UInt8(ascii: "\"") { inQuote = false }
            } else if comment > 0 {
                if c == UInt8(ascii: "\\") { i += 2; continue }
                if c == UInt8(ascii: "(") { comment += 1 } else if c == UInt8(ascii: ")") { comment -= 1 }
            } else if inAngle {
                if c == UInt8(ascii: ">") { inAngle = false }
                else if c == UInt8(ascii: "\"") { inQuote = true }
            } else {
                switch c {
                case UInt8(ascii: "\""): inQuote = true
                case UInt8(ascii: "("): comment = 1
                case UInt8(ascii: "<"): inAngle = true
                case UInt8(ascii: ","):
                    endItem(i); start = i + 1
                case UInt8(ascii: ":"):
                    // Group start: the group's display name is not an address.
                    start = i + 1
                case UInt8(ascii: ";"):
                    endItem(i); start = i + 1
                default: break
                }
            }
            i += 1
        }
        endItem(n)

        // Merge Outlook's unquoted "Last, First <x@y>": a lone phrase followed by an angle address.
        var result: [ParsedAddress] = []
        result.reserveCapacity(items.count)
        var k = 0
        while k < items.count {
            let item = items[k]
            if let word = item.bareWord, k + 1 < items.count, items[k + 1].hasAngle, !items[k + 1].phraseQuoted {
                var next = items[k + 1]
                next.name = next.name.map { word + ", " + $0 } ?? word
                items[k + 1] = next
                k += 1
                continue
            }
            if !item.address.isEmpty { result.append(ParsedAddress(name: item.name, address: item.address)) }
            k += 1
        }
        return result
    }

    private static func isWS(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0A }

    private static func parseItem(_ s: ArraySlice<UInt8>, decoder: CharsetDecoder) -> Item? {
        // Fast path: a bare addr-spec with nothing special in it (most addresses in practice).
        var lo = s.startIndex, hi = s.endIndex
        while lo < hi && isWS(s[lo]) { lo += 1 }
        while hi > lo && isWS(s[hi - 1]) { hi -= 1 }
        if lo == hi { return nil }
        var simple = true
        var hasAt = false
        for k in lo..<hi {
            let c = s[k]
            if c == UInt8(ascii: "@") { hasAt = true }
            if isWS(c) || c == UInt8(ascii: "\"") || c == UInt8(ascii: "(") || c == UInt8(ascii: "<") || c == UInt8(ascii: ">")
                || c == UInt8(ascii: "'") || c == UInt8(ascii: "=") || c >= 0x80 || c == UInt8(ascii: ":") {
                simple = false
                break
            }
        }
        if simple && hasAt {
            return Item(name: nil, address: String(decoding: s[lo..<hi], as: UTF8.self), hasAngle: false, bareWord: nil, phraseQuoted: false)
        }
        var phrase: [UInt8] = []
        var commentText: [UInt8] = []
        var angle: [UInt8]? = nil
        var quotedSeen = false
        var i = s.startIndex
        let end = s.endIndex
        while i < end {
            let c = s[i]
            if c == UInt8(ascii: "\"") {
                var j = i + 1
                var content: [UInt8] = []
                while j < end && s[j] != UInt8(ascii: "\"") {
                    if s[j] == UInt8(ascii: "\\") && j + 1 < end { content.append(s[j + 1]); j += 2; continue }
                    content.append(s[j]); j += 1
                }
                let after = j + 1
                if after < end && s[after] == UInt8(ascii: "@") && angle == nil {
                    // Quoted local part of an addr-spec.
                    phrase.append(UInt8(ascii: "\"")); phrase.append(contentsOf: content); phrase.append(UInt8(ascii: "\""))
                } else {
                    quotedSeen = true
                    // Keep quoted text apart from neighbouring words.
                    if let last = phrase.last, !isWS(last) { phrase.append(0x20) }
                    phrase.append(contentsOf: content)
                    phrase.append(0x20)
                }
                i = after
                continue
            }
            if c == UInt8(ascii: "(") {
                var depth = 0
                var j = i
                while j < end {
                    let d = s[j]
                    if d == UInt8(ascii: "\\") && j + 1 < end { if depth > 0 { commentText.append(s[j + 1]) }; j += 2; continue }
                    if d == UInt8(ascii: "(") { depth += 1; if depth > 1 { commentText.append(d) } }
                    else if d == UInt8(ascii: ")") { depth -= 1; if depth == 0 { break }; commentText.append(d) }
                    else { commentText.append(d) }
                    j += 1
                }
                commentText.append(0x20)
                phrase.append(0x20)
                i = j + 1
                continue
            }
            if c == UInt8(ascii: "<") && angle == nil {
                var j = i + 1
                var content: [UInt8] = []
                while j < end && s[j] != UInt8(ascii: ">") { content.append(s[j]); j += 1 }
                angle = content
                i = j + 1
                continue
            }
            if c == UInt8(ascii: ">") { i += 1; continue }
            phrase.append(c)
            i += 1
        }

        var address: [UInt8]
        var nameBytes: [UInt8]
        var hasAngle = false
        if let a = angle {
            hasAngle = true
            address = a
            nameBytes = phrase
        } else {
            // No angle brackets: the addr-spec is the word holding '@'; any other words are a name.
            let words = phrase.split(whereSeparator: isWS)
            if let at = words.lastIndex(where: { $0.contains(UInt8(ascii: "@")) }) {
                address = Array(words[at])
                var rest: [UInt8] = []
                for (w, word) in words.enumerated() where w != at {
                    if !rest.isEmpty { rest.append(0x20) }
                    rest.append(contentsOf: word)
                }
                nameBytes = rest
            } else if words.count == 1 && !quotedSeen {
                address = Array(words[0])
                nameBytes = []
            } else {
                // A phrase with no address at all.
                let name = cleanName(phrase, decoder: decoder)
                guard let name else { return nil }
                return Item(name: nil, address: "", hasAngle: false, bareWord: name, phraseQuoted: quotedSeen)
            }
        }
        address = cleanAddress(address)
        var name = cleanName(nameBytes, decoder: decoder)
        if name == nil { name = cleanName(commentText, decoder: decoder) }
        let addr = String(decoding: address, as: UTF8.self)
        if addr.isEmpty && !hasAngle {
            return name.map { Item(name: nil, address: "", hasAngle: false, bareWord: $0, phraseQuoted: quotedSeen) }
        }
        let bare: String? = (!hasAngle && !addr.contains("@") && name == nil && !addr.isEmpty) ? addr : nil
        return Item(name: name, address: addr, hasAngle: hasAngle, bareWord: bare, phraseQuoted: quotedSeen)
    }

    private static func cleanAddress(_ a: [UInt8]) -> [UInt8] {
        var out = a.filter { !isWS($0) }
        // Obsolete route: <@a,@b:user@host>.
        if out.first == UInt8(ascii: "@"), let colon = out.firstIndex(of: UInt8(ascii: ":")) {
            out = Array(out[(colon + 1)...])
        }
        if out.count > 7, String(decoding: out.prefix(7), as: UTF8.self).lowercased() == "mailto:" {
            out.removeFirst(7)
        }
        while let f = out.first, f == UInt8(ascii: "'") || f == UInt8(ascii: "\"") { out.removeFirst() }
        while let l = out.last, l == UInt8(ascii: "'") || l == UInt8(ascii: "\"") || l == UInt8(ascii: ",") { out.removeLast() }
        return out
    }

    /// Decodes encoded words, collapses whitespace, trims; nil when nothing is left.
    private static func cleanName(_ bytes: [UInt8], decoder: CharsetDecoder) -> String? {
        guard bytes.contains(where: { !isWS($0) }) else { return nil }
        let raw = String(decoding: bytes, as: UTF8.self)
        let decoded = EncodedWordDecoder.decode(raw, using: decoder)
        let collapsed = TextNormalizer.collapseWhitespace(decoded)
        return collapsed.isEmpty ? nil : collapsed
    }
}
