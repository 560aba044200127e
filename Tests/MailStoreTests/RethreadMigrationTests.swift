import Foundation
import GRDB
import MailModel
@testable import MailStore
import XCTest

/// The migration `v6-rethread`: a store written by an earlier version, with the threads its
/// threading produced, is threaded again when this version opens it.
final class RethreadMigrationTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("rethread-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    static let t0 = 1_700_000_000.0
    static let day = 24 * 3600.0

    struct OldRow {
        var id: Int64
        var thread: Int64
        var messageId: String
        var inReplyTo: String? = nil
        var references = ""
        var from: String
        var subject: String
        var oldNormalized: String
        var day: Double
        var read = true
    }

    /// What the earlier version stored: the parser took `miguel@…` out of "Message from miguel@… of
    /// 10 Jul 1997" (and `miguel@…'s` out of Emacs' "miguel@…'s message of …") as the parent's id,
    /// joining the replies to two unrelated posts of Miguel's; the fallback dropped the patch tags,
    /// joining two versions of a series. Threads 10, 12 and 15 are right.
    static let oldRows: [OldRow] = [
        OldRow(id: 1, thread: 10, messageId: "a1@list.example", from: "ann@x.example",
               subject: "[USRP-users] Timed commands", oldNormalized: "timed commands", day: 0),
        OldRow(id: 2, thread: 11, messageId: "m1@gnu.example", from: "miguel@gnu.example",
               subject: "Layout engine", oldNormalized: "layout engine", day: 1),
        OldRow(id: 3, thread: 12, messageId: "m2@gnu.example", from: "miguel@gnu.example",
               subject: "Font cache", oldNormalized: "font cache", day: 1),
        OldRow(id: 4, thread: 13, messageId: "r1@x.example", inReplyTo: "miguel@gnu.example", from: "bob@x.example",
               subject: "Re: Layout engine", oldNormalized: "layout engine", day: 2, read: false),
        OldRow(id: 5, thread: 13, messageId: "r2@x.example", inReplyTo: "miguel@gnu.example's", from: "cy@x.example",
               subject: "Re: Font cache", oldNormalized: "font cache", day: 3),
        OldRow(id: 6, thread: 10, messageId: "a2@list.example", inReplyTo: "a1@list.example", from: "bob@x.example",
               subject: "Re: [USRP-users] Timed commands", oldNormalized: "timed commands", day: 4),
        OldRow(id: 7, thread: 14, messageId: "p1@lkml.example", from: "dev@mips.example",
               subject: "[PATCH RFC 00/67] Add MIPS R6 support", oldNormalized: "add mips r6 support", day: 5),
        OldRow(id: 8, thread: 14, messageId: "p2@lkml.example", from: "dev@mips.example",
               subject: "[PATCH RFC v2 00/70] Add MIPS R6 support", oldNormalized: "add mips r6 support", day: 15),
        OldRow(id: 9, thread: 12, messageId: "m3@x.example", references: "m2@gnu.example", from: "dee@x.example",
               subject: "Re: Font cache", oldNormalized: "font cache", day: 16),
        OldRow(id: 10, thread: 15, messageId: "q1@x.example", from: "ann@x.example",
               subject: "Quarterly numbers", oldNormalized: "quarterly numbers", day: 17),
    ]

    /// Writes `oldRows` into a store at schema v5, as the previous version left it.
    func writeOldStore() throws {
        let path = directory.appendingPathComponent("mail.sqlite").path
        let queue = try DatabaseQueue(path: path)
        try MailSchema.migrator().migrate(queue, upTo: "v5-sender-index")
        try queue.write { db in
            try db.execute(sql: "INSERT INTO accounts (id, name, createdAt) VALUES (1, 'list', 0)")
            for thread in Set(Self.oldRows.map(\.thread)) {
                try db.execute(sql: "INSERT INTO threads (id, accountId, subject, messageCount) VALUES (?, 1, 'old', 99)",
                               arguments: [thread])
            }
            var contacts = Set<String>()
            for row in Self.oldRows {
                let date = Self.t0 + row.day * Self.day
                try db.execute(sql: """
                    INSERT INTO emails (id, accountId, threadId, messageId, inReplyTo, "references", fromEmail, toAddresses,
                        subject, normalizedSubject, snippet, dateSent, sortDate, isRead)
                    VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [row.id, row.thread, row.messageId, row.inReplyTo, row.references, row.from,
                                     "\tlist@list.example", row.subject, row.oldNormalized, "body \(row.id)", date, date, row.read])
                for id in [row.messageId] + [row.inReplyTo].compactMap({ $0 }) + row.references.split(separator: " ").map(String.init) {
                    try db.execute(sql: "INSERT OR REPLACE INTO message_ids (accountId, messageId, threadId) VALUES (1, ?, ?)",
                                   arguments: [id, row.thread])
                }
                for address in [row.from, "list@list.example"] where contacts.insert(address).inserted {
                    try db.execute(sql: "INSERT INTO contacts (accountId, email, frequency) VALUES (1, ?, 1)", arguments: [address])
                }
            }
        }
        try queue.close()
    }

    func testOpeningAnOldStoreThreadsItAgain() throws {
        try writeOldStore()
        let store = try MailStore(directory: DataDirectory(url: directory))
        let rows = try store.database.read { db in
            try Row.fetchAll(db, sql: "SELECT messageId, threadId, normalizedSubject FROM emails ORDER BY id")
        }
        let thread = Dictionary(uniqueKeysWithValues: rows.map { ($0["messageId"] as String, $0["threadId"] as Int64) })
        let normalized = Dictionary(uniqueKeysWithValues: rows.map { ($0["messageId"] as String, $0["normalizedSubject"] as String) })

        // Each reply is with the post it answers (the subject fallback), the posts apart.
        XCTAssertEqual(thread["r1@x.example"], thread["m1@gnu.example"])
        XCTAssertEqual(thread["r2@x.example"], thread["m2@gnu.example"])
        XCTAssertEqual(thread["m3@x.example"], thread["m2@gnu.example"])
        XCTAssertNotEqual(thread["m1@gnu.example"], thread["m2@gnu.example"])
        // The two versions of the series are apart; the list thread stays whole.
        XCTAssertNotEqual(thread["p1@lkml.example"], thread["p2@lkml.example"])
        XCTAssertEqual(thread["a2@list.example"], thread["a1@list.example"])
        XCTAssertEqual(normalized["p2@lkml.example"], "[PATCH RFC v2 00/70] Add MIPS R6 support")
        XCTAssertEqual(normalized["a2@list.example"], "[USRP-users] Timed commands")

        // Threads that stay keep their ids; the merged thread 13 is gone, no thread is empty.
        XCTAssertEqual(thread["a1@list.example"], 10)
        XCTAssertEqual(thread["m1@gnu.example"], 11)
        XCTAssertEqual(thread["m2@gnu.example"], 12)
        XCTAssertEqual(thread["p1@lkml.example"], 14)
        // The thread split off gets a new id, which is not the id of a thread still to come.
        XCTAssertEqual(thread["q1@x.example"], 15)
        XCTAssertEqual(thread["p2@lkml.example"], 16)
        let threads = try store.database.read { db in
            try Row.fetchAll(db, sql: "SELECT id, subject, messageCount, unreadCount, latestDate FROM threads ORDER BY id")
        }
        XCTAssertEqual(threads.count, 6)
        XCTAssertEqual(Set(threads.map { $0["id"] as Int64 }), Set(thread.values))
        XCTAssertFalse(threads.contains { ($0["id"] as Int64) == 13 })
        let layout = try XCTUnwrap(threads.first { ($0["id"] as Int64) == 11 })
        XCTAssertEqual(layout["subject"], "Layout engine")
        XCTAssertEqual(layout["messageCount"], 2)
        XCTAssertEqual(layout["unreadCount"], 1)
        XCTAssertEqual(layout["latestDate"] as Double?, Self.t0 + 2 * Self.day)
        XCTAssertEqual(try store.database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM threads WHERE messageCount = 0") }, 0)

        // The Message-ID graph holds Message-IDs only.
        let ids = try store.database.read { try String.fetchAll($0, sql: "SELECT messageId FROM message_ids") }
        XCTAssertFalse(ids.contains { $0.hasPrefix("miguel@") }, "\(ids)")
    }

    /// Re-threading gives what importing the same mail with this version gives.
    func testTheMigratedStoreEqualsAFreshImport() throws {
        try writeOldStore()
        let migrated = try MailStore(directory: DataDirectory(url: directory))
        let fresh = try MailStore(directory: DataDirectory(url: directory.appendingPathComponent("fresh")))
        let account = try fresh.account(named: "list").id
        let batch = Self.oldRows.map { row in
            IncomingEmail(
                email: Email(accountId: account, messageId: row.messageId, inReplyTo: row.inReplyTo,
                             references: row.references.split(separator: " ").map(String.init),
                             from: Address(email: row.from), to: [Address(email: "list@list.example")],
                             subject: row.subject, dateSent: Date(timeIntervalSince1970: Self.t0 + row.day * Self.day)),
                folders: [FolderSpec(path: "Inbox")])
        }
        for item in batch { _ = try fresh.ingest([item], accountId: account) }
        func partition(_ store: MailStore) throws -> Set<Set<String>> {
            let rows = try store.database.read { try Row.fetchAll($0, sql: "SELECT messageId, threadId FROM emails") }
            return Set(Dictionary(grouping: rows, by: { $0["threadId"] as Int64 }).values.map { Set($0.map { $0["messageId"] as String }) })
        }
        XCTAssertEqual(try partition(migrated), try partition(fresh))
    }
}
