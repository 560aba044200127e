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
        guard let text, !text.isEmpty else { return [] }
        var out: [Address] = []
        let bytes = text.utf8
        var lineStart = bytes.startIndex
        var tab: String.Index?
        var previous: UInt8 = 0
        func line(to end: String.Index) {
            guard lineStart < end else { return }
            if let tab {
                let name = String(text[lineStart..<tab])
                out.append(Address(name: name.isEmpty ? nil : name, email: String(text[bytes.index(after: tab)..<end])))
            } else {
                out.append(Address(name: nil, email: String(text[lineStart..<end])))
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
        return out
    }

    private static func clean(_ s: String) -> String {
        // Bytes first: nearly no name or address holds a tab or a line break.
        guard s.utf8.contains(where: { $0 == 9 || $0 == 10 || $0 == 13 }),
              s.contains(where: { $0 == "\t" || $0 == "\n" || $0 == "\r" }) else { return s }
        return String(s.map { $0 == "\t" || $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}
