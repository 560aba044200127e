import Foundation
import Hummingbird
import MailModel
import MailSearchKit

/// The mailbox action endpoints: `POST /api/emails/{id}/actions` and `POST /api/threads/{id}/actions`
/// with `{"action": "read" | "unread" | "star" | "unstar" | "archive" | "move" | "delete", "folder": "…"}`
/// (`folder` for `move`), answering `ActionResult`. Local first: the mailbox changes at once, the
/// IMAP write-back is queued (see `IMAPSyncEngine`'s outbox).
extension MailSearchAPI {
    struct ActionBody: Decodable {
        var action: String
        var folder: String?
    }

    func registerActions(on api: RouterGroup<BasicRequestContext>) {
        api.post("emails/:id/actions") { request, context in
            let id = try Self.id(context)
            let action = try await Self.action(request)
            return JSON.response(try await service.mailbox.perform(action, emailIds: [id]))
        }
        api.post("threads/:id/actions") { request, context in
            let id = try Self.id(context)
            let action = try await Self.action(request)
            return JSON.response(try await service.mailbox.perform(action, threadId: id))
        }
    }

    static func action(_ request: Request) async throws -> MailboxAction {
        let body = try await jsonBody(ActionBody.self, request, example: #"{"action": "archive"}"#)
        switch body.action.lowercased() {
        case "read": return .markRead
        case "unread": return .markUnread
        case "star": return .star
        case "unstar": return .unstar
        case "archive": return .archive
        case "delete": return .delete
        case "move":
            guard let folder = body.folder, !folder.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw APIError(.badRequest, "a move needs a folder", hint: #"send {"action": "move", "folder": "Projects"}"#)
            }
            return .move(to: folder)
        default:
            throw APIError(.badRequest, "\"\(body.action.prefix(40))\" is not an action",
                           hint: "use read, unread, star, unstar, archive, move or delete")
        }
    }
}
