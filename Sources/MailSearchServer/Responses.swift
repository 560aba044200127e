import Foundation
import Hummingbird
import MailSearchKit

/// JSON as the CLI's `--json` writes it (sorted keys, unescaped slashes, ISO-8601 dates), compact.
enum JSON {
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    static func response<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) -> Response {
        let data: Data
        do {
            // A search page, the most frequent answer, is written directly (`FastJSON`): the same object.
            data = try (value as? SearchPage).map(FastJSON.encode) ?? encoder().encode(value)
        } catch {
            // Our own wire types always encode; keep the error shape even if one ever does not.
            data = Data(#"{"error":"the response could not be encoded","hint":null}"#.utf8)
            return Response(status: .internalServerError, headers: [.contentType: "application/json; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        }
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// Downloads: raw messages and attachments, always as attachments (never rendered by a browser).
enum Download {
    /// `attachment; filename="ascii"; filename*=UTF-8''percent-encoded` for an untrusted name.
    static func contentDisposition(filename: String?, fallback: String) -> String {
        let name = sanitizedFilename(filename) ?? fallback
        let ascii = String(name.unicodeScalars.map { scalar -> Character in
            (0x20...0x7E).contains(scalar.value) && scalar != "\"" && scalar != "\\" && scalar != "%" ? Character(scalar) : "_"
        })
        return "attachment; filename=\"\(ascii)\"; filename*=UTF-8''\(rfc5987(name))"
    }

    /// The last path component, without control characters, quotes, backslashes or leading dots;
    /// at most 200 characters; nil when nothing is left.
    static func sanitizedFilename(_ filename: String?) -> String? {
        guard let filename else { return nil }
        let lastComponent = filename.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        var cleaned = String(String.UnicodeScalarView(lastComponent.unicodeScalars.filter { scalar in
            !(scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value)
              || scalar == "\"" || scalar == "\\" || scalar == ";"
              || scalar.properties.generalCategory == .format)   // bidi overrides (RLO) that disguise extensions
        }))
        while cleaned.hasPrefix(".") { cleaned.removeFirst() }
        cleaned = cleaned.trimmingCharacters(in: .whitespaces)
        if cleaned.count > 200 {
            // Keep the extension: it decides what the user's system does with the file.
            let ext = (cleaned as NSString).pathExtension
            let keep = ext.isEmpty || ext.count > 20 ? "" : "." + ext
            cleaned = String(cleaned.prefix(200 - keep.count)) + keep
        }
        return cleaned.isEmpty ? nil : cleaned
    }

    /// RFC 5987 `value-chars`: attr-char as is, every other UTF-8 byte percent-encoded.
    static func rfc5987(_ text: String) -> String {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$&+-.^_`|~".utf8)
        var out = ""
        for byte in text.utf8 {
            if allowed.contains(byte) { out.append(Character(Unicode.Scalar(byte))) } else { out += String(format: "%%%02X", byte) }
        }
        return out
    }

    /// A MIME type as stored, when it is a plain `type/subtype`; else `application/octet-stream`.
    /// Types a browser would run or render as a page are served as bytes.
    static func contentType(_ mimeType: String) -> String {
        let value = mimeType.trimmingCharacters(in: .whitespaces).lowercased()
        let token = Set("abcdefghijklmnopqrstuvwxyz0123456789!#$&-^_.+".utf8)
        let parts = value.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy(token.contains) }) else {
            return "application/octet-stream"
        }
        let active: Set<String> = ["text/html", "application/xhtml+xml", "image/svg+xml", "text/xml", "application/xml",
                                   "text/javascript", "application/javascript", "application/ecmascript", "text/ecmascript"]
        return active.contains(value) ? "application/octet-stream" : value
    }
}

/// A header name (HTTPTypes' `HTTPField.Name`, which Hummingbird does not re-export by name).
typealias FieldName = HTTPFields.Element.Name
