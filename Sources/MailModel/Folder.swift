import Foundation

/// A folder or label of an account. One email can sit in several folders (Gmail labels).
public struct Folder: Hashable, Sendable, Codable, Identifiable {
    public var id: Int64
    public var accountId: Int64
    /// The folder's display name ("Inbox", "Projects/2024").
    public var name: String
    /// The folder's path at its source (IMAP path, directory path, Gmail label).
    public var path: String
    public var folderType: FolderType
    public var totalCount: Int
    public var unreadCount: Int
    public var lastSyncDate: Date?

    public init(
        id: Int64, accountId: Int64, name: String, path: String, folderType: FolderType,
        totalCount: Int = 0, unreadCount: Int = 0, lastSyncDate: Date? = nil
    ) {
        self.id = id; self.accountId = accountId; self.name = name; self.path = path
        self.folderType = folderType; self.totalCount = totalCount; self.unreadCount = unreadCount
        self.lastSyncDate = lastSyncDate
    }
}
