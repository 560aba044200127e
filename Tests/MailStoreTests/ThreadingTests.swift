import Foundation
import GRDB
import MailModel
@testable import MailStore
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
        try ingest(mail("s3", subject: "Fwd: re: FW: Quarterly   numbers", day: 29))
        let t = try threadId(of: "s1")
        XCTAssertEqual(try threadId(of: "s2"), t)
        XCTAssertEqual(try threadId(of: "s3"), t)
    }

    func testSubjectFallbackComparesExactly() throws {
        // "Match against existing threads by exact normalized subject": case is not folded.
        try ingest(mail("s1", subject: "Quarterly numbers", day: 0), mail("s2", subject: "Re: quarterly numbers", day: 1))
        XCTAssertNotEqual(try threadId(of: "s1"), try threadId(of: "s2"))
    }

    func testPatchSeriesWithTheSameTitleAndOtherTagsStayApart() throws {
        // Cover letters of two versions of a series and of two series that share a title, none
        // with threading headers, inside 30 days: only the Re/Fwd forms are stripped.
        try ingest(mail("v1", subject: "[PATCH RFC 00/67] Add MIPS R6 support", day: 0),
                   mail("v2", subject: "[PATCH RFC v2 00/70] Add MIPS R6 support", day: 12),
                   mail("a", subject: "[PATCH 0/6] mm: cleanups", day: 1),
                   mail("b", subject: "[PATCH v3 0/6] mm: cleanups", day: 2),
                   mail("r", subject: "Re: [PATCH RFC v2 00/70] Add MIPS R6 support", day: 13))
        XCTAssertNotEqual(try threadId(of: "v1"), try threadId(of: "v2"))
        XCTAssertNotEqual(try threadId(of: "a"), try threadId(of: "b"))
        XCTAssertEqual(try threadId(of: "r"), try threadId(of: "v2"))
        XCTAssertEqual(try store.statistics().threads, 4)
    }

    func testListTagRepliesFindTheirThreadBySubject() throws {
        try ingest(mail("o", subject: "[USRP-users] B210 issue", day: 0),
                   mail("p", subject: "[USRP-users] Re: B210 issue", day: 1),
                   mail("q", subject: "Re: [USRP-users] B210 issue", day: 2))
        XCTAssertEqual(try threadId(of: "p"), try threadId(of: "o"))
        XCTAssertEqual(try threadId(of: "q"), try threadId(of: "o"))
    }

    func testAddressesAmongTheReferencedIdsAreNotGraphLinks() throws {
        // Old clients: "In-Reply-To: Message from Miguel <miguel@gnu.example> of 10 Jul 1997".
        // Three people answer three unrelated posts of Miguel's; the address must not join them.
        try ingest(mail("m1", subject: "Layout engine", from: "miguel@gnu.example", day: 0),
                   mail("m2", subject: "Font cache", from: "miguel@gnu.example", day: 1),
                   mail("m3", subject: "CORBA bindings", from: "miguel@gnu.example", day: 2))
        try ingest(mail("r1", subject: "Re: Layout engine", inReplyTo: "miguel@gnu.example", from: "ann@x.example", day: 3),
                   mail("r2", subject: "Re: Font cache", inReplyTo: "Miguel@GNU.example", from: "bob@x.example", day: 3),
                   mail("r3", subject: "Re: CORBA bindings", inReplyTo: "(miguel@gnu.example's)", from: "cy@x.example", day: 4))
        // A reply whose only "id" is the address of the person it writes to, not yet a contact.
        try ingest(mail("n1", subject: "Hello Dana", from: "eve@x.example", day: 5))
        var toDana = mail("n2", subject: "Re: Hello Dana", inReplyTo: "dana@y.example", from: "fay@x.example", day: 6)
        toDana.email.to = [Address(email: "dana@y.example")]
        try ingest(toDana)
        for (reply, post) in [("r1", "m1"), ("r2", "m2"), ("r3", "m3"), ("n2", "n1")] {
            XCTAssertEqual(try threadId(of: reply), try threadId(of: post), "\(reply) joins \(post) by the subject fallback")
        }
        XCTAssertEqual(Set(try ["m1", "m2", "m3", "n1"].map { try threadId(of: $0) }).count, 4)
        let linked = try store.database.read { try String.fetchAll($0, sql: "SELECT messageId FROM message_ids") }
        XCTAssertEqual(Set(linked), ["m1", "m2", "m3", "r1", "r2", "r3", "n1", "n2"])
    }

    func testAContactFirstSeenEarlierInTheSameBatchIsNotAGraphLink() throws {
        // Contacts are written when the batch ends; the threader still knows the batch's own.
        try ingest(mail("m1", subject: "Layout engine", from: "miguel@gnu.example", day: 0),
                   mail("m2", subject: "Font cache", from: "miguel@gnu.example", day: 1),
                   mail("r1", subject: "Re: Layout engine", inReplyTo: "Miguel@gnu.example", from: "ann@x.example", day: 2),
                   mail("r2", subject: "Re: Font cache", inReplyTo: "miguel@gnu.example", from: "bob@x.example", day: 2))
        XCTAssertEqual(try threadId(of: "r1"), try threadId(of: "m1"))
        XCTAssertEqual(try threadId(of: "r2"), try threadId(of: "m2"))
        XCTAssertNotEqual(try threadId(of: "m1"), try threadId(of: "m2"))
        let linked = try store.database.read { try String.fetchAll($0, sql: "SELECT messageId FROM message_ids") }
        XCTAssertEqual(Set(linked), ["m1", "m2", "r1", "r2"])
    }

    func testBareMessageIdsStillLink() throws {
        // Archives that strip the brackets: "In-Reply-To: 5290031e-4f10@mail.example".
        try ingest(mail("5290031e-4f10@mail.example", subject: "Timed commands", day: 0),
                   mail("c2", subject: "Re: timed commands (solved)", inReplyTo: "5290031e-4f10@mail.example", day: 40))
        XCTAssertEqual(try threadId(of: "c2"), try threadId(of: "5290031e-4f10@mail.example"))
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

/// A thread an ingest batch made for one email takes that email's metadata without reading it
/// back (`ThreadMetadata.recompute(alone:)`): the same rows as reading every thread back.
final class ThreadMetadataShortcutTests: StoreTestCase {
    func threadRows() throws -> [Row] {
        try store.database.read { try Row.fetchAll($0, sql: "SELECT * FROM threads ORDER BY id") }
    }

    func testThreadsOfABatchAreWhatReadingThemBackGives() throws {
        var unnamed = mail("solo-unnamed", subject: "No sender name")
        unnamed.email.snippet = "its own snippet"
        var undated = mail("solo-undated", subject: "No date", read: false)
        undated.email.dateSent = nil
        undated.email.isStarred = true
        var nosender = mail("solo-nosender", subject: "No sender")
        nosender.email.from = nil
        try ingest(
            mail("a1", subject: "Budget", day: 0),
            mail("a2", subject: "Re: Budget", inReplyTo: "a1", from: "b@example.com", day: 1, read: false),
            mail("x1", subject: "Left", day: 2), mail("y1", subject: "Right", day: 3),
            mail("z1", subject: "Both", references: ["x1", "y1"], day: 4),  // merges two threads of the batch
            mail("s1", subject: "Lunch", day: 5), mail("s2", subject: "Lunch", from: "c@example.com", day: 6),  // by subject
            unnamed, undated, nosender)
        try ingest(mail("a3", subject: "Re: Budget", inReplyTo: "a2", from: "c@example.com", day: 7),  // an older thread grows
                   mail("solo-later", subject: "Later", day: 8))
        let shortcut = try threadRows()
        XCTAssertEqual(shortcut.count, 7)
        let all = Set(shortcut.map { $0["id"] as Int64 })
        try store.database.write { try ThreadMetadata.recompute(threadIds: all, db: $0) }
        XCTAssertEqual(try threadRows(), shortcut)
        let solo = try XCTUnwrap(shortcut.first { ($0["subject"] as String) == "No date" })
        XCTAssertEqual(solo["unreadCount"] as Int, 1)
        XCTAssertEqual(solo["isStarred"] as Bool, true)
        XCTAssertNil(solo["latestDate"] as Double?)
    }
}
