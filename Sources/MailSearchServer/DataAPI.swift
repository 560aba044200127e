import Foundation
import Hummingbird
import MailSearchKit

/// Settings' "Data on this computer" (001 §5.8, §8.3): what the mailbox takes per account, an
/// export of an account's mail (or all of it) as a download, and "Clear caches".
extension MailSearchAPI {
    func registerData(on api: RouterGroup<BasicRequestContext>) {
        api.get("storage") { _, _ in JSON.response(try await service.storage()) }
        api.get("export") { request, _ in try await export(request) }
        api.post("caches/clear") { _, _ in JSON.response(try await service.clearCaches()) }
    }

    static let exportFormats = ExportFormat.allCases.map(\.rawValue).joined(separator: " or ")

    /// `GET /api/export?format=mbox|jsonl[&account=NAME]`: streamed as it is read (one chunk and
    /// one message in memory), as an attachment. The account is checked before the first byte, so
    /// an unknown one is a 404; an error later can only cut the download short (the browser shows
    /// it failed), since the status has gone out.
    func export(_ request: Request) async throws -> Response {
        let query = try QueryString(request.uri.query)
        let formatName = query["format"] ?? "mbox"
        guard let format = ExportFormat(rawValue: formatName.lowercased()) else {
            throw APIError.badRequest("format must be \(Self.exportFormats) (got \"\(formatName.prefix(20))\")",
                                      hint: "mbox: the messages as received, which `mailsearch import` reads back; jsonl: every email's metadata, one JSON object a line")
        }
        var name = query["account"]
        if name?.isEmpty == true { name = nil }
        let export = try await service.mailbox.prepareExport(format, account: name)
        var headers: HTTPFields = [
            .contentType: format.contentType,
            .contentDisposition: Download.contentDisposition(filename: export.suggestedFilename(), fallback: "mailsearch-export.\(format.rawValue)"),
            .contentSecurityPolicy: "sandbox; default-src 'none'",
            FieldName("X-MailSearch-Export-Emails")!: String(export.emails),
        ]
        if format == .mbox {
            // Emails whose original is gone are left out of an mbox: said before the first byte.
            headers[FieldName("X-MailSearch-Missing-Originals")!] = String(export.missingOriginals)
        }
        let body = ResponseBody { writer in
            try await export.run { chunk in try await writer.write(ByteBuffer(bytes: chunk)) }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }
}
