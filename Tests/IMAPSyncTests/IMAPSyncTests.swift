import Foundation
import GRDB
@testable import IMAPSync
import IMAPClient
import MailModel
@testable import MailSearchKit
import MailStore
import SearchEngine
import XCTest

/// The sync engine against a real Dovecot (Tests/IMAP/dovecot.py): initial and incremental sync,
/// flags, expunges, UIDVALIDITY changes, a server killed mid-fetch, a refused password, IDLE, an
/// account removed, and each of QRESYNC, CONDSTORE and neither.
final class IMAPSyncTests: DovecotTestCase {
    override class var workPrefix: String { "imapsync" }

    // MARK: Fixtures

    static func message(_ n: Int, tag: String = "m", subject: String? = nil, body: String? = nil,
                        inReplyTo: Int? = nil, day: Int = 10) -> [UInt8] {
        var text = "From: Sender \(n % 3) <sender\(n % 3)@example.com>\r\nTo: alice@example.com\r\n"
        text += "Subject: \(subject ?? "Report \(tag) \(n)")\r\n"
        text += "Date: \(String(format: "%02d", day)) Nov 2026 09:\(String(format: "%02d", n % 60)):00 +0000\r\n"
        text += "Message-ID: <\(tag)\(n)@example.com>\r\n"
        if let inReplyTo { text += "In-Reply-To: <\(tag)\(inReplyTo)@example.com>\r\n" }
        text += "\r\n\(body ?? "Body of \(tag) message \(n): the word \(tag)marker\(n) is unique.")\r\n"
        return Array(text.utf8)
    }

    func makeService(_ name: String = "data", model: Bool = false) throws -> MailSearchService {
        let modelDirectory = model ? try ServiceModel.directory() : work.appendingPathComponent("no-model")
        let service = try MailSearchService(configuration: .init(
            dataDirectory: DataDirectory(url: work.appendingPathComponent(name)), modelDirectory: modelDirectory,
            embeddingThreads: 2, embeddingBatchSize: 16, backgroundEmbedding: false,
            now: { Date(timeIntervalSince1970: 1_795_000_000) }))  // 2026-11-18
        services.append(service)
        return service
    }

    func settings(user: String = "alice", password: String = "alice-password", security: String = "tls",
                  window: Int? = nil) -> IMAPAccountSettings {
        IMAPAccountSettings(host: server.host, port: security == "tls" ? server.tlsPort : server.port, security: security,
                            username: user, passwordCommand: "printf '%s\\n' '\(password)'", caFile: server.caFile,
                            syncWindowDays: window)
    }

    func options(qresync: Bool = true, condStore: Bool = true) -> SyncOptions {
        var options = SyncOptions()
        options.useQResync = qresync
        options.useCondStore = condStore
        options.retryDelays = [.milliseconds(200), .milliseconds(400), .milliseconds(800)]
        options.batchSize = 20
        options.now = { Date(timeIntervalSince1970: 1_795_000_000) }
        return options
    }

    func engine(_ service: MailSearchService, name: String = "work", settings: IMAPAccountSettings? = nil,
                options: SyncOptions? = nil) throws -> IMAPSyncEngine {
        let settings = settings ?? self.settings()
        let account = try service.store.findAccount(named: name)
            ?? service.store.addIMAPAccount(named: name, email: "alice@example.com", settings: settings)
        // As `IMAPSyncEngine.engines` does for serve and sync: the status shows the engine's board.
        let engine = IMAPSyncEngine(service: service, account: account, settings: settings, options: options ?? self.options())
        service.register(syncStatus: engine.board)
        return engine
    }

    func search(_ service: MailSearchService, _ text: String) async throws -> SearchPage {
        var request = SearchRequest(text: text)
        request.mode = .keyword
        request.recordHistory = false
        return try await service.search.search(request)
    }

    func count(_ service: MailSearchService, _ sql: String) throws -> Int {
        try service.store.database.read { try Int.fetchOne($0, sql: sql) ?? 0 }
    }

    func strings(_ service: MailSearchService, _ sql: String) throws -> [String] {
        try service.store.database.read { try String.fetchAll($0, sql: sql) }
    }

    func ids(_ service: MailSearchService, _ sql: String) throws -> [Int64] {
        try service.store.database.read { try Int64.fetchAll($0, sql: sql) }
    }

    func messageIds(_ service: MailSearchService, _ page: SearchPage) throws -> [String] {
        try page.results.map { try XCTUnwrap(service.store.email(id: $0.emailId)).email.messageId }
    }

    func ftsRows(_ service: MailSearchService) throws -> Int {
        try service.index.status(embeddedEmails: 0).indexedEmails
    }

    // MARK: Initial and incremental sync

    func testInitialSyncStoresEveryFolderWithFlagsTypesAndThreads() async throws {
        for n in 0..<30 { try server.append(mailbox: "INBOX", message: Self.message(n, inReplyTo: n % 5 == 0 ? nil : n - 1)) }
        try server.append(mailbox: "Sent", message: Self.message(100, tag: "s"), flags: ["\\Seen"])
        try server.append(mailbox: "Archive", message: Self.message(101, tag: "a"), flags: ["\\Seen", "\\Flagged"])
        // One message in two folders is one email with two folder links (this copy's bytes differ:
        // a header the archiving program added).
        try server.append(mailbox: "Archive", message: Array("X-Archived-By: a filter\r\n".utf8) + Self.message(3))
        let service = try makeService()
        let summary = try await engine(service).sync()

        XCTAssertEqual(summary.newEmails, 32)
        XCTAssertEqual(summary.linked, 1)
        XCTAssertEqual(try count(service, "SELECT COUNT(*) FROM emails"), 32)
        XCTAssertEqual(try ftsRows(service), 32)
        XCTAssertEqual(try count(service, "SELECT COUNT(*) FROM imap_messages"), 33)
        let folders = Dictionary(uniqueKeysWithValues: try service.store.folders().map { ($0.path, $0) })
        XCTAssertEqual(folders["INBOX"]?.folderType, .inbox)
        XCTAssertEqual(folders["Sent"]?.folderType, .sent)
        XCTAssertEqual(folders["Junk"]?.folderType, .spam)
        XCTAssertEqual(folders["INBOX"]?.totalCount, 30)
        XCTAssertEqual(folders["Archive"]?.totalCount, 2)
        XCTAssertEqual(try count(service, "SELECT COUNT(*) FROM emails WHERE messageId = 'a101@example.com' AND isRead AND isStarred"), 1)
        XCTAssertEqual(try count(service, "SELECT COUNT(*) FROM emails WHERE isRead = 0"), 30)
        XCTAssertEqual(try count(service, "SELECT COUNT(*) FROM threads"), 6 + 2)

        let page = try await search(service, "mmarker7")
        XCTAssertEqual(try messageIds(service, page), ["m7@example.com"])
        // The raw message is kept locally, byte for byte.
        let id = try XCTUnwrap(page.results.first?.emailId)
        let rawMessage = try await service.reader.rawMessage(emailId: id)
        XCTAssertEqual([UInt8](rawMessage), Self.message(7, inReplyTo: 6))
        // One local copy per email: the second copy of m3 is nobody's source and is not kept.
        let copies = FileManager.default.enumerator(atPath: service.core.messageArchive.root.path)?
            .compactMap { $0 as? String }.filter { $0.hasSuffix(".eml") } ?? []
        XCTAssertEqual(copies.count, 32)
        let status = try await service.status().sync.first
        XCTAssertEqual(status?.account, "work")
        XCTAssertEqual(status?.state, .idle)
        XCTAssertNotNil(status?.lastSync)
    }

    /// New mail from a sync is embedded in the background only where the service embeds in the
    /// background: `serve --no-background-embedding` leaves it to `index embed`.
    func testASyncEmbedsNewMailOnlyWithBackgroundEmbedding() async throws {
        for n in 0..<6 { try server.append(message: Self.message(n)) }
        let off = try makeService("off", model: true)
        let summary = try await engine(off).sync()
        XCTAssertEqual(summary.newEmails, 6)
        try await Task.sleep(for: .seconds(2))
        let offStatus = try await off.status()
        XCTAssertEqual(offStatus.embeddedEmails, 0, "a sync embedded mail with background embedding off")

        let on = try MailSearchService(configuration: .init(
            dataDirectory: DataDirectory(url: work.appendingPathComponent("on")), modelDirectory: try ServiceModel.directory(),
            embeddingThreads: 2, embeddingBatchSize: 16, backgroundEmbedding: true,
            now: { Date(timeIntervalSince1970: 1_795_000_000) }))
        services.append(on)
        _ = try await engine(on).sync()
        let deadline = ContinuousClock.now + .seconds(60)
        var embedded = 0
        while ContinuousClock.now < deadline {
            embedded = try await on.status().embeddedEmails
            if embedded == 6 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        XCTAssertEqual(embedded, 6, "a sync did not wake the background embedding")
    }

    func testSyncWindowFetchesOnlyTheWindowsMail() async throws {
        // Internal dates: 5 messages from 2026-11 (inside 30 days of 2026-11-18), 5 from 2026-01.
        for n in 0..<5 { try server.append(message: Self.message(n), date: Date(timeIntervalSince1970: 1_794_000_000 + Double(n) * 60)) }
        for n in 5..<10 { try server.append(message: Self.message(n), date: Date(timeIntervalSince1970: 1_768_000_000)) }
        let service = try makeService()
        let engine = try engine(service, settings: settings(window: 30))
        let summary = try await engine.sync()
        XCTAssertEqual(summary.newEmails, 5)
        XCTAssertEqual(try count(service, "SELECT COUNT(*) FROM emails WHERE messageId IN ('m5@example.com','m9@example.com')"), 0)
    }

    /// A folder where nothing moved on the server is still read again when the window widens (its
    /// UIDNEXT and HIGHESTMODSEQ say nothing of the mail the old window left out); a narrower window
    /// deletes nothing and reads nothing again.
    func testWideningTheSyncWindowFetchesTheMailItNowTakesIn() async throws {
        let now = 1_795_000_000.0  // the engines' clock (options())
        for (n, days) in [3, 3, 45, 45, 400].enumerated() {
            _ = try server.append(message: Self.message(n), date: Date(timeIntervalSince1970: now - Double(days) * 86_400))
        }
        let service = try makeService()
        var settings = settings(window: 30)
        let account = try service.store.addIMAPAccount(named: "work", email: "alice@example.com", settings: settings)
        func sync(window: Int?) async throws -> SyncSummary {
            settings.syncWindowDays = window
            try await service.mailbox.updateIMAPAccount(id: account.id, email: "alice@example.com", displayName: nil, settings: settings)
            return try await engine(service, settings: settings).sync()
        }
        let first = try await sync(window: 30)
        XCTAssertEqual(first.newEmails, 2)
        let again = try await sync(window: 30)
        XCTAssertEqual(again.unchangedFolders, again.folders, "the same window: nothing is read again")

        let wider = try await sync(window: 90)
        XCTAssertEqual(wider.newEmails, 2, "the 45-day messages")
        XCTAssertEqual(wider.unchangedFolders, 0)
        let all = try await sync(window: nil)
        XCTAssertEqual(all.newEmails, 1, "the 400-day message")
        XCTAssertEqual(try count(service, "SELECT COUNT(*) FROM emails"), 5)

        let narrower = try await sync(window: 30)
        XCTAssertEqual(narrower.newEmails, 0)
        XCTAssertEqual(narrower.deletedEmails, 0)
        XCTAssertEqual(narrower.unchangedFolders, narrower.folders, "a narrower window reads nothing again")
        XCTAssertEqual(try count(service, "SELECT COUNT(*) FROM emails"), 5, "what was fetched stays")
    }

    func testAppendThenIncrementalSyncFetchesOnlyTheNewMessage() async throws {
        for n in 0..<10 { try server.append(message: Self.message(n)) }
        let service = try makeService()
        let engine = try engine(service)
        _ = try await engine.sync()
        try server.append(message: Self.message(10, body: "A late arrival about the zeppelin schedule."))
        let summary = try await engine.sync()
        XCTAssertEqual(summary.fetched, 1)
        XCTAssertEqual(summary.newEmails, 1)
        // Every other folder answered one SELECT with an unchanged HIGHESTMODSEQ and UIDNEXT.
        XCTAssertEqual(summary.unchangedFolders, summary.folders - 1)
        let page = try await search(service, "zeppelin")
        XCTAssertEqual(try messageIds(service, page), ["m10@example.com"])
        // A third pass with nothing new fetches nothing and skips every folder.
        let idle = try await engine.sync()
        XCTAssertEqual(idle.fetched, 0)
        XCTAssertEqual(idle.unchangedFolders, idle.folders)
    }

    // MARK: Flags, expunges, UIDVALIDITY — on each of QRESYNC, CONDSTORE and neither

    func testChangesAreFoundWithQResync() async throws {
        let summary = try await changesScenario(qresync: true, condStore: true)
        XCTAssertGreaterThan(summary.foldersByQResync, 0)
        XCTAssertEqual(summary.foldersByCondStore + summary.foldersByFullComparison, 0)
    }

    func testChangesAreFoundWithCondStoreAlone() async throws {
        let summary = try await changesScenario(qresync: false, condStore: true)
        XCTAssertGreaterThan(summary.foldersByCondStore, 0)
        XCTAssertEqual(summary.foldersByQResync + summary.foldersByFullComparison, 0)
    }

    func testChangesAreFoundWithoutExtensions() async throws {
        let summary = try await changesScenario(qresync: false, condStore: false)
        XCTAssertGreaterThan(summary.foldersByFullComparison, 0)
        XCTAssertEqual(summary.foldersByQResync + summary.foldersByCondStore, 0)
    }

    /// Ten messages in INBOX (one also in Archive); then on the server: two read, one starred,
    /// one unread again, two expunged (one of them still in Archive), one new. After a sync the
    /// store agrees with the server in every respect, and searches see it.
    private func changesScenario(qresync: Bool, condStore: Bool) async throws -> SyncSummary {
        var uids: [UInt32] = []
        for n in 0..<10 { uids.append(try server.append(message: Self.message(n), flags: n == 9 ? ["\\Seen"] : [])) }
        try server.append(mailbox: "Archive", message: Self.message(4))
        let service = try makeService()
        let engine = try engine(service, options: options(qresync: qresync, condStore: condStore))
        _ = try await engine.sync()
        let before = try await search(service, "mmarker2")
        XCTAssertEqual(before.results.count, 1)

        try server.addFlags(uids: [uids[0], uids[1]], flags: ["\\Seen"])
        try server.addFlags(uids: [uids[2]], flags: ["\\Flagged"])
        try server.removeFlags(uids: [uids[9]], flags: ["\\Seen"])
        try server.expunge(uids: [uids[3], uids[4]])
        try server.append(message: Self.message(10))
        let summary = try await engine.sync()

        XCTAssertEqual(summary.flagChanges, 4)
        XCTAssertEqual(summary.removedFromFolders, 2)
        XCTAssertEqual(summary.deletedEmails, 1, "m4 is still in Archive")
        XCTAssertEqual(summary.newEmails, 1)
        let read = try strings(service, "SELECT messageId FROM emails WHERE isRead ORDER BY messageId")
        XCTAssertEqual(read, ["m0@example.com", "m1@example.com"])
        XCTAssertEqual(try count(service, "SELECT COUNT(*) FROM emails WHERE isStarred AND messageId = 'm2@example.com'"), 1)
        XCTAssertEqual(try count(service, "SELECT COUNT(*) FROM emails WHERE messageId = 'm3@example.com'"), 0)
        XCTAssertEqual(try count(service, "SELECT COUNT(*) FROM emails"), 10)
        XCTAssertEqual(try ftsRows(service), 10)
        let gone = try await search(service, "mmarker3")
        XCTAssertEqual(gone.results.count, 0, "an expunged message is gone from search")
        let kept = try await search(service, "mmarker4")
        XCTAssertEqual(kept.results.count, 1)
        let inbox = try XCTUnwrap(service.store.folders().first { $0.path == "INBOX" })
        XCTAssertEqual(inbox.totalCount, 9)
        XCTAssertEqual(inbox.unreadCount, 7)
        let unread = try await search(service, "is:unread mmarker9")
        XCTAssertEqual(unread.results.count, 1, "unread again on the server, unread here")
        // The thread counts follow the flags.
        XCTAssertEqual(try count(service, "SELECT SUM(unreadCount) FROM threads"), 8)
        // Nothing is left over: every email has a folder, every mapping an email.
        XCTAssertEqual(try count(service, "SELECT COUNT(*) FROM emails e WHERE NOT EXISTS (SELECT 1 FROM email_folders f WHERE f.emailId = e.id)"), 0)
        return summary
    }

    func testUIDValidityChangeResyncsTheFolderWithoutDuplicates() async throws {
        for n in 0..<12 { try server.append(message: Self.message(n)) }
        try server.append(mailbox: "Archive", message: Self.message(5))
        let service = try makeService()
        let engine = try engine(service)
        _ = try await engine.sync()
        let idsBefore = try ids(service, "SELECT id FROM emails ORDER BY id")

        try server.setUIDValidity(mailbox: "INBOX", value: 777)
        try server.expunge(uids: [1])  // m0 goes while the UIDs are renumbered
        let summary = try await engine.sync()

        XCTAssertEqual(summary.revalidatedFolders, 1)
        XCTAssertEqual(summary.fetched, 0, "every message still there is matched by Message-ID, not fetched again")
        XCTAssertEqual(summary.deletedEmails, 1)
        XCTAssertEqual(try count(service, "SELECT COUNT(*) FROM emails"), 11)
        let idsAfter = try ids(service, "SELECT id FROM emails ORDER BY id")
        XCTAssertEqual(idsAfter, Array(idsBefore.dropFirst()), "the same emails, not new copies")
        let state = try XCTUnwrap(service.store.imapFolderStates(accountId: engine.account.id).first { $0.path == "INBOX" })
        XCTAssertEqual(state.uidValidity, 777)
        XCTAssertEqual(try count(service, "SELECT COUNT(*) FROM imap_messages m JOIN folders f ON f.id = m.folderId WHERE f.path = 'INBOX'"), 11)
        XCTAssertEqual(try ftsRows(service), 11)
    }

    // MARK: Failures

    func testServerKilledMidFetchResumesWithNoDuplicatesOrGaps() async throws {
        for n in 0..<200 { try server.append(message: Self.message(n)) }
        let service = try makeService()
        var options = options()
        options.batchSize = 10
        options.retryDelays = [.milliseconds(300), .milliseconds(600), .seconds(2)]
        let engine = try engine(service, options: options)
        let killer = KillOnce(server: server)
        engine.board.observe { status in
            if status.state == .syncingBodies, status.messagesDone >= 60 { killer.killAndRestartLater() }
        }
        // The pass loses its connection mid-FETCH, reconnects after the backoff and finishes.
        let summary = try await engine.sync()
        XCTAssertTrue(killer.killed)
        XCTAssertLessThan(summary.newEmails, 200, "the pass resumed: it did not fetch everything again")
        XCTAssertEqual(try count(service, "SELECT COUNT(*) FROM emails"), 200)
        XCTAssertEqual(try count(service, "SELECT COUNT(DISTINCT messageId) FROM emails"), 200)
        XCTAssertEqual(try count(service, "SELECT COUNT(*) FROM imap_messages"), 200)
        XCTAssertEqual(try ftsRows(service), 200)
        let again = try await engine.sync()
        XCTAssertEqual(again.fetched, 0)
    }

    func testServerDownAfterEveryRetryIsAClearErrorInTheStatus() async throws {
        try server.append(message: Self.message(1))
        let service = try makeService()
        let engine = try engine(service)
        try server.kill()
        do {
            _ = try await engine.sync()
            XCTFail("a sync against a dead server must fail")
        } catch let error as SyncError {
            XCTAssertEqual(error.kind, .connection)
            XCTAssertTrue(error.message.contains("\(server.host):\(server.tlsPort)"), error.message)
        }
        let firstSync = try await service.status().sync.first
        let status = try XCTUnwrap(firstSync)
        XCTAssertEqual(status.state, .error)
        XCTAssertNotNil(status.lastError)
        try server.restart()
        _ = try await engine.sync()
        let state = try await service.status().sync.first?.state
        XCTAssertEqual(state, .idle)
        let lastError = try await service.status().sync.first?.lastError
        XCTAssertNil(lastError)
    }

    func testAFolderTheServerWillNotOpenIsSkippedAndTheOthersSync() async throws {
        try server.append(message: Self.message(1))
        try server.createMailbox(mailbox: "Broken")
        try server.append(mailbox: "Broken", message: Self.message(2))
        let maildir = try XCTUnwrap(server.info["dir"] as? String) + "/home/alice/Maildir/.Broken"
        XCTAssertEqual(chmod(maildir, 0), 0, "cannot make \(maildir) unreadable")
        defer { chmod(maildir, 0o700) }
        let service = try makeService()
        let summary = try await engine(service).sync()
        XCTAssertEqual(summary.skippedFolders.map(\.folder), ["Broken"], "\(summary.skippedFolders)")
        XCTAssertEqual(summary.newEmails, 1)
        let state = try await service.status().sync.first?.state
        XCTAssertEqual(state, .idle)
    }

    func testWrongPasswordIsAClearErrorWithoutRetries() async throws {
        let service = try makeService()
        let engine = try engine(service, settings: settings(password: "not-the-password"))
        let started = ContinuousClock.now
        do {
            _ = try await engine.sync()
            XCTFail("a wrong password must fail")
        } catch let error as SyncError {
            XCTAssertEqual(error.kind, .authentication)
            XCTAssertTrue(error.message.contains("refused the login of alice"), error.message)
            XCTAssertFalse(error.description.contains("not-the-password"))
        }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5), "no retries after a refused password")
        let state = try await service.status().sync.first?.state
        XCTAssertEqual(state, .error)
    }

    func testPasswordCommandFailureIsAClearError() async throws {
        let service = try makeService()
        var settings = settings()
        settings.passwordCommand = "echo secret-output; exit 3"
        let engine = try engine(service, settings: settings)
        do {
            _ = try await engine.sync()
            XCTFail("a failing password command must fail the sync")
        } catch let error as SyncError {
            XCTAssertEqual(error.kind, .credentials)
            XCTAssertTrue(error.message.contains("exit status 3"), error.message)
            XCTAssertFalse(error.description.contains("secret-output"))
        }
    }

    func testSTARTTLSWithTheCAFileSyncs() async throws {
        try server.append(message: Self.message(1))
        let service = try makeService()
        let summary = try await engine(service, settings: settings(security: "startTLS")).sync()
        XCTAssertEqual(summary.newEmails, 1)
    }

    func testUntrustedCertificateIsRefused() async throws {
        let service = try makeService()
        var settings = settings()
        settings.caFile = nil
        do {
            _ = try await engine(service, settings: settings).sync()
            XCTFail("a certificate of an unknown CA must be refused")
        } catch let error as SyncError {
            XCTAssertEqual(error.kind, .certificate)
            XCTAssertTrue(error.description.contains("--ca-file"), error.description)
        }
    }

    // MARK: IDLE

    func testIDLEMakesDeliveredMailSearchableWithinTwoSeconds() async throws {
        try server.append(message: Self.message(1))
        let service = try makeService()
        let engine = try engine(service)
        let listening = Flag()
        engine.board.observe { if $0.state == .listening { listening.set() } }
        let watcher = Task { await engine.watch() }
        defer { watcher.cancel() }
        try await waitUntil(seconds: 20) { listening.isSet }

        let delivered = ContinuousClock.now
        try server.deliver(message: Self.message(2, body: "Delivered while idling: the quokka report."))
        var found = false
        while ContinuousClock.now - delivered < .seconds(5) {
            if try await search(service, "quokka").results.count == 1 { found = true; break }
            try await Task.sleep(for: .milliseconds(20))
        }
        let elapsed = ContinuousClock.now - delivered
        XCTAssertTrue(found, "the delivered message never became searchable")
        XCTAssertLessThan(elapsed, .seconds(2), "searchable \(elapsed) after delivery")
        watcher.cancel()
        await watcher.value
        let state = try await service.status().sync.first?.state
        XCTAssertEqual(state, .idle)
    }

    /// Mail delivered after the pass read INBOX but before IDLE began is in the EXAMINE's
    /// counts, not in anything IDLE reports: it must not wait for the next full pass (5 minutes).
    func testMailDeliveredBetweenThePassAndIDLEIsNotLeftForTheNextPass() async throws {
        try server.append(message: Self.message(1))
        let service = try makeService()
        var options = options()
        let delivered = Flag()
        let server = self.server!
        options.beforeListening = {
            guard !delivered.isSet else { return }
            delivered.set()
            try server.deliver(message: Self.message(2, body: "Delivered before the IDLE: the wombat ledger."))
        }
        let engine = try engine(service, options: options)
        let watcher = Task { await engine.watch() }
        defer { watcher.cancel() }
        try await waitUntil(seconds: 20) { delivered.isSet }
        var found = false
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .seconds(10) {
            if try await search(service, "wombat").results.count == 1 { found = true; break }
            try await Task.sleep(for: .milliseconds(20))
        }
        XCTAssertTrue(found, "mail delivered between the pass and IDLE waited for the next full pass")
        watcher.cancel()
        await watcher.value
    }

    // MARK: Account removal (AC-S-09)

    func testRemovingTheAccountLeavesNothingOfIt() async throws {
        for n in 0..<8 { try server.append(message: Self.message(n)) }
        let service = try makeService(model: true)
        let engine = try engine(service)
        _ = try await engine.sync()
        try await service.embedPending()
        // A search loads the vectors into memory.
        var request = SearchRequest(text: "report of a message")
        request.recordHistory = false
        _ = try await service.search.search(request)
        XCTAssertEqual(try service.store.embeddingCount(model: nil), 8)
        let archive = service.core.messageArchive.root.appendingPathComponent(String(engine.account.id))
        XCTAssertTrue(FileManager.default.fileExists(atPath: archive.path))

        let deleteAccount = try await service.mailbox.deleteAccount(named: "work")
        XCTAssertEqual(deleteAccount, 8)
        for table in ["emails", "folders", "threads", "contacts", "imap_accounts", "imap_folders", "imap_messages",
                      "embeddings", "email_folders", "attachments", "message_ids", "email_categories"] {
            XCTAssertEqual(try count(service, "SELECT COUNT(*) FROM \(table)"), 0, table)
        }
        XCTAssertEqual(try ftsRows(service), 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: archive.path), "the message copies are gone")
        XCTAssertEqual(service.core.vectors.count, 0, "no vector of the account is left in memory")
        let page = try await search(service, "mmarker1")
        XCTAssertEqual(page.results.count, 0)
        let syncIsEmpty = try await service.status().sync.isEmpty
        XCTAssertTrue(syncIsEmpty)
    }

    // MARK: Same mail, same store

    /// A Maildir served by Dovecot and synced gives the same export as the same Maildir imported.
    func testSyncedMaildirExportsLikeTheImportedMaildir() async throws {
        let corpus = DovecotServer.repositoryRoot.appendingPathComponent("corpora/usrp-users.mbox").path
        guard FileManager.default.fileExists(atPath: corpus) else {
            return XCTFail("the usrp-users corpus is missing at \(corpus); run `make corpora`")
        }
        // 300 real list messages: multipart, HTML, attachments, RFC 2047, References threads.
        let messages = try MailFixtures.mboxMessages(corpus, limit: 300)
        let files = try messages.enumerated().map { i, bytes -> String in
            let path = work.appendingPathComponent("msg-\(i).eml").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }
        try server.writeMessages(mailbox: "INBOX", paths: Array(files[0..<240]))
        try server.writeMessages(mailbox: "Archive", paths: Array(files[200..<300]))
        for (i, bytes) in messages.enumerated().prefix(20) { try server.append(mailbox: "Sent", message: bytes, flags: i % 2 == 0 ? ["\\Seen"] : ["\\Flagged"]) }
        try server.addFlags(uids: [1, 2, 3], flags: ["\\Seen"])

        let synced = try makeService("synced")
        _ = try await engine(synced, settings: settings()).sync()
        let imported = try makeService("imported")
        let maildir = try XCTUnwrap(server.info["dir"] as? String) + "/home/alice/Maildir"
        _ = try await imported.mailbox.importMail(path: maildir, account: "work")

        let a = try MailFixtures.export(synced.store)
        let b = try MailFixtures.export(imported.store)
        XCTAssertEqual(a.emails.count, 300)
        XCTAssertEqual(b.emails.count, 300)
        for key in Set(a.emails.keys).union(b.emails.keys) where a.emails[key] != b.emails[key] {
            XCTFail("synced:   \(a.emails[key] ?? "missing")\nimported: \(b.emails[key] ?? "missing")")
        }
        XCTAssertEqual(a.threads.count, b.threads.count)
        for thread in a.threads.subtracting(b.threads) {
            XCTFail("a conversation of the sync only: \(thread.map { a.emails[$0] ?? $0 }.sorted())")
        }
        for thread in b.threads.subtracting(a.threads) {
            XCTFail("a conversation of the import only: \(thread.map { b.emails[$0] ?? $0 }.sorted())")
        }
    }

    // MARK: Helpers

    func waitUntil(seconds: Double, _ condition: @escaping () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !condition() {
            guard ContinuousClock.now < deadline else { return XCTFail("timed out after \(seconds) s") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// Kills the server once (from the status observer, mid-fetch) and restarts it a moment later,
/// while the engine waits to retry.
final class KillOnce: @unchecked Sendable {
    private let lock = NSLock()
    private let server: DovecotServer
    private(set) var killed = false

    init(server: DovecotServer) { self.server = server }

    func killAndRestartLater() {
        let first = lock.withLock { () -> Bool in
            if killed { return false }
            killed = true
            return true
        }
        guard first else { return }
        let server = self.server
        do { try server.kill() } catch { XCTFail("kill: \(error)") }
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) {
            do { try server.restart() } catch { XCTFail("restart: \(error)") }
        }
    }
}

final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

