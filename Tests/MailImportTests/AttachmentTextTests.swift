import Foundation
@testable import MailImport
import MailParsing
import XCTest

/// Reading attachments' text: the readers that run nothing (office XML, RTF, calendar), and the
/// limited child process (`AttachmentTextExtractor` running the built `mailsearch-full
/// extract-attachment`) against real tools and hostile files: a zip bomb, entity expansion, a
/// damaged PDF, a reader that runs out of time.
final class AttachmentTextTests: XCTestCase {
    /// The built child executable (`swift build` makes it beside the tests).
    private func executable() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let candidates: [String?] = [ProcessInfo.processInfo.environment["MAILSEARCH_EXTRACT_EXECUTABLE"],
                                     root.appendingPathComponent(".build/debug/mailsearch-full").path]
        for case let candidate? in candidates where FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        XCTFail("no mailsearch-full next to the tests: run `swift build` first")
        throw XCTSkip("unreachable")
    }

    /// Makes a file with Python's zipfile (members: name → bytes given as a Python expression).
    private func zip(_ members: [String: String], compress: Bool = true) throws -> [UInt8] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("zip-\(UUID().uuidString).zip").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writes = members.map { "z.writestr(\(pythonString($0.key)), \($0.value))" }.joined(separator: "\n")
        let script = """
            import zipfile
            with zipfile.ZipFile(\(pythonString(path)), 'w', zipfile.ZIP_DEFLATED if \(compress ? "True" : "False") else zipfile.ZIP_STORED) as z:
            \(writes.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script]
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    private func pythonString(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "\\'") + "'" }

    private let documentXML = """
        '<?xml version="1.0"?><w:document xmlns:w="x"><w:body><w:p><w:r><w:t>Quarterly budget &amp; forecast</w:t></w:r></w:p><w:p><w:r><w:t>Tamarind office</w:t></w:r></w:p></w:body></w:document>'
        """

    func testKindsFromTypeAndName() {
        XCTAssertEqual(AttachmentKind.of(mimeType: "application/pdf", filename: nil), .pdf)
        XCTAssertEqual(AttachmentKind.of(mimeType: "application/octet-stream", filename: "Q3-budget.XLSX"), .xlsx)
        XCTAssertEqual(AttachmentKind.of(mimeType: "text/csv", filename: "a.csv"), .text)
        XCTAssertEqual(AttachmentKind.of(mimeType: "image/png", filename: "a.png"), .unsupported)
        XCTAssertEqual(AttachmentKind.of(mimeType: "message/rfc822", filename: nil), .message)
    }

    func testOfficeXMLRTFAndCalendarText() throws {
        let xml = Array("<w:p><w:t>Budget &amp; plan &#x4E2D;</w:t></w:p><w:p><w:t>Next</w:t></w:p>".utf8)
        XCTAssertEqual(try AttachmentText.officeXMLText(xml), "Budget & plan 中\nNext\n")
        XCTAssertThrowsError(try AttachmentText.officeXMLText(Array("<!DOCTYPE x [<!ENTITY a \"aaaa\">]><x>&a;</x>".utf8)))
        // Shared-string cells' values are indices, not text.
        let sheet = Array(#"<row><c r="A1" t="s"><v>0</v></c><c r="B1"><v>42.5</v></c></row>"#.utf8)
        XCTAssertEqual(try AttachmentText.officeXMLText(sheet).trimmingCharacters(in: .whitespacesAndNewlines), "42.5")
        let rtf = Array(#"{\rtf1\ansi{\fonttbl{\f0 Times;}}\f0 Caf\'e9 budget\par Line two \u8364?5}"#.utf8)
        XCTAssertEqual(AttachmentText.rtfText(rtf), "Café budget\nLine two €5")
        let ics = Array("BEGIN:VEVENT\r\nSUMMARY:Quarterly\r\n  review\r\nLOCATION:Room 4\\, west\r\nORGANIZER;CN=Ann Lee:mailto:ann@example.com\r\nEND:VEVENT\r\n".utf8)
        XCTAssertEqual(AttachmentText.calendarText(ics), "Quarterly review\nRoom 4, west\nAnn Lee\nann@example.com")
    }

    func testOfficeDocumentsAreReadInTheChild() throws {
        let extractor = AttachmentTextExtractor(executable: try executable())
        let docx = try zip(["word/document.xml": documentXML, "[Content_Types].xml": "'<Types/>'"])
        let result = extractor.extract(kind: .docx, content: docx)
        XCTAssertEqual(result.status, .ok, result.detail ?? "")
        XCTAssertEqual(result.text.trimmingCharacters(in: .whitespacesAndNewlines), "Quarterly budget & forecast\nTamarind office")
        let odt = try zip(["content.xml": "'<office:text><text:p>Hello from an ODT</text:p></office:text>'"])
        XCTAssertEqual(extractor.extract(kind: .odf, content: odt).text.trimmingCharacters(in: .whitespacesAndNewlines), "Hello from an ODT")
    }

    func testHostileFilesAreRefusedOrStoppedAndSaySo() throws {
        var limits = AttachmentTextExtractor.Limits()
        limits.memberBytes = 1 << 20
        let extractor = AttachmentTextExtractor(executable: try executable(), limits: limits)
        // A zip bomb: a member that expands far past the limit.
        let bomb = try zip(["word/document.xml": "b'<w:t>' + b'0' * (8 << 20) + b'</w:t>'"])
        XCTAssertLessThan(bomb.count, 100_000)
        let refused = extractor.extract(kind: .docx, content: bomb)
        XCTAssertEqual(refused.status, .refused, "\(refused)")
        XCTAssertTrue(refused.detail?.contains("zip bomb") ?? false, "\(refused)")
        // Entity expansion ("billion laughs") is never performed.
        let laughs = try zip(["word/document.xml": """
            '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><w:t>&lol2;</w:t>'
            """])
        XCTAssertEqual(extractor.extract(kind: .docx, content: laughs).status, .refused)
        // A damaged PDF fails with poppler's word, and a reader past its wall clock is stopped.
        let damaged = extractor.extract(kind: .pdf, content: Array("%PDF-1.4\n1 0 obj << /Type /Catalog >>\ngarbage".utf8))
        XCTAssertEqual(damaged.status, .failed, "\(damaged)")
        var hurried = AttachmentTextExtractor.Limits()
        hurried.wallSeconds = 0.000_1
        let stopped = AttachmentTextExtractor(executable: try executable(), limits: hurried)
            .extract(kind: .docx, content: try zip(["word/document.xml": documentXML]))
        XCTAssertEqual(stopped.status, .timedOut, "\(stopped)")
        // Not a ZIP at all.
        XCTAssertEqual(extractor.extract(kind: .xlsx, content: Array("not a zip".utf8)).status, .failed)
        // Too large to try.
        var small = AttachmentTextExtractor.Limits()
        small.inputBytes = 10
        XCTAssertEqual(AttachmentTextExtractor(executable: try executable(), limits: small)
            .extract(kind: .text, content: Array("more than ten bytes".utf8)).status, .refused)
    }

    func testTextIsCappedAndSaysSo() throws {
        var limits = AttachmentTextExtractor.Limits()
        limits.outputBytes = 1_000
        let result = AttachmentTextExtractor(executable: try executable(), limits: limits)
            .extract(kind: .text, content: Array(String(repeating: "word ", count: 1_000).utf8))
        XCTAssertEqual(result.status, .truncated)
        XCTAssertEqual(result.detail, "the first 1000 bytes of text")
        XCTAssertEqual(result.text.utf8.count, 1_000)
        // Never cut inside a character.
        XCTAssertEqual(AttachmentTextExtractor.text(Array("aé".utf8), upTo: 2), "a")
        XCTAssertEqual(AttachmentTextExtractor.size(64 << 20), "64 MB")
    }
}
