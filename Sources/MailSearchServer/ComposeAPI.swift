import Foundation
import Hummingbird
import MailComposition
import MailSearchKit

/// Compose, drafts and the send queue (spec 001 §5.5):
/// `GET /api/identities`, `POST /api/compose`, `GET|POST /api/drafts`, `GET|PUT|DELETE /api/drafts/{id}`,
/// `POST /api/drafts/{id}/attachments?name=FILE` (the file's bytes as the body),
/// `DELETE /api/drafts/{id}/attachments/{attachmentId}`, `POST /api/drafts/{id}/send`,
/// `GET /api/outgoing`, `POST /api/outgoing/{id}/undo`, `POST /api/outgoing/{id}/reopen`.
/// Everything is local first: drafts reach the Drafts folder and queued mail the SMTP server
/// through `serve`'s sender.
extension MailSearchAPI {
    /// The body of `POST /api/compose`: a kind, the email answered or forwarded, and any field to
    /// set at once (the rest comes from the template).
    struct ComposeBody: Decodable {
        var kind: String?
        var emailId: Int64?
        var account: String?
        var to: [String]?
        var cc: [String]?
        var bcc: [String]?
        var subject: String?
        var body: String?

        var input: DraftInput { DraftInput(account: account, to: to, cc: cc, bcc: bcc, subject: subject, body: body) }
    }

    /// Drafts carry their text: up to the service's body limit, in JSON.
    static let draftBodyLimit = 4 << 20

    func registerCompose(on api: RouterGroup<BasicRequestContext>) {
        api.get("identities") { _, _ in JSON.response(try await service.compose.sendingIdentities()) }
        api.post("compose") { request, _ in
            let body = try await Self.jsonBody(ComposeBody.self, request, example: #"{"kind": "reply", "emailId": 123}"#,
                                               limit: Self.draftBodyLimit)
            let kind = try Self.composeKind(body.kind)
            if kind != .new, body.emailId == nil {
                throw APIError.badRequest("a \(kind.rawValue) needs the email it answers", hint: #"send {"kind": "\#(kind.rawValue)", "emailId": 123}"#)
            }
            return JSON.response(try await service.compose.compose(kind, emailId: body.emailId, input: body.input), status: .created)
        }
        api.get("drafts") { _, _ in JSON.response(try await service.compose.drafts()) }
        api.post("drafts") { request, _ in
            let input = try await Self.draftInput(request)
            return JSON.response(try await service.compose.compose(.new, input: input), status: .created)
        }
        api.get("drafts/:id") { _, context in
            let id = try Self.id(context)
            return JSON.response(try await service.compose.draftDetail(id: id))
        }
        api.put("drafts/:id") { request, context in
            let id = try Self.id(context)
            let input = try await Self.draftInput(request)
            return JSON.response(try await service.compose.updateDraft(id: id, input: input))
        }
        api.delete("drafts/:id") { _, context in
            let id = try Self.id(context)
            try await service.compose.deleteDraft(id: id)
            return JSON.response(["deleted": id])
        }
        api.post("drafts/:id/attachments") { request, context in
            let id = try Self.id(context)
            guard let name = try QueryString(request.uri.query)["name"], !name.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw APIError.badRequest("the attachment needs a file name", hint: "POST the file's bytes to /api/drafts/\(id)/attachments?name=report.pdf")
            }
            let type = request.headers[.contentType] ?? "application/octet-stream"
            let buffer: ByteBuffer
            do {
                buffer = try await request.body.collect(upTo: MailSearchService.maximumAttachmentBytes)
            } catch {
                throw APIError(.contentTooLarge, "the file is larger than \(MailSearchService.maximumAttachmentBytes >> 20) MB, the most a message may carry",
                               hint: "share a large file another way")
            }
            let bytes = [UInt8](buffer.readableBytesView)
            return JSON.response(try await service.compose.addAttachment(draftId: id, filename: name, mimeType: type, content: bytes),
                                 status: .created)
        }
        api.delete("drafts/:id/attachments/:attachment") { _, context in
            let id = try Self.id(context)
            guard let attachment = context.parameters.get("attachment").flatMap(Int64.init) else {
                throw APIError.badRequest("the attachment id must be a whole number")
            }
            return JSON.response(try await service.compose.removeAttachment(draftId: id, attachmentId: attachment))
        }
        api.post("drafts/:id/send") { _, context in
            let id = try Self.id(context)
            return JSON.response(try await service.compose.send(draftId: id), status: .accepted)
        }
        api.get("outgoing") { _, _ in JSON.response(try await service.compose.outgoing()) }
        api.post("outgoing/:id/undo") { _, context in
            let id = try Self.id(context)
            return JSON.response(try await service.compose.undoSend(id: id))
        }
        api.post("outgoing/:id/reopen") { _, context in
            let id = try Self.id(context)
            return JSON.response(try await service.compose.reopen(id: id))
        }
    }

    static func composeKind(_ text: String?) throws -> ComposeKind {
        guard let text else { return .new }
        let normalized = text.lowercased().replacingOccurrences(of: "-", with: "").replacingOccurrences(of: "_", with: "")
        if let kind = ComposeKind.allCases.first(where: { $0.rawValue.lowercased() == normalized }) { return kind }
        throw APIError.badRequest("\"\(text.prefix(40))\" is not a kind of message", hint: "use new, reply, replyAll or forward")
    }

    static func draftInput(_ request: Request) async throws -> DraftInput {
        try await jsonBody(DraftInput.self, request, example: #"{"to": ["bob@example.com"], "subject": "…", "body": "…"}"#,
                           limit: draftBodyLimit)
    }
}
