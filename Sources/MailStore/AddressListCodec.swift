import MailModel

/// Stores address lists compactly in one TEXT column: one address a line, `name<TAB>email`.
/// Tabs and line breaks inside names are replaced by spaces when encoding.
public enum AddressListCodec {
    public static func encode(_ addresses: [Address]) -> String {
        var out = ""
        for (i, a) in addresses.enumerated() {
            if i > 0 { out.append("\n") }
            out.append(clean(a.name ?? ""))
            out.append("\t")
            out.append(clean(a.email))
        }
        return out
    }

    /// Splits on line breaks and each line at its first tab, reading bytes: the same lines as
    /// splitting the text's Characters at "\n" (a "\r\n", one Character, splits nothing), without
    /// walking Characters (the categoriser decodes every email's recipients).
    public static func decode(_ text: String?) -> [Address] {
        var out: [Address] = []
        forEachLine(text) { name, email in
            out.append(Address(name: name.map(String.init), email: String(email)))
        }
        return out
    }

    /// Only the addresses of `decode`, lower-cased, appended to `out` (the categoriser reads every
    /// email's recipients so): no names made, and an ASCII address without capitals taken as it is.
    public static func appendLowercasedEmails(_ text: String?, to out: inout [String]) {
        forEachLine(text) { _, email in
            if email.utf8.contains(where: { ($0 >= 65 && $0 <= 90) || $0 >= 128 }) {
                out.append(email.lowercased())
            } else {
                out.append(String(email))
            }
        }
    }

    /// Each line's name (nil when empty) and address.
    private static func forEachLine(_ text: String?, _ body: (Substring?, Substring) -> Void) {
        guard let text, !text.isEmpty else { return }
        let bytes = text.utf8
        var lineStart = bytes.startIndex
        var tab: String.Index?
        var previous: UInt8 = 0
        func line(to end: String.Index) {
            guard lineStart < end else { return }
            if let tab {
                let name = text[lineStart..<tab]
                body(name.isEmpty ? nil : name, text[bytes.index(after: tab)..<end])
            } else {
                body(nil, text[lineStart..<end])
            }
        }
        var i = bytes.startIndex
        while i != bytes.endIndex {
            let c = bytes[i]
            if c == 10 && previous != 13 {
                line(to: i)
                lineStart = bytes.index(after: i)
                tab = nil
            } else if c == 9 && tab == nil {
                tab = i
            }
            previous = c
            i = bytes.index(after: i)
        }
        line(to: bytes.endIndex)
    }

    private static func clean(_ s: String) -> String {
        // Bytes first: nearly no name or address holds a tab or a line break.
        guard s.utf8.contains(where: { $0 == 9 || $0 == 10 || $0 == 13 }),
              s.contains(where: { $0 == "\t" || $0 == "\n" || $0 == "\r" }) else { return s }
        return String(s.map { $0 == "\t" || $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}
