import Foundation
import Hummingbird
import HummingbirdTesting
import MailSearchKit
import MailSearchServer
import XCTest

/// Every endpoint of the API, in process (HummingbirdTesting's router framework), on a real
/// service over an imported mbox.
final class EndpointTests: XCTestCase {
    var fixture: ServerFixture!

    override func setUp() async throws {
        fixture = try await ServerFixture()
    }

    override func tearDown() async throws {
        fixture = nil
    }

    // MARK: Search

    func testSearchAnswersTheSearchPageOfTheCLI() async throws {
        try await fixture.app().test(.router) { client in
            let response = try await client.execute(uri: "/api/search?q=budget", method: .get)
            XCTAssertEqual(response.status, .ok)
            XCTAssertEqual(response.headers[.contentType], "application/json; charset=utf-8")
            XCTAssertEqual(response.headers[.cacheControl], "no-store")
            XCTAssertEqual(response.headers[.xContentTypeOptions], "nosniff")
            let page = try decode(SearchPage.self, response)
            XCTAssertEqual(page.conversationCount, ServerFixture.conversations)
            XCTAssertEqual(page.keywordMatches, 2 * ServerFixture.conversations)
            XCTAssertEqual(page.results.count, ServerFixture.conversations, "default limit 20 holds all 12")
            XCTAssertNil(page.cursor)
            XCTAssertEqual(page.offset, 0)
            XCTAssertEqual(page.query.text, "budget")
            let first = try XCTUnwrap(page.results.first)
            XCTAssertEqual(first.matchSource, .keyword)
            XCTAssertFalse(first.highlights.isEmpty)
            XCTAssertEqual(first.why.keyword?.terms, ["budget"])
            XCTAssertEqual(first.matchedMessages, 2)
            XCTAssertGreaterThanOrEqual(page.tookMs, 0)
            XCTAssertFalse(page.semantic.ran, "no model: semantic status says why")
            // Same keys as `search --json`, plus the cursor (JSON null is omitted, as the CLI does).
            let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
            XCTAssertEqual(Set(json.keys), ["query", "conversationCount", "matchedConversations", "keywordMatches", "offset", "results",
                                            "threads", "semantic", "tookMs"])
            // Each result's conversation, in the same order, for the thread list.
            XCTAssertEqual(page.threads.map(\.id), page.results.map(\.threadId))
            XCTAssertEqual(page.threads.first?.messageCount, 2)
            XCTAssertEqual(page.threads.first?.participants.first?.email.hasSuffix("@example.com"), true)
            // Dates are ISO-8601, slashes unescaped.
            let text = String(buffer: response.body)
            XCTAssertTrue(text.contains("\"date\":\"2024-03-"), text.prefix(400).description)
        }
    }

    func testCursorPagingReturnsTheNextPageWithoutOverlap() async throws {
        try await fixture.app().test(.router) { client in
            var seen: [Int64] = []
            var cursor: String?
            var pages = 0
            repeat {
                var uri = "/api/search?q=budget&limit=5"
                if let cursor { uri += "&cursor=" + cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }
                let response = try await client.execute(uri: uri, method: .get)
                XCTAssertEqual(response.status, .ok, String(buffer: response.body))
                let page = try decode(SearchPage.self, response)
                XCTAssertEqual(page.offset, seen.count)
                XCTAssertEqual(page.conversationCount, ServerFixture.conversations)
                seen += page.results.map(\.threadId)
                cursor = page.cursor
                pages += 1
            } while cursor != nil && pages < 10
            XCTAssertEqual(pages, 3, "5 + 5 + 2")
            XCTAssertEqual(seen.count, ServerFixture.conversations)
            XCTAssertEqual(Set(seen).count, seen.count, "no conversation on two pages")
        }
    }

    func testSearchModesAndScope() async throws {
        try await fixture.app().test(.router) { client in
            for mode in ["hybrid", "keyword", "semantic", "KEYWORD"] {
                let response = try await client.execute(uri: "/api/search?q=budget&mode=\(mode)", method: .get)
                XCTAssertEqual(response.status, .ok, mode)
            }
            let keyword = try decode(SearchPage.self, try await client.execute(uri: "/api/search?q=budget&mode=keyword", method: .get))
            XCTAssertEqual(keyword.semantic, .skipped(.keywordOnlyRequested, error: nil))
            let plus = try decode(SearchPage.self, try await client.execute(uri: "/api/search?q=quarterly+budget&scope=all", method: .get))
            XCTAssertEqual(plus.query.text, "quarterly budget", "+ is a space in a query string")
            XCTAssertEqual(plus.conversationCount, ServerFixture.conversations)
            let filtered = try decode(SearchPage.self, try await client.execute(uri: "/api/search?q=from%3Adana%40example.com", method: .get))
            XCTAssertEqual(filtered.conversationCount, 1)
            try assertError(try await client.execute(uri: "/api/search?q=budget&mode=fuzzy", method: .get), .badRequest)
        }
    }

    func testSearchErrorsAreJSONWithTheRightStatus() async throws {
        try await fixture.app().test(.router) { client in
            let long = String(repeating: "a", count: 1_001)
            let tooLong = try assertError(try await client.execute(uri: "/api/search?q=\(long)", method: .get), .badRequest)
            XCTAssertTrue(tooLong.error.contains("1000"), tooLong.error)
            XCTAssertNotNil(tooLong.hint)
            let atLimit = try await client.execute(uri: "/api/search?q=\(String(repeating: "a", count: 1_000))", method: .get)
            XCTAssertEqual(atLimit.status, .ok)
            // 1,001 characters, multi-byte: counted in characters, not bytes.
            let accented = String(repeating: "é", count: 1_001).addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            try assertError(try await client.execute(uri: "/api/search?q=\(accented)", method: .get), .badRequest)

            try assertError(try await client.execute(uri: "/api/search?q=budget&cursor=bogus", method: .get), .badRequest)
            try assertError(try await client.execute(uri: "/api/search?q=budget&cursor=\("o-5".data(using: .utf8)!.base64EncodedString())", method: .get), .badRequest)
            try assertError(try await client.execute(uri: "/api/search?q=budget&limit=abc", method: .get), .badRequest)
            try assertError(try await client.execute(uri: "/api/search?q=budget&limit=0", method: .get), .badRequest)
            try assertError(try await client.execute(uri: "/api/search?q=budget&limit=1001", method: .get), .badRequest)
            try assertError(try await client.execute(uri: "/api/search?q=budget&limit=99999999999999999999", method: .get), .badRequest)
            try assertError(try await client.execute(uri: "/api/search?q=budget&minSimilarity=2", method: .get), .badRequest)
            try assertError(try await client.execute(uri: "/api/search", method: .get), .badRequest)
            try assertError(try await client.execute(uri: "/api/search?q=%E0%A4", method: .get), .badRequest)
            try assertError(try await client.execute(uri: "/api/search?q=budget&scope=everywhere", method: .get), .badRequest)
            try assertError(try await client.execute(uri: "/api/search?q=budget&scope=folder:Nowhere", method: .get), .notFound)
        }
    }

    // MARK: Suggestions

    func testSuggestionsAndClearingRecentSearches() async throws {
        try await fixture.app().test(.router) { client in
            let empty = try decode(Suggestions.self, try await client.execute(uri: "/api/suggestions", method: .get))
            XCTAssertEqual(empty.recentSearches, [])
            XCTAssertFalse(empty.contacts.isEmpty)
            XCTAssertLessThanOrEqual(empty.contacts.count, 5)

            for q in ["budget", "offsite+photos"] {
                let status = try await client.execute(uri: "/api/search?q=\(q)", method: .get).status
            XCTAssertEqual(status, .ok)
            }
            // A keystroke of search as you type (record=0) is not recorded, nor is a next page.
            let keystroke = try await client.execute(uri: "/api/search?q=budg&record=0", method: .get)
            XCTAssertEqual(keystroke.status, .ok)
            try assertError(try await client.execute(uri: "/api/search?q=budg&record=maybe", method: .get), .badRequest)
            let status = try await client.execute(uri: "/api/search?q=budget&limit=5&cursor=\(Data("o5".utf8).base64EncodedString())", method: .get).status
            XCTAssertEqual(status, .ok)
            let after = try decode(Suggestions.self, try await client.execute(uri: "/api/suggestions", method: .get))
            XCTAssertEqual(Set(after.recentSearches), ["budget", "offsite photos"])
            XCTAssertEqual(after.contacts.first?.suggestedQuery.hasPrefix("from:"), true)

            let cleared = try await client.execute(uri: "/api/recent", method: .delete)
            XCTAssertEqual(cleared.status, .ok)
            XCTAssertEqual(try decode(Suggestions.self, cleared).recentSearches, [])
            let again = try decode(Suggestions.self, try await client.execute(uri: "/api/suggestions", method: .get))
            XCTAssertEqual(again.recentSearches, [])
        }
    }

    // MARK: Reading mail

    /// What the search page records (the query a user settled on, not every keystroke), and the
    /// folder list its scope switch and chips use.
    func testRecordingASearchAndListingMailboxes() async throws {
        try await fixture.app().test(.router) { client in
            _ = try await client.execute(uri: "/api/search?q=budg&record=0", method: .get)
            let json: HTTPFields = .with([("Content-Type", "application/json"), ("Origin", "http://localhost"), ("Sec-Fetch-Site", "same-origin")])
            let recorded = try await client.execute(uri: "/api/recent", method: .post, headers: json,
                                                    body: ByteBuffer(string: #"{"query": "budget report"}"#))
            XCTAssertEqual(try decode(Suggestions.self, recorded).recentSearches, ["budget report"])
            try assertError(try await client.execute(uri: "/api/recent", method: .post, headers: .with([("Content-Type", "text/plain")]),
                                                     body: ByteBuffer(string: "budget")), .unsupportedMediaType)
            try assertError(try await client.execute(uri: "/api/recent", method: .post, headers: json,
                                                     body: ByteBuffer(string: #"{"q": 1}"#)), .badRequest)
            try assertError(try await client.execute(uri: "/api/recent", method: .post, headers: json,
                                                     body: ByteBuffer(string: #"{"query": "\#(String(repeating: "x", count: 1_001))"}"#)), .badRequest)

            let mailboxes = try decode(Mailboxes.self, try await client.execute(uri: "/api/mailboxes", method: .get))
            XCTAssertEqual(mailboxes.accounts.map(\.name), ["test"])
            let total = mailboxes.folders.reduce(0) { $0 + $1.totalCount }
            XCTAssertEqual(total, 2 * ServerFixture.conversations + 1, "every message is in its import folder")
            XCTAssertTrue(mailboxes.folders.allSatisfy { $0.accountId == mailboxes.accounts[0].id })
        }
    }

    func testThreadHasEveryMessageInOrderWithHeadersAndText() async throws {
        try await fixture.app().test(.router) { client in
            let page = try decode(SearchPage.self, try await client.execute(uri: "/api/search?q=budget+topic+3", method: .get))
            let threadId = try XCTUnwrap(page.results.first?.threadId)
            let response = try await client.execute(uri: "/api/threads/\(threadId)", method: .get)
            XCTAssertEqual(response.status, .ok)
            let thread = try decode(ThreadDetail.self, response)
            XCTAssertEqual(thread.thread.id, threadId)
            XCTAssertEqual(thread.emails.count, 2)
            XCTAssertEqual(thread.emails.map(\.messageId), ["t3-0@example.com", "t3-1@example.com"])
            XCTAssertEqual(thread.emails.map(\.subject), ["Budget topic 3", "Re: Budget topic 3"])
            XCTAssertEqual(thread.emails[1].inReplyTo, "t3-0@example.com")
            XCTAssertEqual(thread.emails[0].from?.email, "p3@example.com")
            XCTAssertEqual(thread.emails[0].to.map(\.email), ["me@example.com"])
            XCTAssertTrue(thread.emails[1].body.contains("Message 1 about the quarterly budget"))
            XCTAssertLessThan(try XCTUnwrap(thread.emails[0].date), try XCTUnwrap(thread.emails[1].date))

            try assertError(try await client.execute(uri: "/api/threads/987654", method: .get), .notFound)
            try assertError(try await client.execute(uri: "/api/threads/abc", method: .get), .badRequest)
        }
    }

    func testEmailAndRawMessage() async throws {
        try await fixture.app().test(.router) { client in
            let page = try decode(SearchPage.self, try await client.execute(uri: "/api/search?q=budget+topic+5", method: .get))
            let emailId = try XCTUnwrap(page.results.first?.emailId)
            let email = try decode(EmailDetail.self, try await client.execute(uri: "/api/emails/\(emailId)", method: .get))
            XCTAssertEqual(email.emailId, emailId)
            XCTAssertTrue(email.subject.contains("Budget topic 5"))
            XCTAssertNil(email.html)

            let raw = try await client.execute(uri: "/api/emails/\(emailId)/raw", method: .get)
            XCTAssertEqual(raw.status, .ok)
            XCTAssertEqual(raw.headers[.contentType], "message/rfc822")
            XCTAssertEqual(raw.headers[.contentDisposition], "attachment; filename=\"email-\(emailId).eml\"")
            XCTAssertEqual(raw.headers[.xContentTypeOptions], "nosniff")
            XCTAssertEqual(raw.headers[.cacheControl], "no-store")
            let text = String(buffer: raw.body)
            XCTAssertTrue(text.contains("Message-ID: <\(email.messageId)>"), text)
            XCTAssertTrue(text.contains("conversation 5."), text)

            try assertError(try await client.execute(uri: "/api/emails/987654", method: .get), .notFound)
            try assertError(try await client.execute(uri: "/api/emails/987654/raw", method: .get), .notFound)
            try assertError(try await client.execute(uri: "/api/emails/x1/raw", method: .get), .badRequest)
            try assertError(try await client.execute(uri: "/api/emails/\(emailId)?html=maybe", method: .get), .badRequest)
        }
    }

    /// The sanitized HTML endpoint (the sanitizing itself: ServiceTests) and the cid: image route.
    func testSafeHTMLAndInlineImageRoutes() async throws {
        let fixture = self.fixture!
        try await fixture.app().test(.router) { client in
            let page = try decode(SearchPage.self, try await client.execute(uri: "/api/search?q=offsite+photos", method: .get))
            let id = try XCTUnwrap(page.results.first?.emailId)
            let safe = try decode(SafeHTML.self, try await client.execute(uri: "/api/emails/\(id)/html", method: .get))
            XCTAssertNil(safe.html, "a plain-text email: the text is what to show")
            XCTAssertTrue(safe.text.contains("offsite photos"))
            XCTAssertFalse(safe.remoteImagesAllowed)
            let allowed = try decode(SafeHTML.self, try await client.execute(uri: "/api/emails/\(id)/html?images=1", method: .get))
            XCTAssertTrue(allowed.remoteImagesAllowed)
            try assertError(try await client.execute(uri: "/api/emails/\(id)/html?images=perhaps", method: .get), .badRequest)
            try assertError(try await client.execute(uri: "/api/emails/999999/html", method: .get), .notFound)
            try assertError(try await client.execute(uri: "/api/emails/\(id)/cid/nothing%40example.com", method: .get), .notFound)
        }
    }

    func testAttachmentMetadataWarnsAndDownloadIsAnAttachment() async throws {
        let fixture = self.fixture!
        try await fixture.app().test(.router) { client in
            let page = try decode(SearchPage.self, try await client.execute(uri: "/api/search?q=offsite+photos", method: .get))
            let result = try XCTUnwrap(page.results.first)
            XCTAssertTrue(result.hasAttachment)
            let email = try decode(EmailDetail.self, try await client.execute(uri: "/api/emails/\(result.emailId)", method: .get))
            let zip = try XCTUnwrap(email.attachments.first { $0.filename == "photos.zip" })
            let txt = try XCTUnwrap(email.attachments.first { $0.filename == "notes.txt" })
            XCTAssertEqual(zip.warning, "This archive may contain executable files.", "001 §5.4.2")
            XCTAssertNil(txt.warning)
            // The thread carries the same metadata.
            let thread = try decode(ThreadDetail.self, try await client.execute(uri: "/api/threads/\(result.threadId)", method: .get))
            XCTAssertEqual(thread.emails.first?.attachments.first { $0.id == zip.id }?.warning, zip.warning)

            let download = try await client.execute(uri: "/api/attachments/\(zip.id)", method: .get)
            XCTAssertEqual(download.status, .ok)
            XCTAssertEqual(download.headers[.contentType], "application/zip")
            XCTAssertEqual(download.headers[.contentDisposition], "attachment; filename=\"photos.zip\"; filename*=UTF-8''photos.zip")
            XCTAssertEqual(download.headers[.xContentTypeOptions], "nosniff")
            XCTAssertEqual(download.headers[.cacheControl], "no-store")
            XCTAssertEqual(download.headers[HTTPFields.Element.Name("X-MailSearch-Warning")!], zip.warning)
            XCTAssertEqual(Data(buffer: download.body), fixture.zipBytes)

            let notes = try await client.execute(uri: "/api/attachments/\(txt.id)", method: .get)
            XCTAssertEqual(notes.status, .ok)
            XCTAssertTrue(notes.headers[.contentDisposition]?.hasPrefix("attachment;") == true)
            XCTAssertTrue(String(buffer: notes.body).contains("Notes for the meeting."))

            try assertError(try await client.execute(uri: "/api/attachments/987654", method: .get), .notFound)
            try assertError(try await client.execute(uri: "/api/attachments/-", method: .get), .badRequest)
        }
    }

    // MARK: Status, rebuild, import

    func testStatusAndRebuild() async throws {
        try await fixture.app().test(.router) { client in
            let response = try await client.execute(uri: "/api/status", method: .get)
            XCTAssertEqual(response.status, .ok)
            let status = try decode(ServiceStatus.self, response)
            XCTAssertEqual(status.emails, 2 * ServerFixture.conversations + 1)
            XCTAssertEqual(status.threads, ServerFixture.conversations + 1)
            XCTAssertTrue(status.keywordIndex.healthy)
            XCTAssertFalse(status.semanticAvailable)

            let rebuilt = try await client.execute(uri: "/api/index/rebuild", method: .post)
            XCTAssertEqual(rebuilt.status, .ok, String(buffer: rebuilt.body))
            let after = try decode(ServiceStatus.self, rebuilt)
            XCTAssertEqual(after.keywordIndex.indexedEmails, status.emails)
            XCTAssertGreaterThan(after.generation, status.generation)
            let searchStatus = try await client.execute(uri: "/api/search?q=budget", method: .get).status
            XCTAssertEqual(searchStatus, .ok)
        }
    }

    func testImportStartsInTheBackgroundAndReportsProgressInStatus() async throws {
        let second = try fixture.writeSecondMbox()
        try await fixture.app().test(.router) { client in
            let json: HTTPFields = [.contentType: "application/json"]
            let body = ByteBuffer(string: #"{"path": "\#(second.path)", "account": "second", "folder": null}"#)
            let response = try await client.execute(uri: "/api/import", method: .post, headers: json, body: body)
            XCTAssertEqual(response.status, .accepted, String(buffer: response.body))
            let started = try decode(ServiceStatus.self, response)
            XCTAssertEqual(started.importing?.path, second.path)

            var status = started
            for _ in 0..<200 where status.importing?.running != false {
                try await Task.sleep(for: .milliseconds(50))
                status = try decode(ServiceStatus.self, try await client.execute(uri: "/api/status", method: .get))
            }
            XCTAssertEqual(status.importing?.running, false)
            XCTAssertEqual(status.importing?.imported, 5)
            XCTAssertNil(status.importing?.error)
            XCTAssertEqual(status.emails, 2 * ServerFixture.conversations + 1 + 5)
            let page = try decode(SearchPage.self, try await client.execute(uri: "/api/search?q=zeppelin", method: .get))
            XCTAssertEqual(page.conversationCount, 5)

            // Errors: nothing at the path, not JSON, bad JSON, empty fields.
            let missing = ByteBuffer(string: #"{"path": "/nonexistent/x.mbox", "account": "a"}"#)
            try assertError(try await client.execute(uri: "/api/import", method: .post, headers: json, body: missing), .notFound)
            try assertError(try await client.execute(uri: "/api/import", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                                                     body: ByteBuffer(string: "path=/tmp&account=a")), .unsupportedMediaType)
            try assertError(try await client.execute(uri: "/api/import", method: .post, headers: json, body: ByteBuffer(string: "{")), .badRequest)
            try assertError(try await client.execute(uri: "/api/import", method: .post, headers: json,
                                                     body: ByteBuffer(string: #"{"path": "", "account": "a"}"#)), .badRequest)
            try assertError(try await client.execute(uri: "/api/import", method: .post, headers: json,
                                                     body: ByteBuffer(string: #"{"account": "a"}"#)), .badRequest)
        }
    }

    // MARK: Unknown endpoints

    func testUnknownEndpointsAre404JSON() async throws {
        try await fixture.app().test(.router) { client in
            for (uri, method) in [("/api/nope", HTTPRequest.Method.get), ("/api/search", .post), ("/api/status", .delete),
                                  ("/api/threads", .get), ("/api", .get), ("/index.html", .get), ("/", .post)] {
                let response = try await client.execute(uri: uri, method: method)
                try assertError(response, .notFound)
                XCTAssertEqual(response.headers[.xContentTypeOptions], "nosniff", uri)
            }
        }
    }
}
