import Foundation
import GRDB
import MailParsing

/// One email waiting for its embedding: the text that is embedded (FR-SEARCH-08:
/// subject, sender name and readable body; the tokenizer truncates at 256 tokens).
public struct EmbeddingWork: Sendable, Hashable {
    public var emailId: Int64
    public var text: String
}

/// Embedding vectors in mail.sqlite (`embeddings`), deleted with their email and account.
///
/// One vector per email, tagged with the model that made it. `model` arguments name the model in
/// use: an email whose vector another model made counts as not embedded (it is embedded again and
/// its vector replaced), and its old vector is not searched. nil means any model.
extension MailStore {
    /// Emails without an embedding of `model`, newest first, with the text to embed (`EmbeddingText`;
    /// `clean: false` gives the body's first characters as they are, for comparisons).
    /// `idAbove`: only emails with a larger id (mail added since `emailIdsWithoutEmbedding`).
    public func emailsWithoutEmbedding(limit: Int, model: String?, clean: Bool = true, idAbove: Int64? = nil) throws
        -> [EmbeddingWork] {
        try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Self.workColumns) FROM emails e
                WHERE \(idAbove == nil ? "" : "e.id > ?4 AND ")\(Self.notEmbedded(model: 2))
                ORDER BY e.sortDate IS NULL, e.sortDate DESC, e.id DESC LIMIT ?3
                """, arguments: idAbove.map { [EmbeddingText.bodyWindow, model, limit, $0] }
                    ?? [EmbeddingText.bodyWindow, model, limit]).map { Self.work($0, clean: clean) }
        }
    }

    /// The ids of the emails without an embedding of `model`, in the order `emailsWithoutEmbedding`
    /// takes them (newest first, undated last), and the largest email id when it was read (mail
    /// added later has larger ids). One pass over the date index: the run that embeds them then
    /// reads each email once (`emailsWithoutEmbedding(ids:)`) instead of sorting the whole table
    /// for every batch.
    public func emailIdsWithoutEmbedding(model: String?) throws -> (ids: [Int64], largestId: Int64) {
        try database.read { db in
            let ids = try Int64.fetchAll(db, sql: """
                SELECT e.id FROM emails e WHERE \(Self.notEmbedded(model: 1))
                ORDER BY e.sortDate IS NULL, e.sortDate DESC, e.id DESC
                """, arguments: [model])
            let largest = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM emails") ?? 0
            return (ids, largest)
        }
    }

    /// The emails of `ids` that still have no embedding of `model`, in the order given, with the
    /// text to embed (an email deleted or embedded meanwhile is left out).
    public func emailsWithoutEmbedding<C: Collection>(ids: C, model: String?, clean: Bool = true) throws -> [EmbeddingWork]
    where C.Element == Int64 {
        guard !ids.isEmpty else { return [] }
        var arguments: StatementArguments = [EmbeddingText.bodyWindow, model]
        for id in ids { arguments += [id] }
        let placeholders = (0..<ids.count).map { "?\($0 + 3)" }.joined(separator: ",")
        let rows = try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Self.workColumns) FROM emails e WHERE e.id IN (\(placeholders)) AND \(Self.notEmbedded(model: 2))
                """, arguments: arguments)
        }
        var work: [Int64: EmbeddingWork] = [:]
        for row in rows {
            let item = Self.work(row, clean: clean)
            work[item.emailId] = item
        }
        return ids.compactMap { work[$0] }
    }

    /// The columns `work` reads (`?1`: how much of the body, `EmbeddingText.bodyWindow`).
    private static let workColumns = "e.id, e.subject, e.fromName, substr(e.bodyPlain, 1, ?1) AS body"

    /// Email `e` has no embedding of the model bound to parameter `?parameter` (of any model when NULL).
    private static func notEmbedded(model parameter: Int) -> String {
        "NOT EXISTS (SELECT 1 FROM embeddings m WHERE m.emailId = e.id AND (?\(parameter) IS NULL OR m.model = ?\(parameter)))"
    }

    /// A row of `workColumns` as the work of embedding it.
    private static func work(_ row: Row, clean: Bool) -> EmbeddingWork {
        EmbeddingWork(emailId: row["id"], text: EmbeddingText.compose(
            subject: row["subject"], fromName: row["fromName"], body: row["body"], clean: clean))
    }

    /// Stores vectors (already L2-normalised) for emails; an email deleted meanwhile is skipped.
    public func saveEmbeddings(_ items: [(emailId: Int64, vector: [Float])], model: String) throws {
        try database.write { db in
            let statement = try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO embeddings (emailId, model, vector)
                SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM emails WHERE id = ?)
                """)
            for item in items {
                let blob = item.vector.withUnsafeBufferPointer { Data(buffer: $0) }
                try statement.execute(arguments: [item.emailId, model, blob, item.emailId])
            }
        }
    }

    /// Calls `body` with every stored vector, in email id order, as bytes that are valid only
    /// during the call (no copy: loading every vector of a large mailbox stays fast).
    /// `expectedCount` is the number of embeddings when the read began, for preallocation.
    public func forEachEmbeddingBytes(
        model: String?, expectedCount: ((Int) -> Void)? = nil, _ body: (Int64, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try database.read { db in
            if let expectedCount {
                expectedCount(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM embeddings WHERE ?1 IS NULL OR model = ?1",
                                               arguments: [model]) ?? 0)
            }
            let cursor = try Row.fetchCursor(db, sql: """
                SELECT emailId, vector FROM embeddings WHERE ?1 IS NULL OR model = ?1 ORDER BY emailId
                """, arguments: [model])
            while let row = try cursor.next() {
                let id: Int64 = row[0]
                try row.withUnsafeData(atIndex: 1) { data in
                    guard let data else { return }
                    try data.withUnsafeBytes { try body(id, $0) }
                }
            }
        }
    }

    /// How many emails still wait for an embedding of `model`.
    public func emailsWithoutEmbeddingCount(model: String?) throws -> Int {
        try database.read { db in
            try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM emails e WHERE \(Self.notEmbedded(model: 1))
                """, arguments: [model]) ?? 0
        }
    }

    /// How many emails have an embedding of `model`.
    public func embeddingCount(model: String?) throws -> Int {
        try database.read {
            try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM embeddings WHERE ?1 IS NULL OR model = ?1", arguments: [model]) ?? 0
        }
    }

    /// The bytes of every stored embedding (the status's size of the vectors).
    public func embeddingBytes() throws -> Int64 {
        try database.read { try Int64.fetchOne($0, sql: "SELECT COALESCE(SUM(length(vector)), 0) FROM embeddings") ?? 0 }
    }
}
