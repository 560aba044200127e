import Foundation
import GRDB
import MailModel

/// The SQL condition for structured filters and scope (FR-SEARCH-02/03), over `mail.emails AS e`,
/// for a connection of `search.sqlite` (where `mail.sqlite` is attached as `mail` and `email_fts`
/// lives in `main`). Scope and folders are applied through the email↔folder link, never through
/// FTS5, so a message in Inbox and Archive is found in both and not in Drafts (AC-S-04).
///
/// Negated filters (`SearchFilters.excluded`) become `NOT COALESCE((…), 0)`, so that a column that
/// is NULL (no From name, no date) never hides a message from a negation; groups of alternatives
/// (`anyOf`) become ORs; words inside such groups (`SearchFilters.text`) become a membership test
/// in the keyword index.
public struct EmailFilterSQL: Sendable {
    /// The condition ("1" when there is nothing to filter).
    public var condition: String
    public var arguments: StatementArguments

    /// The mail tables are read through `search.sqlite`'s connection, where mail.sqlite is attached as `mail`.
    public init(filters: SearchFilters, scope: SearchScope) {
        var builder = Builder()
        var parts = builder.conditions(filters)
        if let emailIds = Self.scopeEmailIds(scope) {
            parts.append(builder.membership(emailIds))
        }
        condition = parts.isEmpty ? "1" : parts.joined(separator: " AND ")
        arguments = StatementArguments(builder.arguments.map { $0?.databaseValue ?? .null })
    }

    /// The filters and scope of `query`, plus its text's exclusions when the text has nothing to
    /// match (`-draft` alone: `FTS5QueryBuilder` gives no MATCH, only an exclusion). With a
    /// positive text the exclusions are already in the MATCH expression and nothing is added.
    public init(query: SearchQuery) {
        var filters = query.filters
        let text = FTS5QueryBuilder.query(for: query.text)
        if text.match == nil, text.exclusion != nil {
            filters.merge(SearchFilters(text: query.text))
        }
        self.init(filters: filters, scope: query.scope)
    }

    public var isEmpty: Bool { condition == "1" }

    /// The SQL pattern for a case-insensitive (ASCII) substring match with `ESCAPE '\'`.
    static func likePattern(_ s: String) -> String {
        "%" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
    }

    /// A query for the ids of the emails in a folder or label named `folder` (name, path or type),
    /// read from the email↔folder link by its folder index.
    public static func folderEmailIds(_ folder: String) -> (sql: String, arguments: [any DatabaseValueConvertible]) {
        let name = folder.lowercased()
        // A role by its name ("sent", "inbox", "junk"); a path ("allen-p/inbox") names one folder,
        // not every folder whose last part names a role.
        let isPath = name.contains { $0 == "/" || $0 == "." || $0 == "\\" }
        let type = FolderType(rawValue: name) ?? (isPath ? .custom : FolderType.guess(fromName: name))
        return ("""
            SELECT ef.emailId FROM mail.email_folders ef WHERE ef.folderId IN
                (SELECT f.id FROM mail.folders f WHERE lower(f.name) = ? OR lower(f.path) = ? OR f.folderType = ?)
            """, [name, name, type == .custom ? "-" : type.rawValue])
    }

    /// A query for the ids of the emails a scope keeps; nil for all mail.
    public static func scopeEmailIds(_ scope: SearchScope) -> (sql: String, arguments: [any DatabaseValueConvertible])? {
        switch scope {
        case .allMail:
            return nil
        case .currentFolder(let folderId):
            return folderEmailIds(folderId: folderId)
        case .account(let accountId):
            return ("SELECT se.id FROM mail.emails se WHERE se.accountId = ?", [accountId])
        case .inboxes:
            return ("""
                SELECT sf.emailId FROM mail.email_folders sf WHERE sf.folderId IN
                    (SELECT f.id FROM mail.folders f WHERE f.folderType = ?)
                """, [FolderType.inbox.rawValue])
        }
    }

    /// A query for the ids of the emails in the folder with id `folderId`.
    public static func folderEmailIds(folderId: Int64) -> (sql: String, arguments: [any DatabaseValueConvertible]) {
        ("SELECT sf.emailId FROM mail.email_folders sf WHERE sf.folderId = ?", [folderId])
    }

    /// What an attachment kind of the query language stands for (`has:spreadsheet`, "with slides"):
    /// exact MIME types, MIME type prefixes and filename extensions. A MIME type alone is not
    /// enough: mail often labels a file application/octet-stream and names it `budget.xlsx`.
    struct AttachmentKindPattern: Sendable {
        var mimeTypes: [String] = []
        var mimePrefixes: [String] = []
        var extensions: [String]
    }

    static let attachmentKinds: [String: AttachmentKindPattern] = {
        let word = ["application/msword", "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
                    "application/vnd.ms-word.document.macroenabled.12"]
        let excel = ["application/vnd.ms-excel", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                     "application/vnd.ms-excel.sheet.macroenabled.12"]
        let powerpoint = ["application/vnd.ms-powerpoint",
                          "application/vnd.openxmlformats-officedocument.presentationml.presentation"]
        let odt = "application/vnd.oasis.opendocument.text", ods = "application/vnd.oasis.opendocument.spreadsheet"
        let odp = "application/vnd.oasis.opendocument.presentation"
        return [
            "pdf": .init(mimeTypes: ["application/pdf", "application/x-pdf"], extensions: ["pdf"]),
            "document": .init(mimeTypes: word + [odt, "application/rtf", "text/rtf"],
                              extensions: ["doc", "docx", "docm", "dot", "dotx", "odt", "rtf", "pages"]),
            "spreadsheet": .init(mimeTypes: excel + [ods, "text/csv", "text/tab-separated-values"],
                                 extensions: ["xls", "xlsx", "xlsm", "xlsb", "ods", "csv", "tsv", "numbers"]),
            "presentation": .init(mimeTypes: powerpoint + [odp],
                                  extensions: ["ppt", "pptx", "pps", "ppsx", "odp", "key"]),
            "image": .init(mimePrefixes: ["image/"],
                           extensions: ["jpg", "jpeg", "png", "gif", "bmp", "tif", "tiff", "webp", "heic", "heif", "svg"]),
            "audio": .init(mimePrefixes: ["audio/"], extensions: ["mp3", "m4a", "wav", "ogg", "oga", "flac", "aac"]),
            "video": .init(mimePrefixes: ["video/"], extensions: ["mp4", "m4v", "mov", "avi", "mkv", "webm"]),
            "archive": .init(mimeTypes: ["application/zip", "application/x-zip-compressed", "application/x-tar",
                                         "application/gzip", "application/x-gzip", "application/x-7z-compressed",
                                         "application/x-rar-compressed", "application/vnd.rar"],
                             extensions: ["zip", "tar", "tgz", "gz", "7z", "rar", "bz2", "xz"]),
            "calendar": .init(mimeTypes: ["text/calendar", "application/ics"], extensions: ["ics", "ical", "vcs"]),
            // One format: its MIME types as well as its extension.
            "doc": .init(mimeTypes: ["application/msword"], extensions: ["doc"]),
            "docx": .init(mimeTypes: [word[1]], extensions: ["docx"]),
            "xls": .init(mimeTypes: [excel[0]], extensions: ["xls"]),
            "xlsx": .init(mimeTypes: [excel[1]], extensions: ["xlsx"]),
            "ppt": .init(mimeTypes: [powerpoint[0]], extensions: ["ppt"]),
            "pptx": .init(mimeTypes: [powerpoint[1]], extensions: ["pptx"]),
            "zip": .init(mimeTypes: ["application/zip", "application/x-zip-compressed"], extensions: ["zip"]),
            "jpg": .init(mimeTypes: ["image/jpeg", "image/pjpeg"], extensions: ["jpg", "jpeg"]),
            "csv": .init(mimeTypes: ["text/csv"], extensions: ["csv"]),
            "txt": .init(mimeTypes: ["text/plain"], extensions: ["txt", "text"]),
        ]
    }()

    /// A query for the ids of the emails with an attachment of kind `type` (`attachmentKinds`:
    /// "spreadsheet" is XLS, XLSX, ODS, CSV… by MIME type or by name), or else of any MIME type
    /// containing `type` or any filename ending in `.type` ("png", "ics", "msword").
    public static func attachmentTypeEmailIds(_ type: String) -> (sql: String, arguments: [any DatabaseValueConvertible]) {
        let type = type.lowercased()
        guard let kind = attachmentKinds[type == "jpeg" ? "jpg" : type] else {
            return ("""
                SELECT a.emailId FROM mail.attachments a
                WHERE a.mimeType LIKE ? ESCAPE '\\' OR lower(a.filename) LIKE ? ESCAPE '\\'
                """, [likePattern(type), "%." + type])
        }
        var conditions: [String] = []
        var arguments: [any DatabaseValueConvertible] = []
        if !kind.mimeTypes.isEmpty {
            conditions.append("lower(a.mimeType) IN (" + kind.mimeTypes.map { _ in "?" }.joined(separator: ", ") + ")")
            arguments += kind.mimeTypes
        }
        for prefix in kind.mimePrefixes {
            conditions.append("a.mimeType LIKE ?")
            arguments.append(prefix + "%")
        }
        for ext in kind.extensions {
            conditions.append("a.filename LIKE ?")
            arguments.append("%." + ext)
        }
        return ("SELECT a.emailId FROM mail.attachments a WHERE " + conditions.joined(separator: " OR "), arguments)
    }

    /// A query for the ids of the emails with an attachment whose filename contains `name`
    /// (case-insensitive for ASCII, as LIKE is).
    public static func attachmentNameEmailIds(_ name: String) -> (sql: String, arguments: [any DatabaseValueConvertible]) {
        ("SELECT a.emailId FROM mail.attachments a WHERE a.filename LIKE ? ESCAPE '\\'", [likePattern(name)])
    }

    private struct Builder {
        var arguments: [(any DatabaseValueConvertible)?] = []

        /// `e.id IN (subquery)`, its arguments appended.
        mutating func membership(_ ids: (sql: String, arguments: [any DatabaseValueConvertible])) -> String {
            arguments += ids.arguments.map { $0 }
            return "e.id IN (\(ids.sql))"
        }

        /// The conditions of `filters`, to be joined with AND; arguments are appended in order.
        mutating func conditions(_ filters: SearchFilters) -> [String] {
            var parts: [String] = []
            if let sender = filters.sender?.trimmingCharacters(in: .whitespaces), !sender.isEmpty {
                // The email's own From name or address. Addresses are found through the contacts
                // (one row per address) and an index on lower(fromEmail): no scan of all mail,
                // whatever its size. The unary + drops the column's TEXT affinity, without which
                // SQLite cannot probe an expression index from a subquery. A contact's display name
                // stands for mail that has no From name of its own; mail with a name of its own
                // ("Jane Doe via USRP-users" from the list's address) matches by that name, found
                // by scanning the partial index on fromName (`IS NOT NULL` lets SQLite use it)
                // rather than the emails.
                let pattern = EmailFilterSQL.likePattern(sender)
                parts.append("""
                    ((lower(e.fromEmail) IN (SELECT +c.email FROM mail.contacts c
                                             WHERE c.email LIKE ? ESCAPE '\\' OR c.displayName LIKE ? ESCAPE '\\')
                      AND (e.fromEmail LIKE ? ESCAPE '\\' OR COALESCE(e.fromName, '') = ''))
                     OR e.id IN (SELECT n.id FROM mail.emails n WHERE n.fromName IS NOT NULL AND n.fromName LIKE ? ESCAPE '\\'))
                    """)
                arguments += [pattern, pattern, pattern, pattern]
            }
            if let recipient = filters.recipient?.trimmingCharacters(in: .whitespaces), !recipient.isEmpty {
                let pattern = EmailFilterSQL.likePattern(recipient)
                parts.append("(e.toAddresses LIKE ? ESCAPE '\\' OR e.ccAddresses LIKE ? ESCAPE '\\' OR e.bccAddresses LIKE ? ESCAPE '\\')")
                arguments += [pattern, pattern, pattern]
            }
            if let subject = filters.subject?.trimmingCharacters(in: .whitespaces), !subject.isEmpty {
                parts.append("e.subject LIKE ? ESCAPE '\\'")
                arguments.append(EmailFilterSQL.likePattern(subject))
            }
            if let range = filters.dateRange {
                if let start = range.start {
                    parts.append("e.sortDate >= ?")
                    arguments.append(start.timeIntervalSince1970)
                }
                if let end = range.end {
                    parts.append("e.sortDate < ?")
                    arguments.append(end.timeIntervalSince1970)
                }
            }
            if let has = filters.hasAttachment {
                parts.append("e.hasAttachment = ?")
                arguments.append(has)
            }
            // Folders and attachment types as `e.id IN (subquery)` rather than EXISTS per email: SQLite
            // runs the subquery once, by its link table's index, and probes the result.
            if let type = filters.attachmentType?.lowercased(), !type.isEmpty {
                parts.append(membership(EmailFilterSQL.attachmentTypeEmailIds(type)))
            }
            if let name = filters.attachmentName, !name.isEmpty {
                parts.append(membership(EmailFilterSQL.attachmentNameEmailIds(name)))
            }
            if let minSize = filters.minSize {
                parts.append("e.sizeBytes >= ?")
                arguments.append(minSize)
            }
            if let maxSize = filters.maxSize {
                parts.append("e.sizeBytes < ?")
                arguments.append(maxSize)
            }
            if let folder = filters.folder?.lowercased(), !folder.isEmpty {
                parts.append(membership(EmailFilterSQL.folderEmailIds(folder)))
            }
            if let category = filters.category {
                parts.append("e.category = ?")
                arguments.append(category.rawValue)
            }
            if let read = filters.isRead {
                parts.append("e.isRead = ?")
                arguments.append(read)
            }
            if let starred = filters.isStarred {
                parts.append("e.isStarred = ?")
                arguments.append(starred)
            }
            if let text = filters.text {
                let compiled = FTS5QueryBuilder.query(for: text)
                if let match = compiled.match {
                    parts.append("e.id IN (SELECT rowid FROM main.email_fts WHERE email_fts MATCH ?)")
                    arguments.append(match)
                } else if let exclusion = compiled.exclusion {
                    parts.append("e.id NOT IN (SELECT rowid FROM main.email_fts WHERE email_fts MATCH ?)")
                    arguments.append(exclusion)
                }
            }
            for group in filters.anyOf {
                // An alternative that constrains nothing (a word with no letter or digit, an empty
                // group) is left out, as the keyword search leaves out such words.
                let alternatives = group.map { conditions($0) }.filter { !$0.isEmpty }.map {
                    $0.count == 1 ? $0[0] : "(" + $0.joined(separator: " AND ") + ")"
                }
                guard !alternatives.isEmpty else { continue }
                parts.append(alternatives.count == 1 ? alternatives[0] : "(" + alternatives.joined(separator: " OR ") + ")")
            }
            for exclusion in filters.excluded {
                let inner = conditions(exclusion)
                // Excluding "anything" would hide all mail; an empty exclusion is ignored instead.
                guard !inner.isEmpty else { continue }
                parts.append("NOT COALESCE((" + inner.joined(separator: " AND ") + "), 0)")
            }
            return parts
        }
    }
}
