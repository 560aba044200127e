import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import MailModel
import MailSearchKit
import MailSearchServer
import MailStore
import XCTest

/// A real `MailSearchService` on a temporary data directory, filled by importing a generated mbox:
/// 12 conversations of two messages about the budget, and one message with a .zip and a .txt
/// attachment. No embedding model (keyword search; the semantic status says why).
final class ServerFixture: @unchecked Sendable {
    let directory: URL
    let service: MailSearchService
    let zipBytes = Data([0x50, 0x4B, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00]) + Data((0..<200).map { UInt8($0 % 251) })
    let textAttachment = "Notes for the meeting.\nNothing more.\n"
    static let conversations = 12

    init() async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let configuration = MailSearchService.Configuration(
            dataDirectory: DataDirectory(url: directory.appendingPathComponent("data")),
            modelDirectory: directory.appendingPathComponent("no-model"),
            searchThreads: 1, embeddingThreads: 1)
        service = try MailSearchService(configuration: configuration)
        let mbox = try writeMbox()
        _ = try await service.mailbox.importMail(path: mbox.path, account: "test")
    }

    deinit {
        service.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    func app(_ configuration: ServerConfiguration = ServerConfiguration()) throws -> some ApplicationProtocol {
        var logger = Logger(label: "server-tests")
        logger.logLevel = .warning
        return try buildApplication(service: service, configuration: configuration, logger: logger)
    }

    /// The main mailbox.
    func writeMbox() throws -> URL {
        var text = ""
        for thread in 0..<Self.conversations {
            for reply in 0..<2 {
                let id = "t\(thread)-\(reply)@example.com"
                text += "From sender@example.com Mon Mar  4 14:11:14 2024\n"
                text += "Message-ID: <\(id)>\n"
                if reply > 0 { text += "In-Reply-To: <t\(thread)-0@example.com>\nReferences: <t\(thread)-0@example.com>\n" }
                text += "From: Person \(thread % 4) <p\(thread % 4)@example.com>\nTo: me@example.com\n"
                text += "Subject: \(reply > 0 ? "Re: " : "")Budget topic \(thread)\n"
                text += "Date: \(1 + thread) Mar 2024 \(10 + reply):00:00 +0000\n\n"
                text += "Message \(reply) about the quarterly budget, conversation \(thread).\n\n"
            }
        }
        text += "From sender@example.com Mon Mar  4 14:11:14 2024\n"
        text += """
            Message-ID: <attach@example.com>
            From: Dana Files <dana@example.com>
            To: me@example.com
            Subject: Archive of the offsite photos
            Date: 20 Mar 2024 09:00:00 +0000
            MIME-Version: 1.0
            Content-Type: multipart/mixed; boundary="XYZ"

            --XYZ
            Content-Type: text/plain; charset=utf-8

            Here are the offsite photos and the notes.
            --XYZ
            Content-Type: application/zip; name="photos.zip"
            Content-Disposition: attachment; filename="photos.zip"
            Content-Transfer-Encoding: base64

            \(zipBytes.base64EncodedString(options: [.lineLength76Characters, .endLineWithLineFeed]))
            --XYZ
            Content-Type: text/plain; name="notes.txt"
            Content-Disposition: attachment; filename="notes.txt"

            \(textAttachment)
            --XYZ--

            """
        let url = directory.appendingPathComponent("mail.mbox")
        try Data(text.utf8).write(to: url)
        return url
    }

    /// A second mailbox for `POST /api/import`.
    func writeSecondMbox(count: Int = 5) throws -> URL {
        var text = ""
        for i in 0..<count {
            text += "From x@example.com Mon Mar  4 14:11:14 2024\nMessage-ID: <second\(i)@example.com>\n"
            text += "From: Eve Second <eve@example.com>\nTo: me@example.com\nSubject: Second mailbox \(i)\n"
            text += "Date: 5 Apr 2024 10:00:00 +0000\n\nA zeppelin arrives, message \(i).\n\n"
        }
        let url = directory.appendingPathComponent("second.mbox")
        try Data(text.utf8).write(to: url)
        return url
    }
}

/// Decoding of the API's answers (ISO-8601 dates, as the server writes them).
func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse, file: StaticString = #filePath, line: UInt = #line) throws -> T {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    do {
        return try decoder.decode(T.self, from: Data(buffer: response.body))
    } catch {
        XCTFail("cannot decode \(T.self) from \(String(buffer: response.body).prefix(300)): \(error)", file: file, line: line)
        throw error
    }
}

/// `{"error", "hint"}`.
struct ErrorBody: Decodable {
    var error: String
    var hint: String?
}

/// Asserts a JSON error with `status`; returns its body.
@discardableResult
func assertError(_ response: TestResponse, _ status: HTTPResponse.Status, file: StaticString = #filePath, line: UInt = #line) throws -> ErrorBody {
    XCTAssertEqual(response.status, status, String(buffer: response.body), file: file, line: line)
    XCTAssertEqual(response.headers[.contentType], "application/json; charset=utf-8", file: file, line: line)
    let json = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
    XCTAssertEqual(json.map { Set($0.keys) }, ["error", "hint"], "an error is {error, hint}", file: file, line: line)
    let body = try decode(ErrorBody.self, response, file: file, line: line)
    XCTAssertFalse(body.error.isEmpty, file: file, line: line)
    return body
}

extension HTTPFields {
    /// Headers from name/value pairs, names given as strings (Host, Origin, Sec-Fetch-Site…).
    static func with(_ pairs: [(String, String)]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs { fields.append(HTTPFields.Element(name: HTTPFields.Element.Name(name)!, value: value)) }
        return fields
    }
}
