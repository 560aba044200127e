import Foundation
import GRDB
import MailModel

/// `attachment_passages`: the vectors of passages of the text read from attachments, for semantic
/// search (one row per passage and model, deleted with the attachment's text). The text itself
/// stays in `attachment_text`; a passage is a range of it, in Unicode scalars (what SQLite's
/// `substr` counts in TEXT).
///
/// An attachment whose text has no row here for a model is still to be embedded; one with rows
/// has them all (they are written in one transaction).
public enum AttachmentPassageTable {
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE attachment_passages (
                id INTEGER PRIMARY KEY,
                attachmentId INTEGER NOT NULL REFERENCES attachment_text(attachmentId) ON DELETE CASCADE,
                emailId INTEGER NOT NULL REFERENCES emails(id) ON DELETE CASCADE,
                model TEXT NOT NULL,
                passage INTEGER NOT NULL,
                start INTEGER NOT NULL,
                length INTEGER NOT NULL,
                -- 1 on every passage of an attachment whose text went on past its last passage
                truncated INTEGER NOT NULL DEFAULT 0,
                vector BLOB NOT NULL
            );
            CREATE INDEX attachment_passages_attachment ON attachment_passages(attachmentId, model);
            CREATE INDEX attachment_passages_email ON attachment_passages(emailId);
            """)
    }
}

/// An attachment whose text is waiting for its passages to be embedded.
public struct PassageWork: Sendable, Hashable {
    public var attachmentId: Int64
    public var emailId: Int64
    public var filename: String?
    public var text: String
}

/// Where a passage came from: its email, its attachment, its place among the attachment's
/// passages (from 0) and its range of the attachment's text (Unicode scalars).
public struct PassageOwner: Sendable, Hashable {
    public var emailId: Int64
    public var attachmentId: Int64
    public var passage: Int
    public var start: Int
    public var length: Int

    public init(emailId: Int64, attachmentId: Int64, passage: Int, start: Int, length: Int) {
        self.emailId = emailId; self.attachmentId = attachmentId; self.passage = passage
        self.start = start; self.length = length
    }
}

/// A passage's text as a result shows it.
public struct PassageExcerpt: Sendable, Hashable {
    public var attachmentId: Int64
    public var filename: String
    public var text: String
}

extension MailStore {
    /// The SQL condition for an attachment whose text waits for passages of model `?1` (`t` is
    /// its `attachment_text` row).
    private static let passagesPending = """
        t.text <> '' AND NOT EXISTS (SELECT 1 FROM attachment_passages p WHERE p.attachmentId = t.attachmentId AND p.model = ?1)
        """

    /// Attachments with text and no passages of `model`, in attachment id order after `afterId`,
    /// at most `limit`.
    public func attachmentsWithoutPassages(model: String, afterId: Int64, limit: Int) throws -> [PassageWork] {
        try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT t.attachmentId, t.emailId, a.filename, t.text
                FROM attachment_text t JOIN attachments a ON a.id = t.attachmentId
                WHERE \(Self.passagesPending) AND t.attachmentId > ?2 ORDER BY t.attachmentId LIMIT ?3
                """, arguments: [model, afterId, limit]).map {
                PassageWork(attachmentId: $0[0], emailId: $0[1], filename: $0[2], text: $0[3])
            }
        }
    }

    /// How many attachments wait for passages of `model`.
    public func attachmentsWithoutPassagesCount(model: String) throws -> Int {
        try database.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM attachment_text t WHERE \(Self.passagesPending)",
                             arguments: [model]) ?? 0
        }
    }

    /// Stores the passages of attachments (vectors L2-normalised), each attachment's all at once and
    /// replacing any it had for `model`; an attachment whose text went meanwhile is skipped.
    /// Returns the stored passages with their row ids.
    @discardableResult
    /// `truncated` names the attachments whose text went on past their last passage.
    public func savePassages(_ items: [(owner: PassageOwner, vector: [Float])], model: String, truncated: Set<Int64> = [])
        throws -> [(id: Int64, owner: PassageOwner, vector: [Float])] {
        try database.write { db in
            var saved: [(id: Int64, owner: PassageOwner, vector: [Float])] = []
            let insert = try db.cachedStatement(sql: """
                INSERT INTO attachment_passages (attachmentId, emailId, model, passage, start, length, truncated, vector)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """)
            var cleared: Set<Int64> = []
            var present: [Int64: Bool] = [:]
            for item in items {
                let attachment = item.owner.attachmentId
                if present[attachment] == nil {
                    present[attachment] = try Bool.fetchOne(
                        db, sql: "SELECT 1 FROM attachment_text WHERE attachmentId = ?", arguments: [attachment]) == true
                }
                guard present[attachment] == true else { continue }
                if cleared.insert(attachment).inserted {
                    try db.execute(sql: "DELETE FROM attachment_passages WHERE attachmentId = ? AND model = ?",
                                   arguments: [attachment, model])
                }
                let o = item.owner
                let blob = item.vector.withUnsafeBufferPointer { Data(buffer: $0) }
                try insert.execute(arguments: [o.attachmentId, o.emailId, model, o.passage, o.start, o.length,
                                               truncated.contains(o.attachmentId), blob])
                saved.append((db.lastInsertedRowID, o, item.vector))
            }
            return saved
        }
    }

    /// Calls `body` with every stored passage vector of `model` (bytes valid during the call).
    public func forEachPassageBytes(model: String, _ body: (Int64, PassageOwner, UnsafeRawBufferPointer) throws -> Void) throws {
        try database.read { db in
            let cursor = try Row.fetchCursor(db, sql: """
                SELECT id, emailId, attachmentId, passage, start, length, vector FROM attachment_passages
                WHERE model = ? ORDER BY id
                """, arguments: [model])
            while let row = try cursor.next() {
                let owner = PassageOwner(emailId: row[1], attachmentId: row[2], passage: row[3], start: row[4], length: row[5])
                let id: Int64 = row[0]
                try row.withUnsafeData(atIndex: 6) { data in
                    guard let data else { return }
                    try data.withUnsafeBytes { try body(id, owner, $0) }
                }
            }
        }
    }

    /// How many passages of `model` are stored, of how many attachments, and how many of those
    /// attachments have text past their last passage (only its start is searched by meaning).
    public func passageCounts(model: String) throws -> (passages: Int, attachments: Int, truncated: Int) {
        try database.read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT COUNT(*), COUNT(DISTINCT attachmentId), COUNT(DISTINCT CASE WHEN truncated THEN attachmentId END)
                FROM attachment_passages WHERE model = ?
                """, arguments: [model])
            return (row?[0] ?? 0, row?[1] ?? 0, row?[2] ?? 0)
        }
    }
}
