import Foundation

/// A correspondent seen in From/To/Cc headers of an account's mail (spec 001 §5.5.4).
public struct Contact: Hashable, Sendable, Codable {
    public var accountId: Int64
    /// Lower-cased address; unique per account.
    public var email: String
    public var displayName: String?
    public var lastSeen: Date?
    /// How many messages this address appeared in.
    public var frequency: Int

    public init(accountId: Int64, email: String, displayName: String?, lastSeen: Date?, frequency: Int) {
        self.accountId = accountId; self.email = email; self.displayName = displayName
        self.lastSeen = lastSeen; self.frequency = frequency
    }
}
