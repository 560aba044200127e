import Foundation
import GRDB
import MailModel

/// `email_categories`: each email's header signals and how its category (`emails.category`) was
/// decided. Every new email gets a row by trigger, waiting (`method` NULL) for the categoriser.
enum CategoryTable {
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE email_categories (
                emailId INTEGER PRIMARY KEY REFERENCES emails(id) ON DELETE CASCADE,
                signals INTEGER,
                method TEXT,
                reason TEXT,
                confidence REAL,
                usedEmbedding INTEGER NOT NULL DEFAULT 0,
                decidedAt REAL
            );
            CREATE INDEX email_categories_waiting ON email_categories(emailId) WHERE method IS NULL;
            CREATE INDEX email_categories_fallback ON email_categories(emailId) WHERE method = 'fallback' AND usedEmbedding = 0;
            CREATE INDEX email_categories_user ON email_categories(emailId) WHERE method = 'user';
            CREATE TRIGGER email_categories_new AFTER INSERT ON emails
                BEGIN INSERT OR IGNORE INTO email_categories (emailId) VALUES (new.id); END;
            INSERT INTO email_categories (emailId) SELECT id FROM emails;
            """)
    }
}

/// What `categoryMailboxVersion` reads: equal versions, same mail and signals.
public struct CategoryMailboxVersion: Sendable, Hashable {
    /// Emails with a category row (every email has one).
    public var emails: Int64
    public var maxEmailId: Int64
    public var signalsTotal: Double
}

/// What the list detector reads of one stored email, with how it is categorised now.
public struct CategoryMailboxRow: Sendable {
    public var emailId: Int64
    public var accountId: Int64
    /// Lower case; empty when the email has no sender.
    public var from: String
    /// To and Cc addresses, lower case.
    public var recipients: [String]
    public var subject: String
    public var signals: CategorySignals?
    public var category: AICategory
    /// Nil while the email waits for the categoriser.
    public var method: CategoryMethod?
    /// The first 20 characters of the decision's reason (which rule it was).
    public var reasonStart: String
}

/// One email's stored categorisation, for `show`.
public struct StoredCategorization: Sendable, Hashable {
    public var category: AICategory
    /// Nil while the email waits for the categoriser.
    public var decision: CategoryDecision?
    public var signals: CategorySignals?
}

extension MailStore {
    /// Emails waiting for a category (new mail, or all after `recategorize`), then fallback
    /// decisions made without an embedding whose email has one now; newest first, at most `limit`.
    public func emailsAwaitingCategory(limit: Int, includingFallbacks: Bool = true) throws -> [Int64] {
        try database.read { db in
            var ids = try Int64.fetchAll(db, sql: """
                SELECT emailId FROM email_categories WHERE method IS NULL ORDER BY emailId DESC LIMIT ?
                """, arguments: [limit])
            if ids.count < limit, includingFallbacks {
                ids += try Int64.fetchAll(db, sql: """
                    SELECT c.emailId FROM email_categories c JOIN embeddings e ON e.emailId = c.emailId
                    WHERE c.method = 'fallback' AND c.usedEmbedding = 0 ORDER BY c.emailId DESC LIMIT ?
                    """, arguments: [limit - ids.count])
            }
            return ids
        }
    }

    /// How many emails wait for a category (not counting fallbacks waiting for an embedding).
    public func emailsAwaitingCategoryCount() throws -> Int {
        try database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM email_categories WHERE method IS NULL") ?? 0 }
    }

    /// What the categoriser needs of these emails (subject, the body's first `bodyCharacters`,
    /// addresses, signals, the embedding), with each one's source for reading headers again.
    public func categorizationInputs(ids: [Int64], bodyCharacters: Int = 1500)
        throws -> [(input: CategorizationInput, sourceRef: String?, storedCategory: AICategory)] {
        guard !ids.isEmpty else { return [] }
        return try database.read { db in
            var out: [(input: CategorizationInput, sourceRef: String?, storedCategory: AICategory)] = []
            out.reserveCapacity(ids.count)
            for chunk in stride(from: 0, to: ids.count, by: 500).map({ Array(ids[$0..<min($0 + 500, ids.count)]) }) {
                let rows = try Row.fetchCursor(db, sql: """
                    SELECT e.id, e.accountId, e.fromName, e.fromEmail, e.toAddresses, e.ccAddresses, e.subject,
                           substr(e.bodyPlain, 1, ?) AS body, e.inReplyTo, e."references" AS refs, e.hasAttachment,
                           e.sourceRef, e.category, c.signals, v.vector, c.method, c.reason, c.confidence, c.decidedAt
                    FROM emails e LEFT JOIN email_categories c ON c.emailId = e.id
                                  LEFT JOIN embeddings v ON v.emailId = e.id
                    WHERE e.id IN (\(chunk.map { _ in "?" }.joined(separator: ",")))
                    """, arguments: StatementArguments([Int64(bodyCharacters)] + chunk))
                while let row = try rows.next() {
                    let fromEmail: String? = row["fromEmail"]
                    let refs: String? = row["refs"]
                    let inReplyTo: String? = row["inReplyTo"]
                    var embedding: [Float]?
                    if let blob: Data = row["vector"], blob.count % 4 == 0, !blob.isEmpty {
                        embedding = blob.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
                    }
                    let category = AICategory(rawValue: row["category"] ?? "") ?? .uncategorized
                    let signals = (row["signals"] as Int64?).map(CategorySignals.init(rawValue:))
                    // Waiting (no method), never decided (no time), with a reason: the rules' decision made
                    // when it was stored (`IngestWriter`) from these signals; its method is the rules'
                    // to say (`RuleCategorizer`).
                    var provisional: CategoryDecision?
                    if signals != nil, (row["method"] as String?) == nil, (row["decidedAt"] as Double?) == nil,
                       let reason: String = row["reason"], let confidence: Double = row["confidence"] {
                        provisional = CategoryDecision(category: category, method: .rule, reason: reason, confidence: confidence)
                    }
                    let input = CategorizationInput(
                        emailId: row["id"], accountId: row["accountId"],
                        from: fromEmail.map { Address(name: row["fromName"], email: $0) },
                        toCount: Self.lineCount(row["toAddresses"]), ccCount: Self.lineCount(row["ccAddresses"]),
                        subject: row["subject"] ?? "", bodyPrefix: row["body"] ?? "",
                        isReply: (inReplyTo?.isEmpty == false) || (refs?.isEmpty == false),
                        hasAttachment: row["hasAttachment"],
                        signals: signals, embedding: embedding,
                        recipients: Self.recipients(row["toAddresses"], row["ccAddresses"]), provisional: provisional)
                    out.append((input, row["sourceRef"], category))
                }
            }
            return out
        }
    }

    /// Every email's sender, recipients, subject, header signals and category (no body), for
    /// learning which addresses and subject tags of the mailbox are mailing lists.
    public func categoryMailboxRows() throws -> [CategoryMailboxRow] {
        try database.read { db in
            var out: [CategoryMailboxRow] = []
            let rows = try Row.fetchCursor(db, sql: """
                SELECT e.id, e.accountId, e.fromEmail, e.toAddresses, e.ccAddresses, e.subject, e.category, c.signals, c.method,
                       substr(c.reason, 1, 20) AS reasonStart
                FROM emails e LEFT JOIN email_categories c ON c.emailId = e.id
                """)
            while let row = try rows.next() {
                let from: String? = row["fromEmail"]
                out.append(CategoryMailboxRow(
                    emailId: row["id"], accountId: row["accountId"], from: from?.lowercased() ?? "",
                    recipients: Self.recipients(row["toAddresses"], row["ccAddresses"]), subject: row["subject"] ?? "",
                    signals: (row["signals"] as Int64?).map(CategorySignals.init(rawValue:)),
                    category: AICategory(rawValue: row["category"] ?? "") ?? .uncategorized,
                    method: (row["method"] as String?).flatMap(CategoryMethod.init(rawValue:)), reasonStart: row["reasonStart"] ?? ""))
            }
            return out
        }
    }

    /// Changes when mail is added or removed or header signals change: whether lists learnt from
    /// `categoryMailboxRows` may be out of date (one pass over an integer table).
    public func categoryMailboxVersion() throws -> CategoryMailboxVersion {
        try database.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT COUNT(*) AS n, MAX(emailId) AS m, TOTAL(signals) AS t FROM email_categories")
            return CategoryMailboxVersion(emails: row?["n"] ?? 0, maxEmailId: row?["m"] ?? 0, signalsTotal: row?["t"] ?? 0)
        }
    }

    /// Sends these emails back to the categoriser, except the user's own choices; returns how many.
    @discardableResult
    public func requestRecategorization(emailIds: [Int64]) throws -> Int {
        guard !emailIds.isEmpty else { return 0 }
        return try database.write { db in
            var n = 0
            for chunk in stride(from: 0, to: emailIds.count, by: 500).map({ Array(emailIds[$0..<min($0 + 500, emailIds.count)]) }) {
                try db.execute(sql: """
                    UPDATE email_categories SET method = NULL WHERE method IS NOT 'user'
                    AND emailId IN (\(chunk.map { _ in "?" }.joined(separator: ",")))
                    """, arguments: StatementArguments(chunk))
                n += db.changesCount
            }
            return n
        }
    }

    private static func recipients(_ to: String?, _ cc: String?) -> [String] {
        var out: [String] = []
        AddressListCodec.appendLowercasedEmails(to, to: &out)
        AddressListCodec.appendLowercasedEmails(cc, to: &out)
        return out
    }

    private static func lineCount(_ text: String?) -> Int {
        guard let text, !text.isEmpty else { return 0 }
        return text.utf8.reduce(1) { $0 + ($1 == 10 ? 1 : 0) }
    }

    /// Stores decisions (and header signals read again from sources) in one transaction; an email
    /// the user categorised meanwhile keeps the user's choice. Returns how many categories changed.
    @discardableResult
    public func storeCategoryDecisions(_ decisions: [(emailId: Int64, decision: CategoryDecision)],
                                       signals: [(emailId: Int64, signals: CategorySignals)] = []) throws -> Int {
        guard !decisions.isEmpty || !signals.isEmpty else { return 0 }
        let now = Date().timeIntervalSince1970
        return try database.write { db in
            for item in signals {
                try db.cachedStatement(sql: "UPDATE email_categories SET signals = ? WHERE emailId = ?")
                    .execute(arguments: [item.signals.rawValue, item.emailId])
            }
            var changed = 0
            for item in decisions where item.decision.method != .user {
                let d = item.decision
                try db.cachedStatement(sql: """
                    UPDATE email_categories SET method = ?, reason = ?, confidence = ?, usedEmbedding = ?, decidedAt = ?
                    WHERE emailId = ? AND method IS NOT 'user'
                    """).execute(arguments: [d.method.rawValue, d.reason, d.confidence, d.usedEmbedding, now, item.emailId])
                guard db.changesCount > 0 else { continue }
                try db.cachedStatement(sql: "UPDATE emails SET category = ? WHERE id = ? AND category IS NOT ?")
                    .execute(arguments: [d.category.rawValue, item.emailId, d.category.rawValue])
                changed += db.changesCount
            }
            return changed
        }
    }

    /// The user's choice for these emails: kept by every later pass. Returns the ids that exist.
    @discardableResult
    public func setUserCategory(_ category: AICategory, emailIds: [Int64]) throws -> [Int64] {
        let now = Date().timeIntervalSince1970
        return try database.write { db in
            var done: [Int64] = []
            for id in emailIds {
                try db.execute(sql: "UPDATE emails SET category = ? WHERE id = ?", arguments: [category.rawValue, id])
                guard db.changesCount > 0 else { continue }
                try db.execute(sql: "INSERT OR IGNORE INTO email_categories (emailId) VALUES (?)", arguments: [id])
                try db.execute(sql: """
                    UPDATE email_categories SET method = 'user', reason = 'chosen by the user', confidence = 1,
                        decidedAt = ? WHERE emailId = ?
                    """, arguments: [now, id])
                done.append(id)
            }
            return done
        }
    }

    /// The emails of a thread, oldest first.
    public func emailIds(threadId: Int64) throws -> [Int64] {
        try database.read {
            try Int64.fetchAll($0, sql: "SELECT id FROM emails WHERE threadId = ? ORDER BY sortDate, id", arguments: [threadId])
        }
    }

    /// The user's choices as preferences: per account, the sender's address (lower case) and the
    /// category the user chose last for its mail, with the chosen emails' ids.
    public func userCategoryChoices() throws -> [(accountId: Int64, sender: String, category: AICategory, emailId: Int64)] {
        try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT e.id, e.accountId, lower(e.fromEmail) AS sender, e.category FROM email_categories c
                JOIN emails e ON e.id = c.emailId
                WHERE c.method = 'user' AND e.fromEmail IS NOT NULL ORDER BY c.decidedAt, e.id
                """).compactMap { row in
                guard let category = AICategory(rawValue: row["category"]) else { return nil }
                return (row["accountId"], row["sender"], category, row["id"])
            }
        }
    }

    /// Examples the classifier learns from: emails with an embedding whose category is sure (the
    /// user's, labels, confident rules), the newest `perCategory` of each category, the user's first.
    public func categoryTrainingExamples(perCategory: Int, minimumConfidence: Double)
        throws -> [(emailId: Int64, category: AICategory, method: CategoryMethod)] {
        try database.read { db in
            var out: [(emailId: Int64, category: AICategory, method: CategoryMethod)] = []
            // Only emails with an embedding train: with none (an import before `index embed`), none
            // does, and the query below would walk every email of each category to find that out.
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM embeddings)") == true else { return out }
            for category in AICategory.allCases where category != .uncategorized {
                let rows = try Row.fetchAll(db, sql: """
                    SELECT e.id, c.method FROM emails e
                    JOIN email_categories c ON c.emailId = e.id JOIN embeddings v ON v.emailId = e.id
                    WHERE e.category = ? AND c.method IN ('user', 'label', 'rule', 'preference') AND c.confidence >= ?
                    ORDER BY c.method = 'user' DESC, e.id DESC LIMIT ?
                    """, arguments: [category.rawValue, minimumConfidence, perCategory])
                for row in rows {
                    guard let method = CategoryMethod(rawValue: row["method"]) else { continue }
                    out.append((row["id"], category, method))
                }
            }
            return out
        }
    }

    /// Sends every email back to the categoriser (the user's choices stay), to be decided by the rules
    /// as they are now (no decision made when it was stored is taken up); with `rereadHeaders`, its
    /// header signals are read again from the source too. Returns how many.
    @discardableResult
    public func requestRecategorization(rereadHeaders: Bool = false) throws -> Int {
        try database.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO email_categories (emailId) SELECT id FROM emails")
            try db.execute(sql: """
                UPDATE email_categories SET method = NULL\(rereadHeaders ? ", signals = NULL" : ""),
                    reason = CASE WHEN decidedAt IS NULL THEN NULL ELSE reason END
                WHERE method IS NOT 'user'
                """)
            return db.changesCount
        }
    }

    /// An email's category and how it was decided.
    public func categorization(emailId: Int64) throws -> StoredCategorization? {
        try database.read { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT e.category, c.signals, c.method, c.reason, c.confidence, c.usedEmbedding
                FROM emails e LEFT JOIN email_categories c ON c.emailId = e.id WHERE e.id = ?
                """, arguments: [emailId]) else { return nil }
            let category = AICategory(rawValue: row["category"]) ?? .uncategorized
            var decision: CategoryDecision?
            if let method = (row["method"] as String?).flatMap(CategoryMethod.init(rawValue:)) {
                decision = CategoryDecision(category: category, method: method, reason: row["reason"] ?? "",
                                            confidence: row["confidence"] ?? 0, usedEmbedding: row["usedEmbedding"] ?? false)
            }
            return StoredCategorization(category: category, decision: decision,
                                        signals: (row["signals"] as Int64?).map(CategorySignals.init(rawValue:)))
        }
    }

    /// Emails per category (every category listed, zeros included).
    public func categoryCounts() throws -> [AICategory: Int] {
        try database.read { db in
            var counts = Dictionary(uniqueKeysWithValues: AICategory.allCases.map { ($0, 0) })
            for row in try Row.fetchAll(db, sql: "SELECT category, COUNT(*) AS n FROM emails GROUP BY category") {
                if let c = AICategory(rawValue: row["category"]) { counts[c, default: 0] += row["n"] }
            }
            return counts
        }
    }
}

extension MailStore {
    /// Sends the mail of these senders (per account, lower-case addresses) back to the categoriser,
    /// except the user's own choices; returns how many.
    @discardableResult
    public func requestRecategorization(senders: [(accountId: Int64, sender: String)]) throws -> Int {
        try database.write { db in
            var n = 0
            for item in senders {
                try db.execute(sql: """
                    UPDATE email_categories SET method = NULL WHERE method IS NOT 'user' AND emailId IN
                        (SELECT id FROM emails WHERE accountId = ? AND lower(fromEmail) = ?)
                    """, arguments: [item.accountId, item.sender])
                n += db.changesCount
            }
            return n
        }
    }

    /// The account and sender address (lower case) of emails.
    public func senders(emailIds: [Int64]) throws -> [(accountId: Int64, sender: String)] {
        try database.read { db in
            var seen = Set<String>()
            var out: [(accountId: Int64, sender: String)] = []
            for id in emailIds {
                guard let row = try Row.fetchOne(db, sql: "SELECT accountId, lower(fromEmail) AS s FROM emails WHERE id = ?",
                                                 arguments: [id]),
                      let sender: String = row["s"] else { continue }
                let accountId: Int64 = row["accountId"]
                if seen.insert("\(accountId)|\(sender)").inserted { out.append((accountId, sender)) }
            }
            return out
        }
    }
}
