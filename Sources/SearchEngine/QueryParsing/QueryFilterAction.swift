import MailModel

/// What one recognised phrase does to the filters of a query.
enum QueryFilterAction: Sendable {
    case sender(String)
    case recipient(String)
    case subject(String)
    case date(DateRange)
    /// An attachment, optionally of one kind ("pdf", "image").
    case attachment(type: String?)
    /// An attachment whose filename holds this text (`filename:`).
    case attachmentName(String)
    /// The message's size in bytes: at least `min` (`larger:`), below `max` (`smaller:`).
    case size(min: Int?, max: Int?)
    case folder(String)
    case category(AICategory)
    case isRead(Bool)
    case isStarred(Bool)
    /// Words that only frame other filters ("emails" in "emails from john"); dropped.
    case noise

    /// Applies the action; a later sender, recipient, subject, folder, category or status
    /// replaces an earlier one, and date ranges intersect.
    func apply(to filters: inout SearchFilters) {
        switch self {
        case .sender(let value): filters.sender = value
        case .recipient(let value): filters.recipient = value
        case .subject(let value): filters.subject = value
        case .date(let range): filters.dateRange = filters.dateRange.map { $0.intersection(range) } ?? range
        case .attachment(let type):
            filters.hasAttachment = true
            if let type { filters.attachmentType = type }
        case .attachmentName(let name):
            filters.hasAttachment = true
            filters.attachmentName = name
        case .size(let min, let max):
            if let min { filters.minSize = Swift.max(filters.minSize ?? min, min) }
            if let max { filters.maxSize = Swift.min(filters.maxSize ?? max, max) }
        case .folder(let name): filters.folder = name
        case .category(let category): filters.category = category
        case .isRead(let value): filters.isRead = value
        case .isStarred(let value): filters.isStarred = value
        case .noise: break
        }
    }
}
