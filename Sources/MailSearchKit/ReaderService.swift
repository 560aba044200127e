import Foundation
import MailModel

/// Reading mail: an email, a conversation, the original message, an attachment, the HTML body
/// made safe, an inline image.
public struct ReaderService: Sendable {
    let core: ServiceCore

    public func email(id: Int64, includeHTML: Bool = false) async throws -> EmailDetail {
        try await core.pool.run { [core] in try core.email(id: id, includeHTML: includeHTML) }
    }

    public func thread(id: Int64, includeHTML: Bool = false) async throws -> ThreadDetail {
        try await core.pool.run { [core] in try core.thread(id: id, includeHTML: includeHTML) }
    }

    /// The original message (RFC 5322 bytes), read from where it was imported from.
    public func rawMessage(emailId: Int64) async throws -> Data {
        try await core.pool.run { [core] in try core.rawMessage(emailId: emailId) }
    }

    /// An attachment's decoded bytes, for an explicit download (never fetched otherwise).
    public func attachment(id: Int64) async throws -> AttachmentDownload {
        try await core.pool.run { [core] in try core.attachment(id: id) }
    }

    /// The HTML body, sanitized (`SafeHTML`); the plain text when there is no HTML or nothing
    /// visible survives; the email's own `cid:` images as data: URLs.
    public func safeHTML(emailId: Int64, allowRemoteImages: Bool = false) async throws -> SafeHTML {
        try await core.pool.run { [core] in try core.safeHTML(emailId: emailId, allowRemoteImages: allowRemoteImages) }
    }

    /// An inline image of an email by its Content-ID: raster types only.
    public func inlineImage(emailId: Int64, contentId: String) async throws -> AttachmentDownload {
        try await core.pool.run { [core] in try core.inlineImage(emailId: emailId, contentId: contentId) }
    }
}
