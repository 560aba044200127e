import Foundation

/// Where one account's sync stands: the state machine of spec 001 §5.2.2 with its progress.
/// `GET /api/status` and `mailsearch sync` show it; the sync engine writes it.
public struct SyncStatus: Sendable, Codable, Hashable {
    public enum State: String, Sendable, Codable, Hashable {
        case idle, connecting, authenticating, syncingFolders, syncingHeaders, syncingBodies, indexing, listening, error
    }

    public var account: String
    public var state: State
    /// The folder being synced, when one is.
    public var folder: String?
    /// Messages fetched in this pass, and how many the pass has to fetch in all (when known).
    public var messagesDone: Int
    public var messagesTotal: Int?
    /// Messages per second over this pass so far.
    public var messagesPerSecond: Double?
    /// When the last whole pass over the account's folders finished.
    public var lastSync: Date?
    /// Why the last attempt failed (no secrets, no mail content); nil after a success.
    public var lastError: String?
    /// When the next attempt starts, after an error.
    public var nextAttempt: Date?

    public init(account: String, state: State = .idle, folder: String? = nil, messagesDone: Int = 0,
                messagesTotal: Int? = nil, messagesPerSecond: Double? = nil, lastSync: Date? = nil,
                lastError: String? = nil, nextAttempt: Date? = nil) {
        self.account = account
        self.state = state
        self.folder = folder
        self.messagesDone = messagesDone
        self.messagesTotal = messagesTotal
        self.messagesPerSecond = messagesPerSecond
        self.lastSync = lastSync
        self.lastError = lastError
        self.nextAttempt = nextAttempt
    }
}
