import Foundation
import GRDB
import MailModel
import MailStore
import XCTest

/// Mailbox actions in mail.sqlite and the outbox they queue, without a server: what changes
/// locally, which operations are queued (and which not), and that finishing an operation twice
/// records its result once.
final class MailboxActionStoreTests: StoreTestCase {
    /// An IMAP account whose INBOX, Archive and Trash were synced, with `ids` in INBOX at UIDs 1….
    func imapAccount(_ ids: [String], read: Bool = false) throws -> (account: Int64, emails: [String: Int64], folders: [String: Int64]) {
        let account = try store.addIMAPAccount(named: "work", email: "me@example.com",
                                               settings: IMAPAccountSettings(host: "imap.example.com", port: 993, security: "tls", username: "me"))
        accountId = account.id
        var folders: [String: Int64] = [:]
        for (path, type) in [("INBOX", FolderType.inbox), ("Archive", .archive), ("Trash", .trash), ("Projects", .custom)] {
            let id = try store.ensureFolder(accountId: account.id, path: path, name: path, type: type)
            try store.saveIMAPFolderState(IMAPFolderState(folderId: id, path: path, mailbox: Array(path.utf8), uidValidity: 7,
                                                          uidNext: 100, highestModSeq: 50, lastSyncDate: nil))
            folders[path] = id
        }
        try store.ingest(ids.enumerated().map { i, id in mail(id, subject: "Topic", references: i == 0 ? [] : [ids[0]], day: Double(i), read: read, folders: ["INBOX"]) },
                         accountId: account.id)
        let emails = try store.emailIds(accountId: account.id, messageIds: ids)
        try store.recordIMAPMessages(folderId: folders["INBOX"]!, ids.enumerated().map { i, id in
            IMAPMessageLink(uid: UInt32(i + 1), emailId: emails[id]!, flags: MessageFlags(isRead: read, isStarred: false, isDraft: false))
        })
        return (account.id, emails, folders)
    }

    func linkedFolders(of emailId: Int64) throws -> [String] {
        try store.database.read { db in
            try String.fetchAll(db, sql: "SELECT f.path FROM email_folders ef JOIN folders f ON f.id = ef.folderId WHERE ef.emailId = ? ORDER BY f.path",
                                arguments: [emailId])
        }
    }

    func unreadCount(thread emailId: Int64) throws -> Int {
        try store.database.read { db in
            try Int.fetchOne(db, sql: "SELECT t.unreadCount FROM threads t JOIN emails e ON e.threadId = t.id WHERE e.id = ?", arguments: [emailId]) ?? -1
        }
    }

    func testFlagActionsChangeMailAndThreadCountsAndQueueOneStorePerServerCopy() throws {
        let (account, emails, _) = try imapAccount(["<a@x>", "<b@x>"])
        let a = emails["<a@x>"]!, b = emails["<b@x>"]!
        XCTAssertEqual(try unreadCount(thread: a), 2)
        let outcome = try store.perform(.markRead, emailIds: [a, b])
        XCTAssertEqual(outcome.changed, [a, b])
        XCTAssertEqual(outcome.queued, 2)
        XCTAssertEqual(try unreadCount(thread: a), 0)
        XCTAssertEqual(try store.email(id: a)?.email.isRead, true)
        let ops = try store.pendingOutbox(accountId: account)
        XCTAssertEqual(ops.map(\.kind), [.store, .store])
        XCTAssertEqual(ops.map(\.uid), [1, 2])
        XCTAssertEqual(ops.map(\.add.isRead), [true, true])
        XCTAssertEqual(ops.map(\.uidValidity), [7, 7])
        // Read again: nothing changes, but the server copies still unread are asked again.
        XCTAssertEqual(try store.perform(.markRead, emailIds: [a]).changed, [])
        // Starring queues +\Flagged; unstarring what is not starred on the server queues nothing.
        XCTAssertEqual(try store.perform(.star, emailIds: [a]).queued, 1)
        XCTAssertEqual(try store.perform(.unstar, emailIds: [b]).queued, 0)
    }

    func testFinishingAnOperationTwiceRecordsItOnce() throws {
        let (account, emails, folders) = try imapAccount(["<a@x>"])
        let a = emails["<a@x>"]!
        _ = try store.perform(.star, emailIds: [a])
        let op = try XCTUnwrap(store.pendingOutbox(accountId: account).first)
        let flags = MessageFlags(isRead: false, isStarred: true, isDraft: false)
        try store.finishOutbox(op, .stored(flags: flags, modSeq: 60))
        try store.finishOutbox(op, .conflict(serverFlags: MessageFlags(isRead: true, isStarred: false, isDraft: false), modSeq: 70))
        XCTAssertTrue(try store.pendingOutbox(accountId: account).isEmpty)
        XCTAssertEqual(try store.imapFlags(folderId: folders["INBOX"]!, uid: 1), flags, "the second finish changed nothing")
        XCTAssertEqual(try store.email(id: a)?.email.isStarred, true)
        XCTAssertEqual(try store.knownModSeq(folderId: folders["INBOX"]!, uid: 1), 60, "the server's MODSEQ of our own change")
        let counts = try XCTUnwrap(store.outboxCounts().first)
        XCTAssertEqual([counts.pending, counts.done, counts.conflicts], [0, 1, 0])
    }

    func testAConflictKeepsTheServersFlags() throws {
        let (account, emails, folders) = try imapAccount(["<a@x>"])
        let a = emails["<a@x>"]!
        _ = try store.perform(.star, emailIds: [a])
        let op = try XCTUnwrap(store.pendingOutbox(accountId: account).first)
        XCTAssertTrue(try store.finishOutbox(op, .conflict(serverFlags: MessageFlags(isRead: true, isStarred: false, isDraft: false), modSeq: 70)))
        let email = try XCTUnwrap(store.email(id: a)).email
        XCTAssertEqual([email.isRead, email.isStarred], [true, false])
        XCTAssertEqual(try store.imapFlags(folderId: folders["INBOX"]!, uid: 1)?.isRead, true)
        XCTAssertEqual(try unreadCount(thread: a), 0)
        XCTAssertEqual(try store.outboxCounts().first?.conflicts, 1)
    }

    func testArchiveMoveAndDeleteChangeFolderLinksAndQueueMoves() throws {
        let (account, emails, folders) = try imapAccount(["<a@x>", "<b@x>", "<c@x>"])
        let a = emails["<a@x>"]!, b = emails["<b@x>"]!, c = emails["<c@x>"]!
        XCTAssertEqual(try store.perform(.archive, emailIds: [a]).folders, ["Archive"])
        XCTAssertEqual(try linkedFolders(of: a), ["Archive"])
        // Archiving again (no longer in the Inbox) does nothing.
        XCTAssertEqual(try store.perform(.archive, emailIds: [a]).queued, 0)
        _ = try store.perform(.move(to: "Projects"), emailIds: [b])
        XCTAssertEqual(try linkedFolders(of: b), ["Projects"])
        XCTAssertThrowsError(try store.perform(.move(to: "Nowhere"), emailIds: [b]))
        _ = try store.perform(.delete, emailIds: [c])
        XCTAssertEqual(try linkedFolders(of: c), ["Trash"])
        let ops = try store.pendingOutbox(accountId: account)
        XCTAssertEqual(ops.map(\.kind), [.move, .move, .move])
        XCTAssertEqual(ops.map(\.targetPath), ["Archive", "Projects", "Trash"])
        XCTAssertEqual(ops.map(\.targetFolderId), [folders["Archive"], folders["Projects"], folders["Trash"]])
        XCTAssertEqual(ops.map(\.folderId), Array(repeating: folders["INBOX"]!, count: 3))

        // The move done with COPYUID: the source UID is forgotten, the target's recorded.
        try store.finishOutbox(ops[0], .moved(targetUIDValidity: 7, targetUID: 31))
        XCTAssertEqual(try store.imapMessages(folderId: folders["Archive"]!)[31]?.emailId, a)
        XCTAssertNil(try store.imapMessages(folderId: folders["INBOX"]!)[1])
        // Another UIDVALIDITY in the answer: the target UID is not trusted (the next sync links it).
        try store.finishOutbox(ops[1], .moved(targetUIDValidity: 8, targetUID: 5))
        XCTAssertTrue(try store.imapMessages(folderId: folders["Projects"]!).isEmpty)
    }

    func testDeletingFromTheTrashDeletesForGoodAndQueuesAnExpunge() throws {
        let (account, emails, folders) = try imapAccount(["<a@x>"])
        let a = emails["<a@x>"]!
        _ = try store.perform(.delete, emailIds: [a])
        try store.finishOutbox(XCTUnwrap(store.pendingOutbox(accountId: account).first), .moved(targetUIDValidity: 7, targetUID: 9))
        XCTAssertEqual(try linkedFolders(of: a), ["Trash"])
        XCTAssertEqual(try store.imapMessages(folderId: folders["Trash"]!)[9]?.emailId, a)
        let outcome = try store.perform(.delete, emailIds: [a])
        XCTAssertEqual(outcome.deletedForGood, [a])
        let op = try XCTUnwrap(store.pendingOutbox(accountId: account).first)
        XCTAssertEqual(op.kind, .expunge)
        XCTAssertEqual(op.uid, 9)
        XCTAssertEqual(op.folderId, folders["Trash"]!)
    }

    func testMailImportedFromFilesChangesLocallyOnly() throws {
        try ingest(mail("<l@x>", read: false, folders: ["INBOX"]))
        let id = try XCTUnwrap(store.emailIds(accountId: accountId, messageIds: ["<l@x>"])["<l@x>"])
        XCTAssertEqual(try store.perform(.markRead, emailIds: [id]).queued, 0)
        let archived = try store.perform(.archive, emailIds: [id])
        XCTAssertEqual(archived.folders, ["Archive"], "a local Archive folder is made")
        XCTAssertEqual(archived.queued, 0)
        XCTAssertEqual(try linkedFolders(of: id), ["Archive"])
        XCTAssertEqual(try store.perform(.delete, emailIds: [id]).deletedForGood, [])
        XCTAssertEqual(try linkedFolders(of: id), ["Trash"])
        XCTAssertEqual(try store.perform(.delete, emailIds: [id]).deletedForGood, [id])
        XCTAssertTrue(try store.outboxCounts().isEmpty)
    }
}
