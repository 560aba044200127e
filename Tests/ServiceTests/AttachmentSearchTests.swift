import Foundation
import MailModel
import MailSearchKit
import XCTest

/// Attachments end to end: an mbox whose messages carry a DOCX, a calendar invitation and a zip
/// bomb is imported; the text is read in the limited child (the built mailsearch-full), stored,
/// indexed, searched, shown as "in attachment NAME: …", and the bomb costs only itself; in the
/// background, the text read is embedded.
final class AttachmentSearchTests: XCTestCase {
    var work: URL!

    override func setUpWithError() throws {
        work = FileManager.default.temporaryDirectory.appendingPathComponent("attachments-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let child = root.appendingPathComponent(".build/debug/mailsearch-full").path
        guard FileManager.default.isExecutableFile(atPath: child) else {
            XCTFail("no mailsearch-full at \(child): run `swift build` first")
            return
        }
        setenv("MAILSEARCH_EXTRACT_EXECUTABLE", child, 1)
    }

    override func tearDownWithError() throws {
        unsetenv("MAILSEARCH_EXTRACT_EXECUTABLE")
        try? FileManager.default.removeItem(at: work)
    }

    /// Writes the mbox with Python's email package (real MIME, base64 parts).
    private func mbox() throws -> URL {
        let path = work.appendingPathComponent("mail.mbox")
        let script = #"""
            import email.message, io, mailbox, sys, zipfile
            def docx(xml):
                b = io.BytesIO()
                with zipfile.ZipFile(b, 'w', zipfile.ZIP_DEFLATED) as z:
                    z.writestr('word/document.xml', xml)
                return b.getvalue()
            box = mailbox.mbox(sys.argv[1])
            def add(i, subject, body, name, maintype, subtype, content):
                m = email.message.EmailMessage()
                m['From'] = 'ann@example.com'; m['To'] = 'me@example.com'; m['Subject'] = subject
                m['Message-ID'] = '<att%d@example.com>' % i; m['Date'] = 'Mon, 4 Mar 2024 10:00:00 +0000'
                m.set_content(body)
                m.add_attachment(content, maintype=maintype, subtype=subtype, filename=name)
                box.add(m)
            add(1, 'Figures', 'see attached', 'Q3-budget.docx', 'application',
                'vnd.openxmlformats-officedocument.wordprocessingml.document',
                docx('<w:document><w:p><w:t>The marmalade forecast for the third quarter</w:t></w:p></w:document>'))
            add(2, 'Invite', 'see you', 'invite.ics', 'text', 'calendar',
                b'BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:Tamarind review\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n')
            add(3, 'Report', 'hostileprobe', 'annual-report.docx', 'application',
                'vnd.openxmlformats-officedocument.wordprocessingml.document',
                docx(b'<w:t>' + b'0' * (80 << 20) + b'</w:t>'))
            box.flush()
            """#
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, path.path]
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        return path
    }

    func testAttachmentTextIsSearchedAndShownAndABombCostsOnlyItself() async throws {
        let service = try MailSearchService(configuration: .init(
            dataDirectory: DataDirectory(url: work.appendingPathComponent("data")),
            modelDirectory: work.appendingPathComponent("no-model"), cacheCapacity: 20))
        let imported = try await service.mailbox.importMail(path: try mbox().path, account: "home")
        XCTAssertEqual(imported.imported, 3)
        // Names are searchable at once.
        let byName = try await service.search.search(SearchRequest(text: "budget", mode: .keyword))
        XCTAssertEqual(byName.results.map(\.subject), ["Figures"])
        XCTAssertEqual(byName.results.first?.snippet, "attachment Q3-budget.docx")
        let summary = try await service.readAttachments()
        XCTAssertEqual(summary.attachments, 3)
        XCTAssertEqual(summary.read, 2)
        XCTAssertEqual(summary.unreadable, 1, "\(summary.problems)")
        XCTAssertTrue(summary.problems.first?.contains("zip bomb") ?? false, "\(summary.problems)")
        let counts = try service.attachmentCounts()
        XCTAssertEqual([counts.pending, counts.read, counts.unreadable], [0, 2, 1])

        let text = try await service.search.search(SearchRequest(text: "marmalade forecast", mode: .keyword))
        XCTAssertEqual(text.results.map(\.subject), ["Figures"])
        let first = try XCTUnwrap(text.results.first)
        XCTAssertEqual(first.why.attachment, "Q3-budget.docx")
        XCTAssertTrue(first.snippet.hasPrefix("in attachment Q3-budget.docx: "), first.snippet)
        let marked = first.highlights.filter { $0.field == .snippet }
            .map { (first.snippet as NSString).substring(with: NSRange(location: $0.start, length: $0.length)) }
        XCTAssertEqual(marked, ["marmalade", "forecast"])
        let invite = try await service.search.search(SearchRequest(text: "tamarind", mode: .keyword))
        XCTAssertEqual(invite.results.map(\.subject), ["Invite"])
        // The message with the bomb is there and found by its own words.
        let probe = try await service.search.search(SearchRequest(text: "hostileprobe", mode: .keyword))
        XCTAssertEqual(probe.results.map(\.subject), ["Report"])
        // Reading the message says which attachment could not be read, and why.
        let report = try await service.reader.email(id: try XCTUnwrap(probe.results.first).emailId)
        let bomb = try XCTUnwrap(report.attachments.first)
        XCTAssertNotEqual(bomb.textStatus, "ok")
        XCTAssertNotEqual(bomb.textStatus, "pending")
        XCTAssertTrue(bomb.textDetail?.contains("zip bomb") ?? false, "\(String(describing: bomb.textDetail))")
        let figures = try await service.reader.email(id: first.emailId)
        XCTAssertEqual(figures.attachments.map(\.textStatus), ["ok"])
        // A second pass has nothing left to read.
        let again = try await service.readAttachments()
        XCTAssertEqual(again.attachments, 0)
    }

    /// With background embedding (serve), text read from attachments gets its passages' vectors without
    /// waiting for new mail to wake the queue.
    func testTextReadInTheBackgroundIsEmbedded() async throws {
        let service = try MailSearchService(configuration: .init(
            dataDirectory: DataDirectory(url: work.appendingPathComponent("data")), modelDirectory: try ServiceTests.modelDirectory(),
            embeddingThreads: 2, backgroundEmbedding: true, backgroundSummaries: false))
        let imported = try await service.mailbox.importMail(path: try mbox().path, account: "home")
        XCTAssertEqual(imported.imported, 3)
        await service.waitForEmbedding()
        XCTAssertEqual(try service.attachmentCounts().embedded, 0, "no text read yet")
        let summary = try await service.readAttachments()
        XCTAssertEqual(summary.read, 2)
        await service.waitForEmbedding()
        let counts = try service.attachmentCounts()
        XCTAssertEqual([counts.embedded, counts.toEmbed], [2, 0], "the passages of both texts read")
    }
}
