import Foundation
import MailModel
import MailStore
import XCTest

/// The drafts table and the send queue's states (migration `v-drafts`): undo against the
/// sender's claim, and what a restart does with each state (spec 001 §5.5.2).
final class DraftStoreTests: StoreTestCase {
    private func newDraft(_ subject: String = "Hi") throws -> Int64 {
        try store.createDraft(accountId: accountId, kind: "new", parentEmailId: nil,
                              content: DraftContent(from: "me@example.com", to: ["bob@example.com"], subject: subject, body: "Hello"),
                              messageId: "\(UUID().uuidString)@example.com", inReplyTo: nil, references: [])
    }

    func testUndoInTheWindowGivesTheDraftBackAndTheSenderNeverClaimsIt() throws {
        let id = try newDraft()
        try store.queueDraft(id: id, sendAfter: Self.t0.addingTimeInterval(10), now: Self.t0)
        XCTAssertNil(try store.claimDueMessage(now: Self.t0.addingTimeInterval(5)), "not due inside the window")
        try store.unqueueDraft(id: id, now: Self.t0.addingTimeInterval(6))
        XCTAssertEqual(try store.draft(id: id)?.state, .draft)
        XCTAssertNil(try store.claimDueMessage(now: Self.t0.addingTimeInterval(60)), "an undone message is never sent")
    }

    func testOnceClaimedUndoIsTooLate() throws {
        let id = try newDraft()
        try store.queueDraft(id: id, sendAfter: Self.t0, now: Self.t0)
        XCTAssertEqual(try store.claimDueMessage(now: Self.t0)?.id, id)
        XCTAssertThrowsError(try store.unqueueDraft(id: id)) { error in
            guard case MailStoreError.conflict = error else { return XCTFail("\(error)") }
        }
        XCTAssertNil(try store.claimDueMessage(now: Self.t0.addingTimeInterval(60)), "claimed once only")
    }

    func testAWaitingMessageIsSentNowWhenAskedButAnUndoWindowStillHolds() throws {
        let waiting = try newDraft("waiting")
        let inWindow = try newDraft("in window")
        try store.queueDraft(id: waiting, sendAfter: Self.t0, now: Self.t0)
        XCTAssertEqual(try store.claimDueMessage(now: Self.t0)?.id, waiting)
        try store.markNotSent(id: waiting, error: "Connection refused", retryAt: Self.t0.addingTimeInterval(64), now: Self.t0)
        try store.queueDraft(id: inWindow, sendAfter: Self.t0.addingTimeInterval(10), now: Self.t0)
        XCTAssertNil(try store.claimDueMessage(now: Self.t0.addingTimeInterval(1)), "its retry time has not come")
        XCTAssertNil(try store.claimDueMessage(now: Self.t0.addingTimeInterval(1), retryNow: true, tried: [waiting]))
        XCTAssertEqual(try store.claimDueMessage(now: Self.t0.addingTimeInterval(1), retryNow: true)?.id, waiting, "`outgoing send`")
        XCTAssertNil(try store.claimDueMessage(now: Self.t0.addingTimeInterval(1), retryNow: true), "the undo window holds")
    }

    func testOnceAnAccountsServerTookAMessageItsWaitingMessagesAreDueButNotAnotherAccounts() throws {
        let other = try store.account(named: "other")
        let waiting = try newDraft("waiting")
        let elsewhere = try store.createDraft(accountId: other.id, kind: "new", parentEmailId: nil,
                                              content: DraftContent(from: "me@example.org", to: ["bob@example.com"], subject: "elsewhere", body: "Hi"),
                                              messageId: "\(UUID().uuidString)@example.org", inReplyTo: nil, references: [])
        for id in [waiting, elsewhere] {
            try store.queueDraft(id: id, sendAfter: Self.t0, now: Self.t0)
            XCTAssertEqual(try store.claimDueMessage(now: Self.t0)?.id, id)
            try store.markNotSent(id: id, error: "Connection refused", retryAt: Self.t0.addingTimeInterval(60), now: Self.t0)
        }
        XCTAssertNil(try store.claimDueMessage(now: Self.t0.addingTimeInterval(1)), "both wait for their retry time")
        XCTAssertEqual(try store.claimDueMessage(now: Self.t0.addingTimeInterval(1), retryAccounts: [accountId])?.id, waiting)
        XCTAssertNil(try store.claimDueMessage(now: Self.t0.addingTimeInterval(1), retryAccounts: [accountId]),
                     "the other account's server has not been reached: its message keeps its retry time")
    }

    func testAMessageQueuedWithNoUndoWindowIsSentAfterARestart() throws {
        let noWindow = try newDraft("no window")
        let window = try newDraft("window")
        try store.queueDraft(id: noWindow, sendAfter: Self.t0, now: Self.t0)
        try store.queueDraft(id: window, sendAfter: Self.t0.addingTimeInterval(5), now: Self.t0)
        let recovered = try store.recoverSendQueue(now: Self.t0.addingTimeInterval(1))
        XCTAssertEqual(recovered.drafted, [window], "only a message in its undo window goes back to the drafts")
        XCTAssertEqual(try store.draft(id: noWindow)?.state, .queued)
        XCTAssertEqual(try store.claimDueMessage(now: Self.t0.addingTimeInterval(1))?.id, noWindow)
    }

    func testAQueuedDraftCannotChange() throws {
        let id = try newDraft()
        try store.queueDraft(id: id, sendAfter: Self.t0.addingTimeInterval(10), now: Self.t0)
        XCTAssertThrowsError(try store.updateDraft(id: id, accountId: accountId, content: DraftContent(from: "me@example.com")))
        XCTAssertThrowsError(try store.deleteDraft(id: id))
    }

    func testRestartRecoversEachStateWithoutSendingTwice() throws {
        let inWindow = try newDraft("in window")
        let connecting = try newDraft("connecting")
        let handedOver = try newDraft("handed over")
        let sent = try newDraft("sent")
        for id in [inWindow, connecting, handedOver, sent] { try store.queueDraft(id: id, sendAfter: Self.t0, now: Self.t0) }
        // connecting, handedOver and sent are claimed in id order; inWindow waits (later sendAfter).
        try store.unqueueDraft(id: inWindow)
        try store.queueDraft(id: inWindow, sendAfter: Self.t0.addingTimeInterval(100), now: Self.t0)
        XCTAssertEqual(try store.claimDueMessage(now: Self.t0)?.id, connecting)
        XCTAssertEqual(try store.claimDueMessage(now: Self.t0)?.id, handedOver)
        try store.markHandedOver(id: handedOver)
        XCTAssertEqual(try store.claimDueMessage(now: Self.t0)?.id, sent)
        try store.markHandedOver(id: sent)
        try store.markSent(id: sent, reply: "250 2.0.0 Ok", refused: [], sentCopy: "pending")

        let recovered = try store.recoverSendQueue(now: Self.t0.addingTimeInterval(1))
        XCTAssertEqual(recovered.drafted, [inWindow])
        XCTAssertEqual(recovered.retried, [connecting])
        XCTAssertEqual(recovered.uncertain, [handedOver])
        XCTAssertEqual(try store.draft(id: inWindow)?.state, .draft, "killed in the undo window: a draft again, not sent (001 §5.5.2)")
        XCTAssertEqual(try store.draft(id: connecting)?.state, .waiting, "no final dot was written: tried again")
        XCTAssertEqual(try store.draft(id: handedOver)?.state, .failed, "the server may have it: never sent again")
        XCTAssertTrue(try store.draft(id: handedOver)?.lastError?.contains("not sent again") ?? false)
        XCTAssertEqual(try store.draft(id: sent)?.state, .sent)
        XCTAssertEqual(try store.claimDueMessage(now: Self.t0.addingTimeInterval(2))?.id, connecting)
        XCTAssertNil(try store.claimDueMessage(now: Self.t0.addingTimeInterval(2)))
    }

    func testAttachmentsAreLimitedAndDeletedWithTheDraft() throws {
        let id = try newDraft()
        _ = try store.addDraftAttachment(draftId: id, filename: "a.bin", mimeType: "application/octet-stream", content: [1, 2, 3], maximumTotal: 5)
        XCTAssertThrowsError(try store.addDraftAttachment(draftId: id, filename: "b.bin", mimeType: "application/octet-stream",
                                                          content: [1, 2, 3], maximumTotal: 5)) { error in
            guard case MailStoreError.tooLarge = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(try store.draftAttachmentContents(draftId: id).map(\.content), [[1, 2, 3]])
        let before = try store.draft(id: id)!.version
        _ = try store.deleteDraft(id: id)
        XCTAssertNil(try store.draft(id: id))
        XCTAssertGreaterThan(before, 1, "each change bumps the version the Drafts folder copy is compared with")
    }

    func testADraftWithAServerCopyIsKeptUntilTheCopyIsGone() throws {
        let id = try newDraft()
        try store.recordDraftCopy(id: id, version: 1, mailbox: Array("Drafts".utf8), uidValidity: 7, uid: 3)
        XCTAssertEqual(try store.draftCopiesToSync().upload.map(\.id), [], "version 1 is on the server")
        _ = try store.deleteDraft(id: id)
        XCTAssertEqual(try store.draft(id: id)?.state, .deleted)
        XCTAssertEqual(try store.draftCopiesToSync().remove.map(\.id), [id])
        try store.forgetDraftCopy(id: id)
        XCTAssertNil(try store.draft(id: id))
    }
}
