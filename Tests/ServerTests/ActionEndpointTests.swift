import Foundation
import Hummingbird
import HummingbirdTesting
import MailSearchKit
import MailSearchServer
import XCTest

/// The mailbox action endpoints (local mail: no IMAP operation queued), opening a conversation
/// marking it read (and the setting that turns that off), and the security rules on them.
final class ActionEndpointTests: XCTestCase {
    static let json: HTTPFields = .with([("Content-Type", "application/json"), ("Origin", "http://localhost"), ("Sec-Fetch-Site", "same-origin")])

    func testActionsChangeMailSeenByTheNextSearch() async throws {
        let fixture = try await ServerFixture()
        try await fixture.app().test(.router) { client in
            let page = try decode(SearchPage.self, try await client.execute(uri: "/api/search?q=budget&mode=keyword", method: .get))
            let first = try XCTUnwrap(page.results.first)

            let starred = try await client.execute(uri: "/api/emails/\(first.emailId)/actions", method: .post, headers: Self.json,
                                                   body: ByteBuffer(string: #"{"action": "star"}"#))
            XCTAssertEqual(starred.status, .ok, String(buffer: starred.body))
            let result = try decode(ActionResult.self, starred)
            XCTAssertEqual(result.action, "star")
            XCTAssertEqual(result.queued, 0, "imported mail changes locally only")
            let stars = try decode(SearchPage.self, try await client.execute(uri: "/api/search?q=is%3Astarred&mode=keyword", method: .get))
            XCTAssertTrue(stars.results.contains { $0.emailId == first.emailId })

            let archived = try await client.execute(uri: "/api/threads/\(first.threadId)/actions", method: .post, headers: Self.json,
                                                    body: ByteBuffer(string: #"{"action": "archive"}"#))
            XCTAssertEqual(archived.status, .ok, String(buffer: archived.body))
            let moved = try await client.execute(uri: "/api/threads/\(first.threadId)/actions", method: .post, headers: Self.json,
                                                 body: ByteBuffer(string: #"{"action": "move", "folder": "Archive"}"#))
            XCTAssertEqual(try decode(ActionResult.self, moved).folders, ["Archive"])

            try assertError(try await client.execute(uri: "/api/emails/\(first.emailId)/actions", method: .post, headers: Self.json,
                                                     body: ByteBuffer(string: #"{"action": "explode"}"#)), .badRequest)
            try assertError(try await client.execute(uri: "/api/emails/\(first.emailId)/actions", method: .post, headers: Self.json,
                                                     body: ByteBuffer(string: #"{"action": "move"}"#)), .badRequest)
            try assertError(try await client.execute(uri: "/api/emails/\(first.emailId)/actions", method: .post, headers: Self.json,
                                                     body: ByteBuffer(string: #"{"action": "move", "folder": "Nowhere"}"#)), .notFound)
            try assertError(try await client.execute(uri: "/api/emails/99999999/actions", method: .post, headers: Self.json,
                                                     body: ByteBuffer(string: #"{"action": "read"}"#)), .notFound)
            // A cross-site POST is refused (CSRF), and changes nothing.
            let evil: HTTPFields = .with([("Content-Type", "application/json"), ("Origin", "http://evil.example"), ("Sec-Fetch-Site", "cross-site")])
            let refused = try await client.execute(uri: "/api/emails/\(first.emailId)/actions", method: .post, headers: evil,
                                                   body: ByteBuffer(string: #"{"action": "delete"}"#))
            XCTAssertEqual(refused.status, .forbidden)
            let detail = try decode(EmailDetail.self, try await client.execute(uri: "/api/emails/\(first.emailId)", method: .get))
            XCTAssertFalse(detail.folders.contains("Trash"))
        }
    }

    /// A conversation made unread through the API (the fixture's mail is read).
    static func unreadThread(_ client: some TestClientProtocol) async throws -> Int64? {
        let unread = try decode(SearchPage.self, try await client.execute(uri: "/api/search?q=is%3Aunread&mode=keyword&limit=1000", method: .get))
        if let id = unread.results.first?.threadId { return id }
        let page = try decode(SearchPage.self, try await client.execute(uri: "/api/search?q=budget&mode=keyword", method: .get))
        guard let id = page.results.first?.threadId else { return nil }
        let marked = try await client.execute(uri: "/api/threads/\(id)/actions", method: .post, headers: json,
                                              body: ByteBuffer(string: #"{"action": "unread"}"#))
        XCTAssertEqual(try decode(ActionResult.self, marked).action, "unread")
        return id
    }

    func testOpeningAConversationMarksItReadUnlessTurnedOff() async throws {
        let fixture = try await ServerFixture()
        try await fixture.app(ServerConfiguration(markReadOnOpen: false)).test(.router) { client in
            let unread = try await Self.unreadThread(client)
            let id = try XCTUnwrap(unread)
            let thread = try decode(ThreadDetail.self, try await client.execute(uri: "/api/threads/\(id)", method: .get))
            XCTAssertGreaterThan(thread.thread.unreadCount, 0, "the setting is off")
        }
        try await fixture.app().test(.router) { client in
            let unread = try await Self.unreadThread(client)
            let id = try XCTUnwrap(unread)
            let preview = try decode(ThreadDetail.self, try await client.execute(uri: "/api/threads/\(id)?read=0", method: .get))
            XCTAssertGreaterThan(preview.thread.unreadCount, 0, "read=0 opens without marking")
            let opened = try decode(ThreadDetail.self, try await client.execute(uri: "/api/threads/\(id)", method: .get))
            XCTAssertGreaterThan(opened.thread.unreadCount, 0, "the answer shows which messages were unread")
            let again = try decode(ThreadDetail.self, try await client.execute(uri: "/api/threads/\(id)?read=0", method: .get))
            XCTAssertEqual(again.thread.unreadCount, 0)
            XCTAssertTrue(again.emails.allSatisfy(\.isRead))
            let stillUnread = try decode(SearchPage.self, try await client.execute(uri: "/api/search?q=is%3Aunread&mode=keyword&limit=1000", method: .get))
            XCTAssertFalse(stillUnread.results.contains { $0.threadId == id })
        }
    }
}
