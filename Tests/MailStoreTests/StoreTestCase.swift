import Foundation
import MailModel
import MailStore
import XCTest

/// Gives every test its own temporary data directory and store.
class StoreTestCase: XCTestCase {
    var directory: URL!
    var store: MailStore!
    var accountId: Int64 = 0

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("mailstore-\(UUID().uuidString)")
        store = try MailStore(directory: DataDirectory(url: directory))
        accountId = try store.account(named: "test").id
    }

    override func tearDownWithError() throws {
        store = nil
        try? FileManager.default.removeItem(at: directory)
    }

    static let day: TimeInterval = 24 * 3600
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    func mail(_ id: String, subject: String = "Hello", inReplyTo: String? = nil, references: [String] = [],
              from: String = "a@example.com", day: Double = 0, read: Bool = true, folders: [String] = ["Inbox"]) -> IncomingEmail {
        IncomingEmail(
            email: Email(accountId: accountId, messageId: id, inReplyTo: inReplyTo, references: references,
                         from: Address(name: nil, email: from), to: [Address(email: "me@example.com")],
                         subject: subject, bodyPlain: "body of \(id)", snippet: "body of \(id)",
                         dateSent: Self.t0.addingTimeInterval(day * Self.day), isRead: read),
            folders: folders.map { FolderSpec(path: $0) })
    }

    @discardableResult
    func ingest(_ items: IncomingEmail...) throws -> IngestResult {
        try store.ingest(items, accountId: accountId)
    }

    func threadId(of messageId: String) throws -> Int64? {
        try store.database.read { db in
            try Int64.fetchOne(db, sql: "SELECT threadId FROM emails WHERE messageId = ?", arguments: [messageId])
        }
    }
}

import GRDB
