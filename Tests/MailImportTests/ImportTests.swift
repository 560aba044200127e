import Foundation
import GRDB
import MailImport
import MailModel
import MailParsing
import MailStore
import XCTest

final class ImportTests: XCTestCase {
    var directory: URL!
    var store: MailStore!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try MailStore(directory: DataDirectory(url: directory.appendingPathComponent("data")))
    }

    override func tearDownWithError() throws {
        store = nil
        try? FileManager.default.removeItem(at: directory)
    }

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    func message(id: String?, subject: String, extra: String = "", body: String = "Hello there.") -> String {
        var s = ""
        if let id { s += "Message-ID: <\(id)>\n" }
        s += "From: Ann Example <ann@example.com>\nTo: bob@example.com\nSubject: \(subject)\n"
        s += "Date: Mon, 4 Mar 2024 14:11:14 -0800\n\(extra)\n\(body)\n"
        return s
    }

    func write(_ text: String, to path: String) throws {
        let url = directory.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    func run(_ path: String, account: String = "acct") throws -> ImportSummary {
        try ImportPipeline(store: store, accountName: account, batchSize: 3).run(path: directory.appendingPathComponent(path).path)
    }

    func testDirectoryTreeFoldersComeFromThePathAndReimportAddsNothing() throws {
        try write(message(id: "a@x", subject: "one"), to: "tree/alice/inbox/1")
        try write(message(id: "b@x", subject: "two"), to: "tree/alice/inbox/2")
        try write(message(id: "c@x", subject: "three"), to: "tree/bob/sent/1")
        try write(message(id: nil, subject: "no id"), to: "tree/bob/sent/2")
        let first = try run("tree")
        XCTAssertEqual(first.kind, .directory)
        XCTAssertEqual([first.imported, first.duplicates, first.failed], [4, 0, 0])
        XCTAssertEqual(Set(try store.folders().map(\.path)), ["alice/inbox", "bob/sent"])
        let again = try run("tree")
        XCTAssertEqual([again.imported, again.duplicates], [0, 4])
        XCTAssertEqual(try store.statistics().emails, 4)
    }

    /// Reads one number of the store each time an import commits a batch, and can fail the import.
    final class CommitProbe: ImportBatchObserver, @unchecked Sendable {
        let read: (MailStore) throws -> Int
        let failAfter: Int?
        var seen: [Int] = []
        init(failAfter: Int? = nil, _ read: @escaping (MailStore) throws -> Int) {
            self.read = read
            self.failAfter = failAfter
        }
        func didCommit(_ result: IngestResult, store: MailStore) throws {
            seen.append(try read(store))
            if let failAfter, seen.count >= failAfter { throw CocoaError(.fileWriteUnknown) }
        }
    }

    /// The writer's checkpoint interval (a setting of its connection) while an import commits.
    static func checkpointProbe(failAfter: Int? = nil) -> CommitProbe {
        CommitProbe(failAfter: failAfter) { store in
            try store.database.writeWithoutTransaction { try Int.fetchOne($0, sql: "PRAGMA wal_autocheckpoint") ?? -1 }
        }
    }

    /// How many indexes `emails` has while an import commits (as committed: a read, not waiting for the writer).
    static func indexProbe(failAfter: Int? = nil) -> CommitProbe {
        CommitProbe(failAfter: failAfter) { store in
            try store.database.read {
                try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'emails'") ?? -1
            }
        }
    }

    func checkpointInterval() throws -> Int {
        try store.database.writeWithoutTransaction { try Int.fetchOne($0, sql: "PRAGMA wal_autocheckpoint") ?? -1 }
    }

    /// An import checkpoints less often while it writes, and sets the interval back when it ends,
    /// whether it ends well or on an error.
    func testAnImportCheckpointsLessOftenAndSetsTheIntervalBack() throws {
        for i in 0..<7 { try write(message(id: "cp\(i)@x", subject: "n\(i)"), to: "cp/\(i)") }
        // A new mail.sqlite has 16 KB pages; the intervals are 32 MB and 256 MB of them.
        XCTAssertEqual(try store.database.read { try Int.fetchOne($0, sql: "PRAGMA page_size") }, 16_384)
        let usual = 2_048, importing = 16_384
        XCTAssertEqual(try checkpointInterval(), usual)
        let probe = Self.checkpointProbe()
        _ = try ImportPipeline(store: store, accountName: "a", batchSize: 2, observer: probe).run(path: directory.appendingPathComponent("cp").path)
        XCTAssertEqual(probe.seen, Array(repeating: importing, count: 4))
        XCTAssertEqual(try checkpointInterval(), usual, "set back after the import")

        for i in 0..<7 { try write(message(id: "cq\(i)@x", subject: "m\(i)"), to: "cq/\(i)") }
        let failing = Self.checkpointProbe(failAfter: 1)
        XCTAssertThrowsError(try ImportPipeline(store: store, accountName: "a", batchSize: 2, observer: failing)
            .run(path: directory.appendingPathComponent("cq").path))
        XCTAssertEqual(failing.seen.first, importing)
        XCTAssertEqual(try checkpointInterval(), usual, "set back after a failed import")
    }

    /// The emails' indexes of dates, flags and senders, as `sqlite_master` has them.
    func emailIndexes() throws -> [String: String] {
        try store.database.read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: """
                SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'emails' AND sql IS NOT NULL
                """).map { ($0["name"] as String, $0["sql"] as String) })
        }
    }

    /// A first import builds the indexes no import step reads once, at its end; an import into a
    /// mailbox with mail keeps them all the way; an import that fails, or a store opened after one
    /// was killed, has them back (not one opened while the import runs); and they are exactly as
    /// the migrations made them.
    func testAFirstImportBuildsTheDateAndSenderIndexesAtItsEnd() throws {
        let full = try emailIndexes()
        XCTAssertEqual(full.count, 10)
        let names: [String] = ["emails_account_date", "emails_from", "emails_date", "emails_category_date", "emails_read_date",
                               "emails_attachment_date", "emails_from_lower", "emails_from_name"]
        XCTAssertEqual(Set(names).subtracting(full.keys), [], "every deferred index is one the migrations made")
        for i in 0..<7 { try write(message(id: "di\(i)@x", subject: "n\(i)"), to: "di/\(i)") }
        let first = Self.indexProbe()
        _ = try ImportPipeline(store: store, accountName: "a", batchSize: 2, observer: first, defersIndexes: true).run(path: directory.appendingPathComponent("di").path)
        let autoindexes = 1  // UNIQUE (accountId, messageId), which sqlite_master lists without SQL
        // The index may take the last batch after the mail writer has built them.
        XCTAssertEqual(first.seen.dropLast(), Array(repeating: full.count + autoindexes - names.count, count: 3),
                       "built at the end, not per message")
        XCTAssertEqual(try emailIndexes(), full, "the same indexes, the same definitions, after the import")

        for i in 0..<5 { try write(message(id: "dj\(i)@x", subject: "m\(i)"), to: "dj/\(i)") }
        let second = Self.indexProbe()
        _ = try ImportPipeline(store: store, accountName: "a", batchSize: 2, observer: second, defersIndexes: true).run(path: directory.appendingPathComponent("dj").path)
        XCTAssertEqual(second.seen, Array(repeating: full.count + autoindexes, count: 3), "a mailbox with mail keeps every index")

        // A failed first import (another account in a fresh store), then one that was killed.
        let other = try MailStore(directory: DataDirectory(url: directory.appendingPathComponent("data2")))
        let failing = Self.indexProbe(failAfter: 1)
        XCTAssertThrowsError(try ImportPipeline(store: other, accountName: "a", batchSize: 2, observer: failing, defersIndexes: true)
            .run(path: directory.appendingPathComponent("dj").path))
        XCTAssertEqual(failing.seen, [full.count + autoindexes - names.count])
        store = other
        XCTAssertEqual(try emailIndexes(), full, "built again after the error")
        try store.database.write { try $0.execute(sql: "DELETE FROM emails") }
        do {
            let lease = try store.deferIndexesWhileEmpty()
            XCTAssertNotNil(lease)
            try withExtendedLifetime(lease) {
                XCTAssertEqual(try emailIndexes().count, full.count - names.count)
                XCTAssertNil(try store.deferIndexesWhileEmpty(), "one import at a time holds the lease")
                store = try MailStore(directory: DataDirectory(url: directory.appendingPathComponent("data2")))
                XCTAssertEqual(try emailIndexes().count, full.count - names.count, "left to the import that holds the lease")
            }
        }
        // The import's process ended without building them (killed): its lease is gone with it.
        store = try MailStore(directory: DataDirectory(url: directory.appendingPathComponent("data2")))
        XCTAssertEqual(try emailIndexes(), full, "opening the store builds them")
        try write(message(id: "dk@x", subject: "k"), to: "dk/1")
        _ = try ImportPipeline(store: store, accountName: "a", batchSize: 2, defersIndexes: true).run(path: directory.appendingPathComponent("dk").path)
        XCTAssertNil(try store.deferIndexesWhileEmpty(), "nothing is dropped from a store with mail")
        XCTAssertEqual(try emailIndexes(), full)

        // Unless told to, an import into an empty mailbox keeps every index (a page reads counts meanwhile).
        store = try MailStore(directory: DataDirectory(url: directory.appendingPathComponent("data3")))
        let usual = Self.indexProbe()
        _ = try ImportPipeline(store: store, accountName: "a", batchSize: 2, observer: usual).run(path: directory.appendingPathComponent("dj").path)
        XCTAssertEqual(usual.seen, Array(repeating: full.count + autoindexes, count: 3))
    }

    func testMessagesWithoutMessageIdAreIdentifiedByContent() throws {
        try write(message(id: nil, subject: "same"), to: "t/a/1")
        try write(message(id: nil, subject: "same"), to: "t/b/1")
        try write(message(id: nil, subject: "different"), to: "t/b/2")
        let s = try run("t")
        XCTAssertEqual([s.imported, s.duplicates], [2, 1])
        XCTAssertEqual(try store.statistics().folderLinks, 3, "the identical copy is linked to its second folder")
    }

    func testMaildirFlagsAndSubfolders() throws {
        try write(message(id: "r@x", subject: "read and flagged"), to: "md/cur/1700000000.1.host:2,FS")
        try write(message(id: "u@x", subject: "unread"), to: "md/new/1700000001.2.host")
        try write(message(id: "s@x", subject: "sent"), to: "md/.Sent/cur/1700000002.3.host:2,S")
        try write(message(id: "d@x", subject: "draft"), to: "md/.Drafts.Old/cur/1700000003.4.host:2,DS")
        let s = try run("md")
        XCTAssertEqual(s.kind, .maildir)
        XCTAssertEqual(s.imported, 4)
        let rows = try store.database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT e.messageId, e.isRead, e.isStarred, e.isDraft, f.path FROM emails e
                JOIN email_folders ef ON ef.emailId = e.id JOIN folders f ON f.id = ef.folderId ORDER BY e.messageId
                """)
        }
        let byId = Dictionary(uniqueKeysWithValues: rows.map { ($0["messageId"] as String, $0) })
        XCTAssertEqual(byId["r@x"]?["isRead"], true)
        XCTAssertEqual(byId["r@x"]?["isStarred"], true)
        XCTAssertEqual(byId["r@x"]?["path"], "INBOX")
        XCTAssertEqual(byId["u@x"]?["isRead"], false)
        XCTAssertEqual(byId["s@x"]?["path"], "Sent")
        XCTAssertEqual(byId["d@x"]?["path"], "Drafts/Old")
        XCTAssertEqual(byId["d@x"]?["isDraft"], true)
        XCTAssertEqual(try store.folders().first { $0.path == "Sent" }?.folderType, .sent)
    }

    func testGmailTakeoutLabelsBecomeFoldersFlagsAndCategories() throws {
        let a = message(id: "g1@x", subject: "deal", extra: "X-Gmail-Labels: Inbox,Unread,Category Promotions,\"Trips, 2024\"\n")
        let b = message(id: "g2@x", subject: "fav", extra: "X-Gmail-Labels: Archived,Starred,Opened\n")
        let mbox = "From 1@xxx Mon Mar  4 14:11:14 2024\n" + a + "\nFrom 2@xxx Mon Mar  4 15:00:00 2024\n" + b
        try write(mbox, to: "takeout.mbox")
        let s = try run("takeout.mbox")
        XCTAssertEqual(s.kind, .mbox)
        XCTAssertEqual(s.imported, 2)
        let g1 = try XCTUnwrap(try store.email(id: 1))
        XCTAssertEqual(g1.email.isRead, false)
        XCTAssertEqual(g1.email.category, .promotions)
        XCTAssertEqual(g1.folders, ["Inbox", "Trips, 2024"])
        let g2 = try XCTUnwrap(try store.email(id: 2))
        XCTAssertEqual(g2.email.isRead, true)
        XCTAssertEqual(g2.email.isStarred, true)
        XCTAssertEqual(g2.folders, ["Archive", "Starred"])
    }

    func testEmptyFilesFailWithTheirPathAndTheImportGoesOn() throws {
        try write("", to: "t2/x/empty")
        try write("\n\n  \n", to: "t2/x/blank")
        try write(message(id: "ok@x", subject: "fine"), to: "t2/x/ok")
        let s = try run("t2")
        XCTAssertEqual([s.imported, s.failed], [1, 2])
        XCTAssertTrue(s.failures.contains { $0.source.hasSuffix("t2/x/empty") && $0.reason == "empty message" })
    }

    /// An unreadable `cur` or `new` of a Maildir is a failure naming the path and the reason; the
    /// rest is imported. (A dangling link and a file named `cur` block the read even for root.)
    func testAnUnreadableMaildirFolderIsReportedWithItsPath() throws {
        try write(message(id: "n@x", subject: "new one"), to: "md/new/1700000001.2.host")
        try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("md/cur").path,
                                                   withDestinationPath: "/nonexistent/cur")
        try write(message(id: "s@x", subject: "sent"), to: "md/.Sent/new/1700000002.3.host")
        try write("not a folder", to: "md/.Sent/cur")
        let s = try run("md")
        XCTAssertEqual(s.imported, 2)
        XCTAssertEqual(s.failed, 2)
        let cur = try XCTUnwrap(s.failures.first { $0.source.hasSuffix("md/cur") }, "\(s.failures)")
        XCTAssertTrue(cur.reason.contains("No such file or directory"), cur.reason)
        let sentCur = try XCTUnwrap(s.failures.first { $0.source.hasSuffix("md/.Sent/cur") }, "\(s.failures)")
        XCTAssertTrue(sentCur.reason.contains("Not a directory"), sentCur.reason)
    }

    func testAnUnreadableSubfolderOfATreeIsReportedWithItsPath() throws {
        try write(message(id: "a@x", subject: "one"), to: "tree/alice/inbox/1")
        try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("tree/bob").path,
                                                   withDestinationPath: "/nonexistent/bob")
        let s = try run("tree")
        XCTAssertEqual([s.imported, s.failed], [1, 1])
        let bob = try XCTUnwrap(s.failures.first { $0.source.hasSuffix("tree/bob") }, "\(s.failures)")
        XCTAssertTrue(bob.reason.contains("/nonexistent/bob"), bob.reason)
    }

    /// Mode 000 blocks the listing for a normal user only: root reads it anyway.
    func testAFolderWithoutPermissionIsReportedWithItsPath() throws {
        guard getuid() != 0 else { throw XCTSkip("running as root, which may list a mode-000 folder; the dangling-link tests cover the report") }
        try write(message(id: "r@x", subject: "in cur"), to: "md/cur/1700000000.1.host:2,S")
        try write(message(id: "n@x", subject: "in new"), to: "md/new/1700000001.2.host")
        try write(message(id: "s@x", subject: "sent"), to: "md/.Sent/cur/1700000002.3.host:2,S")
        let cur = directory.appendingPathComponent("md/cur").path
        let sent = directory.appendingPathComponent("md/.Sent").path
        XCTAssertEqual(chmod(cur, 0), 0)
        XCTAssertEqual(chmod(sent, 0), 0)
        defer { chmod(cur, 0o755); chmod(sent, 0o755) }
        let s = try run("md")
        XCTAssertEqual([s.imported, s.failed], [1, 2])
        XCTAssertTrue(s.failures.contains { $0.source.hasSuffix("md/cur") && $0.reason.contains("Permission denied") }, "\(s.failures)")
        XCTAssertTrue(s.failures.contains { $0.source.hasSuffix("md/.Sent") && $0.reason.contains("Permission denied") }, "\(s.failures)")
    }

    /// A folder of .eml files that happens to hold a Maildir-like `new` (or `cur`) folder is still
    /// imported whole: the Maildir part is read as a Maildir, every other file as a message.
    func testAMaildirInsideATreeOfMessagesDoesNotHideTheRest() throws {
        try write(message(id: "a@x", subject: "one"), to: "tree/alice/inbox/1.eml")
        try write(message(id: "b@x", subject: "two"), to: "tree/alice/2.eml")
        try write(message(id: "c@x", subject: "three"), to: "tree/projects/new/1700000001.2.host")
        try write(message(id: "d@x", subject: "four"), to: "tree/projects/notes.eml")
        try write("3 V1700000000 N2 Gdeadbeef\n1 :2,S\n", to: "tree/projects/dovecot-uidlist")
        try write("", to: "tree/projects/maildirfolder")
        try write(message(id: "e@x", subject: "five"), to: "tree/projects/tmp/1700000009.1.host")
        try write(message(id: "f@x", subject: "six"), to: "tree/projects/archive/2019/1.eml")
        let s = try run("tree")
        XCTAssertEqual(s.kind, .directory)
        XCTAssertEqual([s.imported, s.failed], [5, 0], "\(s.failures)")
        let paths = try store.database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT e.messageId, f.path FROM emails e
                JOIN email_folders ef ON ef.emailId = e.id JOIN folders f ON f.id = ef.folderId
                """).reduce(into: [String: String]()) { $0[$1["messageId"]] = $1["path"] }
        }
        XCTAssertEqual(paths, ["a@x": "alice/inbox", "b@x": "alice", "c@x": "projects", "d@x": "projects",
                               "f@x": "projects/archive/2019"])
    }

    /// Spec 001 §5.2.4 through the whole import: "In-Reply-To: Message from miguel@… of …" (no
    /// brackets) from several people must not join their replies to Miguel's unrelated posts.
    func testProseInReplyToDoesNotJoinRepliesToOnePerson() throws {
        func post(_ id: String, from: String, subject: String, day: Int, inReplyTo: String? = nil) -> String {
            var s = "From \(from) Mon Jul  \(day) 12:00:00 1997\nMessage-ID: <\(id)>\nFrom: \(from)\n"
            s += "Subject: \(subject)\nDate: \(day) Jul 1997 12:00:00 -0500\n"
            if let inReplyTo { s += "In-Reply-To: \(inReplyTo)\n" }
            return s + "\nText of \(id).\n\n"
        }
        let mbox = post("p1@nuclecu", from: "miguel@nuclecu.unam.mx", subject: "Layout engine", day: 1)
            + post("p2@nuclecu", from: "miguel@nuclecu.unam.mx", subject: "Font cache", day: 2)
            + post("p3@nuclecu", from: "miguel@nuclecu.unam.mx", subject: "CORBA bindings", day: 3)
            + post("r1@a", from: "ann@a.example", subject: "Re: Layout engine", day: 4,
                   inReplyTo: "Message from miguel@nuclecu.unam.mx of 1 Jul 1997 12:00:00 CDT")
            + post("r2@b", from: "bob@b.example", subject: "Re: Font cache", day: 5,
                   inReplyTo: "Message from miguel@nuclecu.unam.mx of 2 Jul 1997 12:00:00 CDT")
            + post("r3@c", from: "cy@c.example", subject: "Re: CORBA bindings", day: 6,
                   inReplyTo: "miguel@nuclecu.unam.mx's message of Thu, 3 Jul 1997 12:00:00 -0500")
            + post("r4@d", from: "dee@d.example", subject: "Re: Layout engine", day: 7, inReplyTo: "r1@a")
        try write(mbox, to: "old-list.mbox")
        let s = try run("old-list.mbox")
        XCTAssertEqual([s.imported, s.failed], [7, 0])
        let thread = try store.database.read { db in
            try Row.fetchAll(db, sql: "SELECT messageId, threadId FROM emails")
                .reduce(into: [String: Int64]()) { $0[$1["messageId"]] = $1["threadId"] }
        }
        XCTAssertEqual(thread["r1@a"], thread["p1@nuclecu"])
        XCTAssertEqual(thread["r4@d"], thread["p1@nuclecu"], "a bare Message-ID still links")
        XCTAssertEqual(thread["r2@b"], thread["p2@nuclecu"])
        XCTAssertEqual(thread["r3@c"], thread["p3@nuclecu"])
        XCTAssertEqual(Set(thread.values).count, 3)
    }

    func testAMissingPathSaysWhatToDo() {
        XCTAssertThrowsError(try run("does-not-exist")) { error in
            XCTAssertTrue("\(error)".contains("does-not-exist"))
            XCTAssertTrue("\(error)".contains("mbox"))
        }
    }

    /// The usrp-users sample: every message imports; threads equal References/In-Reply-To
    /// connectivity, except where the subject fallback joined messages that carry no such header.
    func testUsrpSampleImportsAndThreadsFollowReferences() throws {
        let mbox = Self.packageRoot.appendingPathComponent("corpora/usrp-users.mbox")
        guard FileManager.default.fileExists(atPath: mbox.path) else { throw XCTSkip("corpora not unpacked (make corpora)") }
        let s = try ImportPipeline(store: store, accountName: "usrp").run(path: mbox.path)
        XCTAssertEqual(s.imported, 3000)
        XCTAssertEqual(s.failed, 0)

        // Union-find over Message-IDs from the parser, independent of the store's threading.
        var parent: [String: String] = [:]
        func find(_ x: String) -> String {
            var r = x
            while let p = parent[r], p != r { r = p }
            var c = x
            while let p = parent[c], p != r { parent[c] = r; c = p }
            return r
        }
        func union(_ a: String, _ b: String) {
            if parent[a] == nil { parent[a] = a }
            if parent[b] == nil { parent[b] = b }
            let ra = find(a), rb = find(b)
            if ra != rb { parent[ra] = rb }
        }
        var hasRefs: [String: Bool] = [:]
        for m in try MboxReader(path: mbox.path) {
            let p = MIMEParser.parse(m.bytes)
            guard let id = p.messageId else { continue }
            union(id, id)
            for r in p.inReplyTo + p.references { union(id, r) }
            hasRefs[id] = !(p.inReplyTo.isEmpty && p.references.isEmpty)
        }
        let rows = try store.database.read { db in
            try Row.fetchAll(db, sql: "SELECT messageId, threadId FROM emails WHERE messageIdIsSynthetic = 0")
        }
        var threadOfComponent: [String: Int64] = [:]
        var componentsOfThread: [Int64: Set<String>] = [:]
        for row in rows {
            let id: String = row["messageId"]
            let thread: Int64 = row["threadId"]
            let component = find(id)
            if let t = threadOfComponent[component] {
                XCTAssertEqual(t, thread, "messages linked by References must share a thread (\(id))")
            }
            threadOfComponent[component] = thread
            componentsOfThread[thread, default: []].insert(component)
        }
        // A thread holding several reference components was joined by the subject fallback,
        // which only messages without References/In-Reply-To may trigger.
        for (thread, components) in componentsOfThread where components.count > 1 {
            let members = rows.filter { ($0["threadId"] as Int64) == thread }.map { $0["messageId"] as String }
            XCTAssertTrue(members.contains { hasRefs[$0] == false }, "thread \(thread) merged without a subject-fallback message")
        }
    }
}
