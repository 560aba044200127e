import Foundation
import MailComposition
import MailModel
import MailParsing
internal import MailStore
import SMTPProtocol

/// An account that can send: an IMAP account with an SMTP server (`account add --smtp`).
public struct SendingIdentity: Sendable, Codable, Hashable {
    public var accountId: Int64
    public var account: String
    /// `Name <address>` or the address: the From of its mail.
    public var from: String
    public var address: String
}

/// A draft or a queued, sent or failed message (the object of the compose API and of `drafts`
/// and `outgoing --json`).
public struct DraftDetail: Sendable, Codable, Hashable {
    public var id: Int64
    public var account: String
    /// `draft`, `queued` (in its undo window), `sending`, `handedOver`, `waiting` (for another
    /// attempt), `sent` or `failed`.
    public var state: String
    /// `new`, `reply`, `replyAll` or `forward`.
    public var kind: String
    public var parentEmailId: Int64?
    public var from: String
    public var to: [String]
    public var cc: [String]
    public var bcc: [String]
    public var subject: String
    public var body: String
    public var messageId: String
    public var inReplyTo: String?
    public var references: [String]
    public var attachments: [DraftAttachmentInfo]
    public var createdAt: Date
    public var updatedAt: Date
    /// Queued: Undo works until then, and the message is sent then.
    public var undoUntil: Date?
    /// Waiting: the next attempt.
    public var nextAttempt: Date?
    public var attempts: Int
    public var lastError: String?
    public var sentAt: Date?
    /// The server's final reply once sent, and each recipient it refused with its reply.
    public var reply: String?
    public var refused: [String]
    /// The copy in the Sent folder: `pending`, `done`, `skipped`, `failed`; nil before sending.
    public var sentCopy: String?
    /// Whether the Drafts folder holds this version (IMAP accounts).
    public var savedOnServer: Bool
    /// What the service could not do while making it (a forward whose attachments are unreadable).
    public var notices: [String]

    init(_ draft: Draft, account: String, notices: [String] = []) {
        id = draft.id; self.account = account; state = draft.state.rawValue; kind = draft.kind
        parentEmailId = draft.parentEmailId; from = draft.from; to = draft.to; cc = draft.cc; bcc = draft.bcc
        subject = draft.subject; body = draft.body; messageId = draft.messageId; inReplyTo = draft.inReplyTo
        references = draft.references; attachments = draft.attachments; createdAt = draft.createdAt; updatedAt = draft.updatedAt
        undoUntil = draft.state == .queued ? draft.sendAfter : nil
        nextAttempt = draft.state == .waiting ? draft.sendAfter : nil
        attempts = draft.attempts; lastError = draft.lastError; sentAt = draft.sentAt; reply = draft.sendReply
        refused = draft.refused; sentCopy = draft.sentCopy
        savedOnServer = draft.draftUid != nil && draft.draftCopyVersion == draft.version
        self.notices = notices
    }
}

/// The send queue in numbers, for `/api/status`.
public struct SendQueueStatus: Sendable, Codable, Hashable {
    /// In their undo window or being sent.
    public var queued: Int
    /// Waiting for another attempt (offline, a temporary refusal).
    public var waiting: Int
    public var failed: Int
    public var sent: Int
    public var drafts: Int
    /// The undo window, seconds.
    public var undoSeconds: Double
    /// Whether this process sends (`serve`); otherwise queued mail waits for one that does.
    public var senderRunning: Bool
    /// The last failure: the sender's, else the newest waiting or failed message's.
    public var lastError: String?
}

/// What the user typed into a draft (the API's and the CLI's input).
public struct DraftInput: Sendable, Codable, Hashable {
    /// The sending account's name; nil keeps the draft's (or, for a new one, the first that can send).
    public var account: String?
    public var to: [String]?
    public var cc: [String]?
    public var bcc: [String]?
    public var subject: String?
    public var body: String?

    public init(account: String? = nil, to: [String]? = nil, cc: [String]? = nil, bcc: [String]? = nil,
                subject: String? = nil, body: String? = nil) {
        self.account = account
        self.to = to
        self.cc = cc
        self.bcc = bcc
        self.subject = subject
        self.body = body
    }
}

extension ServiceCore {
    /// The most attachment bytes one message may carry (before base64). The server's SIZE, once
    /// known, is checked as well.
    public static let maximumAttachmentBytes = 25 << 20
    /// The longest body a draft may have.
    public static let maximumBodyCharacters = 1 << 20

    // MARK: Identities

    /// The accounts that can send (IMAP accounts with an SMTP server): the default sender, then the rest in account order.
    public func sendingIdentities() throws -> [SendingIdentity] {
        // The default sender first: the one a new message is sent from unless another is chosen.
        let accounts = try store.imapAccounts()
        return (accounts.filter { $0.account.isDefaultSender } + accounts.filter { !$0.account.isDefaultSender }).compactMap { account, settings in
            guard settings.smtpHost != nil else { return nil }
            let address = account.email ?? (settings.username.contains("@") ? settings.username : nil)
            guard let address else { return nil }
            let from = Address(name: account.displayName, email: address).formatted
            return SendingIdentity(accountId: account.id, account: account.name, from: from, address: address)
        }
    }

    /// Every address of the user (each account's), for reply-all.
    func ownAddresses() throws -> [String] {
        var addresses = try store.accounts().compactMap(\.email)
        addresses += try store.imapAccounts().map(\.settings.username).filter { $0.contains("@") }
        return addresses
    }

    private func identity(named name: String?, preferring accountId: Int64? = nil) throws -> SendingIdentity {
        let identities = try sendingIdentities()
        if let name {
            guard let found = identities.first(where: { $0.account == name }) else {
                throw ServiceError.invalid("the account \"\(name.prefix(60))\" cannot send mail",
                                           hint: identities.isEmpty ? "add an IMAP account with --smtp HOST (mailsearch account add)"
                                               : "accounts that can send: \(identities.map(\.account).joined(separator: ", "))")
            }
            return found
        }
        if let accountId, let found = identities.first(where: { $0.accountId == accountId }) { return found }
        guard let first = identities.first else {
            throw ServiceError(.unavailable, "no account can send mail",
                               hint: "add an IMAP account with its SMTP server: mailsearch account add NAME --imap HOST --smtp HOST …")
        }
        return first
    }

    // MARK: Composing

    /// A new draft: empty (`new`), or a reply, reply-all or forward of `emailId` with its
    /// recipients, subject, threading headers and quoted text; a forward carries the original's
    /// attachments (read from its stored source). Saved at once (and to the Drafts folder by the sender).
    public func compose(_ kind: ComposeKind, emailId: Int64? = nil, input: DraftInput = DraftInput()) throws -> DraftDetail {
        try requireWritable()
        var notices: [String] = []
        var template = ComposeTemplate(to: [], cc: [], subject: "", body: "", inReplyTo: nil, references: [])
        var parentAccount: Int64?
        var parentId: Int64?
        var stored: StoredEmail?
        if kind != .new {
            guard let emailId else {
                throw ServiceError.invalid("a \(kind.rawValue) needs the email it answers", hint: "give emailId")
            }
            guard let found = try store.email(id: emailId) else { throw ServiceError.notFound("no email with id \(emailId)") }
            stored = found
            let email = found.email
            parentAccount = email.accountId
            parentId = emailId
            let parent = ComposeParent(
                messageId: email.messageIdIsSynthetic ? nil : email.messageId, references: email.references,
                inReplyTo: email.inReplyTo, from: email.from, to: email.to, cc: email.cc, replyTo: email.replyTo,
                subject: email.subject, date: email.date, text: email.bodyPlain)
            template = ReplyComposer(ownAddresses: try ownAddresses(), timeZone: configuration.calendar.timeZone)
                .template(kind, parent: parent)
        }
        let identity = try identity(named: input.account, preferring: parentAccount)
        let content = DraftContent(
            from: identity.from, to: try checkedAddresses(input.to ?? template.to.map(\.formatted), field: "To"),
            cc: try checkedAddresses(input.cc ?? template.cc.map(\.formatted), field: "Cc"),
            bcc: try checkedAddresses(input.bcc ?? [], field: "Bcc"), subject: input.subject ?? template.subject,
            body: try checkedBody(input.body ?? template.body))
        let messageId = MessageBuilder().newMessageID(domain: identity.address.split(separator: "@").last.map(String.init) ?? "")
        let id = try store.createDraft(accountId: identity.accountId, kind: kind.rawValue, parentEmailId: parentId, content: content,
                                       messageId: messageId, inReplyTo: template.inReplyTo, references: template.references,
                                       now: configuration.now())
        if kind == .forward, let stored {
            notices += forwardAttachments(of: stored, into: id)
        }
        sending.wake()
        return try draftDetail(id: id, notices: notices)
    }

    /// Copies the original's attachments into a forward; what cannot be read is said, not hidden.
    private func forwardAttachments(of stored: StoredEmail, into draftId: Int64) -> [String] {
        let wanted = stored.email.attachments.filter { !$0.isInline || $0.filename != nil }
        guard !wanted.isEmpty else { return [] }
        let parts: [(attachment: ParsedAttachment, content: [UInt8])]
        do {
            parts = MIMEParser.attachmentContents(try MessageSource.rawBytes(emailId: stored.email.id, sourceRef: stored.sourceRef))
        } catch {
            return ["the original's \(wanted.count) attachment(s) could not be read, so they are not forwarded: \(error)"]
        }
        var notices: [String] = []
        for (position, attachment) in stored.email.attachments.enumerated() where wanted.contains(attachment) {
            guard position < parts.count, parts[position].attachment.mimeType == attachment.mimeType else {
                notices.append("the attachment \(attachment.filename ?? "without a name") is no longer in the original's source: not forwarded")
                continue
            }
            do {
                _ = try store.addDraftAttachment(draftId: draftId, filename: attachment.filename ?? "attachment",
                                                 mimeType: attachment.mimeType, content: parts[position].content,
                                                 fromEmailId: stored.email.id, maximumTotal: Self.maximumAttachmentBytes,
                                                 now: configuration.now())
            } catch {
                notices.append("the attachment \(attachment.filename ?? "without a name") is not forwarded: \(error)")
            }
        }
        return notices
    }

    // MARK: Drafts

    /// Changes a draft's fields (those given); only a draft can change (not a queued or sent message).
    public func updateDraft(id: Int64, input: DraftInput) throws -> DraftDetail {
        try requireWritable()
        guard let draft = try store.draft(id: id), draft.state != .deleted else { throw ServiceError.notFound("no draft with id \(id)") }
        let identity = input.account == nil ? nil : try identity(named: input.account)
        let content = DraftContent(
            from: identity?.from ?? draft.from, to: try input.to.map { try checkedAddresses($0, field: "To") } ?? draft.to,
            cc: try input.cc.map { try checkedAddresses($0, field: "Cc") } ?? draft.cc,
            bcc: try input.bcc.map { try checkedAddresses($0, field: "Bcc") } ?? draft.bcc,
            subject: input.subject ?? draft.subject, body: try input.body.map(checkedBody) ?? draft.body)
        try mapStoreErrors { try store.updateDraft(id: id, accountId: identity?.accountId ?? draft.accountId, content: content, now: configuration.now()) }
        sending.wake()
        return try draftDetail(id: id)
    }

    public func draftDetail(id: Int64, notices: [String] = []) throws -> DraftDetail {
        guard let draft = try store.draft(id: id), draft.state != .deleted else { throw ServiceError.notFound("no draft or queued message with id \(id)") }
        let names = Dictionary(try store.accounts().map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        return DraftDetail(draft, account: names[draft.accountId] ?? "", notices: notices)
    }

    /// The drafts, newest first.
    public func drafts() throws -> [DraftDetail] {
        try details(store.drafts(states: [.draft]))
    }

    /// The send queue and what it sent or failed to send, newest first.
    public func outgoing() throws -> [DraftDetail] {
        try details(store.drafts(states: [.queued, .sending, .handedOver, .waiting, .sent, .failed]))
    }

    private func details(_ drafts: [Draft]) throws -> [DraftDetail] {
        let names = Dictionary(try store.accounts().map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        return drafts.map { DraftDetail($0, account: names[$0.accountId] ?? "") }
    }

    /// Deletes a draft (or a sent or failed message's record); its Drafts-folder copy goes too.
    public func deleteDraft(id: Int64) throws {
        try requireWritable()
        try mapStoreErrors { _ = try store.deleteDraft(id: id) }
        sending.wake()
    }

    /// Adds a file to a draft: at most `maximumAttachmentBytes` in all, and no more than the
    /// account's SMTP server takes when its SIZE is known.
    public func addAttachment(draftId: Int64, filename: String, mimeType: String, content: [UInt8]) throws -> DraftDetail {
        try requireWritable()
        guard let draft = try store.draft(id: draftId), draft.state != .deleted else { throw ServiceError.notFound("no draft with id \(draftId)") }
        let name = filename.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw ServiceError.invalid("the attachment has no file name", hint: "give ?name=FILE") }
        let type = mimeType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        let pieces = type.split(separator: "/", omittingEmptySubsequences: false)
        let mime = pieces.count == 2 && pieces.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "!#$&^_.+-".contains($0)) } })
            ? type : "application/octet-stream"
        let current = draft.attachments.reduce(0) { $0 + $1.size }
        if let limit = sending.maximumSize(accountId: draft.accountId), (current + content.count) * 4 / 3 > limit {
            throw ServiceError(.tooLarge, "with \(name) the message would be about \(Self.bytes((current + content.count) * 4 / 3)), and the account's SMTP server accepts at most \(Self.bytes(limit)) (its SIZE)",
                               hint: "attach a smaller file, or share it another way")
        }
        try mapStoreErrors {
            _ = try store.addDraftAttachment(draftId: draftId, filename: name, mimeType: mime, content: content,
                                             maximumTotal: Self.maximumAttachmentBytes, now: configuration.now())
        }
        sending.wake()
        return try draftDetail(id: draftId)
    }

    public func removeAttachment(draftId: Int64, attachmentId: Int64) throws -> DraftDetail {
        try requireWritable()
        try mapStoreErrors { try store.removeDraftAttachment(draftId: draftId, attachmentId: attachmentId, now: configuration.now()) }
        sending.wake()
        return try draftDetail(id: draftId)
    }

    // MARK: Sending

    /// Queues a draft for sending after the undo window (`sending.undoWindow`): the message is
    /// built first (every address checked, a recipient needed), so what is queued can be sent.
    /// Persisted before the answer: a restart in the window gives the draft back, unsent.
    public func send(draftId: Int64) throws -> DraftDetail {
        try requireWritable()
        guard let draft = try store.draft(id: draftId), draft.state != .deleted else { throw ServiceError.notFound("no draft with id \(draftId)") }
        guard draft.state == .draft else {
            throw ServiceError(.conflict, "message \(draftId) is already \(draft.state == .sent ? "sent" : "in the send queue (\(draft.state.rawValue))")")
        }
        let built = try buildMessage(draft)
        if let limit = sending.maximumSize(accountId: draft.accountId), built.bytes.count > limit {
            throw ServiceError(.tooLarge, "the message is \(Self.bytes(built.bytes.count)) and the account's SMTP server accepts at most \(Self.bytes(limit)) (its SIZE); nothing was sent",
                               hint: "remove or shrink attachments")
        }
        let now = configuration.now()
        try mapStoreErrors { try store.queueDraft(id: draftId, sendAfter: now.addingTimeInterval(sending.undoWindow), now: now) }
        sending.wake()
        return try draftDetail(id: draftId)
    }

    /// Undo: a message not yet handed to the SMTP server becomes a draft again.
    public func undoSend(id: Int64) throws -> DraftDetail {
        try requireWritable()
        try mapStoreErrors { try store.unqueueDraft(id: id, now: configuration.now()) }
        sending.wake()
        return try draftDetail(id: id)
    }

    /// A failed message back to the drafts, to edit and send again.
    public func reopen(id: Int64) throws -> DraftDetail {
        try requireWritable()
        try mapStoreErrors { try store.reopenDraft(id: id, now: configuration.now()) }
        return try draftDetail(id: id)
    }

    /// The message a draft makes: its addresses checked, its attachments attached, and an HTML
    /// alternative when the text uses the composer's formatting (`BasicFormatting`). `forDraftsFolder`
    /// builds the Drafts folder's copy, which may have no recipient yet and leaves out addresses
    /// that are not complete, with a Message-ID of its own (`draftCopyID`). `date`: the Date header (default now; a Sent copy made later gives the sending time).
    public func buildMessage(_ draft: Draft, forDraftsFolder: Bool = false, date: Date? = nil) throws -> BuiltMessage {
        func mailboxes(_ list: [String], _ field: String) throws -> [MailboxAddress] {
            try list.compactMap { text in
                do {
                    return try MailboxAddress(parsing: text)
                } catch {
                    if forDraftsFolder { return nil }
                    throw ServiceError.invalid("\(field): \(error)", hint: "write each address as name@example.com or Name <name@example.com>")
                }
            }
        }
        let from = try mailboxes([draft.from], "From")
        guard let sender = from.first else { throw ServiceError.invalid("From: \(draft.from.prefix(80)) is not an address") }
        var attachments: [OutgoingAttachment] = []
        for (info, content) in try store.draftAttachmentContents(draftId: draft.id) {
            attachments.append(OutgoingAttachment(filename: info.filename, mimeType: info.mimeType, content: content))
        }
        let message = OutgoingMessage(
            from: sender, to: try mailboxes(draft.to, "To"), cc: try mailboxes(draft.cc, "Cc"),
            bcc: forDraftsFolder ? [] : try mailboxes(draft.bcc, "Bcc"), subject: draft.subject, date: date ?? configuration.now(),
            timeZone: configuration.calendar.timeZone, messageID: forDraftsFolder ? Self.draftCopyID(draft) : draft.messageId,
            inReplyTo: draft.inReplyTo,
            references: draft.references, textBody: draft.body, htmlBody: BasicFormatting.html(draft.body), attachments: attachments)
        do {
            return try MessageBuilder().build(message, requireRecipients: !forDraftsFolder)
        } catch {
            throw ServiceError.invalid(error.description, hint: error.field == "To" ? "add a recipient in To, Cc or Bcc" : nil)
        }
    }

    /// The Message-ID of a draft's copy in the Drafts folder: one per version, never the sent
    /// message's. The sync stores one email per (account, Message-ID): were a draft's copy to
    /// carry the final id, the sent message would be stored as that older draft's text.
    public static func draftCopyID(_ draft: Draft) -> String {
        "draft\(draft.version).\(draft.messageId)"
    }

    func sendQueueStatus() throws -> SendQueueStatus {
        let counts = try store.sendQueueCounts()
        return SendQueueStatus(queued: counts.queued, waiting: counts.waiting, failed: counts.failed, sent: counts.sent,
                               drafts: counts.drafts, undoSeconds: sending.undoWindow, senderRunning: sending.senderRunning,
                               lastError: sending.lastError ?? counts.lastError)
    }

    // MARK: Checks

    private func requireWritable() throws {
        guard !configuration.readOnly else { throw ServiceError(.unavailable, "the mailbox is open read-only") }
    }

    /// Each address as typed (trimmed, empty ones left out); a line break or control character
    /// anywhere is refused, so nothing typed can become a header line.
    func checkedAddresses(_ list: [String], field: String) throws -> [String] {
        guard list.count <= 500 else { throw ServiceError.invalid("\(field): more than 500 addresses") }
        return try list.compactMap { text in
            if text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || (0x80...0x9F).contains($0.value) }) {
                let kind = text.contains("\r") ? "a carriage return" : text.contains("\n") ? "a line feed" : "a control character"
                // Shown escaped (\r, \n), as the sender shows it: a deleted line break would show
                // another header where there is none.
                throw ServiceError.invalid("\(field): the address \(SMTPAddress.shown(text)) contains \(kind)",
                                           hint: "one address per entry, without line breaks")
            }
            guard text.count <= 500 else { throw ServiceError.invalid("\(field): an address longer than 500 characters") }
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            return trimmed.isEmpty ? nil : trimmed
        }
    }

    private func checkedBody(_ body: String) throws -> String {
        guard body.count <= Self.maximumBodyCharacters else {
            throw ServiceError(.tooLarge, "the text is longer than \(Self.maximumBodyCharacters) characters", hint: "attach long text as a file")
        }
        return body
    }

    private func mapStoreErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch MailStoreError.notFound(let message) {
            throw ServiceError.notFound(message)
        } catch MailStoreError.conflict(let message) {
            throw ServiceError(.conflict, message)
        } catch MailStoreError.tooLarge(let message) {
            throw ServiceError(.tooLarge, message, hint: "attach fewer or smaller files")
        }
    }

    static func bytes(_ count: Int) -> String {
        if count >= 1_048_576 { return String(format: "%.1f MB", Double(count) / 1_048_576) }
        if count >= 1024 { return String(format: "%.0f KB", Double(count) / 1024) }
        return "\(count) bytes"
    }
}
