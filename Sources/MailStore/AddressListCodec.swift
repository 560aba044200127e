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

    public static func decode(_ text: String?) -> [Address] {
        guard let text, !text.isEmpty else { return [] }
        return text.split(separator: "\n", omittingEmptySubsequences: true).map { line in
            if let tab = line.firstIndex(of: "\t") {
                let name = String(line[..<tab])
                return Address(name: name.isEmpty ? nil : name, email: String(line[line.index(after: tab)...]))
            }
            return Address(name: nil, email: String(line))
        }
    }

    private static func clean(_ s: String) -> String {
        guard s.contains(where: { $0 == "\t" || $0 == "\n" || $0 == "\r" }) else { return s }
        return String(s.map { $0 == "\t" || $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}
