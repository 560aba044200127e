import Foundation

/// A mail account: a source of mail (an IMAP server, or a set of imported files).
public struct Account: Hashable, Sendable, Codable, Identifiable {
    public var id: Int64
    /// The account's name as the user typed it ("work", "me@example.com"); unique.
    public var name: String
    /// The account's own address, when known.
    public var email: String?
    public var displayName: String?
    public var imapHost: String?
    public var imapPort: Int?
    public var lastSyncDate: Date?
    public var isActive: Bool
    public var createdAt: Date
    /// New mail is sent from this account unless another is chosen (one account at most).
    public var isDefaultSender: Bool

    public init(
        id: Int64, name: String, email: String? = nil, displayName: String? = nil,
        imapHost: String? = nil, imapPort: Int? = nil, lastSyncDate: Date? = nil,
        isActive: Bool = true, createdAt: Date = Date(), isDefaultSender: Bool = false
    ) {
        self.id = id; self.name = name; self.email = email; self.displayName = displayName
        self.imapHost = imapHost; self.imapPort = imapPort; self.lastSyncDate = lastSyncDate
        self.isActive = isActive; self.createdAt = createdAt; self.isDefaultSender = isDefaultSender
    }
}
