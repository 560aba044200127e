/// One `* LIST` or `* LSUB` line: `* LIST (\HasNoChildren \Sent) "/" "Sent"`.
public struct IMAPListEntry: Hashable, Sendable {
    public var attributes: [IMAPMailboxAttribute]
    /// The hierarchy delimiter, or nil when the server has no hierarchy (`NIL`).
    public var delimiter: Character?
    public var mailbox: IMAPMailboxName
    /// LIST-EXTENDED data after the name (`("CHILDINFO" ("SUBSCRIBED"))`), kept as read.
    public var extendedData: [IMAPValue]

    public init(attributes: [IMAPMailboxAttribute], delimiter: Character?, mailbox: IMAPMailboxName, extendedData: [IMAPValue] = []) {
        self.attributes = attributes
        self.delimiter = delimiter
        self.mailbox = mailbox
        self.extendedData = extendedData
    }

    /// The mailbox's special use (RFC 6154), from its attributes; nil for ordinary folders.
    public var specialUse: IMAPSpecialUse? {
        attributes.lazy.compactMap(\.specialUse).first
    }

    /// `\Noselect` or `\NonExistent`: a name in the hierarchy that holds no messages.
    public var isSelectable: Bool {
        !attributes.contains(.noSelect) && !attributes.contains(.nonExistent)
    }
}

/// A mailbox attribute of a LIST response (`\HasChildren`, `\Noselect`, `\Sent`…).
/// Case-insensitive: stored as the server wrote it, compared lower-cased.
public struct IMAPMailboxAttribute: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    public static func == (a: IMAPMailboxAttribute, b: IMAPMailboxAttribute) -> Bool {
        a.rawValue.lowercased() == b.rawValue.lowercased()
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(rawValue.lowercased())
    }

    public var specialUse: IMAPSpecialUse? {
        IMAPSpecialUse.allCases.first { $0.attribute == self }
    }

    public static let noInferiors = IMAPMailboxAttribute("\\Noinferiors")
    public static let noSelect = IMAPMailboxAttribute("\\Noselect")
    public static let nonExistent = IMAPMailboxAttribute("\\NonExistent")
    public static let marked = IMAPMailboxAttribute("\\Marked")
    public static let unmarked = IMAPMailboxAttribute("\\Unmarked")
    public static let hasChildren = IMAPMailboxAttribute("\\HasChildren")
    public static let hasNoChildren = IMAPMailboxAttribute("\\HasNoChildren")
    public static let subscribed = IMAPMailboxAttribute("\\Subscribed")
}

/// The special-use attributes of RFC 6154 (and Gmail's `\Important`): what a folder is for,
/// whatever its name. The sync engine maps these to its folder types.
public enum IMAPSpecialUse: String, Hashable, Sendable, CaseIterable {
    case all = "\\All"
    case archive = "\\Archive"
    case drafts = "\\Drafts"
    case flagged = "\\Flagged"
    case junk = "\\Junk"
    case sent = "\\Sent"
    case trash = "\\Trash"
    case important = "\\Important"

    public var attribute: IMAPMailboxAttribute { IMAPMailboxAttribute(rawValue) }
}
