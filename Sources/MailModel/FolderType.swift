import Foundation

/// The role of a folder (spec 001 §4.3).
public enum FolderType: String, Sendable, Codable, CaseIterable {
    case inbox, sent, drafts, trash, spam, archive, starred, custom

    /// Guesses the role of a folder from its name or path ("INBOX", "Sent Items", "[Gmail]/Sent Mail", …).
    public static func guess(fromName name: String) -> FolderType {
        let last = name.split(whereSeparator: { $0 == "/" || $0 == "." || $0 == "\\" }).last.map(String.init) ?? name
        switch last.lowercased().trimmingCharacters(in: .whitespaces) {
        case "inbox": return .inbox
        case "sent", "sent mail", "sent items", "sent messages", "sent_items", "sent_mail": return .sent
        case "drafts", "draft": return .drafts
        case "trash", "deleted", "deleted items", "deleted messages", "bin", "deleted_items": return .trash
        case "spam", "junk", "junk e-mail", "junk mail", "junk file": return .spam
        case "archive", "archives", "all mail", "all_mail": return .archive
        case "starred", "flagged": return .starred
        default: return .custom
        }
    }
}
