import Foundation
import GRDB
import MailModel

/// Recent searches (FR-SEARCH-09): the last 10 queries, most recent first, deduplicated by
/// their normalised text (trimmed, lower-cased; the most recent spelling wins), kept in mail.sqlite.
extension MailStore {
    public static let recentSearchLimit = 10

    /// Records a query that was searched. Empty queries are not recorded.
    public func recordSearch(_ query: String, at date: Date = Date()) throws {
        let trimmed = query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return }
        let normalized = trimmed.lowercased()
        try database.write { db in
            try db.execute(sql: """
                INSERT INTO recent_searches (normalized, query, searchedAt) VALUES (?, ?, ?)
                ON CONFLICT (normalized) DO UPDATE SET query = excluded.query, searchedAt = excluded.searchedAt
                """, arguments: [normalized, trimmed, date.timeIntervalSince1970])
            try db.execute(sql: """
                DELETE FROM recent_searches WHERE normalized NOT IN
                    (SELECT normalized FROM recent_searches ORDER BY searchedAt DESC, normalized LIMIT ?)
                """, arguments: [Self.recentSearchLimit])
        }
    }

    /// The recent queries, most recent first.
    public func recentSearches() throws -> [String] {
        try database.read { db in
            try String.fetchAll(db, sql: "SELECT query FROM recent_searches ORDER BY searchedAt DESC LIMIT ?",
                                arguments: [Self.recentSearchLimit])
        }
    }

    public func clearRecentSearches() throws {
        try database.write { try $0.execute(sql: "DELETE FROM recent_searches") }
    }

    /// The most frequent correspondents across accounts, deduplicated by address (zero state, AC-S-02).
    public func topContacts(limit: Int = 5) throws -> [Contact] {
        try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT accountId, email, displayName, MAX(lastSeen) AS lastSeen, SUM(frequency) AS frequency
                FROM contacts GROUP BY email ORDER BY frequency DESC, email LIMIT ?
                """, arguments: [limit]).map {
                Contact(accountId: $0["accountId"], email: $0["email"], displayName: $0["displayName"],
                        lastSeen: ($0["lastSeen"] as Double?).map(Date.init(timeIntervalSince1970:)),
                        frequency: $0["frequency"])
            }
        }
    }
}
