/// What a user does to mail (spec 001, "act on mail"): flags, archive, move, delete.
public enum MailboxAction: Sendable, Hashable {
    case markRead, markUnread, star, unstar
    /// Out of the Inbox, into the account's archive folder.
    case archive
    /// Out of every other folder, into the account's folder of this path (or name).
    case move(to: String)
    /// Into the account's Trash; mail that is only in the Trash is deleted for good.
    case delete

    /// The action's name on the command line and in the API.
    public var name: String {
        switch self {
        case .markRead: "read"
        case .markUnread: "unread"
        case .star: "star"
        case .unstar: "unstar"
        case .archive: "archive"
        case .move: "move"
        case .delete: "delete"
        }
    }
}
