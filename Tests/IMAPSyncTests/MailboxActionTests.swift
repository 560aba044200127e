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

    func outbox(_ service: MailSearchService) async throws -> OutboxCounts? {
        try await service.mailbox.outboxStatus().first
    }

    // MARK: Tests

    func testEveryActionReachesTheServerAndTheNextSyncFetchesNothingAgain() async throws {
        let (service, engine, m) = try await syncedMailbox()
        let generation = service.generation
        let queued = try await service.mailbox.perform(.markRead, emailIds: [m["m0"]!]).queued
        XCTAssertEqual(queued, 1)
        let queued2 = try await service.mailbox.perform(.unstar, emailIds: [m["m1"]!]).queued
        XCTAssertEqual(queued2, 1)
        let queued3 = try await service.mailbox.perform(.star, emailIds: [m["m0"]!]).queued
        XCTAssertEqual(queued3, 1)
        let archivedTo = try await service.mailbox.perform(.archive, emailIds: [m["m2"]!]).folders
        XCTAssertEqual(archivedTo, ["Archive"])
        _ = try await service.mailbox.perform(.move(to: "Projects"), emailIds: [m["m3"]!])
        let deletedTo = try await service.mailbox.perform(.delete, emailIds: [m["m4"]!]).folders
        XCTAssertEqual(deletedTo, ["Trash"])

        // Local first: the mailbox has changed before the server knows.
        XCTAssertGreaterThan(service.generation, generation)
        XCTAssertEqual(try folders(service, m["m2"]!), ["Archive"])
        XCTAssertEqual(try folders(service, m["m4"]!), ["Trash"])
        var request = SearchRequest(text: "is:unread in:inbox")
        request.mode = .keyword
        request.recordHistory = false
        let unreadInInbox = try await service.search.search(request).results.count
        XCTAssertEqual(unreadInInbox, 1, "m1 only: m0 was read, the others left the Inbox")
        let pending = try await outbox(service)?.pending
        XCTAssertEqual(pending, 6)
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
        let countsNow = try await outbox(service)
        let counts = try XCTUnwrap(countsNow)
        XCTAssertEqual([counts.pending, counts.done], [0, 6])

        // The next sync agrees with the mailbox: nothing fetched again, no folder or flag changes back.
        let summary = try await engine.sync()
        XCTAssertEqual(summary.fetched, 0)
        XCTAssertEqual(summary.deletedEmails, 0)
        XCTAssertEqual(try folders(service, m["m2"]!), ["Archive"])
        XCTAssertEqual(try folders(service, m["m3"]!), ["Projects"])
        XCTAssertEqual(try XCTUnwrap(service.store.email(id: m["m0"]!)).email.isStarred, true)

        // Deleting from the Trash deletes for good, here and on the server.
        let deleted = try await service.mailbox.perform(.delete, emailIds: [m["m4"]!]).deleted
        XCTAssertEqual(deleted, [m["m4"]!])
        XCTAssertNil(try service.store.email(id: m["m4"]!))
        let again = try await engine.sync()  // the outbox goes first in a pass
        XCTAssertEqual(again.fetched, 0)
        XCTAssertTrue(try serverMessages("Trash").isEmpty)
        XCTAssertNil(try service.store.email(id: m["m4"]!))
    }

    func testActionsQueuedOneAfterAnotherFollowTheMessage() async throws {
        let (service, engine, m) = try await syncedMailbox()
        // All before any write-back: each later operation finds the message where the earlier put it.
        _ = try await service.mailbox.perform(.archive, emailIds: [m["m0"]!])
        _ = try await service.mailbox.perform(.move(to: "Projects"), emailIds: [m["m0"]!])
        _ = try await service.mailbox.perform(.star, emailIds: [m["m0"]!])
        _ = try await service.mailbox.perform(.delete, emailIds: [m["m1"]!])
        _ = try await service.mailbox.perform(.delete, emailIds: [m["m1"]!])  // from the Trash: for good
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
        _ = try await service.mailbox.perform(.star, emailIds: [gone])
        _ = try await service.mailbox.perform(.markRead, emailIds: [m["m0"]!])
        for attempt in 1...3 {
            let replay = try await engine.replayOutbox()
            XCTAssertEqual([replay.refused, replay.applied], [1, 0], "attempt \(attempt): the later operation waits its turn")
            let pending = try await outbox(service)?.pending
            XCTAssertEqual(pending, 2)
        }
        let last = try await engine.replayOutbox()
        XCTAssertEqual([last.refused, last.applied], [1, 1], "given up after three retries; the next one goes on")
        let countsNow = try await service.status().outbox.first
        let counts = try XCTUnwrap(countsNow)
        XCTAssertEqual([counts.pending, counts.failed, counts.done], [0, 1, 1])
        XCTAssertNotNil(counts.lastError)
        XCTAssertEqual(try serverMessages("INBOX")["m0"], ["\\Seen"])
    }

    func testWithoutMoveOrCondStoreCopyDeleteAndExpungeDoTheSame() async throws {
        let (service, engine, m) = try await syncedMailbox(options: options(condStore: false, move: false))
        _ = try await service.mailbox.perform(.archive, emailIds: [m["m0"]!, m["m1"]!])
        _ = try await service.mailbox.perform(.markRead, emailIds: [m["m2"]!])
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
        // Read and starred on the phone after the last sync; here, starred too.
        let uid = try self.uid(service, m["m0"]!)
        try server.addFlags(mailbox: "INBOX", uids: [UInt32(uid)], flags: ["\\Seen", "\\Flagged"])
        _ = try await service.mailbox.perform(.star, emailIds: [m["m0"]!])
        let replay = try await engine.replayOutbox()
        XCTAssertEqual(replay.conflicts, 1)
        XCTAssertEqual(try serverMessages("INBOX")["m0"], ["\\Seen", "\\Flagged"])
        let email = try XCTUnwrap(service.store.email(id: m["m0"]!)).email
        XCTAssertEqual([email.isRead, email.isStarred], [true, true], "the server's flags are kept")
        let conflicts = try await outbox(service)?.conflicts
        XCTAssertEqual(conflicts, 1)
        // A second change of the same message is not taken for a conflict (our own MODSEQ is known).
        _ = try await service.mailbox.perform(.unstar, emailIds: [m["m0"]!])
        _ = try await service.mailbox.perform(.markUnread, emailIds: [m["m0"]!])
        let second = try await engine.replayOutbox()
        XCTAssertEqual([second.applied, second.conflicts], [2, 0])
        XCTAssertEqual(try serverMessages("INBOX")["m0"], [])
        // Another flag changed on the server since (answered elsewhere) is no conflict for "read".
        try server.addFlags(mailbox: "INBOX", uids: [UInt32(try self.uid(service, m["m2"]!))], flags: ["\\Answered"])
        _ = try await service.mailbox.perform(.markRead, emailIds: [m["m2"]!])
        let third = try await engine.replayOutbox()
        XCTAssertEqual([third.applied, third.conflicts], [1, 0])
        XCTAssertEqual(try serverMessages("INBOX")["m2"], ["\\Answered", "\\Seen"])
        // Nor is "read" on the phone a conflict for a star here: each flag is the last change's.
        try server.addFlags(mailbox: "INBOX", uids: [UInt32(try self.uid(service, m["m3"]!))], flags: ["\\Seen"])
        _ = try await service.mailbox.perform(.star, emailIds: [m["m3"]!])
        let fourth = try await engine.replayOutbox()
        XCTAssertEqual([fourth.applied, fourth.conflicts], [1, 0])
        XCTAssertEqual(try serverMessages("INBOX")["m3"], ["\\Seen", "\\Flagged"])
        _ = try await engine.sync()
        let m3 = try XCTUnwrap(service.store.email(id: m["m3"]!)).email
        XCTAssertEqual([m3.isRead, m3.isStarred], [true, true])
    }

    // MARK: Last action wins (the outbox holds intent)

    /// Server and mailbox after `syncs` more syncs: each message's flags on the server, and here.
    func assertAgree(_ service: MailSearchService, _ engine: IMAPSyncEngine, _ id: String, emailId: Int64,
                     folders expected: [String], read: Bool, starred: Bool, file: StaticString = #filePath, line: UInt = #line) async throws {
        for _ in 0..<2 { _ = try await engine.sync() }
        var flags = Set<String>()
        if read { flags.insert("\\Seen") }
        if starred { flags.insert("\\Flagged") }
        for mailbox in ["INBOX", "Archive", "Projects", "Trash"] {
            let onServer = try serverMessages(mailbox)[id]
            XCTAssertEqual(onServer, expected.contains(mailbox) ? flags : nil, "\(id) in \(mailbox) on the server", file: file, line: line)
        }
        let email = try XCTUnwrap(service.store.email(id: emailId), file: file, line: line)
        XCTAssertEqual(email.folders.sorted(), expected.sorted(), "\(id)'s folders here", file: file, line: line)
        XCTAssertEqual([email.email.isRead, email.email.isStarred], [read, starred], "\(id)'s flags here", file: file, line: line)
        let pending = try await outbox(service)?.pending ?? 0
        XCTAssertEqual(pending, 0, file: file, line: line)
    }

    func testStarThenUnstarBeforeTheOutboxRunsEndsUnstarredEverywhere() async throws {
        let (service, engine, m) = try await syncedMailbox()
        _ = try await service.mailbox.perform(.star, emailIds: [m["m0"]!])
        _ = try await service.mailbox.perform(.unstar, emailIds: [m["m0"]!])
        let superseded = try await outbox(service)?.superseded
        XCTAssertEqual(superseded, 1)
        try await assertAgree(service, engine, "m0", emailId: m["m0"]!, folders: ["INBOX"], read: false, starred: false)
    }

    func testReadThenUnreadBeforeTheOutboxRunsEndsUnreadEverywhere() async throws {
        let (service, engine, m) = try await syncedMailbox()
        _ = try await service.mailbox.perform(.markRead, emailIds: [m["m2"]!])
        _ = try await service.mailbox.perform(.markUnread, emailIds: [m["m2"]!])
        // m1 is starred on the server: unstar, star again, unstar.
        _ = try await service.mailbox.perform(.unstar, emailIds: [m["m1"]!])
        _ = try await service.mailbox.perform(.star, emailIds: [m["m1"]!])
        _ = try await service.mailbox.perform(.unstar, emailIds: [m["m1"]!])
        try await assertAgree(service, engine, "m2", emailId: m["m2"]!, folders: ["INBOX"], read: false, starred: false)
        try await assertAgree(service, engine, "m1", emailId: m["m1"]!, folders: ["INBOX"], read: false, starred: false)
    }

    func testArchiveThenMoveBackBeforeTheOutboxRunsStaysInTheInboxOnly() async throws {
        let (service, engine, m) = try await syncedMailbox()
        _ = try await service.mailbox.perform(.archive, emailIds: [m["m3"]!])
        _ = try await service.mailbox.perform(.move(to: "INBOX"), emailIds: [m["m3"]!])
        // And a longer change of mind: archive, Projects, Trash, back to the Inbox.
        for action in [MailboxAction.archive, .move(to: "Projects"), .delete, .move(to: "INBOX")] {
            _ = try await service.mailbox.perform(action, emailIds: [m["m4"]!])
        }
        try await assertAgree(service, engine, "m3", emailId: m["m3"]!, folders: ["INBOX"], read: false, starred: false)
        try await assertAgree(service, engine, "m4", emailId: m["m4"]!, folders: ["INBOX"], read: false, starred: false)
    }

    func testAChangeOfMindWhileTheFirstActionIsOnItsWayIsWrittenAfterIt() async throws {
        let (service, engine, m) = try await syncedMailbox()
        _ = try await service.mailbox.perform(.star, emailIds: [m["m0"]!])
        _ = try await service.mailbox.perform(.archive, emailIds: [m["m2"]!])
        // A replay has taken both (their commands may be on the wire) when the user changes their mind.
        for op in try service.store.pendingOutbox(accountId: engine.account.id) {
            XCTAssertTrue(try service.store.claimOutbox(op))
        }
        let queued = try await service.mailbox.perform(.unstar, emailIds: [m["m0"]!]).queued
        XCTAssertEqual(queued, 1, "an explicit -FLAGS follows")
        let queued2 = try await service.mailbox.perform(.move(to: "INBOX"), emailIds: [m["m2"]!]).queued
        XCTAssertEqual(queued2, 1, "a move back follows")
        try await assertAgree(service, engine, "m0", emailId: m["m0"]!, folders: ["INBOX"], read: false, starred: false)
        try await assertAgree(service, engine, "m2", emailId: m["m2"]!, folders: ["INBOX"], read: false, starred: false)
    }

    func testAMoveThatReachedTheServerBeforeTheProcessDiedIsFollowedByTheMoveBack() async throws {
        var crash = options()
        crash.outboxFault = { _, point in if point == .beforeRecord { throw CancellationError() } }
        let (first, engine, m) = try await syncedMailbox(options: crash)
        _ = try await first.mailbox.perform(.archive, emailIds: [m["m2"]!])
        do {
            _ = try await engine.replayOutbox()
            XCTFail("the replay was to die after the MOVE")
        } catch {}
        XCTAssertEqual(Set(try serverMessages("Archive").keys), ["m2"], "the move reached the server")
        _ = try await first.mailbox.perform(.move(to: "INBOX"), emailIds: [m["m2"]!])
        first.shutdown()
        services.removeAll()
        let service = try makeService()
        try await assertAgree(service, try self.engine(service), "m2", emailId: m["m2"]!, folders: ["INBOX"], read: false, starred: false)
    }

    func testAMessageAnotherClientMovedAwayFirstEndsWhereTheServerHasIt() async throws {
        let (service, engine, m) = try await syncedMailbox()
        _ = try server.doveadm(["move", "-u", "alice", "Projects", "mailbox", "INBOX", "uid", "\(try self.uid(service, m["m4"]!))"])
        _ = try await service.mailbox.perform(.archive, emailIds: [m["m4"]!])
        let replay = try await engine.replayOutbox()
        XCTAssertEqual(replay.applied, 1)
        _ = try await engine.sync()
        let again = try XCTUnwrap(service.store.emailIds(accountId: engine.account.id, messageIds: ["m4@example.com"])["m4@example.com"])
        try await assertAgree(service, engine, "m4", emailId: again, folders: ["Projects"], read: false, starred: false)
    }

    func testAFolderWhoseUIDValidityChangedStillGetsTheUsersAction() async throws {
        let (service, engine, m) = try await syncedMailbox()
        _ = try await service.mailbox.perform(.star, emailIds: [m["m2"]!])
        _ = try await service.mailbox.perform(.archive, emailIds: [m["m3"]!])
        try server.setUIDValidity(mailbox: "INBOX", value: 4242)
        let replay = try await engine.replayOutbox()
        XCTAssertEqual([replay.applied, replay.dropped], [2, 0])
        try await assertAgree(service, engine, "m2", emailId: m["m2"]!, folders: ["INBOX"], read: false, starred: true)
        try await assertAgree(service, engine, "m3", emailId: m["m3"]!, folders: ["Archive"], read: false, starred: false)
    }

    func testANewProcessReplaysAQueueExactlyOnce() async throws {
        var (service, engine, m0) = try await syncedMailbox()
        let m = m0
        _ = try await service.mailbox.perform(.archive, emailIds: [m["m0"]!])
        _ = try await service.mailbox.perform(.delete, emailIds: [m["m1"]!])
        _ = try await service.mailbox.perform(.markRead, emailIds: [m["m2"]!])
        // The first process moved m0 on the server and died before it recorded that (the move
        // done behind its back, as a crash between the command and the commit would leave it).
        let uid = try self.uid(service, m["m0"]!)
        _ = try server.doveadm(["move", "-u", "alice", "Archive", "mailbox", "INBOX", "uid", "\(uid)"])
        service.shutdown()
        services.removeAll()

        service = try makeService()
        engine = try self.engine(service)
        let pending = try await outbox(service)?.pending
        XCTAssertEqual(pending, 3, "the queue survived the process")
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
        _ = try await service.mailbox.perform(.markRead, threadId: XCTUnwrap(service.store.email(id: m["m0"]!)?.email.threadId))
        _ = try await service.mailbox.perform(.archive, emailIds: [m["m3"]!])
        _ = try await service.mailbox.perform(.delete, emailIds: [m["m4"]!])
        do {
            _ = try await engine.replayOutbox()
            XCTFail("the server is down")
        } catch {}
        let queuedNow = try await outbox(service)
        let queued = try XCTUnwrap(queuedNow).pending
        XCTAssertGreaterThanOrEqual(queued, 3)
        let pending = try await service.status().outbox.first?.pending
        XCTAssertEqual(pending, queued)

        // The runner (part of watch(), as in `serve` and `sync --watch`) keeps trying.
        let watching = Task { await engine.watch() }
        try await Task.sleep(for: .seconds(1))
        let pending2 = try await outbox(service)?.pending
        XCTAssertEqual(pending2, queued)
        try server.restart()
        let deadline = Date().addingTimeInterval(30)
        while try await outbox(service)?.pending ?? 0 > 0, Date() < deadline { try await Task.sleep(for: .milliseconds(200)) }
        watching.cancel()
        await watching.value
        let pending3 = try await outbox(service)?.pending
        XCTAssertEqual(pending3, 0)
        let done = try await outbox(service)?.done
        XCTAssertEqual(done, queued)
        XCTAssertEqual(try serverMessages("INBOX")["m0"], ["\\Seen"])
        XCTAssertEqual(Set(try serverMessages("Archive").keys), ["m3"])
        XCTAssertEqual(Set(try serverMessages("Trash").keys), ["m4"])
    }

    /// A synced mailbox whose runner watches with a poll so slow (600 s) that only a wake-up can
    /// explain a write within seconds; returns once the first pass is over and the runner waits.
    func watchingWithASlowPoll() async throws -> (MailSearchService, [String: Int64], Task<Void, Never>) {
        var slow = options()
        slow.outboxPollInterval = .seconds(600)
        let (service, engine, m) = try await syncedMailbox(options: slow)
        let watching = Task { await engine.watch() }
        let deadline = Date().addingTimeInterval(30)
        while engine.board.snapshot.first?.state != .listening, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        try await Task.sleep(for: .milliseconds(300))
        return (service, m, watching)
    }

    func testAnActionOfAnotherProcessWakesTheRunnerToo() async throws {
        let (service, m, watching) = try await watchingWithASlowPoll()
        defer { watching.cancel() }
        // `mailsearch mark` beside `serve`: another service on the same data directory.
        let other = try makeService()
        let started = Date()
        let starred = try await other.mailbox.perform(.star, emailIds: [m["m4"]!])
        XCTAssertEqual(starred.queued, 1)
        let deadline = started.addingTimeInterval(10)
        while try await outbox(service)?.pending ?? 1 > 0, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let pending = try await outbox(service)?.pending
        XCTAssertEqual(pending, 0, "still waits after \(Date().timeIntervalSince(started)) s")
        watching.cancel()
        await watching.value
        XCTAssertEqual(try serverMessages("INBOX")["m4"], ["\\Flagged"])
    }

    func testTheRunnerWritesAnActionAtOnceNotAtItsNextPoll() async throws {
        let (service, m, watching) = try await watchingWithASlowPoll()
        defer { watching.cancel() }
        for (n, action) in [(2, MailboxAction.star), (3, .archive)] {
            let started = Date()
            let queued = try await service.mailbox.perform(action, emailIds: [m["m\(n)"]!]).queued
            XCTAssertEqual(queued, 1)
            let deadline = started.addingTimeInterval(10)
            while try await outbox(service)?.pending ?? 1 > 0, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
            let pending = try await outbox(service)?.pending
            XCTAssertEqual(pending, 0, "\(action.name) still waits after \(Date().timeIntervalSince(started)) s")
            XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        }
        watching.cancel()
        await watching.value
        XCTAssertEqual(try serverMessages("INBOX")["m2"], ["\\Flagged"])
        XCTAssertEqual(Set(try serverMessages("Archive").keys), ["m3"])
    }
}
