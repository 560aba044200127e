import Foundation
import MailComposition
import MailModel
internal import MailStore

/// Writing mail: the accounts one can send from, drafts (new, reply, reply all, forward), their
/// attachments, and the send queue (send, undo within the window, reopen).
public struct ComposeService: Sendable {
    let core: ServiceCore

    public func sendingIdentities() async throws -> [SendingIdentity] {
        try await core.pool.run { [core] in try core.sendingIdentities() }
    }

    /// A new draft: blank, or a reply, reply all or forward of `emailId`.
    public func compose(_ kind: ComposeKind, emailId: Int64? = nil, input: DraftInput = DraftInput()) async throws -> DraftDetail {
        try await core.pool.run { [core] in try core.compose(kind, emailId: emailId, input: input) }
    }

    public func updateDraft(id: Int64, input: DraftInput) async throws -> DraftDetail {
        try await core.pool.run { [core] in try core.updateDraft(id: id, input: input) }
    }

    public func draftDetail(id: Int64, notices: [String] = []) async throws -> DraftDetail {
        try await core.pool.run { [core] in try core.draftDetail(id: id, notices: notices) }
    }

    public func drafts() async throws -> [DraftDetail] {
        try await core.pool.run { [core] in try core.drafts() }
    }

    /// What is queued, waiting, sent or failed.
    public func outgoing() async throws -> [DraftDetail] {
        try await core.pool.run { [core] in try core.outgoing() }
    }

    public func deleteDraft(id: Int64) async throws {
        try await core.pool.run { [core] in try core.deleteDraft(id: id) }
    }

    public func addAttachment(draftId: Int64, filename: String, mimeType: String, content: [UInt8]) async throws -> DraftDetail {
        try await core.pool.run { [core] in
            try core.addAttachment(draftId: draftId, filename: filename, mimeType: mimeType, content: content)
        }
    }

    public func removeAttachment(draftId: Int64, attachmentId: Int64) async throws -> DraftDetail {
        try await core.pool.run { [core] in try core.removeAttachment(draftId: draftId, attachmentId: attachmentId) }
    }

    /// Queues a draft for sending (after the undo window).
    public func send(draftId: Int64) async throws -> DraftDetail {
        try await core.pool.run { [core] in try core.send(draftId: draftId) }
    }

    /// Takes a queued message back within its undo window: a draft again.
    public func undoSend(id: Int64) async throws -> DraftDetail {
        try await core.pool.run { [core] in try core.undoSend(id: id) }
    }

    /// A failed message back to a draft.
    public func reopen(id: Int64) async throws -> DraftDetail {
        try await core.pool.run { [core] in try core.reopen(id: id) }
    }

    /// The RFC 5322 message a draft would be sent as (`--dry-run`).
    public func message(draftId: Int64) async throws -> BuiltMessage {
        try await core.pool.run { [core] in
            guard let draft = try core.store.draft(id: draftId), draft.state != .deleted else {
                throw ServiceError.notFound("no draft with id \(draftId)")
            }
            return try core.buildMessage(draft)
        }
    }

    /// The RFC 5322 message of a draft (or its copy for the Drafts folder).
    public func buildMessage(_ draft: Draft, forDraftsFolder: Bool = false, date: Date? = nil) async throws -> BuiltMessage {
        try await core.pool.run { [core] in try core.buildMessage(draft, forDraftsFolder: forDraftsFolder, date: date) }
    }
}
