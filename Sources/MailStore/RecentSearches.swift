import Foundation
import GRDB
import MailModel

/// Recent searches (FR-SEARCH-09): the last 10 queries, most recent first, deduplicated by
/// their normalised text (trimmed, lower-cased; the most recent spelling wins), kept in mail.sqlite.
extension MailStore {
    public static let recentSearchLimit = 10

    /// Records a query that was searched. Empty queries are not recorded.
    public func recordSearch(_ query: String, at date: Date = Date()) throws {
        guard let (trimmed, normalized) = Self.recentSearchKey(query) else { return }
        try database.write { db in
            try db.execute(sql: Self.recordSearchSQL, arguments: [normalized, trimmed, date.timeIntervalSince1970])
            try db.execute(sql: Self.trimRecentSearchesSQL, arguments: [Self.recentSearchLimit])
        }
    }

    /// A query as it is recorded (trimmed of white space and line breaks at both ends) and its key
    /// (that, lower-cased); nil for a query of white space alone.
    public static func recentSearchKey(_ query: String) -> (query: String, normalized: String)? {
        // Foundation's whitespacesAndNewlines is White_Space plus U+200B ZERO WIDTH SPACE (checked
        // over every scalar when this was written; a test compares the two on such text).
        func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.isWhitespace || scalar.value == 0x200B }
        let scalars = query.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) })
        else { return nil }
        let trimmed = String(scalars[first...last])
        return (trimmed, trimmed.lowercased())
    }

    /// Records a search: ?1 the key, ?2 the query, ?3 when (Unix seconds).
    public static let recordSearchSQL = """
        INSERT INTO recent_searches (normalized, query, searchedAt) VALUES (?1, ?2, ?3)
        ON CONFLICT (normalized) DO UPDATE SET query = excluded.query, searchedAt = excluded.searchedAt
        """

    /// Keeps the ?1 most recent searches.
    public static let trimRecentSearchesSQL = """
        DELETE FROM recent_searches WHERE normalized NOT IN
            (SELECT normalized FROM recent_searches ORDER BY searchedAt DESC, normalized LIMIT ?1)
        """

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
