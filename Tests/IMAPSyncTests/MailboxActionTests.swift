import Foundation
import GRDB
@testable import IMAPSync
import IMAPClient
import MailModel
@testable import MailSearchKit
import MailStore
import SearchEngine
import XCTest

/// Mailbox actions written back to a real Dovecot through the outbox: flags, archive, move,
/// delete (to the Trash, then for good), MOVE and the COPY/EXPUNGE fallback, a conflict the server
/// wins, a new process replaying a queue exactly once, and actions taken while the server is down.
final class MailboxActionTests: DovecotTestCase {
    override class var workPrefix: String { "actions" }

    // MARK: Fixtures

    func makeService() throws -> MailSearchService {
        let service = try MailSearchService(configuration: .init(
            dataDirectory: DataDirectory(url: work.appendingPathComponent("data")), modelDirectory: work.appendingPathComponent("no-model"),
            backgroundEmbedding: false, now: { Date(timeIntervalSince1970: 1_795_000_000) }))
        services.append(service)
        return service
    }

    func options(condStore: Bool = true, move: Bool = true) -> SyncOptions {
        var options = SyncOptions()
        options.useCondStore = condStore
        options.useQResync = condStore
        options.useMove = move
        options.retryDelays = [.milliseconds(100)]
        options.errorRetryInterval = .milliseconds(500)
        options.outboxPollInterval = .milliseconds(100)
        options.now = { Date(timeIntervalSince1970: 1_795_000_000) }
        return options
    }

    func engine(_ service: MailSearchService, options: SyncOptions? = nil) throws -> IMAPSyncEngine {
        let settings = IMAPAccountSettings(host: server.host, port: server.tlsPort, security: "tls", username: "alice",
                                           passwordCommand: "printf '%s\\n' 'alice-password'", caFile: server.caFile, syncWindowDays: nil)
        let account = try service.store.findAccount(named: "work")
            ?? service.store.addIMAPAccount(named: "work", email: "alice@example.com", settings: settings)
        return IMAPSyncEngine(service: service, account: account, settings: settings, options: options ?? self.options())
    }

    /// Five messages in INBOX (m1 starred), synced.
    func syncedMailbox(options: SyncOptions? = nil) async throws -> (MailSearchService, IMAPSyncEngine, [String: Int64]) {
        try server.createMailbox(mailbox: "Projects")
        for n in 0..<5 {
            try server.append(mailbox: "INBOX", message: IMAPSyncTests.message(n), flags: n == 1 ? ["\\Flagged"] : [])
        }
        let service = try makeService()
        let engine = try engine(service, options: options)
        let summary = try await engine.sync()
        XCTAssertGreaterThanOrEqual(summary.newEmails, 5)
        let ids = try service.store.emailIds(accountId: engine.account.id, messageIds: (0..<5).map { "m\($0)@example.com" })
        XCTAssertEqual(ids.count, 5)
        return (service, engine, Dictionary(uniqueKeysWithValues: ids.map { (String($0.key.prefix(2)), $0.value) }))
    }

    /// What the server holds in a mailbox: Message-ID → flags (doveadm fetch).
    func serverMessages(_ mailbox: String) throws -> [String: Set<String>] {
        let output = try server.doveadm(["fetch", "-u", "alice", "flags hdr.message-id", "mailbox", mailbox])
        var result: [String: Set<String>] = [:]
        var flags = Set<String>()
        for line in output.split(separator: "\n") {
            if line.hasPrefix("flags:") {
                flags = Set(line.dropFirst(6).split(separator: " ").map(String.init)).subtracting(["\\Recent"])
            } else if line.lowercased().hasPrefix("hdr.message-id:") {
                let id = line.drop { $0 != "<" }.dropFirst().prefix { $0 != "@" }
                result[String(id)] = flags
            }
        }
        return result
    }

    func folders(_ service: MailSearchService, _ emailId: Int64) throws -> [String] {
        try XCTUnwrap(service.store.email(id: emailId)).folders.sorted()
    }

    func uid(_ service: MailSearchService, _ emailId: Int64) throws -> Int64 {
        try XCTUnwrap(service.store.database.read { db in
            try Int64.fetchOne(db, sql: "SELECT uid FROM imap_messages WHERE emailId = ?", arguments: [emailId])
        })
    }

    func attempts(_ service: MailSearchService) throws -> [Int] {
        try service.store.database.read { db in try Int.fetchAll(db, sql: "SELECT attempts FROM outbox ORDER BY id") }
    }

    func outbox(_ service: MailSearchService) throws -> OutboxCounts? {
        try service.outboxStatus().first
    }

    // MARK: Tests

    func testEveryActionReachesTheServerAndTheNextSyncFetchesNothingAgain() async throws {
        let (service, engine, m) = try await syncedMailbox()
        let generation = service.generation
        XCTAssertEqual(try service.perform(.markRead, emailIds: [m["m0"]!]).queued, 1)
        XCTAssertEqual(try service.perform(.unstar, emailIds: [m["m1"]!]).queued, 1)
        XCTAssertEqual(try service.perform(.star, emailIds: [m["m0"]!]).queued, 1)
        XCTAssertEqual(try service.perform(.archive, emailIds: [m["m2"]!]).folders, ["Archive"])
        _ = try service.perform(.move(to: "Projects"), emailIds: [m["m3"]!])
        XCTAssertEqual(try service.perform(.delete, emailIds: [m["m4"]!]).folders, ["Trash"])

        // Local first: the mailbox has changed before the server knows.
        XCTAssertGreaterThan(service.generation, generation)
        XCTAssertEqual(try folders(service, m["m2"]!), ["Archive"])
        XCTAssertEqual(try folders(service, m["m4"]!), ["Trash"])
        var request = SearchRequest(text: "is:unread in:inbox")
        request.mode = .keyword
        request.recordHistory = false
        let unreadInInbox = try await service.search(request).results.count
        XCTAssertEqual(unreadInInbox, 1, "m1 only: m0 was read, the others left the Inbox")
        XCTAssertEqual(try outbox(service)?.pending, 6)
        XCTAssertEqual(try serverMessages("INBOX").count, 5)

        let replay = try await engine.replayOutbox()
        XCTAssertEqual(replay.applied, 6)
        XCTAssertEqual(replay.conflicts + replay.refused + replay.dropped, 0)
        let inbox = try serverMessages("INBOX")
        XCTAssertEqual(Set(inbox.keys), ["m0", "m1"])
        XCTAssertEqual(inbox["m0"], ["\\Seen", "\\Flagged"])
        XCTAssertEqual(inbox["m1"], [])
        XCTAssertEqual(Set(try serverMessages("Archive").keys), ["m2"])
        XCTAssertEqual(Set(try serverMessages("Projects").keys), ["m3"])
        XCTAssertEqual(Set(try serverMessages("Trash").keys), ["m4"])
        let counts = try XCTUnwrap(outbox(service))
        XCTAssertEqual([counts.pending, counts.done], [0, 6])

        // The next sync agrees with the mailbox: nothing fetched again, no folder or flag changes back.
        let summary = try await engine.sync()
        XCTAssertEqual(summary.fetched, 0)
        XCTAssertEqual(summary.deletedEmails, 0)
        XCTAssertEqual(try folders(service, m["m2"]!), ["Archive"])
        XCTAssertEqual(try folders(service, m["m3"]!), ["Projects"])
        XCTAssertEqual(try XCTUnwrap(service.store.email(id: m["m0"]!)).email.isStarred, true)

        // Deleting from the Trash deletes for good, here and on the server.
        XCTAssertEqual(try service.perform(.delete, emailIds: [m["m4"]!]).deleted, [m["m4"]!])
        XCTAssertNil(try service.store.email(id: m["m4"]!))
        let again = try await engine.sync()  // the outbox goes first in a pass
        XCTAssertEqual(again.fetched, 0)
        XCTAssertTrue(try serverMessages("Trash").isEmpty)
        XCTAssertNil(try service.store.email(id: m["m4"]!))
    }

    func testActionsQueuedOneAfterAnotherFollowTheMessage() async throws {
        let (service, engine, m) = try await syncedMailbox()
        // All before any write-back: each later operation finds the message where the earlier put it.
        _ = try service.perform(.archive, emailIds: [m["m0"]!])
        _ = try service.perform(.move(to: "Projects"), emailIds: [m["m0"]!])
        _ = try service.perform(.star, emailIds: [m["m0"]!])
        _ = try service.perform(.delete, emailIds: [m["m1"]!])
        _ = try service.perform(.delete, emailIds: [m["m1"]!])  // from the Trash: for good
        XCTAssertNil(try service.store.email(id: m["m1"]!))
        let replay = try await engine.replayOutbox()
        XCTAssertEqual(replay.conflicts + replay.refused + replay.dropped, 0)
        XCTAssertTrue(try serverMessages("Archive").isEmpty)
        XCTAssertEqual(try serverMessages("Projects"), ["m0": ["\\Flagged"]])
        XCTAssertNil(try serverMessages("INBOX")["m1"])
        XCTAssertTrue(try serverMessages("Trash").isEmpty)
        let summary = try await engine.sync()
        XCTAssertEqual(summary.fetched, 0)
        XCTAssertEqual(try folders(service, m["m0"]!), ["Projects"])
    }

    func testARefusedOperationIsRetriedThreeTimesInOrderThenFailsAndIsShown() async throws {
        try server.createMailbox(mailbox: "Gone")
        try server.append(mailbox: "Gone", message: IMAPSyncTests.message(9))
        let (service, engine, m) = try await syncedMailbox()
        let gone = try XCTUnwrap(service.store.emailIds(accountId: engine.account.id, messageIds: ["m9@example.com"])["m9@example.com"])
        // The folder is deleted on the server after the sync: the server refuses to open it.
        _ = try server.doveadm(["mailbox", "delete", "-u", "alice", "Gone"])
        _ = try service.perform(.star, emailIds: [gone])
        _ = try service.perform(.markRead, emailIds: [m["m0"]!])
        for attempt in 1...3 {
            let replay = try await engine.replayOutbox()
            XCTAssertEqual([replay.refused, replay.applied], [1, 0], "attempt \(attempt): the later operation waits its turn")
            XCTAssertEqual(try outbox(service)?.pending, 2)
        }
        let last = try await engine.replayOutbox()
        XCTAssertEqual([last.refused, last.applied], [1, 1], "given up after three retries; the next one goes on")
        let counts = try XCTUnwrap(service.status().outbox.first)
        XCTAssertEqual([counts.pending, counts.failed, counts.done], [0, 1, 1])
        XCTAssertNotNil(counts.lastError)
        XCTAssertEqual(try serverMessages("INBOX")["m0"], ["\\Seen"])
    }

    func testWithoutMoveOrCondStoreCopyDeleteAndExpungeDoTheSame() async throws {
        let (service, engine, m) = try await syncedMailbox(options: options(condStore: false, move: false))
        _ = try service.perform(.archive, emailIds: [m["m0"]!, m["m1"]!])
        _ = try service.perform(.markRead, emailIds: [m["m2"]!])
        let replay = try await engine.replayOutbox()
        XCTAssertEqual(replay.applied, 3)
        XCTAssertEqual(Set(try serverMessages("INBOX").keys), ["m2", "m3", "m4"])
        XCTAssertEqual(try serverMessages("INBOX")["m2"], ["\\Seen"])
        XCTAssertEqual(Set(try serverMessages("Archive").keys), ["m0", "m1"])
        XCTAssertEqual(try serverMessages("Archive")["m1"], ["\\Flagged"])
        let summary = try await engine.sync()
        XCTAssertEqual(summary.fetched, 0)
        XCTAssertEqual(try folders(service, m["m0"]!), ["Archive"])
    }

    func testAFlagChangedOnTheServerSinceWins() async throws {
        let (service, engine, m) = try await syncedMailbox()
        // Read on the phone after the last sync; here, starred.
        let uid = try self.uid(service, m["m0"]!)
        try server.addFlags(mailbox: "INBOX", uids: [UInt32(uid)], flags: ["\\Seen"])
        _ = try service.perform(.star, emailIds: [m["m0"]!])
        let replay = try await engine.replayOutbox()
        XCTAssertEqual(replay.conflicts, 1)
        XCTAssertEqual(try serverMessages("INBOX")["m0"], ["\\Seen"])
        let email = try XCTUnwrap(service.store.email(id: m["m0"]!)).email
        XCTAssertEqual([email.isRead, email.isStarred], [true, false], "the server's flags are kept")
        XCTAssertEqual(try outbox(service)?.conflicts, 1)
        // A second change of the same message is not taken for a conflict (our own MODSEQ is known).
        _ = try service.perform(.star, emailIds: [m["m0"]!])
        _ = try service.perform(.markUnread, emailIds: [m["m0"]!])
        let second = try await engine.replayOutbox()
        XCTAssertEqual([second.applied, second.conflicts], [2, 0])
        XCTAssertEqual(try serverMessages("INBOX")["m0"], ["\\Flagged"])
        // Another flag changed on the server since (answered elsewhere) is no conflict for "read".
        try server.addFlags(mailbox: "INBOX", uids: [UInt32(try self.uid(service, m["m2"]!))], flags: ["\\Answered"])
        _ = try service.perform(.markRead, emailIds: [m["m2"]!])
        let third = try await engine.replayOutbox()
        XCTAssertEqual([third.applied, third.conflicts], [1, 0])
        XCTAssertEqual(try serverMessages("INBOX")["m2"], ["\\Answered", "\\Seen"])
    }

    func testANewProcessReplaysAQueueExactlyOnce() async throws {
        var (service, engine, m0) = try await syncedMailbox()
        let m = m0
        _ = try service.perform(.archive, emailIds: [m["m0"]!])
        _ = try service.perform(.delete, emailIds: [m["m1"]!])
        _ = try service.perform(.markRead, emailIds: [m["m2"]!])
        // The first process moved m0 on the server and died before it recorded that (the move
        // done behind its back, as a crash between the command and the commit would leave it).
        let uid = try self.uid(service, m["m0"]!)
        _ = try server.doveadm(["move", "-u", "alice", "Archive", "mailbox", "INBOX", "uid", "\(uid)"])
        service.shutdown()
        services.removeAll()

        service = try makeService()
        engine = try self.engine(service)
        XCTAssertEqual(try outbox(service)?.pending, 3, "the queue survived the process")
        let replay = try await engine.replayOutbox()
        XCTAssertEqual(replay.applied, 3)
        XCTAssertEqual(Set(try serverMessages("Archive").keys), ["m0"], "one copy: the move was not done twice")
        XCTAssertEqual(try server.status(mailbox: "Archive")["messages"] as? Int, 1)
        XCTAssertEqual(try server.status(mailbox: "Trash")["messages"] as? Int, 1)
        XCTAssertEqual(Set(try serverMessages("Trash").keys), ["m1"])
        XCTAssertEqual(Set(try serverMessages("INBOX").keys), ["m2", "m3", "m4"])
        let attempts = try self.attempts(service)
        XCTAssertEqual(attempts, [1, 1, 1])
        // Nothing left: a third process has nothing to do.
        let third = try await engine.replayOutbox()
        XCTAssertEqual(third.applied, 0)
        let summary = try await engine.sync()
        XCTAssertEqual(summary.deletedEmails, 0)
        XCTAssertEqual(try folders(service, m["m0"]!), ["Archive"])
    }

    func testActionsTakenOfflineAreAppliedWhenTheServerIsBack() async throws {
        let (service, engine, m) = try await syncedMailbox()
        try server.kill()
        _ = try service.perform(.markRead, threadId: XCTUnwrap(service.store.email(id: m["m0"]!)?.email.threadId))
        _ = try service.perform(.archive, emailIds: [m["m3"]!])
        _ = try service.perform(.delete, emailIds: [m["m4"]!])
        do {
            _ = try await engine.replayOutbox()
            XCTFail("the server is down")
        } catch {}
        let queued = try XCTUnwrap(outbox(service)).pending
        XCTAssertGreaterThanOrEqual(queued, 3)
        XCTAssertEqual(try service.status().outbox.first?.pending, queued)

        // The runner (part of watch(), as in `serve` and `sync --watch`) keeps trying.
        let watching = Task { await engine.watch() }
        try await Task.sleep(for: .seconds(1))
        XCTAssertEqual(try outbox(service)?.pending, queued)
        try server.restart()
        let deadline = Date().addingTimeInterval(30)
        while try outbox(service)?.pending ?? 0 > 0, Date() < deadline { try await Task.sleep(for: .milliseconds(200)) }
        watching.cancel()
        await watching.value
        XCTAssertEqual(try outbox(service)?.pending, 0)
        XCTAssertEqual(try outbox(service)?.done, queued)
        XCTAssertEqual(try serverMessages("INBOX")["m0"], ["\\Seen"])
        XCTAssertEqual(Set(try serverMessages("Archive").keys), ["m3"])
        XCTAssertEqual(Set(try serverMessages("Trash").keys), ["m4"])
    }

    func testTheRunnerWritesAnActionAtOnceNotAtItsNextPoll() async throws {
        // A poll so slow that only the action's own signal can explain a write within seconds.
        var slow = options()
        slow.outboxPollInterval = .seconds(600)
        let (service, engine, m) = try await syncedMailbox(options: slow)
        let watching = Task { await engine.watch() }
        defer { watching.cancel() }
        // The first pass and the runner's first look at the queue are over: it waits.
        var deadline = Date().addingTimeInterval(30)
        while service.syncStatus.snapshot.first?.state != .listening, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        try await Task.sleep(for: .milliseconds(300))
        for (n, action) in [(2, MailboxAction.star), (3, .archive)] {
            let started = Date()
            XCTAssertEqual(try service.perform(action, emailIds: [m["m\(n)"]!]).queued, 1)
            deadline = started.addingTimeInterval(10)
            while try outbox(service)?.pending ?? 1 > 0, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
            XCTAssertEqual(try outbox(service)?.pending, 0, "\(action.name) still waits after \(Date().timeIntervalSince(started)) s")
            XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        }
        watching.cancel()
        await watching.value
        XCTAssertEqual(try serverMessages("INBOX")["m2"], ["\\Flagged"])
        XCTAssertEqual(Set(try serverMessages("Archive").keys), ["m3"])
    }
}
