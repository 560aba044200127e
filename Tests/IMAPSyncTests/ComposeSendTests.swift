import Foundation
@testable import IMAPSync
import MailComposition
import MailModel
@testable import MailSearchKit
import MailStore
import XCTest

/// Compose, drafts and the send queue against a real Dovecot with its submission service (which
/// delivers through LMTP into the recipients' INBOX): a reply arrives with its threading headers
/// and a copy lands in Sent, a forward carries the original's attachment, a draft is kept in
/// Drafts and replaced when it changes, a message over the server's SIZE fails with its reason,
/// and mail queued while the servers are down goes out once when they return.
final class ComposeSendTests: DovecotTestCase {
    override class var workPrefix: String { "compose" }

    override func setUpWithError() throws {
        work = FileManager.default.temporaryDirectory.appendingPathComponent("\(Self.workPrefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        server = try DovecotServer(users: ["alice": "alice-password", "bob": "bob-password", "carol": "carol-password"],
                                   submission: true, maxMailSize: 200_000)
    }

    private func makeService(password: String = "alice-password") throws -> (MailSearchService, IMAPSyncEngine) {
        let service = try MailSearchService(configuration: .init(
            dataDirectory: DataDirectory(url: work.appendingPathComponent("data")), modelDirectory: work.appendingPathComponent("no-model"),
            backgroundEmbedding: false))
        services.append(service)
        service.sending.undoWindow = 0
        let settings = IMAPAccountSettings(host: server.host, port: server.tlsPort, security: "tls", username: "alice",
                                           passwordCommand: "printf '%s\\n' '\(password)'", caFile: server.caFile, syncWindowDays: nil,
                                           smtpHost: server.host, smtpPort: server.submissionPort, smtpSecurity: "startTLS")
        let account = try service.store.addIMAPAccount(named: "work", email: "alice@example.org", settings: settings)
        var options = SyncOptions()
        options.retryDelays = [.milliseconds(100)]
        return (service, IMAPSyncEngine(service: service, account: account, settings: settings, options: options))
    }

    private func sender(_ service: MailSearchService) -> MessageSender {
        MessageSender(service: service, pollInterval: .milliseconds(50), maximumRetryDelay: 1, responseTimeout: .seconds(20))
    }

    /// Raw messages of `user`'s `mailbox` with this Message-ID (doveadm).
    private func messages(_ user: String, _ mailbox: String = "INBOX", messageId: String) throws -> [String] {
        let output = try server.doveadm(["fetch", "-u", user, "text", "mailbox", mailbox, "header", "Message-ID", "<\(messageId)>"])
        return output.components(separatedBy: "text:\n").dropFirst().map { $0 }
    }

    private func subjects(_ user: String, _ mailbox: String) throws -> [String] {
        try server.doveadm(["fetch", "-u", user, "hdr.subject", "mailbox", mailbox]).split(separator: "\n")
            .filter { $0.lowercased().hasPrefix("hdr.subject:") }.map { $0.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces) }
    }

    private func wait(_ what: String, timeout: TimeInterval = 20, _ condition: () async throws -> Bool) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while try await !condition() {
            guard Date() < deadline else { return XCTFail("timed out waiting: \(what)") }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
    }

    // MARK: Tests

    func testAReplyArrivesWithItsThreadingHeadersAndACopyIsInSent() async throws {
        try server.append(mailbox: "INBOX", message: Array("""
            From: Bob <bob@example.com>\r\nTo: Alice <alice@example.org>\r\nCc: carol@example.com\r\nSubject: Budget\r\n\
            Date: Mon, 16 Nov 2026 09:00:00 +0000\r\nMessage-ID: <budget-1@example.com>\r\nReferences: <root@example.com>\r\n\r\n\
            Can you check the numbers?\r\n
            """.utf8))
        let (service, engine) = try makeService()
        _ = try await engine.sync()
        let parentId = try XCTUnwrap(service.store.emailIds(accountId: engine.account.id, messageIds: ["budget-1@example.com"]).values.first)

        var draft = try await service.compose.compose(.replyAll, emailId: parentId)
        XCTAssertEqual(draft.subject, "Re: Budget")
        XCTAssertEqual(draft.to, ["Bob <bob@example.com>"])
        XCTAssertEqual(draft.cc, ["carol@example.com"], "reply-all without the user's own address")
        XCTAssertEqual(draft.references, ["root@example.com", "budget-1@example.com"])
        draft = try await service.compose.updateDraft(id: draft.id, input: DraftInput(body: "The numbers are right.\n" + draft.body))
        let queued = try await service.compose.send(draftId: draft.id)
        XCTAssertEqual(queued.state, "queued")

        let sent = await sender(service).sendDue()
        XCTAssertEqual(sent, 1)
        let detail = try await service.compose.draftDetail(id: draft.id)
        XCTAssertEqual(detail.state, "sent", detail.lastError ?? "")
        XCTAssertEqual(detail.sentCopy, "done")
        XCTAssertTrue(detail.reply?.hasPrefix("250") ?? false)

        let atBobs = try messages("bob", messageId: draft.messageId)
        XCTAssertEqual(atBobs.count, 1)
        let atBob = try XCTUnwrap(atBobs.first)
        XCTAssertTrue(atBob.contains("In-Reply-To: <budget-1@example.com>"), atBob)
        XCTAssertTrue(atBob.contains("References: <root@example.com> <budget-1@example.com>"), atBob)
        XCTAssertTrue(atBob.contains("> Can you check the numbers?"), atBob)
        XCTAssertEqual(try messages("carol", messageId: draft.messageId).count, 1)
        XCTAssertEqual(try messages("alice", "Sent", messageId: draft.messageId).count, 1, "one copy in Sent")
        let sent2 = try await service.status().sending.sent
        XCTAssertEqual(sent2, 1)
    }

    func testAForwardCarriesTheOriginalsAttachment() async throws {
        let payload = (0..<3000).map { UInt8(($0 * 7) % 251) }
        let encoded = Data(payload).base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed])
        try server.append(mailbox: "INBOX", message: Array("""
            From: Bob <bob@example.com>\r\nTo: alice@example.org\r\nSubject: The report\r\nDate: Mon, 16 Nov 2026 09:00:00 +0000\r\n\
            Message-ID: <report-1@example.com>\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b1"\r\n\r\n\
            --b1\r\nContent-Type: text/plain\r\n\r\nHere it is.\r\n--b1\r\nContent-Type: application/pdf; name="report.pdf"\r\n\
            Content-Disposition: attachment; filename="report.pdf"\r\nContent-Transfer-Encoding: base64\r\n\r\n\(encoded)\r\n--b1--\r\n
            """.utf8))
        let (service, engine) = try makeService()
        _ = try await engine.sync()
        let parentId = try XCTUnwrap(service.store.emailIds(accountId: engine.account.id, messageIds: ["report-1@example.com"]).values.first)
        let draft = try await service.compose.compose(.forward, emailId: parentId, input: DraftInput(to: ["carol@example.com"]))
        XCTAssertEqual(draft.subject, "Fwd: The report")
        XCTAssertEqual(draft.notices, [])
        XCTAssertEqual(draft.attachments.map(\.filename), ["report.pdf"])
        XCTAssertNil(draft.inReplyTo)
        _ = try await service.compose.send(draftId: draft.id)
        _ = await sender(service).sendDue()
        let state = try await service.compose.draftDetail(id: draft.id).state
        XCTAssertEqual(state, "sent")
        let atCarols = try messages("carol", messageId: draft.messageId)
        XCTAssertEqual(atCarols.count, 1)
        let atCarol = try XCTUnwrap(atCarols.first)
        XCTAssertTrue(atCarol.contains("filename=report.pdf") || atCarol.contains("filename=\"report.pdf\""), atCarol)
        XCTAssertTrue(atCarol.contains(String(encoded.prefix(60))), "the attachment's bytes travel unchanged")
        XCTAssertTrue(atCarol.contains("---------- Forwarded message ---------"))
    }

    func testADraftIsKeptInDraftsAndReplacedWhenItChanges() async throws {
        let (service, _) = try makeService()
        let draft = try await service.compose.compose(.new, input: DraftInput(to: ["bob@example.com"], subject: "Plan v1", body: "first"))
        let worker = sender(service)
        let task = Task { await worker.run() }
        defer { task.cancel() }
        try await wait("the draft in Drafts") { try subjects("alice", "Drafts") == ["Plan v1"] }
        let flags = try server.doveadm(["fetch", "-u", "alice", "flags hdr.message-id", "mailbox", "Drafts"])
        XCTAssertTrue(flags.contains("\\Draft"), flags)
        XCTAssertFalse(flags.contains("<\(draft.messageId)>"), "a draft's copy never carries the id the message is sent with")
        XCTAssertTrue(flags.contains("<draft1.\(draft.messageId)>"), flags)
        _ = try await service.compose.updateDraft(id: draft.id, input: DraftInput(subject: "Plan v2"))
        try await wait("the new version replacing the old") { try subjects("alice", "Drafts") == ["Plan v2"] }
        // Recorded once the server has answered: just after the new copy shows there.
        try await wait("the new version recorded as saved on the server") {
            try await service.compose.draftDetail(id: draft.id).savedOnServer
        }
        try await service.compose.deleteDraft(id: draft.id)
        try await wait("the deleted draft gone from Drafts") { try subjects("alice", "Drafts").isEmpty }
        try await wait("the deleted draft's row gone") { try service.store.draft(id: draft.id) == nil }
    }

    func testASentDraftLeavesDraftsAndTheSyncedMailIsTheSentText() async throws {
        let (service, engine) = try makeService()
        let draft = try await service.compose.compose(.new, input: DraftInput(to: ["bob@example.com"], subject: "Minutes", body: "early notes"))
        let worker = sender(service)
        let task = Task { await worker.run() }
        defer { task.cancel() }
        try await wait("the draft in Drafts") { try subjects("alice", "Drafts") == ["Minutes"] }
        _ = try await engine.sync()  // the draft's copy is mail of the Drafts folder now
        _ = try await service.compose.updateDraft(id: draft.id, input: DraftInput(body: "the final minutes"))
        _ = try await service.compose.send(draftId: draft.id)
        try await wait("sent, and the copy gone from Drafts") {
            let detail = try await service.compose.draftDetail(id: draft.id)
            return try detail.state == "sent" && subjects("alice", "Drafts").isEmpty && detail.sentCopy == "done"
        }
        _ = try await engine.sync()
        let id = try XCTUnwrap(service.store.emailIds(accountId: engine.account.id, messageIds: [draft.messageId]).values.first)
        let email = try XCTUnwrap(service.store.email(id: id))
        XCTAssertTrue(email.email.bodyPlain.contains("the final minutes"), email.email.bodyPlain)
        XCTAssertEqual(email.folders, ["Sent"])
    }

    func testAMessageOverTheServersSizeFailsWithTheReason() async throws {
        let (service, _) = try makeService()
        let draft = try await service.compose.compose(.new, input: DraftInput(to: ["bob@example.com"], subject: "big"))
        _ = try await service.compose.addAttachment(draftId: draft.id, filename: "big.bin", mimeType: "application/octet-stream",
                                      content: [UInt8](repeating: 7, count: 250_000))
        _ = try await service.compose.send(draftId: draft.id)
        _ = await sender(service).sendDue()
        let failed = try await service.compose.draftDetail(id: draft.id)
        XCTAssertEqual(failed.state, "failed")
        XCTAssertTrue(failed.lastError?.contains("accepts at most") ?? false, failed.lastError ?? "")
        // The server's SIZE is known now: a second such attachment is refused at once.
        let other = try await service.compose.compose(.new, input: DraftInput(to: ["bob@example.com"], subject: "big 2"))
        await assertThrowsAsync(try await service.compose.addAttachment(draftId: other.id, filename: "big.bin", mimeType: "application/octet-stream",
                                                                        content: [UInt8](repeating: 7, count: 250_000))) { error in
            XCTAssertEqual((error as? ServiceError)?.kind, .tooLarge)
        }
        _ = try await service.compose.reopen(id: draft.id)
        let state = try await service.compose.draftDetail(id: draft.id).state
        XCTAssertEqual(state, "draft", "a failed message goes back to the drafts")
    }

    /// A refused login is tried once more before the message fails (a server restarting refuses the
    /// right password too); a wrong password is refused again, and then the message has failed.
    func testARefusedLoginIsTriedOnceMoreThenTheMessageFails() async throws {
        let (service, _) = try makeService(password: "not-the-password")
        let draft = try await service.compose.compose(.new, input: DraftInput(to: ["bob@example.com"], subject: "Login", body: "hi"))
        _ = try await service.compose.send(draftId: draft.id)
        _ = await sender(service).sendDue()
        let first = try await service.compose.draftDetail(id: draft.id)
        XCTAssertEqual(first.state, "waiting", "the first refusal waits for another attempt")
        XCTAssertTrue(first.lastError?.contains("refused the login") ?? false, first.lastError ?? "")
        _ = await sender(service).sendDue(retryNow: true)
        let second = try await service.compose.draftDetail(id: draft.id)
        XCTAssertEqual(second.state, "failed", "refused again: the password is wrong")
        XCTAssertTrue(second.lastError?.contains("refused the login") ?? false, second.lastError ?? "")
    }

    func testMailQueuedWhileTheServerIsDownGoesOutOnceWhenItReturns() async throws {
        let (service, _) = try makeService()
        var ids: [(Int64, String)] = []
        try server.kill()
        for n in 0..<3 {
            let draft = try await service.compose.compose(.new, input: DraftInput(to: ["bob@example.com"], subject: "offline \(n)", body: "n=\(n)"))
            _ = try await service.compose.send(draftId: draft.id)
            ids.append((draft.id, draft.messageId))
        }
        let worker = sender(service)
        let task = Task { await worker.run() }
        defer { task.cancel() }
        try await wait("every message waiting with the reason") {
            for (id, _) in ids where try await service.compose.draftDetail(id: id).state != "waiting" { return false }
            return true
        }
        let status = try await service.status().sending
        XCTAssertEqual(status.waiting, 3)
        XCTAssertNotNil(status.lastError)
        try server.restart()
        try await wait("every message sent", timeout: 30) {
            for (id, _) in ids where try await service.compose.draftDetail(id: id).state != "sent" { return false }
            return true
        }
        for (_, messageId) in ids {
            XCTAssertEqual(try messages("bob", messageId: messageId).count, 1, "sent exactly once")
        }
    }

    func testAddressesWithLineBreaksAreRefused() async throws {
        let (service, _) = try makeService()
        await assertThrowsAsync(try await service.compose.compose(.new, input: DraftInput(to: ["bob@example.com\r\nBcc: eve@example.com"]))) { error in
            XCTAssertEqual((error as? ServiceError)?.kind, .invalidRequest)
            XCTAssertTrue("\(error)".contains("carriage return"), "\(error)")
            // Shown escaped, as `send` shows it, never with the break deleted (which reads as one address).
            XCTAssertTrue("\(error)".contains(#""bob@example.com\r\nBcc: eve@example.com""#), "\(error)")
            XCTAssertFalse("\(error)".contains("bob@example.comBcc"), "\(error)")
        }
        let draft = try await service.compose.compose(.new, input: DraftInput(to: ["not an address"]))
        await assertThrowsAsync(try await service.compose.send(draftId: draft.id)) { error in
            XCTAssertEqual((error as? ServiceError)?.kind, .invalidRequest)
        }
        let state = try await service.compose.draftDetail(id: draft.id).state
        XCTAssertEqual(state, "draft", "nothing queued that cannot be sent")
    }
}
