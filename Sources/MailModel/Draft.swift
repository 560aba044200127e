import Foundation

/// Where a message being written or sent is (spec 001 §5.5): a draft, then, once sent, waiting
/// out the undo window (`queued`), handed to the sender (`sending`), its data's final dot written
/// to the server (`handedOver`), waiting to try again (`waiting`), and at last `sent` or `failed`.
public enum DraftState: String, Sendable, Hashable, Codable, CaseIterable {
    case draft, queued, sending, handedOver, waiting, sent, failed
    /// Deleted by the user; the row stays only until its copy in the Drafts folder is removed.
    case deleted
}

/// A message being written, or in the send queue (one row of `drafts`: the draft and its send
/// are one record, so an undo gives the same draft back).
public struct Draft: Sendable, Hashable, Codable {
    public var id: Int64
    public var accountId: Int64
    public var state: DraftState
    /// `new`, `reply`, `replyAll` or `forward`.
    public var kind: String
    /// The email answered or forwarded.
    public var parentEmailId: Int64?
    /// `Name <address>` or `address`.
    public var from: String
    /// Each as typed (`Name <address>`); checked when the message is built.
    public var to: [String]
    public var cc: [String]
    public var bcc: [String]
    public var subject: String
    public var body: String
    /// Without angle brackets. Fixed when the draft is made: every attempt sends the same one.
    public var messageId: String
    public var inReplyTo: String?
    public var references: [String]
    public var createdAt: Date
    public var updatedAt: Date
    /// Bumped by every change of the content (the Drafts folder's copy is of one version).
    public var version: Int
    /// Queued: not sent before this (the undo window's end); waiting: the next attempt.
    public var sendAfter: Date?
    public var attempts: Int
    public var lastError: String?
    public var sentAt: Date?
    /// The server's final reply, and the recipients it refused (`address: reply`), once sent.
    public var sendReply: String?
    public var refused: [String]
    /// The copy in the Sent folder: `pending`, `done`, `skipped` (the server keeps it itself:
    /// Gmail; or the account has no IMAP), `failed`; nil before the message is sent.
    public var sentCopy: String?
    /// The copy in the account's Drafts folder: its UID there and the version it holds.
    public var draftMailbox: [UInt8]?
    public var draftUidValidity: UInt32?
    public var draftUid: UInt32?
    public var draftCopyVersion: Int?
    public var attachments: [DraftAttachmentInfo]

    public init(id: Int64, accountId: Int64, state: DraftState, kind: String, parentEmailId: Int64? = nil, from: String, to: [String], cc: [String], bcc: [String], subject: String, body: String, messageId: String, inReplyTo: String? = nil, references: [String], createdAt: Date, updatedAt: Date, version: Int, sendAfter: Date? = nil, attempts: Int, lastError: String? = nil, sentAt: Date? = nil, sendReply: String? = nil, refused: [String], sentCopy: String? = nil, draftMailbox: [UInt8]? = nil, draftUidValidity: UInt32? = nil, draftUid: UInt32? = nil, draftCopyVersion: Int? = nil, attachments: [DraftAttachmentInfo]) {
        self.id = id
        self.accountId = accountId
        self.state = state
        self.kind = kind
        self.parentEmailId = parentEmailId
        self.from = from
        self.to = to
        self.cc = cc
        self.bcc = bcc
        self.subject = subject
        self.body = body
        self.messageId = messageId
        self.inReplyTo = inReplyTo
        self.references = references
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.version = version
        self.sendAfter = sendAfter
        self.attempts = attempts
        self.lastError = lastError
        self.sentAt = sentAt
        self.sendReply = sendReply
        self.refused = refused
        self.sentCopy = sentCopy
        self.draftMailbox = draftMailbox
        self.draftUidValidity = draftUidValidity
        self.draftUid = draftUid
        self.draftCopyVersion = draftCopyVersion
        self.attachments = attachments
    }
}

/// An attachment of a draft, without its bytes.
public struct DraftAttachmentInfo: Sendable, Hashable, Codable {
    public var id: Int64
    public var filename: String
    public var mimeType: String
    public var size: Int
    /// The email whose attachment it is (a forward), or nil (uploaded).
    public var fromEmailId: Int64?

    public init(id: Int64, filename: String, mimeType: String, size: Int, fromEmailId: Int64? = nil) {
        self.id = id
        self.filename = filename
        self.mimeType = mimeType
        self.size = size
        self.fromEmailId = fromEmailId
    }
}

/// The fields of a draft a user edits.
public struct DraftContent: Sendable, Hashable {
    public var from: String
    public var to: [String]
    public var cc: [String]
    public var bcc: [String]
    public var subject: String
    public var body: String

    public init(from: String, to: [String] = [], cc: [String] = [], bcc: [String] = [], subject: String = "", body: String = "") {
        self.from = from
        self.to = to
        self.cc = cc
        self.bcc = bcc
        self.subject = subject
        self.body = body
    }
}
