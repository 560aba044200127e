import MailModel
import SearchEngine

/// Search: a page of conversations for a query, how a query was understood, the folder scope, the
/// zero state (recent searches, frequent contacts) and the recent searches.
public struct SearchService: Sendable {
    let core: ServiceCore

    /// Runs a search and returns one page of conversations (the same object `search --json` and
    /// `GET /api/search` print). A first page is recorded in the recent searches unless the
    /// request says not to; that write never holds up the answer.
    public func search(_ request: SearchRequest) async throws -> SearchPage {
        try await core.search(request)
    }

    /// Parses a query the way `search` does (for showing how it was understood). Pure: no I/O.
    public func parse(_ text: String, scope: SearchScope = .allMail) -> SearchQuery {
        core.parse(text, scope: scope)
    }

    /// Resolves "all", "folder:NAME" (a path or a name, case-insensitive) or "folder:ID",
    /// "account:NAME" or "account:ID", or "inboxes" (every account's inbox).
    public func resolveScope(_ text: String?) async throws -> SearchScope {
        try await core.pool.run { [core] in try core.resolveScope(text) }
    }

    /// The zero state: the last 10 searches and the 5 most frequent contacts.
    public func suggestions() async throws -> Suggestions {
        try await core.pool.run { [core] in try core.suggestions() }
    }

    /// Adds a query to the recent searches (a front end that searches as the user types records
    /// the query the user settled on). Blank queries are not kept; a read-only service keeps nothing.
    public func recordSearch(_ text: String) async throws {
        try await core.pool.run { [core] in try core.recordSearch(text) }
    }

    /// The recent searches, newest first.
    public func recentSearches() async throws -> [String] {
        try await core.pool.run { [core] in
            try core.recents.flush()
            return try core.store.recentSearches()
        }
    }

    public func clearRecentSearches() async throws {
        try await core.pool.run { [core] in try core.clearRecentSearches() }
    }

    /// The accounts and folders (with counts).
    public func mailboxes() async throws -> Mailboxes {
        try await core.pool.run { [core] in try core.mailboxes() }
    }

    /// Whether semantic search can run now, and if not why.
    public func semanticAvailability() async throws -> SemanticSkipReason? {
        try await core.pool.run { [core] in try core.semanticAvailability() }
    }
}
