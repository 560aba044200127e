import Foundation
import Hummingbird
import HummingbirdTesting
import MailModel
@testable import MailSearchKit
import MailSearchServer
import MailStore
import XCTest

/// The compose endpoints in-process (no sender runs here: nothing leaves): a reply's template,
/// drafts, attachments, the send queue's undo window and its refusals.
final class ComposeEndpointTests: XCTestCase {
    static let json: HTTPFields = ActionEndpointTests.json

    func testWithoutASendingAccountComposeSaysWhatToDo() async throws {
        let fixture = try await ServerFixture()
        try await fixture.app().test(.router) { client in
            let identities = try decode([SendingIdentity].self, try await client.execute(uri: "/api/identities", method: .get))
            XCTAssertEqual(identities, [])
            let body = try assertError(try await client.execute(uri: "/api/compose", method: .post, headers: Self.json,
                                                                body: ByteBuffer(string: #"{"kind": "new"}"#)), .serviceUnavailable)
            XCTAssertTrue(body.hint?.contains("--smtp") ?? false, body.hint ?? "")
        }
    }

    func testReplyDraftSendUndo() async throws {
        let fixture = try await ServerFixture()
        let settings = IMAPAccountSettings(host: "127.0.0.1", port: 1, security: "tls", username: "me", passwordEnvironment: "NONE",
                                           smtpHost: "127.0.0.1", smtpPort: 2, smtpSecurity: "startTLS")
        _ = try fixture.service.store.addIMAPAccount(named: "work", email: "me@example.org", settings: settings)
        fixture.service.sending.undoWindow = 30
        try await fixture.app().test(.router) { client in
            let page = try decode(SearchPage.self, try await client.execute(uri: "/api/search?q=budget&mode=keyword", method: .get))
            let parent = try XCTUnwrap(page.results.first)
            let detail = try decode(EmailDetail.self, try await client.execute(uri: "/api/emails/\(parent.emailId)", method: .get))

            let created = try await client.execute(uri: "/api/compose", method: .post, headers: Self.json,
                                                   body: ByteBuffer(string: #"{"kind": "reply", "emailId": \#(parent.emailId)}"#))
            XCTAssertEqual(created.status, .created, String(buffer: created.body))
            let draft = try decode(DraftDetail.self, created)
            XCTAssertEqual(draft.state, "draft")
            XCTAssertEqual(draft.account, "work")
            XCTAssertEqual(draft.from, "me@example.org")
            XCTAssertEqual(draft.inReplyTo, detail.messageId)
            XCTAssertEqual(draft.references.last, detail.messageId)
            XCTAssertTrue(draft.subject.hasPrefix("Re: "), draft.subject)
            let sender = try XCTUnwrap(detail.from?.email)
            XCTAssertEqual(draft.to.count, 1)
            XCTAssertTrue(draft.to.first?.contains(sender) ?? false, "\(draft.to) answers \(sender)")

            // Header injection through an address is refused; the draft keeps what it had.
            let injected = try assertError(try await client.execute(
                uri: "/api/drafts/\(draft.id)", method: .put, headers: Self.json,
                body: ByteBuffer(string: #"{"to": ["bob@example.com\r\nBcc: eve@example.com"]}"#)), .badRequest)
            XCTAssertTrue(injected.error.contains("carriage return"), injected.error)

            let edited = try decode(DraftDetail.self, try await client.execute(
                uri: "/api/drafts/\(draft.id)", method: .put, headers: Self.json,
                body: ByteBuffer(string: #"{"to": ["Bob <bob@example.com>"], "body": "Fine by me.\n"}"#)))
            XCTAssertEqual(edited.to, ["Bob <bob@example.com>"])
            XCTAssertEqual(edited.body, "Fine by me.\n")

            var upload = Self.json
            upload[.contentType] = "text/plain"
            let attached = try await client.execute(uri: "/api/drafts/\(draft.id)/attachments?name=notes.txt", method: .post,
                                                    headers: upload, body: ByteBuffer(string: "some notes\n"))
            XCTAssertEqual(attached.status, .created, String(buffer: attached.body))
            XCTAssertEqual(try decode(DraftDetail.self, attached).attachments.map(\.filename), ["notes.txt"])
            try assertError(try await client.execute(uri: "/api/drafts/\(draft.id)/attachments", method: .post, headers: upload,
                                                     body: ByteBuffer(string: "x")), .badRequest)

            let before = Date()
            let queued = try await client.execute(uri: "/api/drafts/\(draft.id)/send", method: .post, headers: Self.json)
            let after = Date()
            XCTAssertEqual(queued.status, .accepted, String(buffer: queued.body))
            let queuedDetail = try decode(DraftDetail.self, queued)
            XCTAssertEqual(queuedDetail.state, "queued")
            let undoUntil = try XCTUnwrap(queuedDetail.undoUntil)
            XCTAssertGreaterThanOrEqual(undoUntil, before.addingTimeInterval(29), "the undo window is 30 s from the send")
            XCTAssertLessThanOrEqual(undoUntil, after.addingTimeInterval(31))
            let outgoing = try decode([DraftDetail].self, try await client.execute(uri: "/api/outgoing", method: .get))
            XCTAssertEqual(outgoing.map(\.id), [draft.id])
            let status = try decode(ServiceStatus.self, try await client.execute(uri: "/api/status", method: .get))
            XCTAssertEqual(status.sending.queued, 1)
            XCTAssertFalse(status.sending.senderRunning, "no sender in this process: the status says so")
            // A queued message cannot change.
            try assertError(try await client.execute(uri: "/api/drafts/\(draft.id)", method: .put, headers: Self.json,
                                                     body: ByteBuffer(string: #"{"subject": "late"}"#)), .conflict)

            let undone = try decode(DraftDetail.self, try await client.execute(uri: "/api/outgoing/\(draft.id)/undo", method: .post, headers: Self.json))
            XCTAssertEqual(undone.state, "draft")
            XCTAssertEqual(undone.body, "Fine by me.\n", "the same draft comes back")
            try assertError(try await client.execute(uri: "/api/outgoing/\(draft.id)/undo", method: .post, headers: Self.json), .conflict)
            let drafts = try decode([DraftDetail].self, try await client.execute(uri: "/api/drafts", method: .get))
            XCTAssertEqual(drafts.map(\.id), [draft.id])

            let deleted = try await client.execute(uri: "/api/drafts/\(draft.id)", method: .delete, headers: Self.json)
            XCTAssertEqual(deleted.status, .ok)
            try assertError(try await client.execute(uri: "/api/drafts/\(draft.id)", method: .get), .notFound)
        }
    }

    func testBadComposeRequests() async throws {
        let fixture = try await ServerFixture()
        let settings = IMAPAccountSettings(host: "127.0.0.1", port: 1, security: "tls", username: "me@example.org", smtpHost: "127.0.0.1")
        _ = try fixture.service.store.addIMAPAccount(named: "work", email: nil, settings: settings)
        try await fixture.app().test(.router) { client in
            try assertError(try await client.execute(uri: "/api/compose", method: .post, headers: Self.json,
                                                     body: ByteBuffer(string: #"{"kind": "shout"}"#)), .badRequest)
            try assertError(try await client.execute(uri: "/api/compose", method: .post, headers: Self.json,
                                                     body: ByteBuffer(string: #"{"kind": "reply"}"#)), .badRequest)
            try assertError(try await client.execute(uri: "/api/compose", method: .post, headers: Self.json,
                                                     body: ByteBuffer(string: #"{"kind": "forward", "emailId": 99999999}"#)), .notFound)
            try assertError(try await client.execute(uri: "/api/compose", method: .post, headers: Self.json,
                                                     body: ByteBuffer(string: #"{"kind": "new", "account": "nope"}"#)), .badRequest)
            let draft = try decode(DraftDetail.self, try await client.execute(uri: "/api/drafts", method: .post, headers: Self.json,
                                                                             body: ByteBuffer(string: #"{"subject": "no one"}"#)))
            XCTAssertEqual(draft.from, "me@example.org", "the user name is the address when it is one")
            let noRecipient = try assertError(try await client.execute(uri: "/api/drafts/\(draft.id)/send", method: .post, headers: Self.json), .badRequest)
            XCTAssertTrue(noRecipient.error.contains("recipient"), noRecipient.error)
            try assertError(try await client.execute(uri: "/api/outgoing/\(draft.id)/undo", method: .post, headers: Self.json), .conflict)
            // Cross-site: refused like every other write.
            let evil: HTTPFields = .with([("Content-Type", "application/json"), ("Origin", "http://evil.example"), ("Sec-Fetch-Site", "cross-site")])
            let refused = try await client.execute(uri: "/api/drafts/\(draft.id)/send", method: .post, headers: evil)
            XCTAssertEqual(refused.status, .forbidden)
        }
    }
}
