import Foundation
import GRDB
import CRanking
import GRDBSQLite
import MailModel
import MailStore

/// One keyword match: an email and its BM25 rank (lower is better, as FTS5 reports it).
public struct KeywordHit: Sendable, Hashable {
    public var emailId: Int64
    public var rank: Double

    public init(emailId: Int64, rank: Double) {
        self.emailId = emailId
        self.rank = rank
    }
}

/// The statements on `email_fts`. Queries are public; mutations are internal so that
/// `SearchIndexManager` stays their single owner.
public enum FTS5Manager {
    static func insert(_ emails: [Email], db: Database) throws {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO email_fts (rowid, email_id, account_id, subject, body, sender_name, sender_email, attachments)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for e in emails {
            // Attachment names now; their text when it has been read (`updateAttachments`).
            let names = e.attachments.isEmpty ? "" : e.attachments.map { $0.filename ?? "" }.joined(separator: "\n\n")
            let arguments: StatementArguments = [
                e.id, e.id, e.accountId, e.subject, e.bodyPlain, e.from?.name ?? "", e.from?.email ?? "", names,
            ]
            do {
                try statement.execute(arguments: arguments)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                // The row is there already: the mail is committed before its index rows, and another
                // process that opened the index meanwhile (a search during an import) reconciled it
                // from mail.sqlite. The same email: written again, in place (only this statement
                // failed, nothing of it was kept).
                try db.cachedStatement(sql: """
                    INSERT OR REPLACE INTO email_fts (rowid, email_id, account_id, subject, body, sender_name, sender_email, attachments)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """).execute(arguments: arguments)
            }
        }
        try DocumentLengths.bumpVersion(db)
    }

    /// Replaces the attachments column of emails (names and the text read since).
    static func updateAttachments(_ texts: [Int64: String], db: Database) throws {
        let statement = try db.cachedStatement(sql: "UPDATE email_fts SET attachments = ? WHERE rowid = ?")
        for (emailId, text) in texts { try statement.execute(arguments: [text, emailId]) }
        try DocumentLengths.bumpVersion(db)
    }

    /// Sets FTS5's `automerge` (kept in `email_fts_config`; the content of the index is unchanged).
    static func setAutomerge(_ value: Int, db: Database) throws {
        try db.execute(sql: "INSERT INTO email_fts(email_fts, rank) VALUES('automerge', ?)", arguments: [value])
    }

    /// FTS5's `automerge` as set, nil when it never was (FTS5's default, 4).
    static func automerge(db: Database) throws -> Int? {
        try Int.fetchOne(db, sql: "SELECT v FROM email_fts_config WHERE k = 'automerge'")
    }

    static func delete(emailIds: [Int64], db: Database) throws {
        let statement = try db.cachedStatement(sql: "DELETE FROM email_fts WHERE rowid = ?")
        for id in emailIds { try statement.execute(arguments: [id]) }
        try DocumentLengths.bumpVersion(db)
    }

    static func deleteAccount(_ accountId: Int64, db: Database) throws -> Int {
        try db.execute(sql: "DELETE FROM email_fts WHERE account_id = ?", arguments: [accountId])
        let count = db.changesCount
        try DocumentLengths.bumpVersion(db)
        return count
    }

    /// Refills the index from the attached mail database, `chunk` emails per statement.
    static func fillFromMail(db: Database, afterId: Int64, chunk: Int) throws -> (count: Int, lastId: Int64?) {
        let lastId = try Int64.fetchOne(db, sql: """
            SELECT MAX(id) FROM (SELECT id FROM mail.emails WHERE id > ? ORDER BY id LIMIT ?)
            """, arguments: [afterId, chunk])
        guard let lastId else { return (0, nil) }
        let count = try insertFromMail(where: "id > ? AND id <= ?", arguments: [afterId, lastId], db: db)
        return (count, lastId)
    }

    /// Copies emails of the attached mail database matching `condition` into the index.
    /// Returns the number of rows added.
    @discardableResult
    static func insertFromMail(where condition: String, arguments: StatementArguments, db: Database) throws -> Int {
        try db.execute(sql: """
            INSERT INTO email_fts (rowid, email_id, account_id, subject, body, sender_name, sender_email, attachments)
            SELECT e.id, e.id, e.accountId, e.subject, e.bodyPlain, COALESCE(e.fromName, ''), COALESCE(e.fromEmail, ''),
                   CASE WHEN e.hasAttachment THEN \(AttachmentTextTable.indexTextSQL(schema: "mail")) ELSE '' END
            FROM mail.emails e WHERE \(condition) ORDER BY e.id
            """, arguments: arguments)
        let count = db.changesCount
        try DocumentLengths.bumpVersion(db)
        return count
    }

    /// Every email that matches `match` — and is in `candidates`, when given — with its BM25 rank,
    /// in no particular order. Nothing is capped: a search ranks all of its matches, so its best
    /// results are the true BM25 best and its conversation count is exact. With candidates, FTS5
    /// still walks every match of the text but computes BM25 only for the candidates
    /// (`ms_email_in`), so a filter that keeps little mail makes the search cheaper. The rank is
    /// FTS5's bm25() with row lengths from `lengths` (memory) instead of %_docsize (`ms_bm25`); for
    /// a MATCH of one phrase its IDF comes from the matches this scan walks anyway rather than a
    /// second query of the phrase (`ms_bm25_tf`, `BM25Scan`): the same value, to the bit.
    static func matches(match: String, candidates: EmailIdSet?, lengths: DocumentLengths, db: Database) throws -> [KeywordHit] {
        var scan = BM25Scan()
        var deferred = BM25Scan.report()
        try withUnsafeMutablePointer(to: &deferred) { pointer in
            try RawStatementScan.forEachRow(db, sql: matchesSQL(candidates: candidates != nil), text: match, lengths: lengths,
                                            deferred: pointer, set: candidates) { row in scan.add(row) }
        }
        return scan.hits(deferred)
    }

    /// The statement of `matches`: ?1 the MATCH expression, ?2 the row lengths, ?3 the
    /// `ms_bm25_deferred` report, ?4 the candidates (a row not among them has no rank: NULL).
    static func matchesSQL(candidates: Bool) -> String {
        let rank = "ms_bm25_tf(email_fts, ?2, ?3, \(SearchDatabase.bm25Weights))"
        return candidates ? """
            SELECT rowid, CASE WHEN ms_email_in(rowid, ?4) THEN \(rank) END FROM email_fts WHERE email_fts MATCH ?1
            """ : """
            SELECT rowid, \(rank) FROM email_fts WHERE email_fts MATCH ?1
            """
    }

    /// FTS5's own BM25 top-`limit` of `match`, best first, with no filter and no grouping: the
    /// baseline the benchmark compares the whole keyword search with.
    public static func topRanked(match: String, limit: Int, db: Database) throws -> [KeywordHit] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT rowid AS id, bm25(email_fts, \(SearchDatabase.bm25Weights)) AS rank FROM email_fts
            WHERE email_fts MATCH ? ORDER BY rank LIMIT ?
            """), arguments: [match, limit]).map { KeywordHit(emailId: $0["id"], rank: $0["rank"]) }
    }
}

/// The rows of a `FTS5Manager.matchesSQL` scan, made into hits: every matching row is counted,
/// those with a rank kept; for a one-phrase MATCH the kept values are `ms_bm25_tf`'s
/// term-frequency parts, made into BM25 ranks with the count of the rows that matched.
struct BM25Scan {
    private var kept: [KeywordHit] = []
    private var matched: Int64 = 0

    mutating func add(_ row: OpaquePointer) {
        matched += 1
        guard sqlite3_column_type(row, 1) != SQLITE_NULL else { return }
        kept.append(KeywordHit(emailId: sqlite3_column_int64(row, 0), rank: sqlite3_column_double(row, 1)))
    }

    /// The report `ms_bm25_tf` fills in (bound as ?3 for the scan).
    static func report() -> ms_bm25_deferred { ms_bm25_deferred(rows: 0, phrases: -1) }

    func hits(_ deferred: ms_bm25_deferred) -> [KeywordHit] {
        guard deferred.phrases == 1 else { return kept }
        var hits = kept
        for i in hits.indices { hits[i].rank = ms_bm25_score(hits[i].rank, deferred.rows, matched) }
        return hits
    }
}
