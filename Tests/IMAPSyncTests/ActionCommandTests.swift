import Foundation
import GRDB
import XCTest

/// `mailsearch mark`, `archive`, `move` and `delete` as a user runs them: the mailbox changes at
/// once, the server at the next `sync` (or with `--now`), against a real Dovecot.
extension SyncCommandTests {
    /// Email id by Message-ID (`sync3@cli.example.com` → its id).
    func emailIds() throws -> [String: Int64] {
        let queue = try DatabaseQueue(path: work.appendingPathComponent("data/mail.sqlite").path, configuration: Self.readOnly)
        return try queue.read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT messageId, id FROM emails").map { ($0["messageId"], $0["id"]) })
        }
    }

    /// Message-IDs (`sync3`) → flags of a server mailbox.
    func serverMailbox(_ mailbox: String) throws -> [String: Set<String>] {
        let output = try server.doveadm(["fetch", "-u", "alice", "flags hdr.message-id", "mailbox", mailbox])
        var result: [String: Set<String>] = [:]
        var flags = Set<String>()
        for line in output.split(separator: "\n") {
            if line.hasPrefix("flags:") {
                flags = Set(line.dropFirst(6).split(separator: " ").map(String.init)).subtracting(["\\Recent"])
            } else if line.lowercased().hasPrefix("hdr.message-id:") {
                result[String(line.drop { $0 != "<" }.dropFirst().prefix { $0 != "@" })] = flags
            }
        }
        return result
    }

    func jsonObject(_ outcome: Outcome) throws -> [String: Any] {
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any], outcome.stdout)
    }

    func testActionCommandsChangeTheMailboxAtOnceAndTheServerAtTheNextSync() throws {
        server = try DovecotServer()
        try appendMessages(0..<3)
        XCTAssertEqual(try mailsearch(addArguments()).status, 0)
        XCTAssertEqual(try mailsearch(["sync"]).status, 0)
        let ids = try emailIds()
        let (e0, e1, e2) = (ids["sync0@cli.example.com"]!, ids["sync1@cli.example.com"]!, ids["sync2@cli.example.com"]!)

        let read = try jsonObject(try mailsearch(["mark", "read", "e\(e0)", "--json"]))
        XCTAssertEqual(read["action"] as? String, "read")
        XCTAssertEqual(read["changed"] as? [Int], [Int(e0)])
        XCTAssertEqual(read["queued"] as? Int, 1)
        let archived = try jsonObject(try mailsearch(["archive", "e\(e1)", "--json"]))
        XCTAssertEqual(archived["folders"] as? [String], ["Archive"])
        let text = try mailsearch(["mark", "star", "e\(e1)"])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("1 email starred"), text.stdout)
        XCTAssertTrue(text.stdout.contains("queued for the IMAP server"), text.stdout)
        let nowhere = try mailsearch(["move", "e\(e2)", "--to", "Nowhere"])
        XCTAssertNotEqual(nowhere.status, 0)
        XCTAssertTrue(nowhere.stderr.contains("no folder \"Nowhere\""), nowhere.stderr)
        XCTAssertNotEqual(try mailsearch(["archive"]).status, 0, "no id")
        XCTAssertTrue(try mailsearch(["mark", "--help"]).stdout.contains("read, unread, star or unstar"))

        // Searchable at once, the server unchanged until the next sync.
        XCTAssertEqual(Set(try searchSubjects("in:archive")), [Self.subject(1)])
        XCTAssertEqual(try serverMailbox("INBOX").count, 3)
        let sync = try mailsearch(["sync", "--json"])
        XCTAssertEqual(sync.status, 0, sync.stderr)
        XCTAssertEqual(Set(try serverMailbox("INBOX").keys), ["sync0", "sync2"])
        XCTAssertEqual(try serverMailbox("INBOX")["sync0"], ["\\Seen"])
        XCTAssertEqual(try serverMailbox("Archive"), ["sync1": ["\\Flagged"]])

        // --now writes at once; a delete from the Trash deletes for good.
        let deleted = try jsonObject(try mailsearch(["delete", "e\(e2)", "--now", "--json"]))
        XCTAssertEqual((deleted["written"] as? [[String: Any]])?.first?["applied"] as? Int, 1)
        XCTAssertEqual(Set(try serverMailbox("Trash").keys), ["sync2"])
        let gone = try jsonObject(try mailsearch(["delete", "e\(e2)", "--now", "--json"]))
        XCTAssertEqual(gone["deleted"] as? [Int], [Int(e2)])
        XCTAssertTrue(try serverMailbox("Trash").isEmpty)
        XCTAssertEqual(try mailsearch(["show", "e\(e2)"]).status == 0, false, "gone from the mailbox too")
    }

    func testSIGKILLWhileTheOutboxIsWrittenThenTheNextSyncAppliesEachOperationOnce() throws {
        server = try DovecotServer()
        let total = 300
        try appendMessages(0..<total)
        XCTAssertEqual(try mailsearch(addArguments()).status, 0)
        XCTAssertEqual(try mailsearch(["sync"]).status, 0)
        let ids = try emailIds().values.sorted()
        XCTAssertEqual(ids.count, total)
        let archived = try jsonObject(try mailsearch(["archive"] + ids.map { "e\($0)" } + ["--json"]))
        XCTAssertEqual(archived["queued"] as? Int, total)

        // `sync` writes the outbox first; killed once some operations are done.
        let database = work.appendingPathComponent("data/mail.sqlite").path
        func done() -> Int {
            guard let queue = try? DatabaseQueue(path: database, configuration: Self.readOnly) else { return 0 }
            return (try? queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM outbox WHERE state = 'done'") ?? 0 }) ?? 0
        }
        let process = try start(["sync"])
        let deadline = Date().addingTimeInterval(120)
        var seen = 0
        while process.isRunning, Date() < deadline {
            seen = done()
            if seen >= 20 { break }
            usleep(5_000)
        }
        XCTAssertTrue(process.isRunning, "the outbox was written (\(seen) done) before the kill; \(process.stderrText)")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let afterKill = done()
        XCTAssertLessThan(afterKill, total, "killed mid-outbox")
        print("SIGKILL after \(afterKill) of \(total) operations were done")

        let resumed = try mailsearch(["sync", "--json"])
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertEqual(done(), total)
        // Exactly once: every message in Archive once, none left in INBOX, none fetched as new.
        XCTAssertEqual(try server.status(mailbox: "Archive")["messages"] as? Int, total)
        XCTAssertEqual(try server.status(mailbox: "INBOX")["messages"] as? Int, 0)
        XCTAssertEqual(try serverMailbox("Archive").count, total)
        let queue = try DatabaseQueue(path: database, configuration: Self.readOnly)
        try queue.read { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM emails"), total)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT MAX(attempts) FROM outbox"), 1)
            XCTAssertEqual(try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM email_folders ef JOIN folders f ON f.id = ef.folderId WHERE f.path = 'Archive'
                """), total)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM imap_messages m JOIN folders f ON f.id = m.folderId WHERE f.path = 'INBOX'"), 0)
        }
    }
}
