import Foundation

/// One email message as stored (spec 001 §4.1).
public struct Email: Hashable, Sendable, Codable, Identifiable {
    public var id: Int64
    public var accountId: Int64
    public var threadId: Int64?
    /// The Message-ID without angle brackets; for mail without one, a synthetic
    /// `sha256-<hex>@mailsearch` identity derived from the content.
    public var messageId: String
    /// True when `messageId` was synthesised from the content hash.
    public var messageIdIsSynthetic: Bool
    public var inReplyTo: String?
    /// The References chain, oldest first, without angle brackets.
    public var references: [String]
    public var from: Address?
    public var to: [Address]
    public var cc: [Address]
    public var bcc: [Address]
    public var replyTo: [Address]
    public var subject: String
    public var bodyPlain: String
    public var bodyHTML: String?
    public var snippet: String
    /// The date the message was sent (Date header), or the best fallback.
    public var dateSent: Date?
    /// When the message reached this store's source (Received header, file time, IMAP INTERNALDATE).
    public var dateReceived: Date?
    public var isRead: Bool
    public var isStarred: Bool
    public var isDraft: Bool
    public var category: AICategory
    public var sizeBytes: Int
    public var hasAttachment: Bool
    public var attachments: [Attachment]

    public init(
        id: Int64 = 0, accountId: Int64, threadId: Int64? = nil, messageId: String,
        messageIdIsSynthetic: Bool = false, inReplyTo: String? = nil, references: [String] = [],
        from: Address? = nil, to: [Address] = [], cc: [Address] = [], bcc: [Address] = [],
        replyTo: [Address] = [], subject: String = "", bodyPlain: String = "", bodyHTML: String? = nil,
        snippet: String = "", dateSent: Date? = nil, dateReceived: Date? = nil, isRead: Bool = false,
        isStarred: Bool = false, isDraft: Bool = false, category: AICategory = .uncategorized,
        sizeBytes: Int = 0, hasAttachment: Bool = false, attachments: [Attachment] = []
    ) {
        self.id = id; self.accountId = accountId; self.threadId = threadId; self.messageId = messageId
        self.messageIdIsSynthetic = messageIdIsSynthetic; self.inReplyTo = inReplyTo
        self.references = references; self.from = from; self.to = to; self.cc = cc; self.bcc = bcc
        self.replyTo = replyTo; self.subject = subject; self.bodyPlain = bodyPlain; self.bodyHTML = bodyHTML
        self.snippet = snippet; self.dateSent = dateSent; self.dateReceived = dateReceived
        self.isRead = isRead; self.isStarred = isStarred; self.isDraft = isDraft; self.category = category
        self.sizeBytes = sizeBytes; self.hasAttachment = hasAttachment; self.attachments = attachments
    }

    /// The date used for sorting and date filters: sent date, else received date.
    public var date: Date? { dateSent ?? dateReceived }
}
