import Foundation
import GRDB
import MailModel
@testable import MailStore
import XCTest

/// The migration `v-smtp-accounts`: an IMAP account may name the SMTP server that sends its mail;
/// accounts saved before keep every setting and have none.
final class SMTPAccountMigrationTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("mailstore-smtp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func testAnAccountSavedBeforeTheMigrationKeepsItsSettingsAndHasNoSMTPServer() throws {
        let queue = try DatabaseQueue(path: directory.appendingPathComponent("mail.sqlite").path)
        try MailSchema.migrator().migrate(queue, upTo: "v-categories")
        try queue.write { db in
            try db.execute(sql: "INSERT INTO accounts (id, name, email, createdAt) VALUES (1, 'work', 'me@example.com', 0)")
            try db.execute(sql: """
                INSERT INTO imap_accounts (accountId, host, port, security, username, passwordCommand, syncWindowDays)
                VALUES (1, 'imap.example.com', 993, 'tls', 'me@example.com', 'pass show work', 30)
                """)
        }
        try queue.close()
        let store = try MailStore(directory: DataDirectory(url: directory))
        let accounts = try store.imapAccounts()
        XCTAssertEqual(accounts.count, 1)
        let (account, settings) = try XCTUnwrap(accounts.first)
        XCTAssertEqual(account.name, "work")
        XCTAssertEqual(settings, IMAPAccountSettings(host: "imap.example.com", port: 993, security: "tls", username: "me@example.com",
                                                     passwordCommand: "pass show work", syncWindowDays: 30))
        XCTAssertNil(settings.smtpHost)
    }

    func testTheSMTPServerIsStoredWithTheAccount() throws {
        let store = try MailStore(directory: DataDirectory(url: directory))
        let settings = IMAPAccountSettings(host: "imap.example.com", port: 993, security: "tls", username: "me@example.com",
                                           passwordEnvironment: "PW", smtpHost: "smtp.example.com", smtpPort: 587, smtpSecurity: "startTLS")
        _ = try store.addIMAPAccount(named: "work", email: "me@example.com", settings: settings)
        XCTAssertEqual(try store.imapAccounts().map(\.settings), [settings])
    }
}
