import Foundation
import GRDB
import MailModel

/// What one account takes in mail.sqlite, measured from its rows (`MailStore.accountUsage`).
public struct AccountUsageRow: Sendable, Hashable {
    public var accountId: Int64
    public var emails: Int
    public var conversations: Int
    public var attachments: Int
    /// The attachments' decoded sizes as recorded when their messages were parsed.
    public var attachmentBytes: Int64
    /// The messages' sizes as received (`emails.sizeBytes`: the RFC 5322 bytes, attachments included).
    public var messageBytes: Int64
    /// The UTF-8 bytes of the emails' stored text: bodies (plain and HTML), subjects, snippets,
    /// addresses, Message-IDs and references, source paths and parse defects.
    public var textBytes: Int64
    /// The bytes of the emails' vectors and of their attachments' passage vectors.
    public var vectorBytes: Int64
    /// The UTF-8 bytes of the text read from the attachments.
    public var attachmentTextBytes: Int64
    /// The bytes of the stored summaries of the account's conversations (JSON).
    public var summaryBytes: Int64

    /// Everything above that sits in mail.sqlite.
    public var databaseBytes: Int64 { textBytes + vectorBytes + attachmentTextBytes + summaryBytes }
}

/// How many stored summaries there are, and their bytes (the JSON and the email ids).
public struct StoredSummaryUsage: Sendable, Hashable {
    public var rows: Int
    public var bytes: Int64
}

extension MailStore {
    /// Every account's usage, measured now from its rows (one read; a scan of the emails' text).
    /// Accounts without mail are listed with zeros. SQLite's own overhead (pages, row headers,
    /// indexes) is not in these numbers: no row owns it.
    public func accountUsage() throws -> [AccountUsageRow] {
        try database.read { db in
            var rows: [Int64: AccountUsageRow] = [:]
            for id in try Int64.fetchAll(db, sql: "SELECT id FROM accounts ORDER BY id") {
                rows[id] = AccountUsageRow(accountId: id, emails: 0, conversations: 0, attachments: 0, attachmentBytes: 0, messageBytes: 0,
                                           textBytes: 0, vectorBytes: 0, attachmentTextBytes: 0, summaryBytes: 0)
            }
            // length(CAST(text AS BLOB)) is the text's bytes (length(text) counts characters).
            let textColumns = ["messageId", "inReplyTo", "\"references\"", "fromName", "fromEmail", "toAddresses", "ccAddresses",
                               "bccAddresses", "replyToAddresses", "subject", "normalizedSubject", "bodyPlain", "bodyHTML", "snippet",
                               "category", "sourceRef", "defects"]
                .map { "IFNULL(length(CAST(\($0) AS BLOB)), 0)" }.joined(separator: " + ")
            for row in try Row.fetchAll(db, sql: """
                SELECT accountId, COUNT(*) AS emails, IFNULL(SUM(sizeBytes), 0) AS messageBytes, IFNULL(SUM(\(textColumns)), 0) AS textBytes
                FROM emails GROUP BY accountId
                """) {
                let id: Int64 = row["accountId"]
                rows[id]?.emails = row["emails"]
                rows[id]?.messageBytes = row["messageBytes"]
                rows[id]?.textBytes = row["textBytes"]
            }
            for row in try Row.fetchAll(db, sql: "SELECT accountId, COUNT(*) AS n FROM threads GROUP BY accountId") {
                rows[row["accountId"] as Int64]?.conversations = row["n"]
            }
            for row in try Row.fetchAll(db, sql: """
                SELECT e.accountId, COUNT(*) AS n, IFNULL(SUM(a.sizeBytes), 0) AS bytes
                FROM attachments a JOIN emails e ON e.id = a.emailId GROUP BY e.accountId
                """) {
                rows[row["accountId"] as Int64]?.attachments = row["n"]
                rows[row["accountId"] as Int64]?.attachmentBytes = row["bytes"]
            }
            for row in try Row.fetchAll(db, sql: """
                SELECT accountId, SUM(bytes) AS bytes FROM (
                    SELECT e.accountId, length(v.vector) AS bytes FROM embeddings v JOIN emails e ON e.id = v.emailId
                    UNION ALL
                    SELECT e.accountId, length(p.vector) FROM attachment_passages p JOIN emails e ON e.id = p.emailId)
                GROUP BY accountId
                """) {
                rows[row["accountId"] as Int64]?.vectorBytes = row["bytes"]
            }
            for row in try Row.fetchAll(db, sql: """
                SELECT e.accountId, IFNULL(SUM(IFNULL(length(CAST(t.text AS BLOB)), 0) + IFNULL(length(CAST(t.detail AS BLOB)), 0)), 0) AS bytes
                FROM attachment_text t JOIN emails e ON e.id = t.emailId GROUP BY e.accountId
                """) {
                rows[row["accountId"] as Int64]?.attachmentTextBytes = row["bytes"]
            }
            for row in try Row.fetchAll(db, sql: """
                SELECT t.accountId, IFNULL(SUM(length(CAST(s.summary AS BLOB)) + length(CAST(s.emailIds AS BLOB))), 0) AS bytes
                FROM thread_summaries s JOIN threads t ON t.id = s.threadId GROUP BY t.accountId
                """) {
                rows[row["accountId"] as Int64]?.summaryBytes = row["bytes"]
            }
            return rows.values.sorted { $0.accountId < $1.accountId }
        }
    }

    /// The stored summaries of conversations (every backend), counted and measured.
    public func storedSummaryUsage() throws -> StoredSummaryUsage {
        try database.read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT COUNT(*) AS n, IFNULL(SUM(length(CAST(summary AS BLOB)) + length(CAST(emailIds AS BLOB))), 0) AS bytes
                FROM thread_summaries
                """)!
            return StoredSummaryUsage(rows: row["n"], bytes: row["bytes"])
        }
    }

    /// Deletes every stored summary (every backend): they are computed again when asked for.
    /// Returns what was deleted.
    @discardableResult
    public func deleteAllThreadSummaries() throws -> StoredSummaryUsage {
        try database.write { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT COUNT(*) AS n, IFNULL(SUM(length(CAST(summary AS BLOB)) + length(CAST(emailIds AS BLOB))), 0) AS bytes
                FROM thread_summaries
                """)!
            try db.execute(sql: "DELETE FROM thread_summaries")
            return StoredSummaryUsage(rows: row["n"], bytes: row["bytes"])
        }
    }

    /// Up to `limit` emails after `afterId`, in id order (an account's, or every one's), each with
    /// its folders and where its message is read from: a page of an export, read in its own
    /// transaction so that a long export holds none.
    public func emailsPage(after afterId: Int64, accountId: Int64?, limit: Int) throws -> [StoredEmail] {
        try database.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT * FROM emails WHERE id > ? \(accountId == nil ? "" : "AND accountId = ?") ORDER BY id LIMIT ?
                """, arguments: StatementArguments([afterId] + (accountId.map { [$0] } ?? []) + [Int64(limit)]))
            guard let first = rows.first, let last = rows.last else { return [] }
            var folders: [Int64: [String]] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT ef.emailId, f.path FROM email_folders ef JOIN folders f ON f.id = ef.folderId
                WHERE ef.emailId BETWEEN ? AND ? ORDER BY ef.emailId, f.path
                """, arguments: [first["id"] as Int64, last["id"] as Int64]) {
                folders[row["emailId"], default: []].append(row["path"])
            }
            return rows.map { row in
                let email = Self.email(from: row)
                return StoredEmail(email: email, folders: folders[email.id] ?? [], sourceRef: row["sourceRef"], defects: [])
            }
        }
    }
}

extension MailStore {
    /// Where each email's message is read from (`sourceRef`), of an account or of every one.
    public func sourceRefs(accountId: Int64?) throws -> [String?] {
        try database.read { db in
            if let accountId {
                return try Optional<String>.fetchAll(db, sql: "SELECT sourceRef FROM emails WHERE accountId = ?", arguments: [accountId])
            }
            return try Optional<String>.fetchAll(db, sql: "SELECT sourceRef FROM emails")
        }
    }
}
