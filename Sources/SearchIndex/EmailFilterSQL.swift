import Foundation
import GRDB
import MailModel

/// The SQL condition for structured filters and scope (FR-SEARCH-02/03), over `emails AS e`.
/// Scope and folders are applied through the email↔folder link, never through FTS5, so a
/// message in Inbox and Archive is found in both and not in Drafts (AC-S-04).
public struct EmailFilterSQL: Sendable {
    /// The condition ("1" when there is nothing to filter).
    public var condition: String
    public var arguments: StatementArguments

    /// The mail tables are read through `search.sqlite`'s connection, where mail.sqlite is attached as `mail`.
    public init(filters: SearchFilters, scope: SearchScope) {
        let schema = "mail."
        var parts: [String] = []
        var args: [(any DatabaseValueConvertible)?] = []
        func like(_ s: String) -> String {
            "%" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                .replacingOccurrences(of: "_", with: "\\_") + "%"
        }
        if let sender = filters.sender?.trimmingCharacters(in: .whitespaces), !sender.isEmpty {
            // The email's own From name or address. Addresses are found through the contacts
            // (one row per address) and an index on lower(fromEmail): no scan of all mail,
            // whatever its size. The unary + drops the column's TEXT affinity, without which
            // SQLite cannot probe an expression index from a subquery. A contact's display name
            // stands for mail that has no From name of its own; mail with a name of its own
            // ("Jane Doe via USRP-users" from the list's address) matches by that name, found
            // by scanning the partial index on fromName (`IS NOT NULL` lets SQLite use it)
            // rather than the emails.
            let pattern = like(sender)
            parts.append("""
                ((lower(e.fromEmail) IN (SELECT +c.email FROM \(schema)contacts c
                                         WHERE c.email LIKE ? ESCAPE '\\' OR c.displayName LIKE ? ESCAPE '\\')
                  AND (e.fromEmail LIKE ? ESCAPE '\\' OR COALESCE(e.fromName, '') = ''))
                 OR e.id IN (SELECT n.id FROM \(schema)emails n WHERE n.fromName IS NOT NULL AND n.fromName LIKE ? ESCAPE '\\'))
                """)
            args += [pattern, pattern, pattern, pattern]
        }
        if let recipient = filters.recipient?.trimmingCharacters(in: .whitespaces), !recipient.isEmpty {
            parts.append("(e.toAddresses LIKE ? ESCAPE '\\' OR e.ccAddresses LIKE ? ESCAPE '\\' OR e.bccAddresses LIKE ? ESCAPE '\\')")
            args += [like(recipient), like(recipient), like(recipient)]
        }
        if let subject = filters.subject?.trimmingCharacters(in: .whitespaces), !subject.isEmpty {
            parts.append("e.subject LIKE ? ESCAPE '\\'")
            args.append(like(subject))
        }
        if let range = filters.dateRange {
            if let start = range.start {
                parts.append("e.sortDate >= ?")
                args.append(start.timeIntervalSince1970)
            }
            if let end = range.end {
                parts.append("e.sortDate < ?")
                args.append(end.timeIntervalSince1970)
            }
        }
        if let has = filters.hasAttachment {
            parts.append("e.hasAttachment = ?")
            args.append(has)
        }
        if let type = filters.attachmentType?.lowercased(), !type.isEmpty {
            parts.append("""
                EXISTS (SELECT 1 FROM \(schema)attachments a WHERE a.emailId = e.id
                        AND (a.mimeType LIKE ? ESCAPE '\\' OR lower(a.filename) LIKE ? ESCAPE '\\'))
                """)
            args += [like(type), "%." + type]
        }
        if let folder = filters.folder?.lowercased(), !folder.isEmpty {
            let type = FolderType(rawValue: folder) ?? FolderType.guess(fromName: folder)
            parts.append("""
                EXISTS (SELECT 1 FROM \(schema)email_folders ef JOIN \(schema)folders f ON f.id = ef.folderId
                        WHERE ef.emailId = e.id AND (lower(f.name) = ? OR lower(f.path) = ? OR f.folderType = ?))
                """)
            args += [folder, folder, type == .custom ? "-" : type.rawValue]
        }
        if let category = filters.category {
            parts.append("e.category = ?")
            args.append(category.rawValue)
        }
        if let read = filters.isRead {
            parts.append("e.isRead = ?")
            args.append(read)
        }
        if let starred = filters.isStarred {
            parts.append("e.isStarred = ?")
            args.append(starred)
        }
        if case .currentFolder(let folderId) = scope {
            parts.append("EXISTS (SELECT 1 FROM \(schema)email_folders sf WHERE sf.emailId = e.id AND sf.folderId = ?)")
            args.append(folderId)
        }
        condition = parts.isEmpty ? "1" : parts.joined(separator: " AND ")
        arguments = StatementArguments(args.map { $0?.databaseValue ?? .null })
    }

    public var isEmpty: Bool { condition == "1" }
}
