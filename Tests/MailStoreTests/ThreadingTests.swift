import Foundation
import GRDB
import MailModel
import MailStore
import XCTest

/// Spec 001 §5.2.4: connected components of the Message-ID graph, subject fallback within
/// 30 days, metadata of step 5, incremental and order-independent.
final class ThreadingTests: StoreTestCase {
    func testRepliesJoinTheirParentsThread() throws {
        try ingest(mail("a"), mail("b", subject: "Re: Hello", inReplyTo: "a", references: ["a"], day: 1),
                   mail("c", subject: "Re: Hello", inReplyTo: "b", references: ["a", "b"], day: 2))
        let t = try threadId(of: "a")
        XCTAssertNotNil(t)
        XCTAssertEqual(try threadId(of: "b"), t)
        XCTAssertEqual(try threadId(of: "c"), t)
    }

    func testOutOfOrderArrivalEndsInOneThread() throws {
        // The grandchild arrives first, then the root, then the middle message — in three imports.
        try ingest(mail("c", subject: "Re: Plan", inReplyTo: "b", references: ["a", "b"], day: 2))
        try ingest(mail("a", subject: "Plan"))
        try ingest(mail("b", subject: "Re: Plan", inReplyTo: "a", references: ["a"], day: 1))
        let t = try threadId(of: "a")
        XCTAssertEqual(try threadId(of: "b"), t)
        XCTAssertEqual(try threadId(of: "c"), t)
        XCTAssertEqual(try store.statistics().threads, 1)
    }

    func testLateMessageLinkingTwoThreadsMergesThem() throws {
        // Two replies to a parent we have not seen, with no shared ids: two threads …
        try ingest(mail("x1", subject: "Re: Budget", inReplyTo: "p1", references: ["p1"], day: 1))
        try ingest(mail("x2", subject: "Re: Other", inReplyTo: "p2", references: ["p2"], day: 1))
        XCTAssertNotEqual(try threadId(of: "x1"), try threadId(of: "x2"))
        XCTAssertEqual(try store.statistics().threads, 2)
        // … until a message referencing both arrives.
        let result = try ingest(mail("m", subject: "Re: Budget", inReplyTo: "p2", references: ["p1", "p2"], day: 2))
        XCTAssertEqual(try threadId(of: "x1"), try threadId(of: "x2"))
        XCTAssertEqual(try threadId(of: "m"), try threadId(of: "x1"))
        XCTAssertEqual(try store.statistics().threads, 1)
        XCTAssertEqual(result.mergedThreads.count, 1)
        let (thread, emails) = try XCTUnwrap(try store.thread(id: XCTUnwrap(try threadId(of: "m"))))
        XCTAssertEqual(thread.messageCount, 3)
        XCTAssertEqual(emails.count, 3)
    }

    func testSubjectFallbackInsideThirtyDays() throws {
        try ingest(mail("s1", subject: "Quarterly numbers", day: 0))
        try ingest(mail("s2", subject: "RE: Quarterly numbers", day: 10))
        try ingest(mail("s3", subject: "Fwd: re: FW: quarterly   numbers", day: 29))
        let t = try threadId(of: "s1")
        XCTAssertEqual(try threadId(of: "s2"), t)
        XCTAssertEqual(try threadId(of: "s3"), t)
    }

    func testSubjectFallbackOutsideThirtyDaysStartsANewThread() throws {
        try ingest(mail("s1", subject: "Weekly report", day: 0))
        try ingest(mail("s2", subject: "Re: Weekly report", day: 31))
        XCTAssertNotEqual(try threadId(of: "s1"), try threadId(of: "s2"))
    }

    func testSubjectFallbackIsPerAccount() throws {
        try ingest(mail("s1", subject: "Lunch"))
        let other = try store.account(named: "other").id
        var m = mail("s2", subject: "Re: Lunch", day: 1)
        m.email.accountId = other
        try store.ingest([m], accountId: other)
        XCTAssertNotEqual(try threadId(of: "s1"), try threadId(of: "s2"))
    }

    func testMessagesWithReferencesDoNotUseSubjectFallback() throws {
        try ingest(mail("a", subject: "Status"))
        try ingest(mail("b", subject: "Re: Status", inReplyTo: "zzz", references: ["zzz"], day: 1))
        XCTAssertNotEqual(try threadId(of: "a"), try threadId(of: "b"))
    }

    func testEmptySubjectsAreNeverGroupedBySubject() throws {
        try ingest(mail("e1", subject: ""), mail("e2", subject: "Re:", day: 1))
        XCTAssertNotEqual(try threadId(of: "e1"), try threadId(of: "e2"))
    }

    func testThreadMetadataFollowsStepFive() throws {
        try ingest(
            mail("a", subject: "Offsite", from: "ann@example.com", day: 0, read: true),
            mail("b", subject: "Re: Offsite", inReplyTo: "a", references: ["a"], from: "bob@example.com", day: 3, read: false),
            mail("c", subject: "Re: Offsite", inReplyTo: "b", references: ["a", "b"], from: "ann@example.com", day: 1, read: false))
        let (thread, _) = try XCTUnwrap(try store.thread(id: XCTUnwrap(try threadId(of: "a"))))
        XCTAssertEqual(thread.subject, "Offsite", "subject of the root (earliest) message")
        XCTAssertEqual(thread.messageCount, 3)
        XCTAssertEqual(thread.unreadCount, 2)
        XCTAssertEqual(thread.latestDate, Self.t0.addingTimeInterval(3 * Self.day))
        XCTAssertEqual(thread.snippet, "body of b", "snippet of the latest message")
        XCTAssertEqual(thread.participants.map(\.email), ["ann@example.com", "bob@example.com"])
    }

    func testDeletingTheLastEmailRemovesTheThread() throws {
        try ingest(mail("only"))
        let id = try store.database.read { try Int64.fetchOne($0, sql: "SELECT id FROM emails")! }
        try store.deleteEmail(id: id)
        XCTAssertEqual(try store.statistics().threads, 0)
    }
}
