/// An email address with an optional display name, as it appears in From/To/Cc headers.
public struct Address: Hashable, Sendable, Codable {
    /// The display name ("John Smith"), or nil when the header had none.
    public var name: String?
    /// The address itself ("john@example.com"), as written (case preserved).
    public var email: String

    public init(name: String? = nil, email: String) {
        self.name = name
        self.email = email
    }

    /// The name to show: the display name when present, else the address.
    public var displayName: String { (name?.isEmpty == false ? name! : email) }

    /// RFC 5322 rendering: `"Name" <email>` or the bare address.
    public var formatted: String {
        guard let name, !name.isEmpty else { return email }
        let needsQuotes = name.contains { ",;:<>@\"()[]\\.".contains($0) }
        let quoted = needsQuotes ? "\"" + name.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "\"", with: "\\\"") + "\"" : name
        return "\(quoted) <\(email)>"
    }
}
