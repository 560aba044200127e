import IMAPProtocol
import MailModel

/// A folder as the server lists it, with the path and role it gets locally.
struct ServerFolder: Sendable, Hashable {
    var mailbox: IMAPMailboxName
    /// The local path: the decoded name with the server's hierarchy delimiter written as `/`,
    /// as a Maildir import of the same folders names them (`Archive/2024`).
    var path: String
    var type: FolderType
    var specialUse: IMAPSpecialUse?
    /// What LIST-STATUS said of it, when the server offers that.
    var status: IMAPMailboxStatus?

    init(_ entry: IMAPListEntry) {
        mailbox = entry.mailbox
        let name = entry.mailbox.isInbox ? "INBOX" : entry.mailbox.name
        if let delimiter = entry.delimiter, delimiter != "/" {
            path = String(name.map { $0 == delimiter ? "/" : $0 })
        } else {
            path = name
        }
        specialUse = entry.specialUse
        type = Self.type(specialUse: entry.specialUse, path: path, isInbox: entry.mailbox.isInbox)
    }

    /// RFC 6154's roles as folder types; a folder without one is guessed from its name.
    static func type(specialUse: IMAPSpecialUse?, path: String, isInbox: Bool) -> FolderType {
        if isInbox { return .inbox }
        switch specialUse {
        case .sent: return .sent
        case .drafts: return .drafts
        case .trash: return .trash
        case .junk: return .spam
        case .all, .archive: return .archive
        case .flagged: return .starred
        case .important, nil: return FolderType.guess(fromName: path)
        }
    }
}
