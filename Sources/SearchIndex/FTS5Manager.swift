import Foundation
import GRDB
import MailModel

/// One keyword match: an email and its BM25 rank (lower is better, as FTS5 reports it).
public struct KeywordHit: Sendable, Hashable {
    public var emailId: Int64
    public var threadId: Int64?
    public var rank: Double
}

/// The statements on `email_fts`. Queries are public; mutations are internal so that
/// `SearchIndexManager` stays their single owner.
public enum FTS5Manager {
    static func insert(_ emails: [Email], db: Database) throws {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO email_fts (rowid, email_id, account_id, subject, body, sender_name, sender_email)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        for e in emails {
            try statement.execute(arguments: [
                e.id, e.id, e.accountId, e.subject, e.bodyPlain, e.from?.name ?? "", e.from?.email ?? "",
            ])
        }
    }

    static func delete(emailIds: [Int64], db: Database) throws {
        let statement = try db.cachedStatement(sql: "DELETE FROM email_fts WHERE rowid = ?")
        for id in emailIds { try statement.execute(arguments: [id]) }
    }

    static func deleteAccount(_ accountId: Int64, db: Database) throws -> Int {
        try db.execute(sql: "DELETE FROM email_fts WHERE account_id = ?", arguments: [accountId])
        return db.changesCount
    }

    /// Refills the index from the attached mail database, `chunk` emails per statement.
    static func fillFromMail(db: Database, afterId: Int64, chunk: Int) throws -> (count: Int, lastId: Int64?) {
        let lastId = try Int64.fetchOne(db, sql: """
            SELECT MAX(id) FROM (SELECT id FROM mail.emails WHERE id > ? ORDER BY id LIMIT ?)
            """, arguments: [afterId, chunk])
        guard let lastId else { return (0, nil) }
        try insertFromMail(where: "id > ? AND id <= ?", arguments: [afterId, lastId], db: db)
        return (db.changesCount, lastId)
    }

    /// Copies emails of the attached mail database matching `condition` into the index.
    /// Returns the number of rows added.
    @discardableResult
    static func insertFromMail(where condition: String, arguments: StatementArguments, db: Database) throws -> Int {
        try db.execute(sql: """
            INSERT INTO email_fts (rowid, email_id, account_id, subject, body, sender_name, sender_email)
            SELECT id, id, accountId, subject, bodyPlain, COALESCE(fromName, ''), COALESCE(fromEmail, '')
            FROM mail.emails WHERE \(condition) ORDER BY id
            """, arguments: arguments)
        return db.changesCount
    }

    /// How many of the most recent matches are ranked by BM25 when a query matches more.
    public static let rankingWindow = 1_000

    /// Ranked matches of `match`, intersected with the filters, best first, and whether the
    /// match was broad. BM25 must score every match it ranks, so a query matching a large part of
    /// the mailbox ("the") ranks only its `rankingWindow` most recent matches (highest rowids,
    /// found by an early-terminating scan): latency stays flat whatever the corpus size.
    public static func search(match: String, filter: EmailFilterSQL, limit: Int, db: Database) throws -> (hits: [KeywordHit], broad: Bool) {
        let cutoff = try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT rowid FROM email_fts WHERE email_fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?"),
            arguments: [match, rankingWindow - 1])
        // Without filters there is nothing to join: thread ids are read later, for the returned rows only.
        let sql = filter.isEmpty ? """
            SELECT f.rowid AS id, NULL AS threadId, bm25(email_fts, \(SearchDatabase.bm25Weights)) AS rank
            FROM email_fts f WHERE email_fts MATCH ? AND f.rowid >= ? AND 1
            ORDER BY rank LIMIT ?
            """ : """
            SELECT f.rowid AS id, e.threadId AS threadId, bm25(email_fts, \(SearchDatabase.bm25Weights)) AS rank
            FROM email_fts f JOIN mail.emails e ON e.id = f.rowid
            WHERE email_fts MATCH ? AND f.rowid >= ? AND \(filter.condition)
            ORDER BY rank LIMIT ?
            """
        var args: StatementArguments = [match, cutoff ?? Int64.min]
        args += filter.arguments
        args += [limit]
        let hits = try Row.fetchAll(db.cachedStatement(sql: sql), arguments: args).map {
            KeywordHit(emailId: $0["id"], threadId: $0["threadId"], rank: $0["rank"])
        }
        return (hits, cutoff != nil)
    }
}
