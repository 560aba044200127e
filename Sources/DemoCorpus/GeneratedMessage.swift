import Foundation

/// One synthetic message: its RFC 5322 bytes and what the generator knows about it,
/// so that tests can check an importer against the truth.
public struct GeneratedMessage: Sendable, Equatable {
    /// The complete RFC 5322 message, LF line endings, ending with a newline.
    /// It carries no Gmail headers: `writeMbox` adds `X-GM-THRID` and `X-Gmail-Labels`.
    public var raw: [UInt8]
    /// The Message-ID without angle brackets.
    public var messageId: String
    /// Gmail-style labels, the mailbox first ("Inbox", "Sent" or "Archived"), then
    /// "Important", "Starred", "Unread", "Category …" and the custom labels "Projects", "Receipts".
    public var labels: [String]
    /// The date in the `Date` header.
    public var date: Date
    /// The position (0-based) of the thread's first message; equal for all messages of a thread.
    public var threadKey: Int
    /// Whether the message has an attachment (a `multipart/mixed` part with a filename).
    public var hasAttachment: Bool
    /// False exactly when `labels` contains "Unread".
    public var isRead: Bool
    /// The address in the `From` header.
    public var fromAddress: String
    /// The position (0-based) of this message in the corpus.
    public var index: Int
    /// The Message-ID (without angle brackets) this message replies to, if any.
    public var inReplyTo: String?
    /// Whether the message has a `text/html` alternative.
    public var hasHTML: Bool
    /// The kind of mail this is.
    public var category: DemoMailCategory
}

/// The kinds of mail in the demo corpus.
public enum DemoMailCategory: String, Sendable, CaseIterable {
    /// Work and personal conversations between people, including the owner's sent mail.
    case conversation
    /// Newsletters, deals and offers.
    case promotion
    /// Notifications from social networks.
    case social
    /// Receipts, invoices, statements, shipping notices, itineraries.
    case update
    /// Mailing-list traffic (with `List-Id`).
    case forum
}
