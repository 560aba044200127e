import Foundation
import GRDB
import MailModel

/// `attachment_text`: the text read from each attachment (or why none was), so that the search
/// index, a cache, can be rebuilt from mail.sqlite with it. A row per attachment tried; an
/// attachment without a row is still to be read.
public enum AttachmentTextTable {
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE attachment_text (
                attachmentId INTEGER PRIMARY KEY REFERENCES attachments(id) ON DELETE CASCADE,
                emailId INTEGER NOT NULL REFERENCES emails(id) ON DELETE CASCADE,
                status TEXT NOT NULL,
                detail TEXT,
                text TEXT NOT NULL DEFAULT '',
                readAt REAL NOT NULL
            );
            CREATE INDEX attachment_text_email ON attachment_text(emailId);
            """)
    }

    /// What the index holds for an email's attachments: each one's name, then its text, in order
    /// (SQL over the tables of `schema`: `mail` in the index's connection, which attaches the mail,
    /// `main` in the mail's own; `e` is the email).
    public static func indexTextSQL(schema: String) -> String {
        """
        COALESCE((SELECT group_concat(part, char(10)) FROM (
                      SELECT COALESCE(a.filename, '') || char(10) || COALESCE(t.text, '') AS part
                      FROM \(schema).attachments a LEFT JOIN \(schema).attachment_text t ON t.attachmentId = a.id
                      WHERE a.emailId = e.id ORDER BY a.id)), '')
        """
    }
}

/// One attachment whose text is still to be read.
public struct PendingAttachment: Sendable, Hashable {
    public var id: Int64
    /// Its place among its email's attachments (the order `MIMEParser.attachmentContents` gives).
    public var position: Int
    public var filename: String?
    public var mimeType: String
    public var sizeBytes: Int
}

/// An email with attachments still to be read, and where its message is.
public struct EmailWithPendingAttachments: Sendable {
    public var emailId: Int64
    public var sourceRef: String?
    public var attachments: [PendingAttachment]
}

/// An attachment's text as stored, for showing where a search matched.
public struct StoredAttachmentText: Sendable, Hashable, Codable {
    public var attachmentId: Int64
    public var filename: String?
    public var status: String
    public var detail: String?
    public var text: String
}

/// How far reading attachments has got.
public struct AttachmentTextCounts: Sendable, Hashable, Codable {
    /// Attachments not read yet.
    public var pending: Int
    /// Read whole.
    public var read: Int
    /// Read in part (a cap was reached; `detail` says which).
    public var truncated: Int
    /// No text to read (images and other binary kinds).
    public var unsupported: Int
    /// Refused, failed or stopped: counted, and shown with the email.
    public var unreadable: Int
    /// Emails with attachments not read yet.
    public var pendingEmails: Int
}

extension MailStore {
    /// Emails with attachments not read yet, by id after `afterId`, at most `limit`.
    public func emailsWithPendingAttachments(afterId: Int64, limit: Int) throws -> [EmailWithPendingAttachments] {
        try database.read { db in
            let emailRows = try Row.fetchAll(db, sql: """
                SELECT DISTINCT e.id, e.sourceRef FROM attachments a JOIN emails e ON e.id = a.emailId
                LEFT JOIN attachment_text t ON t.attachmentId = a.id
                WHERE t.attachmentId IS NULL AND e.id > ? ORDER BY e.id LIMIT ?
                """, arguments: [afterId, limit])
            return try emailRows.map { row in
                let emailId: Int64 = row[0]
                let all = try Row.fetchAll(db, sql: """
                    SELECT a.id, a.filename, a.mimeType, a.sizeBytes, t.attachmentId IS NOT NULL
                    FROM attachments a LEFT JOIN attachment_text t ON t.attachmentId = a.id
                    WHERE a.emailId = ? ORDER BY a.id
                    """, arguments: [emailId])
                var pending: [PendingAttachment] = []
                for (position, a) in all.enumerated() where !(a[4] as Bool) {
                    pending.append(PendingAttachment(id: a[0], position: position, filename: a[1], mimeType: a[2], sizeBytes: a[3]))
                }
                return EmailWithPendingAttachments(emailId: emailId, sourceRef: row[1], attachments: pending)
            }
        }
    }

    /// Stores what reading attachments gave; returns the index text of each email touched
    /// (`AttachmentTextTable.indexTextSQL`, for the search index).
    @discardableResult
    public func saveAttachmentTexts(_ rows: [(attachmentId: Int64, emailId: Int64, status: String, detail: String?, text: String)])
        throws -> [Int64: String] {
        try database.write { db in
            let insert = try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO attachment_text (attachmentId, emailId, status, detail, text, readAt) VALUES (?, ?, ?, ?, ?, ?)
                """)
            let now = Date().timeIntervalSince1970
            for r in rows {
                // An email deleted meanwhile: nothing to store.
                guard try Bool.fetchOne(db, sql: "SELECT 1 FROM attachments WHERE id = ?", arguments: [r.attachmentId]) == true
                else { continue }
                // Text read again: the passages embedded from the old text go with it.
                try db.execute(sql: "DELETE FROM attachment_passages WHERE attachmentId = ?", arguments: [r.attachmentId])
                try insert.execute(arguments: [r.attachmentId, r.emailId, r.status, r.detail, r.text, now])
            }
            var out: [Int64: String] = [:]
            for emailId in Set(rows.map(\.emailId)) {
                out[emailId] = try Self.attachmentIndexText(emailId: emailId, db: db)
            }
            return out
        }
    }

    /// An email's attachments as the index holds them (`AttachmentTextTable.indexTextSQL`).
    static func attachmentIndexText(emailId: Int64, db: Database) throws -> String {
        try String.fetchOne(db, sql: "SELECT \(AttachmentTextTable.indexTextSQL(schema: "main")) FROM emails e WHERE e.id = ?",
                            arguments: [emailId]) ?? ""
    }

    /// The stored text of an email's attachments, in order (those not read yet have status "pending").
    public func attachmentTexts(emailId: Int64) throws -> [StoredAttachmentText] {
        try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT a.id, a.filename, COALESCE(t.status, 'pending'), t.detail, COALESCE(t.text, '')
                FROM attachments a LEFT JOIN attachment_text t ON t.attachmentId = a.id WHERE a.emailId = ? ORDER BY a.id
                """, arguments: [emailId]).map {
                StoredAttachmentText(attachmentId: $0[0], filename: $0[1], status: $0[2], detail: $0[3], text: $0[4])
            }
        }
    }

    public func attachmentTextCounts() throws -> AttachmentTextCounts {
        try database.read { db in
            let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM attachments") ?? 0
            var counts = AttachmentTextCounts(pending: 0, read: 0, truncated: 0, unsupported: 0, unreadable: 0, pendingEmails: 0)
            var done = 0
            for row in try Row.fetchAll(db, sql: "SELECT status, COUNT(*) FROM attachment_text GROUP BY status") {
                let status: String = row[0], n: Int = row[1]
                done += n
                switch status {
                case "ok": counts.read += n
                case "truncated": counts.truncated += n
                case "unsupported": counts.unsupported += n
                default: counts.unreadable += n
                }
            }
            counts.pending = max(0, total - done)
            if counts.pending > 0 {
                counts.pendingEmails = try Int.fetchOne(db, sql: """
                    SELECT COUNT(DISTINCT a.emailId) FROM attachments a LEFT JOIN attachment_text t ON t.attachmentId = a.id
                    WHERE t.attachmentId IS NULL
                    """) ?? 0
            }
            return counts
        }
    }
}
