import Foundation
import Hummingbird
import HummingbirdTesting
import MailSearchKit
import MailSearchServer
import XCTest

/// The category endpoints: the user's choice for an email or a thread, seen by the next search at
/// once, the counts, and bad input refused as JSON errors.
final class CategoryEndpointTests: XCTestCase {
    func testChoosingACategoryIsSeenByTheNextSearchAndCounted() async throws {
        let fixture = try await ServerFixture()
        try await fixture.app().test(.router) { client in
            let json: HTTPFields = .with([("Content-Type", "application/json"), ("Origin", "http://localhost"), ("Sec-Fetch-Site", "same-origin")])
            let before = try decode(SearchPage.self, try await client.execute(uri: "/api/search?q=category%3Asocial&mode=keyword", method: .get))
            XCTAssertEqual(before.results.count, 0)
            let page = try decode(SearchPage.self, try await client.execute(uri: "/api/search?q=budget&mode=keyword", method: .get))
            let first = try XCTUnwrap(page.results.first)

            let changed = try await client.execute(uri: "/api/emails/\(first.emailId)/category", method: .post, headers: json,
                                                   body: ByteBuffer(string: #"{"category": "social"}"#))
            XCTAssertEqual(changed.status, .ok, String(buffer: changed.body))
            XCTAssertEqual(try decode(CategoryChange.self, changed).emailIds, [first.emailId])
            let after = try decode(SearchPage.self, try await client.execute(uri: "/api/search?q=category%3Asocial&mode=keyword", method: .get))
            XCTAssertTrue(after.results.contains { $0.threadId == first.threadId })  // its conversation (the sender's other mail follows)
            let detail = try decode(EmailDetail.self, try await client.execute(uri: "/api/emails/\(first.emailId)", method: .get))
            XCTAssertEqual(detail.categorization?.method, .user)

            let thread = try await client.execute(uri: "/api/threads/\(first.threadId)/category", method: .post, headers: json,
                                                  body: ByteBuffer(string: #"{"category": "forums"}"#))
            XCTAssertEqual(thread.status, .ok, String(buffer: thread.body))
            let counts = try decode([String: Int].self, try await client.execute(uri: "/api/categories", method: .get))
            XCTAssertGreaterThanOrEqual(counts["forums"] ?? 0, 1)

            try assertError(try await client.execute(uri: "/api/emails/\(first.emailId)/category", method: .post, headers: json,
                                                     body: ByteBuffer(string: #"{"category": "spam"}"#)), .badRequest)
            try assertError(try await client.execute(uri: "/api/emails/99999999/category", method: .post, headers: json,
                                                     body: ByteBuffer(string: #"{"category": "social"}"#)), .notFound)
        }
    }
}
