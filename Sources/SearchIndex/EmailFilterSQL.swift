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
        func like(_ s: String) -> String { Self.containsPattern(s) }
        if let sender = filters.sender?.trimmingCharacters(in: .whitespaces), !sender.isEmpty {
            // Resolved through the contacts (every From address, with its display name), then an
            // index on lower(fromEmail): no scan of all mail, whatever its size. The unary + drops
            // the column's TEXT affinity, without which SQLite cannot probe an expression index
            // from a subquery and scans every email instead (20 ms at 45K emails).
            parts.append("""
                lower(e.fromEmail) IN (SELECT +c.email FROM \(schema)contacts c
                                       WHERE c.email LIKE ? ESCAPE '\\' OR c.displayName LIKE ? ESCAPE '\\')
                """)
            args += [like(sender), like(sender)]
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
            // IN (subquery) rather than EXISTS per email: SQLite runs the subquery once and probes
            // its result, so a filter costs what the matching rows cost, not a probe per email.
            let ids = Self.attachmentTypeEmailIds(type)
            parts.append("e.id IN (\(ids.sql))")
            args += ids.arguments.map { $0 }
        }
        if let folder = filters.folder?.lowercased(), !folder.isEmpty {
            let ids = Self.folderEmailIds(folder)
            parts.append("e.id IN (\(ids.sql))")
            args += ids.arguments.map { $0 }
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
            let ids = Self.folderEmailIds(folderId: folderId)
            parts.append("e.id IN (\(ids.sql))")
            args += ids.arguments.map { $0 }
        }
        condition = parts.isEmpty ? "1" : parts.joined(separator: " AND ")
        arguments = StatementArguments(args.map { $0?.databaseValue ?? .null })
    }

    public var isEmpty: Bool { condition == "1" }

    /// A LIKE pattern (with `ESCAPE '\\'`) for text containing `s`.
    static func containsPattern(_ s: String) -> String {
        "%" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
    }

    /// A query for the ids of the emails in a folder or label named `folder` (name, path or type),
    /// read from the email↔folder link by its folder index.
    public static func folderEmailIds(_ folder: String) -> (sql: String, arguments: [any DatabaseValueConvertible]) {
        let name = folder.lowercased()
        let type = FolderType(rawValue: name) ?? FolderType.guess(fromName: name)
        return ("""
            SELECT ef.emailId FROM mail.email_folders ef WHERE ef.folderId IN
                (SELECT f.id FROM mail.folders f WHERE lower(f.name) = ? OR lower(f.path) = ? OR f.folderType = ?)
            """, [name, name, type == .custom ? "-" : type.rawValue])
    }

    /// A query for the ids of the emails in the folder with id `folderId`.
    public static func folderEmailIds(folderId: Int64) -> (sql: String, arguments: [any DatabaseValueConvertible]) {
        ("SELECT sf.emailId FROM mail.email_folders sf WHERE sf.folderId = ?", [folderId])
    }

    /// A query for the ids of the emails with an attachment of MIME type or extension `type`.
    public static func attachmentTypeEmailIds(_ type: String) -> (sql: String, arguments: [any DatabaseValueConvertible]) {
        let type = type.lowercased()
        let pattern = containsPattern(type)
        return ("""
            SELECT a.emailId FROM mail.attachments a
            WHERE a.mimeType LIKE ? ESCAPE '\\' OR lower(a.filename) LIKE ? ESCAPE '\\'
            """, [pattern, "%." + type])
    }
}
