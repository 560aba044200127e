import Foundation
import GRDB
@testable import IMAPSync
import MailModel
@testable import MailSearchKit
import MailStore
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The sync engine against Gmail's IMAP (X-GM-EXT-1), which Dovecot cannot play: a scripted
/// server on 127.0.0.1 (plaintext) that answers as Gmail does (Tests/Fixtures/imap/gmail-sync.txt).
/// Only All Mail, Spam and Trash are read; labels become folder links; X-GM-MSGID says which
/// copies are one email; X-GM-THRID is kept.
final class GmailSyncTests: XCTestCase {
    var work: URL!
    var server: FakeGmailServer!
    var service: MailSearchService!

    static let threadA: UInt64 = 1_790_120_977_524_163_870
    static let threadC: UInt64 = 1_790_275_101_116_350_101

    override func setUpWithError() throws {
        signal(SIGPIPE, SIG_IGN)
        work = FileManager.default.temporaryDirectory.appendingPathComponent("gmailsync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        service?.shutdown()
        service = nil
        server?.stop()
        server = nil
        try? FileManager.default.removeItem(at: work)
    }

    // MARK: Mail

    static func message(_ key: String, subject: String, inReplyTo: String? = nil, day: Int) -> [UInt8] {
        var text = "Date: \(day) Feb 2024 10:00:00 +0000\r\nMessage-ID: <gm-\(key)@mail.gmail.com>\r\n"
        text += "Subject: \(subject)\r\nFrom: Carol <carol@example.com>\r\nTo: Alice <alice@gmail.com>\r\n"
        if let inReplyTo { text += "In-Reply-To: <gm-\(inReplyTo)@mail.gmail.com>\r\n" }
        text += "Content-Type: text/plain; charset=\"UTF-8\"\r\n\r\nThe word gmailword\(key)x is unique to this one.\r\n"
        return Array(text.utf8)
    }

    /// A: sent by Alice, in the inbox and labelled Projects; B: a reply in A's thread (inbox);
    /// C: labelled Projects only; D: in All Mail and Trash (the same X-GM-MSGID); E: spam;
    /// F: in Trash only, still labelled Projects.
    static func mailboxes() -> [FakeGmailServer.Mailbox] {
        let a = FakeGmailServer.Message(gmailId: threadA, threadId: threadA, labels: ["\\Inbox", "Projects", "\\Sent"],
                                        flags: ["\\Seen"], internalDate: "06-Feb-2024 10:00:00 +0000",
                                        bytes: message("a", subject: "Offsite agenda", day: 6))
        let b = FakeGmailServer.Message(gmailId: 1_790_191_255_011_876_214, threadId: threadA, labels: ["\\Inbox", "\\Important"],
                                        flags: [], internalDate: "07-Feb-2024 10:00:00 +0000",
                                        bytes: message("b", subject: "Re: Offsite agenda", inReplyTo: "a", day: 7))
        let c = FakeGmailServer.Message(gmailId: threadC, threadId: threadC, labels: ["Projects"], flags: ["\\Flagged"],
                                        internalDate: "08-Feb-2024 10:00:00 +0000", bytes: message("c", subject: "Budget", day: 8))
        let d = FakeGmailServer.Message(gmailId: 1_790_300_000_000_000_004, threadId: 1_790_300_000_000_000_004, labels: [],
                                        flags: [], internalDate: "09-Feb-2024 10:00:00 +0000", bytes: message("d", subject: "Old news", day: 9))
        let e = FakeGmailServer.Message(gmailId: 1_790_300_000_000_000_005, threadId: 1_790_300_000_000_000_005, labels: ["\\Spam"],
                                        flags: [], internalDate: "10-Feb-2024 10:00:00 +0000", bytes: message("e", subject: "You won", day: 10))
        let f = FakeGmailServer.Message(gmailId: 1_790_300_000_000_000_006, threadId: 1_790_300_000_000_000_006, labels: ["Projects"],
                                        flags: ["\\Seen"], internalDate: "11-Feb-2024 10:00:00 +0000", bytes: message("f", subject: "Draft plan", day: 11))
        typealias E = FakeGmailServer.Entry
        return [
            .init(name: "INBOX", attributes: "\\HasNoChildren", uidValidity: 1, messages: [E(21, a), E(22, b)]),
            .init(name: "Projects", attributes: "\\HasNoChildren", uidValidity: 5, messages: [E(31, a), E(32, c), E(33, f)]),
            .init(name: "[Gmail]", attributes: "\\HasChildren \\Noselect", uidValidity: 0, messages: []),
            .init(name: "[Gmail]/All Mail", attributes: "\\All \\HasNoChildren", uidValidity: 11,
                  messages: [E(101, a), E(102, b), E(103, c), E(104, d)]),
            .init(name: "[Gmail]/Sent Mail", attributes: "\\HasNoChildren \\Sent", uidValidity: 7, messages: [E(11, a)]),
            .init(name: "[Gmail]/Spam", attributes: "\\HasNoChildren \\Junk", uidValidity: 13, messages: [E(5, e)]),
            .init(name: "[Gmail]/Trash", attributes: "\\HasNoChildren \\Trash", uidValidity: 17, messages: [E(7, d), E(8, f)]),
        ]
    }

    func engine() throws -> IMAPSyncEngine {
        service = try MailSearchService(configuration: .init(
            dataDirectory: DataDirectory(url: work.appendingPathComponent("data")), modelDirectory: work.appendingPathComponent("no-model"),
            embeddingThreads: 1, embeddingBatchSize: 16, backgroundEmbedding: false,
            now: { Date(timeIntervalSince1970: 1_710_000_000) }))
        let settings = IMAPAccountSettings(host: "127.0.0.1", port: server.port, security: "plaintext", username: "alice@gmail.com",
                                           passwordCommand: "printf '%s\\n' 'gmail-app-password'", syncWindowDays: nil)
        let account = try service.store.addIMAPAccount(named: "gmail", email: "alice@gmail.com", settings: settings)
        var options = SyncOptions()
        options.retryDelays = []
        options.responseTimeout = .seconds(20)
        options.now = { Date(timeIntervalSince1970: 1_710_000_000) }
        return IMAPSyncEngine(service: service, account: account, settings: settings, options: options)
    }

    /// Each email (by Message-ID without `gm-`/domain) and the paths of its folders.
    func folderLinks() throws -> [String: Set<String>] {
        let rows = try service.store.database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT e.messageId, f.path FROM emails e JOIN email_folders ef ON ef.emailId = e.id JOIN folders f ON f.id = ef.folderId
                """)
        }
        var links: [String: Set<String>] = [:]
        for row in rows {
            let id: String = row["messageId"]
            links[id.replacingOccurrences(of: "gm-", with: "").replacingOccurrences(of: "@mail.gmail.com", with: ""), default: []]
                .insert(row["path"])
        }
        return links
    }

    func count(_ sql: String) throws -> Int {
        try service.store.database.read { try Int.fetchOne($0, sql: sql) ?? 0 }
    }

    // MARK: Tests

    func testGmailSyncReadsAllMailSpamAndTrashAndLinksLabelsAsFolders() async throws {
        server = try FakeGmailServer(user: "alice@gmail.com", password: "gmail-app-password", mailboxes: Self.mailboxes())
        let engine = try engine()
        let summary = try await engine.sync()
        XCTAssertEqual(server.unexpected, [], "commands the fake Gmail did not understand")

        // Only All Mail, Spam and Trash are opened; every other folder is a view of All Mail.
        let examined = server.commands.filter { $0.hasPrefix("EXAMINE") || $0.hasPrefix("SELECT") }
        XCTAssertEqual(Set(examined), ["EXAMINE \"[Gmail]/All Mail\"", "EXAMINE \"[Gmail]/Spam\"", "EXAMINE \"[Gmail]/Trash\""],
                       "\(server.commands)")
        let synced = try service.store.imapFolderStates(accountId: engine.account.id).map(\.path)
        XCTAssertEqual(Set(synced), ["[Gmail]/All Mail", "[Gmail]/Spam", "[Gmail]/Trash"])
        XCTAssertEqual(summary.folders, 3)

        // Six messages, six emails: D (All Mail and Trash, one X-GM-MSGID) is one email.
        XCTAssertEqual(summary.newEmails, 6)
        XCTAssertEqual(summary.linked, 1)
        XCTAssertEqual(try count("SELECT COUNT(*) FROM emails"), 6)
        XCTAssertEqual(try count("SELECT COUNT(*) FROM imap_messages"), 7)
        XCTAssertEqual(try count("SELECT COUNT(DISTINCT emailId) FROM imap_messages WHERE gmailMessageId = 1790300000000000004"), 1)
        XCTAssertEqual(try count("SELECT COUNT(*) FROM imap_messages WHERE gmailMessageId = 1790300000000000004"), 2)

        // Folder links come from the labels; system labels without a folder (\Important, \Spam) give none.
        let links = try folderLinks()
        XCTAssertEqual(links["a"], ["[Gmail]/All Mail", "INBOX", "Projects", "[Gmail]/Sent Mail"])
        XCTAssertEqual(links["b"], ["[Gmail]/All Mail", "INBOX"])
        XCTAssertEqual(links["c"], ["[Gmail]/All Mail", "Projects"])
        XCTAssertEqual(links["d"], ["[Gmail]/All Mail", "[Gmail]/Trash"])
        XCTAssertEqual(links["e"], ["[Gmail]/Spam"])
        XCTAssertEqual(links["f"], ["[Gmail]/Trash", "Projects"])
        let types = Dictionary(try service.store.folders(accountId: engine.account.id).map { ($0.path, $0.folderType) },
                               uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(types["INBOX"], .inbox)
        XCTAssertEqual(types["[Gmail]/Sent Mail"], .sent)
        XCTAssertEqual(types["[Gmail]/Spam"], .spam)
        XCTAssertEqual(types["[Gmail]/Trash"], .trash)
        XCTAssertNil(types["[Gmail]"], "a \\Noselect folder is no folder")
        XCTAssertNil(types["\\Important"])

        // X-GM-THRID is kept for every copy.
        let threads = try await service.store.database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT e.messageId, m.gmailThreadId FROM imap_messages m JOIN emails e ON e.id = m.emailId
                """).map { (($0["messageId"] as String), ($0["gmailThreadId"] as Int64?)) }
        }
        XCTAssertEqual(threads.count, 7)
        for (messageId, thread) in threads {
            XCTAssertNotNil(thread, messageId)
        }
        let threadOf = Dictionary(threads.map { ($0.0, $0.1) }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(threadOf["gm-a@mail.gmail.com"] ?? nil, Int64(Self.threadA))
        XCTAssertEqual(threadOf["gm-b@mail.gmail.com"] ?? nil, Int64(Self.threadA))
        XCTAssertEqual(threadOf["gm-c@mail.gmail.com"] ?? nil, Int64(Self.threadC))
        // Flags come from the message's copy in All Mail.
        XCTAssertEqual(try count("SELECT COUNT(*) FROM emails WHERE messageId = 'gm-a@mail.gmail.com' AND isRead"), 1)
        XCTAssertEqual(try count("SELECT COUNT(*) FROM emails WHERE messageId = 'gm-c@mail.gmail.com' AND isStarred"), 1)
        // A and its reply are one conversation.
        XCTAssertEqual(try count("SELECT COUNT(DISTINCT threadId) FROM emails WHERE messageId IN ('gm-a@mail.gmail.com', 'gm-b@mail.gmail.com')"), 1)

        // The synced mail is searchable.
        var request = SearchRequest(text: "gmailwordfx")
        request.mode = .keyword
        request.recordHistory = false
        let page = try await service.search.search(request)
        XCTAssertEqual(page.results.map(\.subject), ["Draft plan"])

        // A second pass changes nothing and fetches nothing.
        let bodyFetches = server.commands.filter { $0.contains("BODY.PEEK[]") }.count
        let again = try await engine.sync()
        XCTAssertEqual(server.unexpected, [])
        XCTAssertEqual(again.newEmails, 0)
        XCTAssertEqual(again.deletedEmails, 0)
        XCTAssertEqual(server.commands.filter { $0.contains("BODY.PEEK[]") }.count, bodyFetches)
        XCTAssertEqual(try count("SELECT COUNT(*) FROM emails"), 6)
        XCTAssertEqual(try folderLinks(), links)

        // A archived (out of the inbox) and labelled Receipts on the server: its folders follow.
        server.relabel(gmailId: Self.threadA, labels: ["Projects", "\\Sent", "Receipts"])
        let relabelled = try await engine.sync()
        XCTAssertEqual(server.unexpected, [])
        XCTAssertEqual(relabelled.labelChanges, 1)
        XCTAssertEqual(relabelled.fetched, 0)
        var expected = links
        expected["a"] = ["[Gmail]/All Mail", "Projects", "[Gmail]/Sent Mail", "Receipts"]
        XCTAssertEqual(try folderLinks(), expected)
        var inInbox = SearchRequest(text: "gmailwordax in:INBOX")
        inInbox.mode = .keyword
        inInbox.recordHistory = false
        let inboxPage = try await service.search.search(inInbox)
        XCTAssertEqual(inboxPage.results.count, 0, "an archived message is no longer in the inbox")
    }

    func testGmailActionsAreWrittenBackAsLabelsAndTrashMoves() async throws {
        server = try FakeGmailServer(user: "alice@gmail.com", password: "gmail-app-password", mailboxes: Self.mailboxes())
        let engine = try engine()
        _ = try await engine.sync()
        let ids = try await service.store.database.read { db in
            try Dictionary(Row.fetchAll(db, sql: "SELECT messageId, id FROM emails").map {
                (($0["messageId"] as String).replacingOccurrences(of: "gm-", with: "").replacingOccurrences(of: "@mail.gmail.com", with: ""),
                 $0["id"] as Int64)
            }, uniquingKeysWith: { a, _ in a })
        }
        let synced = server.commands.count

        // Star A, archive B, then label B Projects, put C in the inbox, delete A.
        let queued = try await service.mailbox.perform(.star, emailIds: [ids["a"]!]).queued
        XCTAssertEqual(queued, 1)
        let queued2 = try await service.mailbox.perform(.archive, emailIds: [ids["b"]!]).queued
        XCTAssertEqual(queued2, 1)
        let queued3 = try await service.mailbox.perform(.move(to: "Projects"), emailIds: [ids["b"]!]).queued
        XCTAssertEqual(queued3, 1)
        let queued4 = try await service.mailbox.perform(.move(to: "INBOX"), emailIds: [ids["c"]!]).queued
        XCTAssertEqual(queued4, 1)
        let queued5 = try await service.mailbox.perform(.delete, emailIds: [ids["a"]!]).queued
        XCTAssertEqual(queued5, 1)
        // Locally at once: labels are folders; All Mail keeps what is not in the Trash.
        var links = try folderLinks()
        XCTAssertEqual(links["b"], ["[Gmail]/All Mail", "Projects"])
        XCTAssertEqual(links["c"], ["[Gmail]/All Mail", "Projects", "INBOX"])
        XCTAssertEqual(links["a"], ["[Gmail]/Trash"])

        let summary = try await engine.replayOutbox()
        XCTAssertEqual(server.unexpected, [], "commands the fake Gmail did not understand")
        XCTAssertEqual(summary.applied, 5)
        XCTAssertEqual(summary.refused + summary.dropped + summary.conflicts, 0)
        let written = server.commands.dropFirst(synced).filter { $0.hasPrefix("UID STORE") || $0.hasPrefix("UID MOVE") || $0.contains("EXPUNGE") || $0.hasPrefix("CREATE") }
        XCTAssertEqual(Array(written), [
            "UID STORE 101 +FLAGS.SILENT (\\Flagged)",
            "UID STORE 102 -X-GM-LABELS.SILENT (\\Inbox)",
            "UID STORE 102 +X-GM-LABELS.SILENT (Projects)",
            "UID STORE 103 +X-GM-LABELS.SILENT (\\Inbox)",
            "UID MOVE 101 \"[Gmail]/Trash\"",
        ], "labels change on the All Mail copy; only a delete moves it, to Trash; nothing is expunged from All Mail")
        XCTAssertTrue(server.commands.dropFirst(synced).contains("SELECT \"[Gmail]/All Mail\""))

        // On the server: B out of the inbox and in Projects, C in the inbox, A starred and in the Trash.
        XCTAssertEqual(server.message(gmailId: 1_790_191_255_011_876_214)?.labels, ["\\Important", "Projects"])
        XCTAssertFalse(server.contents(of: "INBOX").contains(1_790_191_255_011_876_214))
        XCTAssertTrue(server.contents(of: "Projects").contains(1_790_191_255_011_876_214))
        XCTAssertTrue(server.contents(of: "INBOX").contains(Self.threadC))
        XCTAssertEqual(server.message(gmailId: Self.threadC)?.labels, ["Projects", "\\Inbox"])
        XCTAssertEqual(server.contents(of: "[Gmail]/Trash"), [1_790_300_000_000_000_004, 1_790_300_000_000_000_006, Self.threadA])
        XCTAssertFalse(server.contents(of: "[Gmail]/All Mail").contains(Self.threadA))
        XCTAssertEqual(server.message(gmailId: Self.threadA)?.flags.contains("\\Flagged"), true)
        let outboxStatusMap = try await service.mailbox.outboxStatus().map(\.pending)
        XCTAssertEqual(outboxStatusMap, [0])

        // The next sync reads the server's labels back: the folders it finds are the ones set locally.
        links = try folderLinks()
        _ = try await engine.sync()
        XCTAssertEqual(server.unexpected, [])
        XCTAssertEqual(try folderLinks(), links)
        XCTAssertEqual(try count("SELECT COUNT(*) FROM emails"), 6)
    }

    func testRefusedLoginFailsTheSync() async throws {
        server = try FakeGmailServer(user: "alice@gmail.com", password: "another-password", mailboxes: Self.mailboxes())
        let engine = try engine()
        do {
            _ = try await engine.sync()
            XCTFail("a refused login must fail the sync")
        } catch let error as SyncError {
            XCTAssertTrue(error.description.contains("refused the login"), error.description)
        }
    }
}

/// A scripted IMAP server that answers like Gmail's (X-GM-EXT-1, no CONDSTORE/QRESYNC/ESEARCH,
/// LOGIN, read-only EXAMINE, UID SEARCH ALL/SINCE, UID FETCH with X-GM-MSGID, X-GM-THRID and
/// X-GM-LABELS) on 127.0.0.1, in plaintext. Commands it does not know get BAD and are recorded
/// in `unexpected`; every command it got is in `commands` (without tag, LOGIN's arguments hidden).
final class FakeGmailServer: @unchecked Sendable {
    struct Message {
        var gmailId: UInt64
        var threadId: UInt64
        /// As Gmail names them: `\Inbox`, `\Sent`, `\Important`, or a user label.
        var labels: [String]
        var flags: [String]
        var internalDate: String
        var bytes: [UInt8]
    }

    struct Entry {
        var uid: UInt32
        var message: Message

        init(_ uid: UInt32, _ message: Message) {
            self.uid = uid
            self.message = message
        }
    }

    struct Mailbox {
        var name: String
        var attributes: String
        var uidValidity: UInt32
        var messages: [Entry]

        var uidNext: UInt32 { (messages.map(\.uid).max() ?? 0) + 1 }
    }

    static let capabilities = "IMAP4rev1 UNSELECT IDLE NAMESPACE QUOTA XLIST CHILDREN X-GM-EXT-1 UIDPLUS MOVE SPECIAL-USE"

    let port: Int
    private let listener: Int32
    private let user: String
    private let password: String
    private var boxes: [Mailbox]
    private let lock = NSLock()
    private var log: [String] = []
    private var bad: [String] = []
    private var clients: [Int32] = []
    private var stopped = false

    var commands: [String] { lock.withLock { log } }
    var mailboxes: [Mailbox] { lock.withLock { boxes } }

    /// Gives every copy of a message (by X-GM-MSGID) new labels, as Gmail does when it is
    /// archived or labelled (the next EXAMINE sees them).
    func relabel(gmailId: UInt64, labels: [String]) {
        lock.withLock {
            for b in boxes.indices {
                for m in boxes[b].messages.indices where boxes[b].messages[m].message.gmailId == gmailId {
                    boxes[b].messages[m].message.labels = labels
                }
            }
        }
    }
    var unexpected: [String] { lock.withLock { bad } }

    /// Each message's labels and flags, by X-GM-MSGID (from its first copy).
    func message(gmailId: UInt64) -> Message? {
        lock.withLock { boxes.lazy.flatMap(\.messages).first { $0.message.gmailId == gmailId }?.message }
    }

    /// The X-GM-MSGIDs in a mailbox.
    func contents(of name: String) -> Set<UInt64> {
        lock.withLock { Set(boxes.first { $0.name == name }?.messages.map(\.message.gmailId) ?? []) }
    }

    /// `UID STORE ±X-GM-LABELS`: as Gmail, every copy gets the labels, and the message enters or
    /// leaves the mailbox of each label (`\Inbox`: INBOX; a user's label: its own, made when missing).
    fileprivate func changeLabels(gmailId: UInt64, add: Bool, _ labels: [String]) {
        lock.withLock {
            guard let message = boxes.lazy.flatMap(\.messages).first(where: { $0.message.gmailId == gmailId })?.message else { return }
            var updated = message
            updated.labels = add ? updated.labels + labels.filter { !updated.labels.contains($0) } : updated.labels.filter { !labels.contains($0) }
            for b in boxes.indices {
                for m in boxes[b].messages.indices where boxes[b].messages[m].message.gmailId == gmailId {
                    boxes[b].messages[m].message.labels = updated.labels
                }
            }
            for label in labels {
                let name = label == "\\Inbox" ? "INBOX" : label
                guard !name.hasPrefix("\\") else { continue }
                if !boxes.contains(where: { $0.name == name }) {
                    boxes.append(Mailbox(name: name, attributes: "\\HasNoChildren", uidValidity: 41, messages: []))
                }
                let b = boxes.firstIndex { $0.name == name }!
                let present = boxes[b].messages.contains { $0.message.gmailId == gmailId }
                if add, !present {
                    boxes[b].messages.append(Entry(boxes[b].uidNext, updated))
                } else if !add {
                    boxes[b].messages.removeAll { $0.message.gmailId == gmailId }
                }
            }
        }
    }

    /// `UID STORE ±FLAGS`: every copy of the message.
    fileprivate func changeFlags(gmailId: UInt64, add: Bool, _ flags: [String]) {
        lock.withLock {
            for b in boxes.indices {
                for m in boxes[b].messages.indices where boxes[b].messages[m].message.gmailId == gmailId {
                    var current = boxes[b].messages[m].message.flags
                    current = add ? current + flags.filter { !current.contains($0) } : current.filter { !flags.contains($0) }
                    boxes[b].messages[m].message.flags = current
                }
            }
        }
    }

    /// `UID MOVE` to Trash (the only move Gmail's clients need): out of every other mailbox, its
    /// labels gone. Returns the new UID and the Trash's UIDVALIDITY, or nil for another target.
    fileprivate func moveToTrash(gmailId: UInt64, target: String) -> (uidValidity: UInt32, uid: UInt32)? {
        lock.withLock {
            guard let t = boxes.firstIndex(where: { $0.name == target && $0.attributes.contains("\\Trash") }),
                  var message = boxes.lazy.flatMap(\.messages).first(where: { $0.message.gmailId == gmailId })?.message else { return nil }
            message.labels = []
            for b in boxes.indices where b != t { boxes[b].messages.removeAll { $0.message.gmailId == gmailId } }
            let uid = boxes[t].uidNext
            boxes[t].messages.append(Entry(uid, message))
            return (boxes[t].uidValidity, uid)
        }
    }

    init(user: String, password: String, mailboxes: [Mailbox]) throws {
        self.user = user
        self.password = password
        self.boxes = mailboxes
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 8) == 0 else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        self.listener = listener
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    func stop() {
        let fds: [Int32] = lock.withLock {
            stopped = true
            return clients
        }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in fds { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                return
            }
            let accepted: Bool = lock.withLock {
                if stopped { return false }
                clients.append(fd)
                return true
            }
            guard accepted else { close(fd); return }
            let thread = Thread { [self] in
                Connection(fd: fd, server: self).run()
                close(fd)
            }
            thread.start()
        }
    }

    fileprivate func record(_ command: String) { lock.withLock { log.append(command) } }
    fileprivate func recordBad(_ command: String) { lock.withLock { bad.append(command) } }

    /// One client: reads commands (with their literals), answers them in order.
    private final class Connection {
        let fd: Int32
        let server: FakeGmailServer
        var buffer: [UInt8] = []
        var authenticated = false
        var selected: Mailbox?

        init(fd: Int32, server: FakeGmailServer) {
            self.fd = fd
            self.server = server
        }

        func run() {
            send("* OK Gimap ready for requests from 127.0.0.1 fake\r\n")
            while let line = readCommand() {
                guard let space = line.firstIndex(of: " ") else {
                    send("* BAD Unknown command\r\n")
                    continue
                }
                let tag = String(line[..<space])
                let rest = String(line[line.index(after: space)...])
                if !handle(tag: tag, rest) { return }
            }
        }

        /// Handles one command; false when the connection is to close.
        func handle(tag: String, _ rest: String) -> Bool {
            let tokens = Self.tokenize(rest)
            guard let name = tokens.first?.value.uppercased() else {
                send("\(tag) BAD Empty command\r\n")
                return true
            }
            server.record(name == "LOGIN" ? "LOGIN" : rest)
            func refuse(_ why: String) {
                server.recordBad(rest)
                send("\(tag) BAD \(why)\r\n")
            }
            switch name {
            case "CAPABILITY":
                send("* CAPABILITY \(FakeGmailServer.capabilities)\r\n\(tag) OK Thats all she wrote!\r\n")
            case "NOOP":
                send("\(tag) OK Success\r\n")
            case "LOGOUT":
                send("* BYE LOGOUT Requested\r\n\(tag) OK 73 good day (Success)\r\n")
                return false
            case "LOGIN":
                guard tokens.count == 3 else { refuse("Invalid arguments"); break }
                if tokens[1].value == server.user && tokens[2].value == server.password {
                    authenticated = true
                    send("\(tag) OK [CAPABILITY \(FakeGmailServer.capabilities)] \(server.user) authenticated (Success)\r\n")
                } else {
                    send("\(tag) NO [AUTHENTICATIONFAILED] Invalid credentials (Failure)\r\n")
                }
            case _ where !authenticated:
                refuse("Command not allowed before login")
            case "LIST":
                guard tokens.count == 3, tokens[1].value == "", tokens[2].value == "*" || tokens[2].value == "%" else {
                    refuse("Could not parse command"); break
                }
                var out = ""
                for box in server.mailboxes where tokens[2].value == "*" || !box.name.contains("/") {
                    out += "* LIST (\(box.attributes)) \"/\" \(Self.quoted(box.name))\r\n"
                }
                send(out + "\(tag) OK Success\r\n")
            case "EXAMINE", "SELECT":
                guard tokens.count == 2 else { refuse("Could not parse command"); break }
                guard let box = server.mailboxes.first(where: { $0.name == tokens[1].value || ($0.name == "INBOX" && tokens[1].value.uppercased() == "INBOX") }),
                      !box.attributes.contains("\\Noselect") else {
                    send("\(tag) NO [NONEXISTENT] Unknown Mailbox: \(tokens[1].value) (Failure)\r\n")
                    break
                }
                selected = box
                let readOnly = name == "EXAMINE"
                var out = "* FLAGS (\\Answered \\Flagged \\Draft \\Deleted \\Seen $NotPhishing $Phishing)\r\n"
                out += "* OK [PERMANENTFLAGS ()] Flags permitted.\r\n* OK [UIDVALIDITY \(box.uidValidity)] UIDs valid.\r\n"
                out += "* \(box.messages.count) EXISTS\r\n* 0 RECENT\r\n* OK [UIDNEXT \(box.uidNext)] Predicted next UID.\r\n"
                send(out + "\(tag) OK [\(readOnly ? "READ-ONLY" : "READ-WRITE")] \(box.name) selected. (Success)\r\n")
            case "UID":
                guard let boxName = selected?.name, let box = server.mailboxes.first(where: { $0.name == boxName }) else {
                    refuse("Command not allowed now"); break
                }
                guard tokens.count >= 2 else { refuse("Could not parse command"); break }
                switch tokens[1].value.uppercased() {
                case "SEARCH":
                    guard let uids = Self.search(Array(tokens.dropFirst(2)), in: box) else { refuse("Could not parse command"); break }
                    send("* SEARCH" + uids.map { " \($0)" }.joined() + "\r\n\(tag) OK SEARCH completed (Success)\r\n")
                case "FETCH":
                    guard tokens.count == 4, let set = Self.sequenceSet(tokens[2].value, max: box.uidNext - 1),
                          let items = Self.fetchItems(tokens[3].raw) else {
                        refuse("Could not parse command"); break
                    }
                    var out: [UInt8] = []
                    for (i, entry) in box.messages.enumerated() where set.contains(where: { $0.contains(entry.uid) }) {
                        out += Array("* \(i + 1) FETCH (".utf8)
                        var first = true
                        var parts = items
                        if !parts.contains("UID") { parts.insert("UID", at: 0) }
                        for item in parts {
                            if !first { out.append(UInt8(ascii: " ")) }
                            first = false
                            out += Self.fetchItem(item, uid: entry.uid, entry.message)
                        }
                        out += Array(")\r\n".utf8)
                    }
                    out += Array("\(tag) OK Success\r\n".utf8)
                    send(out)
                case "STORE":
                    // UID STORE set ±FLAGS[.SILENT] (…) or ±X-GM-LABELS[.SILENT] (…), on every copy of the message.
                    let item = tokens.count == 5 ? tokens[3].value.uppercased() : ""
                    let silent = item.hasSuffix(".SILENT")
                    let base = silent ? String(item.dropLast(".SILENT".count)) : item
                    guard tokens.count == 5, let set = Self.sequenceSet(tokens[2].value, max: box.uidNext - 1),
                          ["+FLAGS", "-FLAGS", "+X-GM-LABELS", "-X-GM-LABELS"].contains(base),
                          tokens[4].raw.hasPrefix("("), tokens[4].raw.hasSuffix(")") else {
                        refuse("Could not parse command"); break
                    }
                    let values = Self.tokenize(String(tokens[4].raw.dropFirst().dropLast())).map(\.value)
                    var out = ""
                    for (i, entry) in box.messages.enumerated() where set.contains(where: { $0.contains(entry.uid) }) {
                        if base.hasSuffix("FLAGS") {
                            server.changeFlags(gmailId: entry.message.gmailId, add: base.hasPrefix("+"), values)
                        } else {
                            server.changeLabels(gmailId: entry.message.gmailId, add: base.hasPrefix("+"), values)
                        }
                        if !silent, let now = server.message(gmailId: entry.message.gmailId) {
                            out += "* \(i + 1) FETCH (UID \(entry.uid) FLAGS (\(now.flags.joined(separator: " "))))\r\n"
                        }
                    }
                    send(out + "\(tag) OK Success\r\n")
                case "MOVE":
                    guard tokens.count == 4, let set = Self.sequenceSet(tokens[2].value, max: box.uidNext - 1) else {
                        refuse("Could not parse command"); break
                    }
                    var out = ""
                    var expunged = 0
                    for (i, entry) in box.messages.enumerated() where set.contains(where: { $0.contains(entry.uid) }) {
                        guard let moved = server.moveToTrash(gmailId: entry.message.gmailId, target: tokens[3].value) else {
                            server.recordBad(rest)
                            send("\(tag) NO [CANNOT] This fake moves to Trash only (Failure)\r\n")
                            return true
                        }
                        out += "* OK [COPYUID \(moved.uidValidity) \(entry.uid) \(moved.uid)]\r\n* \(i + 1 - expunged) EXPUNGE\r\n"
                        expunged += 1
                    }
                    send(out + "\(tag) OK Success\r\n")
                default:
                    refuse("Unknown UID command")
                }
            default:
                refuse("Unknown command")
            }
            return true
        }

        // MARK: Commands

        static func search(_ keys: [Token], in box: Mailbox) -> [UInt32]? {
            var uids = box.messages.map(\.uid)
            var i = 0
            while i < keys.count {
                switch keys[i].value.uppercased() {
                case "ALL":
                    i += 1
                case "UID":
                    guard i + 1 < keys.count, let set = sequenceSet(keys[i + 1].value, max: box.uidNext - 1) else { return nil }
                    uids = uids.filter { uid in set.contains { $0.contains(uid) } }
                    i += 2
                case "SINCE":
                    guard i + 1 < keys.count, let since = date(keys[i + 1].value + " 00:00:00 +0000", format: "d-MMM-yyyy HH:mm:ss Z") else {
                        return nil
                    }
                    uids = uids.filter { uid in
                        let message = box.messages.first { $0.uid == uid }!.message
                        return (date(message.internalDate, format: "dd-MMM-yyyy HH:mm:ss Z") ?? .distantPast) >= since
                    }
                    i += 2
                default:
                    return nil
                }
            }
            return uids.sorted()
        }

        static func date(_ text: String, format: String) -> Date? {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.dateFormat = format
            return formatter.date(from: text)
        }

        /// `1:3,7,9:*` (UIDs; `*` is the largest).
        static func sequenceSet(_ text: String, max: UInt32) -> [ClosedRange<UInt32>]? {
            var ranges: [ClosedRange<UInt32>] = []
            for part in text.split(separator: ",") {
                let ends = part.split(separator: ":").map { $0 == "*" ? max : UInt32($0) }
                guard (1...2).contains(ends.count), ends.allSatisfy({ $0 != nil }) else { return nil }
                let a = ends[0]!, b = ends.last!!
                ranges.append(Swift.min(a, b)...Swift.max(a, b))
            }
            return ranges.isEmpty ? nil : ranges
        }

        static let knownItems: Set<String> = [
            "UID", "FLAGS", "INTERNALDATE", "RFC822.SIZE", "X-GM-MSGID", "X-GM-THRID", "X-GM-LABELS", "BODY.PEEK[]", "BODY[]",
        ]

        /// The items of `(UID FLAGS BODY.PEEK[HEADER.FIELDS (MESSAGE-ID)])`, upper-cased; nil for one Gmail would not know.
        static func fetchItems(_ raw: String) -> [String]? {
            var text = Substring(raw)
            if text.hasPrefix("(") {
                guard text.hasSuffix(")") else { return nil }
                text = text.dropFirst().dropLast()
            }
            var items: [String] = []
            var current = ""
            var depth = 0
            for c in text {
                if c == "[" || c == "(" { depth += 1 }
                if c == "]" || c == ")" { depth -= 1 }
                if c == " " && depth == 0 {
                    if !current.isEmpty { items.append(current.uppercased()) }
                    current = ""
                } else {
                    current.append(c)
                }
            }
            if !current.isEmpty { items.append(current.uppercased()) }
            for item in items where !knownItems.contains(item) {
                guard item.hasPrefix("BODY.PEEK[HEADER.FIELDS (") || item.hasPrefix("BODY[HEADER.FIELDS ("), item.hasSuffix(")]") else {
                    return nil
                }
            }
            return items.isEmpty ? nil : items
        }

        static func fetchItem(_ item: String, uid: UInt32, _ message: Message) -> [UInt8] {
            switch item {
            case "UID": return Array("UID \(uid)".utf8)
            case "FLAGS": return Array("FLAGS (\(message.flags.joined(separator: " ")))".utf8)
            case "INTERNALDATE": return Array("INTERNALDATE \"\(message.internalDate)\"".utf8)
            case "RFC822.SIZE": return Array("RFC822.SIZE \(message.bytes.count)".utf8)
            case "X-GM-MSGID": return Array("X-GM-MSGID \(message.gmailId)".utf8)
            case "X-GM-THRID": return Array("X-GM-THRID \(message.threadId)".utf8)
            case "X-GM-LABELS": return Array("X-GM-LABELS (\(message.labels.map(quoted).joined(separator: " ")))".utf8)
            case "BODY.PEEK[]", "BODY[]": return Array("BODY[] {\(message.bytes.count)}\r\n".utf8) + message.bytes
            default:
                // BODY.PEEK[HEADER.FIELDS (A B)]: those header lines, then the blank line.
                let open = item.firstIndex(of: "[")!
                let section = String(item[item.index(after: open)..<item.index(before: item.endIndex)])
                let names = section.dropFirst("HEADER.FIELDS (".count).dropLast().split(separator: " ").map { $0.lowercased() }
                var header = ""
                let text = String(decoding: message.bytes, as: UTF8.self)
                let head = text.components(separatedBy: "\r\n\r\n").first ?? ""
                for line in head.components(separatedBy: "\r\n") {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    if names.contains(line[..<colon].lowercased()) { header += line + "\r\n" }
                }
                header += "\r\n"
                return Array("BODY[\(section)] {\(header.utf8.count)}\r\n\(header)".utf8)
            }
        }

        // MARK: Tokens

        struct Token {
            /// As written (quotes and parentheses included).
            var raw: String
            /// A quoted string's content; otherwise `raw`.
            var value: String
        }

        /// Top-level tokens: atoms (with their `[…]` sections), quoted strings, parenthesised lists.
        static func tokenize(_ text: String) -> [Token] {
            var tokens: [Token] = []
            let chars = Array(text)
            var i = 0
            while i < chars.count {
                if chars[i] == " " { i += 1; continue }
                let start = i
                if chars[i] == "\"" {
                    var value = ""
                    i += 1
                    while i < chars.count, chars[i] != "\"" {
                        if chars[i] == "\\", i + 1 < chars.count { i += 1 }
                        value.append(chars[i])
                        i += 1
                    }
                    i += 1
                    tokens.append(Token(raw: String(chars[start..<min(i, chars.count)]), value: value))
                    continue
                }
                var depth = 0
                var inQuote = false
                while i < chars.count {
                    let c = chars[i]
                    if inQuote {
                        if c == "\\" { i += 1 } else if c == "\"" { inQuote = false }
                    } else if c == "\"" {
                        inQuote = true
                    } else if c == "(" || c == "[" {
                        depth += 1
                    } else if c == ")" || c == "]" {
                        depth -= 1
                    } else if c == " " && depth == 0 {
                        break
                    }
                    i += 1
                }
                let raw = String(chars[start..<min(i, chars.count)])
                tokens.append(Token(raw: raw, value: raw))
            }
            return tokens
        }

        static func quoted(_ text: String) -> String {
            "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }

        // MARK: I/O

        /// The next command line, literals (`{n}` or `{n+}`) read into it; nil at EOF.
        func readCommand() -> String? {
            var command: [UInt8] = []
            while true {
                guard let line = readLine() else { return nil }
                command += line
                // A literal announced at the end of the line: its bytes, then the rest of the command.
                guard line.last == UInt8(ascii: "}"), let open = line.lastIndex(of: UInt8(ascii: "{")) else { break }
                var spec = String(decoding: line[(open + 1)..<(line.count - 1)], as: UTF8.self)
                let nonSync = spec.hasSuffix("+")
                if nonSync { spec.removeLast() }
                guard let count = Int(spec) else { break }
                if !nonSync { send("+ go ahead\r\n") }
                guard let bytes = read(count) else { return nil }
                command += bytes
            }
            return String(decoding: command, as: UTF8.self)
        }

        func readLine() -> [UInt8]? {
            while true {
                if let lf = buffer.firstIndex(of: 10) {
                    var line = Array(buffer[..<lf])
                    buffer.removeSubrange(...lf)
                    if line.last == 13 { line.removeLast() }
                    return line
                }
                guard fill() else { return nil }
            }
        }

        func read(_ count: Int) -> [UInt8]? {
            while buffer.count < count {
                guard fill() else { return nil }
            }
            defer { buffer.removeFirst(count) }
            return Array(buffer[..<count])
        }

        func fill() -> Bool {
            var chunk = [UInt8](repeating: 0, count: 16_384)
            while true {
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return false }
                buffer += chunk[..<n]
                return true
            }
        }

        func send(_ text: String) { send(Array(text.utf8)) }

        func send(_ bytes: [UInt8]) {
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeBytes { writeSocket(fd, $0.baseAddress! + offset, $0.count - offset) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return }
                offset += n
            }
        }
    }
}

/// `send(2)` without SIGPIPE (the name `send` is taken inside the connection).
private func writeSocket(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    return send(fd, pointer, count, Int32(MSG_NOSIGNAL))
    #else
    return send(fd, pointer, count, 0)
    #endif
}
