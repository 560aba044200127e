import Foundation
import Hummingbird
import HummingbirdTesting
import MailSearchKit
import MailSearchServer
import XCTest

/// `GET /api/threads/{id}/summary` and `GET /api/emails/{id}/replies` on the fixture (no model,
/// conversations of two messages); with the model, ServiceTests' InsightsServiceTests.
final class InsightsEndpointTests: XCTestCase {
    var fixture: ServerFixture!

    override func setUp() async throws {
        fixture = try await ServerFixture()
    }

    override func tearDown() async throws {
        fixture = nil
    }

    func testSummaryOfAShortConversationSaysSoAndUnknownIdsAre404() async throws {
        let page = try await fixture.service.search.search(SearchRequest(text: "budget", limit: 1, mode: .keyword, recordHistory: false))
        let thread = try XCTUnwrap(page.results.first).threadId
        try await fixture.app().test(.router) { client in
            let response = try await client.execute(uri: "/api/threads/\(thread)/summary", method: .get)
            XCTAssertEqual(response.status, .ok)
            let answer = try decode(ThreadSummaryAnswer.self, response)
            XCTAssertEqual(answer.status, .tooShort)
            XCTAssertEqual(answer.messageCount, 2)
            XCTAssertNil(answer.summary)
            XCTAssertTrue(answer.reason?.contains("3") == true, answer.reason ?? "")
            try assertError(try await client.execute(uri: "/api/threads/987654/summary", method: .get), .notFound)
            try assertError(try await client.execute(uri: "/api/threads/abc/summary", method: .get), .badRequest)
            try assertError(try await client.execute(uri: "/api/emails/987654/replies", method: .get), .notFound)
        }
    }

    func testRepliesWithoutTheModelAre503WithAHint() async throws {
        let page = try await fixture.service.search.search(SearchRequest(text: "budget", limit: 1, mode: .keyword, recordHistory: false))
        let email = try XCTUnwrap(page.results.first).emailId
        try await fixture.app().test(.router) { client in
            let body = try assertError(try await client.execute(uri: "/api/emails/\(email)/replies", method: .get), .serviceUnavailable)
            XCTAssertEqual(body.hint, "mailsearch model install")
        }
    }

    func testHostCheckCoversTheNewRoutes() async throws {
        try await fixture.app().test(.router) { client in
            for uri in ["/api/threads/1/summary", "/api/emails/1/replies"] {
                try assertError(try await client.execute(uri: uri, method: .get, headers: .with([("Host", "evil.example")])),
                                .misdirectedRequest)
            }
        }
    }
}
