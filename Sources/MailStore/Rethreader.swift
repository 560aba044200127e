import GRDB
import MailModel
import MailParsing

/// Threads every email of an account again with the current `Threader` and `SubjectNormalizer`:
/// the schema migration `v6-rethread` runs it on stores written by versions whose threading
/// linked replies through addresses taken from prose In-Reply-To values and grouped subjects
/// with their `[tags]` stripped (`[PATCH v2 0/6] x` with `[PATCH 0/6] x`).
///
/// Emails are visited in id order, the order they were imported in, so the result is that of
/// importing the same mail again with this version; or in date order (`inDateOrder`), so the
/// result is that of mail arriving as it was sent, whatever order it was stored in (a sync
/// fetches newest first: the subject fallback of spec 001 §5.2.4 joins "existing" threads, so
/// the order of arrival matters to it). Each email's `normalizedSubject` and
/// `threadId`, the account's `message_ids` and its threads are recomputed; a thread keeps its id
/// when its first email still starts a thread, threads left empty are deleted, and the metadata
/// of every thread is computed again (spec 001 §5.2.4 step 5). The stored In-Reply-To and
/// References are left as they are: the `Threader` ignores the addresses among them. (An id taken
/// from prose that names nobody the account has mail from or to cannot be told from a bare
/// Message-ID and still links.)
enum Rethreader {
    /// Re-threads every account, in one transaction (the caller's).
    static func rethreadAll(db: Database) throws {
        for accountId in try Int64.fetchAll(db, sql: "SELECT id FROM accounts ORDER BY id") {
            try rethread(accountId: accountId, db: db)
        }
    }

    /// Re-threads the account's emails, or only those of the threads `only` (with every Message-ID
    /// those threads hold), leaving the other threads as they are.
    static func rethread(accountId: Int64, inDateOrder: Bool = false, only threadIds: Set<Int64>? = nil, db: Database) throws {
        let order = inDateOrder ? "sortDate IS NULL, sortDate, messageId" : "id"
        var scope = ""
        if let threadIds {
            guard !threadIds.isEmpty else { return }
            try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS rethread_scope (threadId INTEGER PRIMARY KEY)")
            try db.execute(sql: "DELETE FROM rethread_scope")
            let insert = try db.makeStatement(sql: "INSERT INTO rethread_scope (threadId) VALUES (?)")
            for id in threadIds { try insert.execute(arguments: [id]) }
            scope = " AND threadId IN (SELECT threadId FROM rethread_scope)"
        }
        let rows = try Row.fetchAll(db, sql: """
            SELECT id, threadId, messageId, inReplyTo, "references", fromEmail, toAddresses, ccAddresses,
                replyToAddresses, subject, sortDate
            FROM emails WHERE accountId = ?\(scope) ORDER BY \(order)
            """, arguments: [accountId])
        // Threads that cannot keep an old id get ids above every existing one, so they never take
        // the old id of a thread still to come.
        var nextFreshId = try (Int64.fetchOne(db, sql: "SELECT MAX(id) FROM threads") ?? 0) + 1
        try db.execute(sql: "DELETE FROM message_ids WHERE accountId = ?\(scope)", arguments: [accountId])
        try db.execute(sql: "UPDATE emails SET threadId = NULL WHERE accountId = ?\(scope)", arguments: [accountId])
        try db.execute(sql: "DELETE FROM threads WHERE accountId = ?\(scope.replacingOccurrences(of: "threadId IN", with: "id IN"))",
                       arguments: [accountId])
        if threadIds != nil { try db.execute(sql: "DELETE FROM rethread_scope") }

        var threader = Threader(db: db, accountId: accountId)
        let update = try db.makeStatement(sql: "UPDATE emails SET threadId = ?, normalizedSubject = ? WHERE id = ?")
        var taken = Set<Int64>()
        for row in rows {
            var referenced: [String] = []
            if let parent: String = row["inReplyTo"], !parent.isEmpty { referenced.append(parent) }
            referenced += (row["references"] as String).split(separator: " ").map(String.init)
            // The message's addresses matter only to tell its referenced ids from addresses.
            var addresses: [String] = []
            if !referenced.isEmpty {
                if let from: String = row["fromEmail"] { addresses.append(from) }
                for column in ["toAddresses", "ccAddresses", "replyToAddresses"] {
                    addresses += AddressListCodec.decode(row[column]).map(\.email)
                }
            }
            let normalizedSubject = SubjectNormalizer.normalize(row["subject"])
            // A thread this email starts keeps the email's old thread id unless this pass already
            // gave that id to a thread (the account's threads were all deleted above).
            let old: Int64? = row["threadId"]
            let candidate = old.flatMap { taken.contains($0) ? nil : $0 } ?? nextFreshId
            let threadId = try threader.assign(
                Threader.Message(messageId: row["messageId"], referencedIds: referenced, addresses: addresses,
                                 date: row["sortDate"], normalizedSubject: normalizedSubject),
                newThreadId: candidate)
            taken.insert(threadId)
            if threadId == nextFreshId { nextFreshId += 1 }
            try update.execute(arguments: [threadId, normalizedSubject, row["id"] as Int64])
        }
        try ThreadMetadata.recompute(threadIds: threader.dirty, db: db)
    }
}
