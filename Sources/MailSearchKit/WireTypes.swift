import Foundation
import MailModel
internal import MailStore
import SearchEngine

// The `Codable` shapes the service answers with. `mailsearch … --json` and the HTTP API print
// these same objects, so a script written against one works against the other.

/// One search: the text as typed (filters inside it are parsed), where to look, how many
/// conversations, and which page.
public struct SearchRequest: Sendable, Hashable, Codable {
    /// The longest query accepted (characters).
    public static let maximumLength = 1_000

    public var text: String
    /// "all" (default), "folder:NAME" or "folder:ID", "account:NAME" or "account:ID", or "inboxes"
    /// (the inbox of every account).
    public var scope: String?
    /// Conversations per page, 1…1000.
    public var limit: Int
    /// The `cursor` of the previous page, for the next one.
    public var cursor: String?
    public var mode: SearchMode
    /// The semantic similarity floor; nil for the service's default.
    public var minimumSimilarity: Double?
    /// Whether a first page is added to the recent searches.
    public var recordHistory: Bool

    public init(text: String, scope: String? = nil, limit: Int = 20, cursor: String? = nil, mode: SearchMode = .hybrid,
                minimumSimilarity: Double? = nil, recordHistory: Bool = true) {
        self.text = text
        self.scope = scope
        self.limit = limit
        self.cursor = cursor
        self.mode = mode
        self.minimumSimilarity = minimumSimilarity
        self.recordHistory = recordHistory
    }
}

/// Whether the semantic half of a search ran, and if not, why (each front end words the reason).
public enum SemanticStatus: Sendable, Hashable, Codable {
    case ran(matches: Int)
    case skipped(SemanticSkipReason, error: String?)

    init(_ report: SemanticReport) {
        if report.ran {
            self = .ran(matches: report.matches ?? 0)
        } else {
            self = .skipped(report.reason ?? .failed, error: report.error)
        }
    }

    public var ran: Bool { if case .ran = self { return true } else { return false } }

    private enum CodingKeys: String, CodingKey { case status, matches, reason, error }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .ran(let matches):
            try c.encode("ran", forKey: .status)
            try c.encode(matches, forKey: .matches)
        case .skipped(let reason, let error):
            try c.encode("skipped", forKey: .status)
            try c.encode(reason, forKey: .reason)
            try c.encodeIfPresent(error, forKey: .error)
        }
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if try c.decode(String.self, forKey: .status) == "ran" {
            self = .ran(matches: try c.decode(Int.self, forKey: .matches))
        } else {
            self = .skipped(try c.decode(SemanticSkipReason.self, forKey: .reason),
                            error: try c.decodeIfPresent(String.self, forKey: .error))
        }
    }
}

/// One page of a search's results, grouped by conversation, best first.
public struct SearchPage: Sendable, Codable {
    public struct Query: Sendable, Codable, Hashable {
        public var text: String
        public var filters: SearchFilters
        /// "all", "folder:ID", "account:ID" or "inboxes".
        public var scope: String

        public init(_ query: SearchQuery) {
            text = query.text
            filters = query.filters
            switch query.scope {
            case .allMail: scope = "all"
            case .currentFolder(let id): scope = "folder:\(id)"
            case .account(let id): scope = "account:\(id)"
            case .inboxes: scope = "inboxes"
            }
        }
    }

    public var query: Query
    /// Every conversation with a match, exact.
    public var conversationCount: Int
    /// Of those, the conversations with an email that contains every word of the query (or passes
    /// the filters of a search without text): they come first. The rest are related by meaning only.
    public var matchedConversations: Int
    /// Emails that matched by keyword, exact.
    public var keywordMatches: Int
    /// Conversations before this page.
    public var offset: Int
    /// One per conversation, at its best message.
    public var results: [SearchResult]
    /// The conversation of each result, in the same order (participants, message and unread
    /// counts: what a thread list shows).
    public var threads: [MailThread]
    public var semantic: SemanticStatus
    public var tookMs: Double
    /// Pass as `cursor` for the next page; nil on the last page.
    public var cursor: String?
}

/// The accounts and folders, for a folder list, a scope switch and account badges.
public struct Mailboxes: Sendable, Codable, Hashable {
    public struct AccountInfo: Sendable, Codable, Hashable {
        public var id: Int64
        public var name: String
        public var email: String?
    }

    public var accounts: [AccountInfo]
    /// With their message and unread counts, by account and path.
    public var folders: [Folder]
}

/// The zero state: recent searches and the most frequent contacts (E-10).
public struct Suggestions: Sendable, Codable, Hashable {
    public struct Contact: Sendable, Codable, Hashable {
        public var email: String
        public var name: String?
        public var frequency: Int
        /// A query that finds this contact's mail.
        public var suggestedQuery: String
    }

    public var recentSearches: [String]
    public var contacts: [Contact]
}

/// An attachment's metadata, with the 001 §5.4.2 warning for types that can run code.
public struct AttachmentInfo: Sendable, Codable, Hashable {
    public var id: Int64
    public var filename: String?
    public var mimeType: String
    public var sizeBytes: Int
    public var contentId: String?
    public var isInline: Bool
    /// Shown before a download, for executables, scripts and archives; nil otherwise.
    public var warning: String?
    /// Whether its text was read for search: `pending`, `ok`, `truncated` (read in part),
    /// `unsupported` (no text to read: images…), or why not (`refused`, `failed`, `timeout`…);
    /// `textDetail` says more (which limit, what failed). Nil where the service did not look.
    public var textStatus: String?
    public var textDetail: String?

    init(_ a: Attachment) {
        id = a.id; filename = a.filename; mimeType = a.mimeType; sizeBytes = a.sizeBytes
        contentId = a.contentId; isInline = a.isInline
        warning = Self.warning(forFilename: a.filename)
    }

    /// 001 §5.4.2's warnings by file extension.
    public static func warning(forFilename name: String?) -> String? {
        guard let name = name?.lowercased() else { return nil }
        let groups: [(extensions: [String], warning: String)] = [
            ([".exe", ".bat", ".cmd", ".com", ".msi"], "This file is a Windows executable."),
            ([".app", ".command", ".sh", ".pkg", ".dmg"], "This file can run code on your Mac."),
            ([".js", ".vbs", ".wsf", ".scr"], "This file is a script that can run code."),
            ([".zip", ".rar", ".7z", ".tar.gz"], "This archive may contain executable files."),
        ]
        return groups.first { $0.extensions.contains { name.hasSuffix($0) } }?.warning
    }
}

/// One email with its headers, plain text and attachment metadata.
public struct EmailDetail: Sendable, Codable, Hashable {
    public var emailId: Int64
    public var threadId: Int64?
    public var accountId: Int64
    public var messageId: String
    public var inReplyTo: String?
    public var references: [String]
    public var from: Address?
    public var to: [Address]
    public var cc: [Address]
    public var subject: String
    public var date: Date?
    public var folders: [String]
    public var isRead: Bool
    public var isStarred: Bool
    public var category: String
    public var hasAttachment: Bool
    public var attachments: [AttachmentInfo]
    public var body: String
    /// The HTML body, untrusted: only when asked for.
    public var html: String?
    /// Where the message was imported from.
    public var source: String?
    public var defects: [String]
    /// How `category` was decided (the rule, the classifier's confidence, the user), nil while waiting.
    public var categorization: CategoryDecision?

    init(_ s: StoredEmail, includeHTML: Bool) {
        let e = s.email
        emailId = e.id; threadId = e.threadId; accountId = e.accountId; messageId = e.messageId
        inReplyTo = e.inReplyTo; references = e.references; from = e.from; to = e.to; cc = e.cc
        subject = e.subject; date = e.date; folders = s.folders; isRead = e.isRead; isStarred = e.isStarred
        category = e.category.rawValue; hasAttachment = e.hasAttachment; attachments = e.attachments.map(AttachmentInfo.init)
        body = e.bodyPlain; html = includeHTML ? e.bodyHTML : nil; source = s.sourceRef; defects = s.defects
    }
}

/// A conversation: its summary and every message, oldest first.
public struct ThreadDetail: Sendable, Codable, Hashable {
    public var thread: MailThread
    public var emails: [EmailDetail]
}

/// An attachment's bytes, for an explicit download.
public struct AttachmentDownload: Sendable {
    public var info: AttachmentInfo
    public var data: Data
}

/// An email's HTML body made safe to show (001 §5.4.3): scripts, handlers, frames, forms and
/// remote loads removed by `HTMLSanitizer`; remote images behind placeholders unless asked for;
/// tracking pixels removed either way; `cid:` images pointing at `/api/emails/{id}/cid/{cid}`.
public struct SafeHTML: Sendable, Codable, Hashable {
    public var emailId: Int64
    /// The sanitized fragment; nil when the email has no HTML or nothing visible is left (then
    /// `text` is what to show).
    public var html: String?
    /// The plain-text body, the fallback.
    public var text: String
    public var remoteImagesAllowed: Bool
    public var remoteImagesBlocked: Int
    public var trackersBlocked: Int
}
