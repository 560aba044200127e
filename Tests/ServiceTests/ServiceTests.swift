import Embedding
import Foundation
import GRDB
@testable import MailSearchKit
import MailModel
import MailStore
import SearchEngine
import XCTest

/// The service keeps mail, FTS5 rows, stored embeddings and in-memory vectors in agreement, with
/// the real model, while searches run; and its cache never answers with what is gone.
final class ServiceTests: XCTestCase {
    var work: URL!

    override func setUpWithError() throws {
        work = FileManager.default.temporaryDirectory.appendingPathComponent("service-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: work)
    }

    static func modelDirectory() throws -> URL {
        let directory = ModelStore.defaultDirectory()
        guard ModelStore(directory: directory).status().isInstalled else {
            let message = "the all-MiniLM-L6-v2 model is not installed in \(directory.path); run scripts/install-model.sh"
            if ProcessInfo.processInfo.environment["MAILSEARCH_REQUIRE_MODEL"] == "1" { XCTFail(message) }
            throw XCTSkip(message)
        }
        return directory
    }

    /// `count` messages in threads of four: a budget topic, a hiking topic, and a marker word per message.
    func writeMbox(_ name: String, count: Int, tag: String) throws -> String {
        var text = ""
        let topics = [("Quarterly budget", "the spending plan and the forecast for next quarter"),
                      ("Weekend hike", "the trail up the mountain and where to park the car")]
        for i in 0..<count {
            let (subject, body) = topics[(i / 4) % 2]
            text += "From x@example.com Mon Mar  4 14:11:14 2024\n"
            text += "Message-ID: <\(tag)\(i)@example.com>\n"
            if i % 4 > 0 { text += "In-Reply-To: <\(tag)\(i - 1)@example.com>\n" }
            text += "From: Person \(i % 5) <p\(i % 5)@\(tag).example.com>\nTo: me@example.com\n"
            text += "Subject: \(i % 4 > 0 ? "Re: " : "")\(subject) \(tag) \(i / 4)\n"
            text += "Date: \(1 + i % 28) Mar 2024 10:\(String(format: "%02d", i % 60)):00 +0000\n\n"
            text += "Message \(tag)marker\(i) about \(body).\n\n"
        }
        let path = work.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func makeService(backgroundEmbedding: Bool = true) throws -> MailSearchService {
        try MailSearchService(configuration: .init(
            dataDirectory: DataDirectory(url: work.appendingPathComponent("data")), modelDirectory: try Self.modelDirectory(),
            embeddingThreads: 2, embeddingBatchSize: 16, backgroundEmbedding: backgroundEmbedding))
    }

    func ftsRows(_ service: MailSearchService, _ ids: [Int64]) throws -> Int {
        try service.index.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM email_fts WHERE rowid IN (\(ids.map(String.init).joined(separator: ",")))") ?? 0
        }
    }

    func storedEmbeddings(_ service: MailSearchService, _ ids: [Int64]) throws -> Int {
        try service.store.database.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM embeddings WHERE emailId IN (\(ids.map(String.init).joined(separator: ",")))") ?? 0
        }
    }

    /// With the model installed but no email embedded yet, a hybrid search says so and answers by
    /// keyword without loading the model.
    func testAHybridSearchWithNoEmbeddingYetDoesNotLoadTheModel() async throws {
        let service = try makeService(backgroundEmbedding: false)
        defer { service.shutdown() }
        _ = try await service.mailbox.importMail(path: try writeMbox("a.mbox", count: 8, tag: "nomodel"), account: "a")
        let page = try await service.search.search(SearchRequest(text: "quarterly budget", limit: 5, recordHistory: false))
        XCTAssertEqual(page.semantic, .skipped(.noEmbeddings, error: nil))
        XCTAssertFalse(page.results.isEmpty)
        XCTAssertFalse(service.core.semantic.encoderLoaded)
    }

    func testImportWhileSearchingThenDeletesReachEveryIndexAndTheCache() async throws {
        let service = try makeService()
        defer { service.shutdown() }
        let first = try writeMbox("a.mbox", count: 120, tag: "alpha")

        // Searches run all through the import and the background embedding.
        let stop = StopFlag()
        let searching = Task {
            var counts: [Int] = []
            while !stop.isSet {
                // Keyword matches: semantic ones are decided against the mail embedded so far, so a
                // semantic match may come and go while the embedding runs.
                let page = try await service.search.search(SearchRequest(text: "budget", limit: 5, mode: .keyword, recordHistory: false))
                counts.append(page.conversationCount)
                try? await Task.sleep(nanoseconds: 2_000_000)
            }
            return counts
        }
        let summary = try await service.mailbox.importMail(path: first, account: "main", batchSize: 20)
        XCTAssertEqual(summary.imported, 120)
        await service.waitForEmbedding()
        stop.set()
        let counts = try await searching.value
        XCTAssertFalse(counts.isEmpty)
        XCTAssertEqual(counts, counts.sorted(), "matches only grow while mail arrives")
        XCTAssertEqual(counts.last, 15, "15 budget conversations of 4 messages")

        var status = try await service.status()
        XCTAssertEqual(status.emails, 120)
        XCTAssertEqual(status.embeddedEmails, 120)
        XCTAssertEqual(status.embedding.state, .idle)
        XCTAssertTrue(status.semanticAvailable)
        XCTAssertGreaterThan(status.sizes.fts5, 0)
        XCTAssertEqual(status.sizes.embeddings, 120 * 384 * 4)
        XCTAssertGreaterThan(status.sizes.model, 10_000_000)

        // Hybrid search with the real model finds the marker; deleting the email removes it everywhere.
        let request = SearchRequest(text: "alphamarker17", limit: 5, recordHistory: false)
        let before = try await service.search.search(request)
        let target = try XCTUnwrap(before.results.first?.emailId)
        XCTAssertTrue(before.semantic.ran, "the hybrid search ran the real model")
        XCTAssertNotNil(before.results.first?.why.keyword, "found by its word (a made-up token has no meaning to match)")
        XCTAssertEqual(service.core.vectors.count, 120)
        try service.core.delete(emailIds: [target])
        let after = try await service.search.search(request)
        XCTAssertFalse(after.results.contains { $0.emailId == target }, "the cache does not answer with a deleted email")
        XCTAssertEqual(try ftsRows(service, [target]), 0)
        XCTAssertEqual(try storedEmbeddings(service, [target]), 0)
        XCTAssertEqual(service.core.vectors.count, 119)
        let semanticOnly = try await service.search.search(SearchRequest(text: "Quarterly budget alpha 4 spending plan", limit: 50,
                                                                  mode: .semantic, recordHistory: false))
        XCTAssertFalse(semanticOnly.results.contains { $0.emailId == target })

        // A second account, then its removal: every trace goes.
        let second = try writeMbox("b.mbox", count: 24, tag: "beta")
        _ = try await service.mailbox.importMail(path: second, account: "other", batchSize: 10)
        await service.waitForEmbedding()
        let beta = try await service.search.search(SearchRequest(text: "betamarker5", limit: 5, mode: .keyword, recordHistory: false))
        XCTAssertEqual(beta.results.count, 1)
        let betaIds = try await service.store.database.read { db in
            try Int64.fetchAll(db, sql: "SELECT e.id FROM emails e JOIN accounts a ON a.id = e.accountId WHERE a.name = 'other'")
        }
        XCTAssertEqual(betaIds.count, 24)
        XCTAssertEqual(try storedEmbeddings(service, betaIds), 24)
        let deleteAccount = try await service.mailbox.deleteAccount(named: "other")
        XCTAssertEqual(deleteAccount, 24)
        let gone = try await service.search.search(SearchRequest(text: "betamarker5", limit: 5, mode: .keyword, recordHistory: false))
        XCTAssertEqual(gone.conversationCount, 0, "the cache does not answer with a removed account's mail")
        let goneHybrid = try await service.search.search(SearchRequest(text: "Weekend hike beta trail", limit: 50, recordHistory: false))
        XCTAssertFalse(goneHybrid.results.contains { betaIds.contains($0.emailId) }, "no vector of the account is left")
        XCTAssertEqual(try ftsRows(service, betaIds), 0)
        XCTAssertEqual(try storedEmbeddings(service, betaIds), 0)
        XCTAssertEqual(service.core.vectors.count, 119)
        status = try await service.status()
        XCTAssertEqual(status.emails, 119)
        XCTAssertEqual(status.embeddedEmails, 119)
    }

    func testPagesFollowTheCursorWithoutOverlap() async throws {
        let service = try makeService(backgroundEmbedding: false)
        _ = try await service.mailbox.importMail(path: try writeMbox("a.mbox", count: 80, tag: "gamma"), account: "main")
        var seen: [Int64] = []
        var cursor: String?
        var pages = 0
        repeat {
            let page = try await service.search.search(SearchRequest(text: "gamma", limit: 6, cursor: cursor, mode: .keyword))
            XCTAssertEqual(page.conversationCount, 20)
            seen += page.results.map(\.threadId)
            cursor = page.cursor
            pages += 1
        } while cursor != nil && pages < 10
        XCTAssertEqual(pages, 4)
        XCTAssertEqual(seen.count, 20)
        XCTAssertEqual(Set(seen).count, 20, "no conversation on two pages")
        let recentSearches = try await service.search.suggestions().recentSearches
        XCTAssertEqual(recentSearches, ["gamma"], "only a first page is recorded")
    }

    /// The page's views of several accounts: every account's inbox (the unified inbox) and one
    /// account's mail, listed without text (newest first) and searched, by id or by name.
    func testUnifiedInboxAndAccountScopes() async throws {
        let service = try makeService(backgroundEmbedding: false)
        _ = try await service.mailbox.importMail(path: try writeMbox("w.mbox", count: 8, tag: "work"), account: "work", folder: "INBOX")
        _ = try await service.mailbox.importMail(path: try writeMbox("h.mbox", count: 12, tag: "home"), account: "home", folder: "INBOX")
        _ = try await service.mailbox.importMail(path: try writeMbox("a.mbox", count: 4, tag: "old"), account: "home", folder: "Archive")
        let accounts = try service.store.accounts()
        let work = try XCTUnwrap(accounts.first { $0.name == "work" }), home = try XCTUnwrap(accounts.first { $0.name == "home" })

        func listing(_ scope: String, _ text: String = "") async throws -> SearchPage {
            try await service.search.search(SearchRequest(text: text, scope: scope, limit: 100, mode: .keyword, recordHistory: false))
        }
        // Threads of four: 2 of work's, 3 of home's inbox, 1 of home's archive.
        let inboxes = try await listing("inboxes")
        XCTAssertEqual(inboxes.conversationCount, 5)
        XCTAssertEqual(inboxes.query.scope, "inboxes")
        XCTAssertEqual(Set(inboxes.results.map(\.accountId)), [work.id, home.id], "the unified inbox holds both accounts")
        XCTAssertFalse(inboxes.results.contains { $0.subject.contains("old") }, "an archived conversation in the inboxes")
        let dates = inboxes.results.map(\.date)
        XCTAssertEqual(dates, dates.sorted { ($0 ?? .distantPast) > ($1 ?? .distantPast) }, "a listing is newest first")

        let homeView = try await listing("account:home")
        XCTAssertEqual(homeView.conversationCount, 4, "home's inbox and archive")
        XCTAssertEqual(homeView.query.scope, "account:\(home.id)")
        XCTAssertEqual(Set(homeView.results.map(\.accountId)), [home.id])
        let byId = try await listing("account:\(work.id)")
        XCTAssertEqual(byId.conversationCount, 2)
        XCTAssertEqual(Set(byId.results.map(\.accountId)), [work.id])
        let byCase = try await listing("Account:HOME")
        XCTAssertEqual(byCase.conversationCount, 4, "names are matched without case")

        // A search in a view finds only that view's mail.
        let searched = try await listing("account:work", "budget")
        XCTAssertGreaterThan(searched.conversationCount, 0)
        XCTAssertEqual(Set(searched.results.map(\.accountId)), [work.id])
        let oldInInboxes = try await listing("inboxes", "oldmarker0")
        XCTAssertEqual(oldInInboxes.conversationCount, 0, "an archived message is not in the inboxes")
        let oldInHome = try await listing("account:home", "oldmarker0")
        XCTAssertEqual(oldInHome.conversationCount, 1)

        for scope in ["account:nobody", "account:999"] {
            do {
                _ = try await listing(scope)
                XCTFail("\(scope) was accepted")
            } catch let error as ServiceError {
                XCTAssertTrue(error.message.contains("no account named"), error.message)
                XCTAssertTrue(error.hint?.contains("home") == true, error.hint ?? "no hint")
            }
        }
    }

    /// The answer cache keys by the parsed query exactly: `OR` and `or` are different searches.
    func testTheCacheNeverAnswersADifferentQuery() async throws {
        let service = try makeService(backgroundEmbedding: false)
        _ = try await service.mailbox.importMail(path: try writeMbox("a.mbox", count: 40, tag: "delta"), account: "main")
        let either = try await service.search.search(SearchRequest(text: "deltamarker5 OR deltamarker7", mode: .keyword))
        XCTAssertEqual(either.keywordMatches, 2)
        let words = try await service.search.search(SearchRequest(text: "deltamarker5 or deltamarker7", mode: .keyword))
        XCTAssertEqual(words.keywordMatches, 0, "\"or\" is a word here: no email has all three")
        let again = try await service.search.search(SearchRequest(text: "  deltamarker5 OR deltamarker7 ", mode: .keyword))
        XCTAssertEqual(again.keywordMatches, 2)
    }

    /// HTML mail comes back sanitized: no script, remote images behind placeholders unless asked
    /// for, the tracking pixel gone either way, the cid: image the email's own part as a data: URL.
    func testHTMLIsSanitizedAndInlineImagesComeFromTheMessage() async throws {
        let service = try makeService(backgroundEmbedding: false)
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]).base64EncodedString()
        let mbox = """
            From a@example.com Mon Mar  4 14:11:14 2024
            Message-ID: <html@example.com>
            From: News <news@example.com>
            Subject: newsletter with logo
            MIME-Version: 1.0
            Content-Type: multipart/related; boundary="RR"

            --RR
            Content-Type: text/html; charset=utf-8

            <html><body><p onclick="x()">Hello <b>reader</b></p><script>window.__pwned=1</script>
            <img src="cid:logo@example.com" alt="logo"><img src="https://cdn.example.org/banner.png" alt="banner">
            <img src="https://track.example.net/open.gif" width="1" height="1">
            <a href="javascript:alert(1)">bad</a> <a href="https://example.com/read">read more</a></body></html>
            --RR
            Content-Type: image/png
            Content-ID: <logo@example.com>
            Content-Disposition: inline
            Content-Transfer-Encoding: base64

            \(png)
            --RR--

            """
        let path = work.appendingPathComponent("html.mbox").path
        try Data(mbox.utf8).write(to: URL(fileURLWithPath: path))
        _ = try await service.mailbox.importMail(path: path, account: "main")
        let page = try await service.search.search(SearchRequest(text: "newsletter", mode: .keyword))
        let id = try XCTUnwrap(page.results.first?.emailId)

        let blocked = try await service.reader.safeHTML(emailId: id)
        let html = try XCTUnwrap(blocked.html)
        for banned in ["<script", "onclick", "javascript:", "cdn.example.org", "track.example.net", "__pwned"] {
            XCTAssertFalse(html.lowercased().contains(banned), "\(banned) in \(html)")
        }
        XCTAssertTrue(html.contains("src=\"data:image/png;base64,\(png)\""), "the message's own image, inline: \(html)")
        XCTAssertTrue(html.contains("<b>reader</b>"))
        XCTAssertTrue(html.contains("https://example.com/read"))
        XCTAssertEqual(blocked.remoteImagesBlocked, 1)
        XCTAssertEqual(blocked.trackersBlocked, 1)

        let allowed = try await service.reader.safeHTML(emailId: id, allowRemoteImages: true)
        XCTAssertTrue(try XCTUnwrap(allowed.html).contains("https://cdn.example.org/banner.png"))
        XCTAssertFalse(try XCTUnwrap(allowed.html).contains("track.example.net"), "trackers stay out")
        XCTAssertEqual(allowed.trackersBlocked, 1)

        let data = try await service.reader.inlineImage(emailId: id, contentId: "logo@example.com").data
        XCTAssertEqual(data,
                       Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]))
        await assertThrowsAsync(try await service.reader.inlineImage(emailId: id, contentId: "other@example.com"))
    }

    func testBadRequestsAreServiceErrorsNotCrashes() async throws {
        let service = try makeService(backgroundEmbedding: false)
        for request in [SearchRequest(text: String(repeating: "a", count: 1_001)), SearchRequest(text: "x", limit: 0),
                        SearchRequest(text: "x", cursor: "not-a-cursor"), SearchRequest(text: "x", scope: "folder:Nowhere"),
                        SearchRequest(text: "x", scope: "somewhere")] {
            do {
                _ = try await service.search.search(request)
                XCTFail("\(request) was accepted")
            } catch let error as ServiceError {
                XCTAssertTrue([.invalidRequest, .notFound].contains(error.kind), "\(error)")
            }
        }
        await assertThrowsAsync(try await service.reader.email(id: 999)) { XCTAssertEqual(($0 as? ServiceError)?.kind, .notFound) }
        await assertThrowsAsync(try await service.reader.attachment(id: 1)) { XCTAssertEqual(($0 as? ServiceError)?.kind, .notFound) }
    }

    func testRawMessageAndAttachmentsComeFromTheSource() async throws {
        let service = try makeService(backgroundEmbedding: false)
        let zip = Data([0x50, 0x4B, 0x03, 0x04, 0x00, 0xFF, 0x10]).base64EncodedString()
        let mbox = """
            From a@example.com Mon Mar  4 14:11:14 2024
            Message-ID: <first@example.com>
            From: A <a@example.com>
            Subject: plain one

            Nothing attached.

            From b@example.com Mon Mar  4 14:11:14 2024
            Message-ID: <att@example.com>
            From: B <b@example.com>
            Subject: with files
            MIME-Version: 1.0
            Content-Type: multipart/mixed; boundary="XX"

            --XX
            Content-Type: text/plain

            See the files.
            --XX
            Content-Type: text/plain; name="notes.txt"
            Content-Disposition: attachment; filename="notes.txt"

            hello notes
            --XX
            Content-Type: application/zip; name="tools.zip"
            Content-Disposition: attachment; filename="tools.zip"
            Content-Transfer-Encoding: base64

            \(zip)
            --XX--

            """
        let path = work.appendingPathComponent("att.mbox").path
        try Data(mbox.utf8).write(to: URL(fileURLWithPath: path))
        _ = try await service.mailbox.importMail(path: path, account: "main")
        let page = try await service.search.search(SearchRequest(text: "files", mode: .keyword))
        let id = try XCTUnwrap(page.results.first?.emailId)
        let detail = try await service.reader.email(id: id)
        XCTAssertEqual(detail.attachments.map(\.filename), ["notes.txt", "tools.zip"])
        XCTAssertNil(detail.attachments[0].warning)
        XCTAssertEqual(detail.attachments[1].warning, "This archive may contain executable files.")
        let raw = String(decoding: try await service.reader.rawMessage(emailId: id), as: UTF8.self)
        XCTAssertTrue(raw.hasPrefix("Message-ID: <att@example.com>"), raw)
        XCTAssertTrue(raw.contains("--XX--"))
        let data = try await service.reader.attachment(id: detail.attachments[0].id).data
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "hello notes")
        let data2 = try await service.reader.attachment(id: detail.attachments[1].id).data
        XCTAssertEqual(data2, Data([0x50, 0x4B, 0x03, 0x04, 0x00, 0xFF, 0x10]))
        // The source moved away: a clear error, not a crash.
        try FileManager.default.removeItem(atPath: path)
        await assertThrowsAsync(try await service.reader.rawMessage(emailId: id)) { XCTAssertEqual(($0 as? ServiceError)?.kind, .unavailable) }
    }
}

final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

/// `FastJSON` writes the same object as `JSONEncoder` (sorted keys, ISO-8601 dates).
final class FastJSONTests: XCTestCase {
    func testASearchPageEncodesAsJSONEncoderDoes() throws {
        func page(_ results: [SearchResult], semantic: SemanticStatus, cursor: String?) -> SearchPage {
            var query = SearchQuery(text: "budget \"q3\" \\ report")
            query.filters.sender = "sarah"
            query.filters.dateRange = DateRange(start: Date(timeIntervalSince1970: 1_700_000_000), end: nil)
            let threads = results.map {
                MailThread(id: $0.threadId, accountId: $0.accountId, subject: "Re: \($0.subject)", latestDate: $0.date,
                           messageCount: 3, unreadCount: 1, isStarred: $0.threadId == 7,
                           participants: [Address(name: "Sarah \"Ö\"", email: "s@x.org"), Address(email: "bare@x.org")],
                           snippet: "latest\nline")
            }
            return SearchPage(query: SearchPage.Query(query), conversationCount: 1234, matchedConversations: 1000, keywordMatches: 5678, offset: 20,
                              results: results, threads: threads, semantic: semantic, tookMs: 3.25, cursor: cursor)
        }
        let results = [
            SearchResult(threadId: 7, emailId: 70, subject: "Budget \"Q3\"\tnow\u{1}", senderName: "Sarah Ö", senderEmail: "s@x.org",
                         date: Date(timeIntervalSince1970: 988_365_869), snippet: "…the budget/plan…",
                         highlights: [HighlightRange(field: .subject, start: 0, length: 6)], hasAttachment: true,
                         score: 0.016393442622950821, matchSource: .both, accountId: 1, matchedMessages: 3,
                         why: MatchExplanation(keyword: .init(terms: ["budget", "\"q3\""], bm25: -12.5e-7, rank: 1),
                                               semantic: .init(similarity: 0.51234, rank: 4)),
                         isRead: false, category: .updates),
            SearchResult(threadId: -9, emailId: 9, subject: "", senderName: "", senderEmail: "", date: nil, snippet: "",
                         highlights: [], hasAttachment: false, score: 2, matchSource: .filter, accountId: 2),
            SearchResult(threadId: 3, emailId: 30, subject: "old", senderName: "", senderEmail: "", date: Date(timeIntervalSince1970: -86_401),
                         snippet: "", highlights: [], hasAttachment: false, score: 0, matchSource: .semantic, accountId: 1,
                         why: MatchExplanation(semantic: .init(similarity: 0.9, rank: 1))),
            SearchResult(threadId: 4, emailId: 40, subject: "near", senderName: "", senderEmail: "", date: nil,
                         snippet: "", highlights: [], hasAttachment: false, score: 0.01, matchSource: .semantic, accountId: 1,
                         why: MatchExplanation(semantic: .init(similarity: 0.21, rank: 2, keywordAgreement: true))),
            // Found in an attachment: by a keyword term in its text, by the meaning of a passage.
            SearchResult(threadId: 5, emailId: 50, subject: "signed", senderName: "", senderEmail: "", date: nil,
                         snippet: "in attachment contract \"v2\".pdf: …notice…", highlights: [], hasAttachment: true,
                         score: 0.02, matchSource: .both, accountId: 1,
                         why: MatchExplanation(keyword: .init(terms: ["notice"], bm25: -3, rank: 2),
                                               semantic: .init(similarity: 0.6, rank: 1, attachment: "contract \"v2\".pdf", passage: 2),
                                               attachment: "contract \"v2\".pdf")),
            SearchResult(threadId: 6, emailId: 60, subject: "log", senderName: "", senderEmail: "", date: nil,
                         snippet: "", highlights: [], hasAttachment: true, score: 0.01, matchSource: .semantic, accountId: 1,
                         why: MatchExplanation(semantic: .init(similarity: 0.3, rank: 3, keywordAgreement: true,
                                                               attachment: "uh.log", passage: 1), attachment: "uh.log")),
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        for p in [page(results, semantic: .ran(matches: 12), cursor: "bzQw"),
                  page([], semantic: .skipped(.failed, error: "model \"x\" gone"), cursor: nil),
                  page(results, semantic: .skipped(.modelNotInstalled, error: nil), cursor: nil)] {
            let fast = try FastJSON.encode(p)
            let reference = try encoder.encode(p)
            let a = try JSONSerialization.jsonObject(with: fast) as! NSDictionary
            let b = try JSONSerialization.jsonObject(with: reference) as! NSDictionary
            XCTAssertEqual(a, b, String(decoding: fast, as: UTF8.self))
        }
    }
}
