import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Logging
import MailModel
import MailParsing
@testable import MailSearchKit
import MailSearchServer
import MailStore
import XCTest

/// Settings' data section: `GET /api/storage` (per account, measured), `GET /api/export` (mbox
/// and JSONL, streamed; an mbox imports back), `POST /api/caches/clear`, and the status's
/// `embedding.background`.
private let emailsHeader = HTTPFields.Element.Name("X-MailSearch-Export-Emails")!
private let missingHeader = HTTPFields.Element.Name("X-MailSearch-Missing-Originals")!

final class DataEndpointTests: XCTestCase {
    var fixture: ServerFixture!

    override func setUp() async throws {
        fixture = try await ServerFixture()
    }

    override func tearDown() async throws {
        fixture = nil
    }

    var dataDirectory: URL { fixture.directory.appendingPathComponent("data") }

    /// The fixture's mbox as the importer read it: each message's bytes.
    static func messages(_ fixture: ServerFixture, _ name: String = "mail.mbox") throws -> [[UInt8]] {
        Array(try MboxReader(path: fixture.directory.appendingPathComponent(name).path)).map(\.bytes)
    }

    static func messageIds(inMbox bytes: [UInt8]) -> [String] {
        Array(MboxReader(data: Data(bytes))).compactMap { MIMEParser.parse($0.bytes).messageId }
    }

    // MARK: Storage

    func testStorageMeasuresEachAccount() async throws {
        let fixture = self.fixture!
        let dataDirectory = self.dataDirectory
        _ = try await fixture.service.mailbox.importMail(path: try fixture.writeSecondMbox().path, account: "second")
        // The attachments' text, as reading them would store it (non-ASCII: bytes, not characters, are counted).
        let attach = try await fixture.service.search.search(SearchRequest(text: "offsite photos", limit: 1, mode: .keyword, recordHistory: false))
        let email = try XCTUnwrap(try fixture.service.store.email(id: try XCTUnwrap(attach.results.first).emailId))
        let notes = "Café notes, über alles.\n"
        XCTAssertEqual(email.email.attachments.count, 2)
        try fixture.service.store.saveAttachmentTexts([
            (attachmentId: email.email.attachments[0].id, emailId: email.email.id, status: "empty", detail: "no text", text: ""),
            (attachmentId: email.email.attachments[1].id, emailId: email.email.id, status: "read", detail: nil, text: notes)])
        try await fixture.app().test(.router) { client in
            let response = try await client.execute(uri: "/api/storage", method: .get)
            XCTAssertEqual(response.status, .ok, String(buffer: response.body))
            let storage = try decode(StorageReport.self, response)
            XCTAssertEqual(storage.accounts.map(\.name), ["test", "second"])
            let test = storage.accounts[0], second = storage.accounts[1]
            XCTAssertEqual([test.kind, second.kind], ["imported", "imported"])
            XCTAssertEqual(test.emails, 2 * ServerFixture.conversations + 1)
            XCTAssertEqual(test.conversations, ServerFixture.conversations + 1)
            XCTAssertEqual([second.emails, second.conversations], [5, 5])
            // The two attachments' decoded sizes.
            XCTAssertEqual(test.attachments.count, 2)
            XCTAssertEqual(test.attachments.bytes, Int64(fixture.zipBytes.count + fixture.textAttachment.utf8.count))
            XCTAssertEqual(second.attachments, StorageReport.FileUsage(count: 0, bytes: 0))
            // The messages as received: the bytes the importer read.
            XCTAssertEqual(test.messageBytes, Int64(try Self.messages(fixture).reduce(0) { $0 + $1.count }))
            XCTAssertEqual(second.messageBytes, Int64(try Self.messages(fixture, "second.mbox").reduce(0) { $0 + $1.count }))
            // No model: no vectors, no summaries; imported: no message copies, every original there.
            for account in storage.accounts {
                XCTAssertEqual(account.mailDatabase.vectors, 0)
                XCTAssertEqual(account.mailDatabase.summaries, 0)
                XCTAssertEqual(account.messageFiles, StorageReport.FileUsage(count: 0, bytes: 0))
                XCTAssertEqual(account.missingOriginals, 0)
                XCTAssertEqual(account.bytes, account.mailDatabase.bytes)
                XCTAssertFalse(account.overLimit)
            }
            // The text's bytes, counted again here in Swift from the rows (SQLite counted them as blobs).
            let expected = try Self.textBytesPerAccount(dataDirectory)
            XCTAssertEqual(test.mailDatabase.text, expected[test.id])
            XCTAssertEqual(second.mailDatabase.text, expected[second.id])
            XCTAssertEqual(test.mailDatabase.attachmentText, Int64(notes.utf8.count + "no text".utf8.count))
            XCTAssertEqual(second.mailDatabase.attachmentText, 0)
            XCTAssertEqual(test.mailDatabase.bytes, test.mailDatabase.text + test.mailDatabase.attachmentText)

            // The data directory: every file, measured; the databases as the status has them.
            let directory = storage.dataDirectory
            XCTAssertEqual(directory.path, dataDirectory.standardizedFileURL.path)
            XCTAssertEqual(directory.bytes, Self.filesBytes(under: dataDirectory))
            let status = try await fixture.service.status()
            XCTAssertEqual(directory.mailDatabase, status.sizes.mailDatabase)
            XCTAssertEqual(directory.searchIndex, status.sizes.fts5)
            XCTAssertEqual(directory.other, directory.bytes - directory.mailDatabase - directory.searchIndex - directory.messageFiles.bytes)
            XCTAssertFalse(storage.model.installed)
            XCTAssertEqual(storage.model.bytes, 0)
            XCTAssertEqual(storage.totalBytes, directory.bytes)
            XCTAssertEqual(storage.limits.accountBytes, 2_000_000_000)
            XCTAssertEqual(storage.warnings, [])
            XCTAssertEqual(storage.caches.caches.map(\.name), ["threadSummaries", "summaryAnswers", "searchResults", "replyModel"])

            // The second mailbox's file goes: its originals are missing, and said so.
            try FileManager.default.removeItem(at: fixture.directory.appendingPathComponent("second.mbox"))
            let after = try decode(StorageReport.self, try await client.execute(uri: "/api/storage", method: .get))
            XCTAssertEqual(after.accounts.map(\.missingOriginals), [0, 5])
        }
    }

    /// The UTF-8 bytes of each account's stored text columns, read as Swift strings.
    static func textBytesPerAccount(_ dataDirectory: URL) throws -> [Int64: Int64] {
        let queue = try DatabaseQueue(path: dataDirectory.appendingPathComponent("mail.sqlite").path,
                                      configuration: { var c = Configuration(); c.readonly = true; return c }())
        let columns = ["messageId", "inReplyTo", "references", "fromName", "fromEmail", "toAddresses", "ccAddresses", "bccAddresses",
                       "replyToAddresses", "subject", "normalizedSubject", "bodyPlain", "bodyHTML", "snippet", "category", "sourceRef", "defects"]
        return try queue.read { db in
            var totals: [Int64: Int64] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT * FROM emails") {
                let bytes = columns.reduce(0) { $0 + ((row[$1] as String?)?.utf8.count ?? 0) }
                totals[row["accountId"], default: 0] += Int64(bytes)
            }
            return totals
        }
    }

    static func filesBytes(under directory: URL) -> Int64 {
        var total: Int64 = 0
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            let values = try? url.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey])
            if values?.isRegularFile == true { total += Int64(values?.fileSize ?? 0) }
        }
        return total
    }

    // MARK: Export

    func testMboxExportHoldsTheMessagesAsReceivedAndImportsBack() async throws {
        let fixture = self.fixture!
        _ = try await fixture.service.mailbox.importMail(path: try fixture.writeSecondMbox().path, account: "second")
        let original = try Self.messages(fixture)
        try await fixture.app().test(.router) { client in
            let response = try await client.execute(uri: "/api/export?format=mbox&account=test", method: .get)
            XCTAssertEqual(response.status, .ok, String(buffer: response.body))
            XCTAssertEqual(response.headers[.contentType], "application/mbox")
            let disposition = try XCTUnwrap(response.headers[.contentDisposition])
            XCTAssertTrue(disposition.hasPrefix("attachment; filename=\"mailsearch-test-"), disposition)
            XCTAssertTrue(disposition.contains(".mbox\""), disposition)
            XCTAssertEqual(response.headers[.contentSecurityPolicy], "sandbox; default-src 'none'")
            XCTAssertEqual(response.headers[emailsHeader], "25")
            XCTAssertEqual(response.headers[missingHeader], "0")
            let bytes = Array(Data(buffer: response.body))
            // Byte for byte the messages the importer read, in the order they were stored.
            XCTAssertEqual(Array(MboxReader(data: Data(bytes))).map(\.bytes), original)

            // Imported into a fresh data directory: the same count and the same Message-IDs.
            let copy = fixture.directory.appendingPathComponent("copy")
            try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
            let exported = copy.appendingPathComponent("export.mbox")
            try Data(bytes).write(to: exported)
            let fresh = try MailSearchService(configuration: .init(dataDirectory: DataDirectory(url: copy.appendingPathComponent("data")),
                                                                   modelDirectory: copy.appendingPathComponent("no-model"),
                                                                   searchThreads: 1, embeddingThreads: 1))
            defer { fresh.shutdown() }
            let summary = try await fresh.mailbox.importMail(path: exported.path, account: "test")
            XCTAssertEqual(summary.imported, 25)
            XCTAssertEqual(summary.failed, 0)
            let ids = LockedBox<[String]>([])
            try await fresh.mailbox.forEachEmail { email, _ in ids.withLockedValue { $0.append(email.messageId) } }
            XCTAssertEqual(Set(ids.value), Set(Self.messageIds(inMbox: bytes)))
            XCTAssertEqual(ids.value.count, 25)
            XCTAssertEqual(Set(ids.value), Set(original.compactMap { MIMEParser.parse($0).messageId }))

            // All mail: both accounts.
            let all = try await client.execute(uri: "/api/export?format=mbox", method: .get)
            XCTAssertEqual(all.status, .ok)
            XCTAssertTrue(all.headers[.contentDisposition]?.contains("mailsearch-all-mail-") == true)
            XCTAssertEqual(Array(MboxReader(data: Data(buffer: all.body))).count, 30)
        }
    }

    func testExportIsStreamedInChunksOfWholeMessages() async throws {
        let fixture = self.fixture!
        let export = try await fixture.service.mailbox.prepareExport(.mbox, account: "test")
        XCTAssertEqual(export.emails, 25)
        var chunks: [[UInt8]] = []
        let summary = try await export.run(chunkBytes: 100) { chunks.append($0) }
        // Every message is longer than 100 bytes: one a chunk.
        XCTAssertEqual(chunks.count, 25)
        XCTAssertEqual(summary, ExportSummary(emails: 25, missingOriginals: 0, bytes: Int64(chunks.reduce(0) { $0 + $1.count })))
        XCTAssertEqual(chunks.map { Array(MboxReader(data: Data($0))).map(\.bytes) }, try Self.messages(fixture).map { [$0] })
        var large: [[UInt8]] = []
        try await export.run(chunkBytes: 1 << 20) { large.append($0) }
        XCTAssertEqual(large, [chunks.flatMap { $0 }])
    }

    func testJSONLExportIsTheCLIsLines() async throws {
        let fixture = self.fixture!
        try await fixture.app().test(.router) { client in
            let response = try await client.execute(uri: "/api/export?format=jsonl&account=test", method: .get)
            XCTAssertEqual(response.status, .ok, String(buffer: response.body))
            XCTAssertEqual(response.headers[.contentType], "application/x-ndjson")
            XCTAssertTrue(response.headers[.contentDisposition]?.contains(".jsonl\"") == true)
            XCTAssertNil(response.headers[missingHeader])
            let text = String(buffer: response.body)
            XCTAssertTrue(text.hasSuffix("\n"))
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            let lines = try text.split(separator: "\n").map { try decoder.decode(EmailExportLine.self, from: Data($0.utf8)) }
            XCTAssertEqual(lines.count, 25)
            XCTAssertEqual(lines.map(\.emailId), lines.map(\.emailId).sorted())
            XCTAssertEqual(Set(lines.map(\.messageId)), Set(try Self.messages(fixture).compactMap { MIMEParser.parse($0).messageId }))
            let first = try XCTUnwrap(text.split(separator: "\n").first)
            let keys = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any]).keys
            XCTAssertEqual(Set(keys), Set(EmailExportLine.fieldNames.components(separatedBy: ", ")))
            XCTAssertTrue(lines.contains { $0.hasAttachment && $0.subject == "Archive of the offsite photos" })
        }
    }

    func testExportErrorsSayWhatToSend() async throws {
        let fixture = self.fixture!
        try await fixture.app().test(.router) { client in
            let format = try assertError(try await client.execute(uri: "/api/export?format=zip", method: .get), .badRequest)
            XCTAssertEqual(format.error, "format must be mbox or jsonl (got \"zip\")")
            XCTAssertNotNil(format.hint)
            let account = try assertError(try await client.execute(uri: "/api/export?format=mbox&account=nobody", method: .get), .notFound)
            XCTAssertEqual(account.error, "no account named \"nobody\"")
            XCTAssertEqual(account.hint, "the accounts are \"test\"")
            // An account name with a newline, quotes and a path: a 404 too, and a download name
            // for a real account never carries them.
            try assertError(try await client.execute(uri: "/api/export?account=%0A..%2F%22x", method: .get), .notFound)
            try assertError(try await client.execute(uri: "/api/export?account=%ZZ", method: .get), .badRequest)
            try assertError(try await client.execute(uri: "/api/export", method: .get, headers: .with([("Host", "evil.example")])),
                            .misdirectedRequest)
            try assertError(try await client.execute(uri: "/api/caches/clear", method: .post,
                                                     headers: .with([("Origin", "http://evil.example"), ("Sec-Fetch-Site", "cross-site")])),
                            .forbidden)
        }
    }

    func testAnEmailWhoseOriginalIsGoneIsLeftOutOfTheMboxAndCounted() async throws {
        let fixture = self.fixture!
        _ = try await fixture.service.mailbox.importMail(path: try fixture.writeSecondMbox().path, account: "second")
        try FileManager.default.removeItem(at: fixture.directory.appendingPathComponent("second.mbox"))
        try await fixture.app().test(.router) { client in
            let second = try await client.execute(uri: "/api/export?format=mbox&account=second", method: .get)
            XCTAssertEqual(second.status, .ok)
            XCTAssertEqual(second.headers[emailsHeader], "5")
            XCTAssertEqual(second.headers[missingHeader], "5")
            XCTAssertEqual(second.body.readableBytes, 0)
            let all = try await client.execute(uri: "/api/export?format=mbox", method: .get)
            XCTAssertEqual(all.headers[missingHeader], "5")
            XCTAssertEqual(Array(MboxReader(data: Data(buffer: all.body))).count, 25)
            // Their metadata is still exported.
            let lines = try await client.execute(uri: "/api/export?format=jsonl&account=second", method: .get)
            XCTAssertEqual(String(buffer: lines.body).split(separator: "\n").count, 5)
        }
        let summary = try await fixture.service.mailbox.prepareExport(.mbox, account: nil).run { _ in }
        XCTAssertEqual([summary.emails, summary.missingOriginals], [25, 5])
    }

    // MARK: Caches

    func testClearCachesEmptiesStoredSummariesAndMemory() async throws {
        let fixture = self.fixture!
        // A stored summary (no model here: written as the summary queue would).
        let page = try await fixture.service.search.search(SearchRequest(text: "budget", limit: 3, mode: .keyword, recordHistory: false))
        let thread = try XCTUnwrap(page.results.first).threadId
        let (_, emails) = try XCTUnwrap(try fixture.service.store.thread(id: thread))
        let json = Data(#"{"points":[]}"#.utf8)
        let ids = emails.map(\.email.id).sorted()
        XCTAssertTrue(try fixture.service.store.storeThreadSummary(threadId: thread, backend: "extractive-test", emailIds: ids, json: json))
        let storedBytes = Int64(json.count + ids.map(String.init).joined(separator: ",").utf8.count)
        try await fixture.app().test(.router) { client in
            let before = try decode(StorageReport.self, try await client.execute(uri: "/api/storage", method: .get))
            XCTAssertEqual(before.caches.caches[0], CacheReport.Cache(name: "threadSummaries", description: before.caches.caches[0].description,
                                                                     entries: 1, bytes: storedBytes))
            XCTAssertEqual(before.accounts[0].mailDatabase.summaries, storedBytes)
            // A search result page kept in memory.
            let searched = try await client.execute(uri: "/api/search?q=budget", method: .get)
            XCTAssertEqual(searched.status, .ok)
            let generation = fixture.service.generation

            let response = try await client.execute(uri: "/api/caches/clear", method: .post)
            XCTAssertEqual(response.status, .ok, String(buffer: response.body))
            let cleared = try decode(CachesCleared.self, response)
            XCTAssertEqual(cleared.cleared.map(\.name), ["threadSummaries", "summaryAnswers", "searchResults", "replyModel"])
            XCTAssertEqual(cleared.cleared[0].entries, 1)
            XCTAssertEqual(cleared.cleared[0].bytes, storedBytes)
            XCTAssertGreaterThanOrEqual(cleared.cleared[2].entries, 1)
            XCTAssertNil(cleared.cleared[2].bytes)
            XCTAssertEqual(cleared.bytes, storedBytes)
            XCTAssertFalse(cleared.summariesInBackground)
            XCTAssertGreaterThan(fixture.service.generation, generation)

            let after = try decode(StorageReport.self, try await client.execute(uri: "/api/storage", method: .get))
            XCTAssertEqual(after.caches.caches.map(\.entries), [0, 0, 0, 0])
            XCTAssertEqual(after.caches.bytes, 0)
            // The user's data is all there.
            XCTAssertEqual(after.accounts.map(\.emails), before.accounts.map(\.emails))
            let again = try decode(CachesCleared.self, try await client.execute(uri: "/api/caches/clear", method: .post))
            XCTAssertEqual(again.bytes, 0)
            XCTAssertEqual(again.cleared.map(\.entries), [0, 0, 0, 0])
        }
    }

    func testClearCachesIsRefusedReadOnly() async throws {
        let dataDirectory = self.dataDirectory
        let readOnly = try MailSearchService(configuration: .init(dataDirectory: DataDirectory(url: dataDirectory), readOnly: true,
                                                                  searchThreads: 1, embeddingThreads: 1))
        defer { readOnly.shutdown() }
        var logger = Logger(label: "server-tests")
        logger.logLevel = .warning
        try await buildApplication(service: readOnly, configuration: ServerConfiguration(), logger: logger).test(.router) { client in
            _ = try assertError(try await client.execute(uri: "/api/caches/clear", method: .post), .serviceUnavailable)
        }
    }

    /// With the model: a summary computed and stored, cleared, then computed and stored again when asked for.
    func testASummaryIsComputedAgainAfterClearing() async throws {
        let fixture = self.fixture!
        let work = fixture.directory.appendingPathComponent("insights")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        var mbox = ""
        let people = ["Ann Lee <ann@example.com>", "Bob Stone <bob@example.com>"]
        let bodies = ["We need a venue for the offsite in April. The options are Lisbon and Porto.",
                      "Lisbon is cheaper for most of us and the office has a big room.",
                      "Lisbon it is. I will book the room for April 17.",
                      "Great. Could you send me the booking confirmation by Friday?"]
        for (i, body) in bodies.enumerated() {
            mbox += "From x@example.com Mon Mar  4 14:11:14 2024\nMessage-ID: <v\(i)@example.com>\n"
            if i > 0 { mbox += "In-Reply-To: <v\(i - 1)@example.com>\nReferences: <v\(i - 1)@example.com>\n" }
            mbox += "From: \(people[i % 2])\nTo: \(people[(i + 1) % 2])\nSubject: \(i > 0 ? "Re: " : "")Offsite venue\n"
            mbox += "Date: \(4 + i) Mar 2024 10:00:00 +0000\n\n\(body)\n\n"
        }
        let path = work.appendingPathComponent("venue.mbox")
        try Data(mbox.utf8).write(to: path)
        let service = try MailSearchService(configuration: .init(dataDirectory: DataDirectory(url: work.appendingPathComponent("data")),
                                                                 searchThreads: 1, embeddingThreads: 1))
        defer { service.shutdown() }
        guard service.modelSetupStatus().state == "installed" else {
            let message = "the embedding model is not installed in \(service.modelDirectory.path)"
            if ProcessInfo.processInfo.environment["MAILSEARCH_REQUIRE_MODEL"] == "1" { XCTFail(message) }
            throw XCTSkip(message)
        }
        _ = try await service.mailbox.importMail(path: path.path, account: "main")
        let venue = try await service.search.search(SearchRequest(text: "venue", limit: 1, mode: .keyword, recordHistory: false))
        let thread = try XCTUnwrap(venue.results.first).threadId
        var logger = Logger(label: "server-tests")
        logger.logLevel = .warning
        try await buildApplication(service: service, configuration: ServerConfiguration(), logger: logger).test(.router) { client in
            func summary() async throws -> ThreadSummaryAnswer {
                let response = try await client.execute(uri: "/api/threads/\(thread)/summary", method: .get)
                XCTAssertEqual(response.status, .ok, String(buffer: response.body))
                return try decode(ThreadSummaryAnswer.self, response)
            }
            func stored() async throws -> Int {
                try decode(StorageReport.self, try await client.execute(uri: "/api/storage", method: .get)).caches.caches[0].entries
            }
            let first = try await summary()
            XCTAssertEqual(first.status, .summarized)
            XCTAssertEqual(first.origin, .computed)
            let storedFirst = try await stored()
            XCTAssertEqual(storedFirst, 1)

            let cleared = try decode(CachesCleared.self, try await client.execute(uri: "/api/caches/clear", method: .post))
            XCTAssertEqual(cleared.cleared.first { $0.name == "threadSummaries" }?.entries, 1)
            XCTAssertEqual(cleared.cleared.first { $0.name == "summaryAnswers" }?.entries, 1)
            let storedCleared = try await stored()
            XCTAssertEqual(storedCleared, 0)

            let again = try await summary()
            XCTAssertEqual(again.origin, .computed)
            XCTAssertEqual(again.summary, first.summary)
            let storedAgain = try await stored()
            XCTAssertEqual(storedAgain, 1, "the summary computed again is stored again")
        }
    }

    // MARK: Status

    func testStatusSaysWhetherEmbeddingRunsInTheBackground() async throws {
        let fixture = self.fixture!
        try await fixture.app().test(.router) { client in
            let status = try decode(ServiceStatus.self, try await client.execute(uri: "/api/status", method: .get))
            XCTAssertFalse(status.embedding.background)
            XCTAssertEqual(status.embeddedEmails, 0)
        }
        let work = fixture.directory.appendingPathComponent("background")
        let service = try MailSearchService(configuration: .init(dataDirectory: DataDirectory(url: work.appendingPathComponent("data")),
                                                                 modelDirectory: work.appendingPathComponent("no-model"),
                                                                 searchThreads: 1, embeddingThreads: 1, backgroundEmbedding: true))
        defer { service.shutdown() }
        _ = try await service.mailbox.importMail(path: try fixture.writeSecondMbox().path, account: "second")
        await service.waitForEmbedding()
        let status = try await service.status()
        XCTAssertTrue(status.embedding.background)
        XCTAssertEqual(status.embedding.state, .modelMissing)
        XCTAssertEqual([status.emails, status.embeddedEmails], [5, 0])
    }
}
