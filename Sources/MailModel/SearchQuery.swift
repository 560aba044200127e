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
public struct SearchFilters: Hashable, Sendable, Codable {
    /// Sender: matched against the From address and display name (case-insensitive substring).
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
    /// An attachment MIME type or filename extension the message must carry ("pdf").
    public var attachmentType: String?

    public init(
        sender: String? = nil, recipient: String? = nil, subject: String? = nil,
        dateRange: DateRange? = nil, hasAttachment: Bool? = nil, folder: String? = nil,
        category: AICategory? = nil, isRead: Bool? = nil, isStarred: Bool? = nil,
        attachmentType: String? = nil
    ) {
        self.sender = sender; self.recipient = recipient; self.subject = subject
        self.dateRange = dateRange; self.hasAttachment = hasAttachment; self.folder = folder
        self.category = category; self.isRead = isRead; self.isStarred = isStarred
        self.attachmentType = attachmentType
    }

    /// True when no filter is set.
    public var isEmpty: Bool { self == SearchFilters() }
}

/// Where a search looks (FR-SEARCH-03).
public enum SearchScope: Hashable, Sendable, Codable {
    /// Every folder of every account (the default).
    case allMail
    /// One folder, by id; applied outside FTS5 through the email↔folder link.
    case currentFolder(folderId: Int64)
}

/// A parsed search: free text plus structured filters and a scope (spec §6.3).
public struct SearchQuery: Hashable, Sendable, Codable {
    /// Free text left after filter extraction; may be empty (filters-only search, E-03).
    public var text: String
    public var filters: SearchFilters
    public var scope: SearchScope

    public init(text: String = "", filters: SearchFilters = SearchFilters(), scope: SearchScope = .allMail) {
        self.text = text
        self.filters = filters
        self.scope = scope
    }
}
