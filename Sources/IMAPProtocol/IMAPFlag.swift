/// A message flag: a system flag (`\Seen`) or a keyword (`$Forwarded`, `NonJunk`).
///
/// Flags are case-insensitive (RFC 3501 §2.3.2). System flags are stored in their canonical
/// spelling, so `\SEEN` from a server compares equal to `.seen`; keywords keep the server's spelling.
public struct IMAPFlag: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(_ name: String) {
        let lowered = name.lowercased()
        rawValue = Self.systemFlags.first { $0.lowercased() == lowered } ?? name
    }

    public var description: String { rawValue }

    /// True for `\Seen`, `\Answered`… (a backslash flag), false for keywords.
    public var isSystemFlag: Bool { rawValue.hasPrefix("\\") }

    public static let seen = IMAPFlag("\\Seen")
    public static let answered = IMAPFlag("\\Answered")
    public static let flagged = IMAPFlag("\\Flagged")
    public static let deleted = IMAPFlag("\\Deleted")
    public static let draft = IMAPFlag("\\Draft")
    public static let recent = IMAPFlag("\\Recent")
    /// In PERMANENTFLAGS: the client may create new keywords.
    public static let mayCreateKeywords = IMAPFlag("\\*")

    private static let systemFlags = ["\\Seen", "\\Answered", "\\Flagged", "\\Deleted", "\\Draft", "\\Recent", "\\*"]
}
