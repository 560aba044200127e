import Foundation

/// A half-open or closed interval of time used by date filters. Either end may be open.
public struct DateRange: Hashable, Sendable, Codable {
    /// Inclusive lower bound, or nil for "since the beginning".
    public var start: Date?
    /// Exclusive upper bound, or nil for "until now and later".
    public var end: Date?

    public init(start: Date? = nil, end: Date? = nil) {
        self.start = start
        self.end = end
    }

    public func contains(_ date: Date) -> Bool {
        if let start, date < start { return false }
        if let end, date >= end { return false }
        return true
    }

    /// The intersection of two ranges (both must hold).
    public func intersection(_ other: DateRange) -> DateRange {
        let s = [start, other.start].compactMap { $0 }.max()
        let e = [end, other.end].compactMap { $0 }.min()
        return DateRange(start: s, end: e)
    }
}

/// Structured filters of a search (FR-SEARCH-02). All set filters combine with AND.
///
/// Negated operators and OR between operators (`-from:john`, `from:john OR from:mary`,
/// `-(in:spam is:unread)`) nest: `excluded` and `anyOf` hold further `SearchFilters`, and
/// `text` carries words that sit inside such a group (`budget OR from:john`).
public struct SearchFilters: Hashable, Sendable, Codable {
    /// Sender: matched against the email's own From address and display name (case-insensitive substring).
    public var sender: String?
    /// Recipient: matched against To/Cc/Bcc addresses and display names.
    public var recipient: String?
    /// Words that must occur in the subject (`subject:` operator).
    public var subject: String?
    public var dateRange: DateRange?
    public var hasAttachment: Bool?
    /// Folder or label name (case-insensitive), e.g. "Inbox", "Sent".
    public var folder: String?
    public var category: AICategory?
    public var isRead: Bool?
    public var isStarred: Bool?
    /// An attachment kind ("pdf", "document", "spreadsheet", "presentation", "image"…), or a MIME
    /// type or filename extension, the message must carry.
    public var attachmentType: String?
    /// Part of an attachment's filename (`filename:` operator, case-insensitive substring).
    public var attachmentName: String?
    /// The message's size in bytes, at least (`larger:`) and below (`smaller:`).
    public var minSize: Int?
    public var maxSize: Int?
    /// Text in the query language (words, `"phrases"`, `-word`, `OR`, parentheses) the mail must
    /// match through the keyword index, as a condition rather than a ranking: words that share an
    /// OR group or a negation with operators, or a text made only of negated words (`-draft`).
    public var text: String?
    /// Mail matching any of these is left out (`-from:john`, `-is:unread`, `-(in:spam is:unread)`).
    public var excluded: [SearchFilters]
    /// Groups of alternatives: mail must match at least one alternative of every group
    /// (`from:john OR from:mary` is one group of two).
    public var anyOf: [[SearchFilters]]

    public init(
        sender: String? = nil, recipient: String? = nil, subject: String? = nil,
        dateRange: DateRange? = nil, hasAttachment: Bool? = nil, folder: String? = nil,
        category: AICategory? = nil, isRead: Bool? = nil, isStarred: Bool? = nil,
        attachmentType: String? = nil, attachmentName: String? = nil, minSize: Int? = nil, maxSize: Int? = nil,
        text: String? = nil, excluded: [SearchFilters] = [], anyOf: [[SearchFilters]] = []
    ) {
        self.sender = sender; self.recipient = recipient; self.subject = subject
        self.dateRange = dateRange; self.hasAttachment = hasAttachment; self.folder = folder
        self.category = category; self.isRead = isRead; self.isStarred = isStarred
        self.attachmentType = attachmentType; self.attachmentName = attachmentName
        self.minSize = minSize; self.maxSize = maxSize
        self.text = text; self.excluded = excluded; self.anyOf = anyOf
    }

    /// True when no filter is set.
    public var isEmpty: Bool { self == SearchFilters() }

    /// Adds `other`'s filters to these (AND): a sender, recipient, subject, folder, category,
    /// attachment or status of `other` replaces this one's, date ranges and size bounds intersect,
    /// texts, exclusions and groups of alternatives accumulate.
    public mutating func merge(_ other: SearchFilters) {
        if let v = other.sender { sender = v }
        if let v = other.recipient { recipient = v }
        if let v = other.subject { subject = v }
        if let v = other.dateRange { dateRange = dateRange.map { $0.intersection(v) } ?? v }
        if let v = other.hasAttachment { hasAttachment = v }
        if let v = other.folder { folder = v }
        if let v = other.category { category = v }
        if let v = other.isRead { isRead = v }
        if let v = other.isStarred { isStarred = v }
        if let v = other.attachmentType { attachmentType = v }
        if let v = other.attachmentName { attachmentName = v }
        if let v = other.minSize { minSize = max(minSize ?? v, v) }
        if let v = other.maxSize { maxSize = min(maxSize ?? v, v) }
        if let v = other.text { text = text.map { $0 + " " + v } ?? v }
        excluded += other.excluded
        anyOf += other.anyOf
    }

    private enum CodingKeys: String, CodingKey {
        case sender, recipient, subject, dateRange, hasAttachment, folder, category, isRead, isStarred,
             attachmentType, attachmentName, minSize, maxSize, text, excluded, anyOf
    }

    /// Empty `excluded` and `anyOf` are left out, and may be missing when decoding.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            sender: try c.decodeIfPresent(String.self, forKey: .sender),
            recipient: try c.decodeIfPresent(String.self, forKey: .recipient),
            subject: try c.decodeIfPresent(String.self, forKey: .subject),
            dateRange: try c.decodeIfPresent(DateRange.self, forKey: .dateRange),
            hasAttachment: try c.decodeIfPresent(Bool.self, forKey: .hasAttachment),
            folder: try c.decodeIfPresent(String.self, forKey: .folder),
            category: try c.decodeIfPresent(AICategory.self, forKey: .category),
            isRead: try c.decodeIfPresent(Bool.self, forKey: .isRead),
            isStarred: try c.decodeIfPresent(Bool.self, forKey: .isStarred),
            attachmentType: try c.decodeIfPresent(String.self, forKey: .attachmentType),
            attachmentName: try c.decodeIfPresent(String.self, forKey: .attachmentName),
            minSize: try c.decodeIfPresent(Int.self, forKey: .minSize),
            maxSize: try c.decodeIfPresent(Int.self, forKey: .maxSize),
            text: try c.decodeIfPresent(String.self, forKey: .text),
            excluded: try c.decodeIfPresent([SearchFilters].self, forKey: .excluded) ?? [],
            anyOf: try c.decodeIfPresent([[SearchFilters]].self, forKey: .anyOf) ?? [])
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(sender, forKey: .sender)
        try c.encodeIfPresent(recipient, forKey: .recipient)
        try c.encodeIfPresent(subject, forKey: .subject)
        try c.encodeIfPresent(dateRange, forKey: .dateRange)
        try c.encodeIfPresent(hasAttachment, forKey: .hasAttachment)
        try c.encodeIfPresent(folder, forKey: .folder)
        try c.encodeIfPresent(category, forKey: .category)
        try c.encodeIfPresent(isRead, forKey: .isRead)
        try c.encodeIfPresent(isStarred, forKey: .isStarred)
        try c.encodeIfPresent(attachmentType, forKey: .attachmentType)
        try c.encodeIfPresent(attachmentName, forKey: .attachmentName)
        try c.encodeIfPresent(minSize, forKey: .minSize)
        try c.encodeIfPresent(maxSize, forKey: .maxSize)
        try c.encodeIfPresent(text, forKey: .text)
        if !excluded.isEmpty { try c.encode(excluded, forKey: .excluded) }
        if !anyOf.isEmpty { try c.encode(anyOf, forKey: .anyOf) }
    }
}

/// Where a search looks (FR-SEARCH-03).
public enum SearchScope: Hashable, Sendable, Codable {
    /// Every folder of every account (the default).
    case allMail
    /// One folder, by id; applied outside FTS5 through the email↔folder link.
    case currentFolder(folderId: Int64)
    /// Every folder of one account, by id (an account's own view).
    case account(accountId: Int64)
    /// The inbox of every account (the unified inbox).
    case inboxes
}

/// A parsed search: free text plus structured filters and a scope (spec §6.3).
public struct SearchQuery: Hashable, Sendable, Codable {
    /// Free text left after filter extraction; may be empty (filters-only search, E-03).
    public var text: String
    public var filters: SearchFilters
    public var scope: SearchScope
    /// When the sender was read from prose ("built from git", not `from:git`): the query read with
    /// those words as text, which a search uses when no email has such a sender.
    public var proseSenderFallback: Reading?

    /// The wire form is the reading used: text, filters, scope (the fallback is the parser's).
    private enum CodingKeys: String, CodingKey {
        case text, filters, scope
    }

    /// Free text and filters: another reading of the same words.
    public struct Reading: Hashable, Sendable, Codable {
        public var text: String
        public var filters: SearchFilters

        public init(text: String, filters: SearchFilters) {
            self.text = text
            self.filters = filters
        }
    }

    public init(text: String = "", filters: SearchFilters = SearchFilters(), scope: SearchScope = .allMail,
                proseSenderFallback: Reading? = nil) {
        self.text = text
        self.filters = filters
        self.scope = scope
        self.proseSenderFallback = proseSenderFallback
    }
}
