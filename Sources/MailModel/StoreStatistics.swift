import Foundation

/// Counts and sizes for `mailsearch stats`.
public struct StoreStatistics: Sendable, Codable, Hashable {
    public var accounts, folders, emails, threads, contacts, folderLinks, attachments: Int
    public var emailsWithAttachments, unread, emailsWithDate: Int
    public var oldest, newest: Date?
    public var mailDatabaseBytes, searchDatabaseBytes: Int64

    public init(accounts: Int, folders: Int, emails: Int, threads: Int, contacts: Int, folderLinks: Int, attachments: Int,
                emailsWithAttachments: Int, unread: Int, emailsWithDate: Int, oldest: Date?, newest: Date?,
                mailDatabaseBytes: Int64, searchDatabaseBytes: Int64) {
        self.accounts = accounts; self.folders = folders; self.emails = emails; self.threads = threads
        self.contacts = contacts; self.folderLinks = folderLinks; self.attachments = attachments
        self.emailsWithAttachments = emailsWithAttachments; self.unread = unread; self.emailsWithDate = emailsWithDate
        self.oldest = oldest; self.newest = newest
        self.mailDatabaseBytes = mailDatabaseBytes; self.searchDatabaseBytes = searchDatabaseBytes
    }
}
