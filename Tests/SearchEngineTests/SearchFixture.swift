import Foundation
import GRDB
import MailModel
import MailStore
import SearchEngine
import SearchIndex
import XCTest

/// A temporary store + index filled with hand-made emails, and a parser with a pinned clock.
final class SearchFixture: @unchecked Sendable {
    static let now = Date(timeIntervalSince1970: 1_718_445_600) // 2024-06-15T10:00:00Z
    static let day: TimeInterval = 86_400

    let directory: URL
    let store: MailStore
    let index: SearchIndexManager
    let accountId: Int64
    var notices: [String] { noticeBox.values }
    private let noticeBox = NoticeBox()
    private var nextId = 0

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("search-\(UUID().uuidString)")
        store = try MailStore(directory: DataDirectory(url: directory))
        let box = noticeBox
        index = try SearchIndexManager(store: store, notices: { box.append($0) })
        accountId = try store.account(named: "test").id
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    static var parser: SearchQueryParser {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return SearchQueryParser(calendar: calendar, now: { SearchFixture.now })
    }

    func useCase(semantic: (any SemanticRanker)? = nil) -> SearchEmailsUseCase {
        SearchEmailsUseCase(index: index, parser: Self.parser, semantic: semantic)
    }

    struct Spec {
        var subject = "Hello"
        var body = "Nothing to see here."
        /// nil: a message without a From header.
        var from: String? = "someone@example.com"
        var fromName: String? = nil
        var to = "me@example.com"
        /// nil: a message without any date.
        var daysAgo: Double? = 30
        var folders = ["Inbox"]
        var hasAttachment = false
        /// The attachments (filename, MIME type) when `hasAttachment`; nil: one file.pdf.
        var attachments: [(String, String)]? = nil
        /// The message's size in bytes.
        var sizeBytes = 0
        var isRead = true
        var category: AICategory = .uncategorized
        var messageId: String? = nil
        var inReplyTo: String? = nil
    }

    /// Stores and indexes emails; returns their ids in order.
    @discardableResult
    func add(_ specs: [Spec], accountId: Int64? = nil) throws -> [Int64] {
        let account = accountId ?? self.accountId
        let items = specs.map { s -> IncomingEmail in
            nextId += 1
            let id = s.messageId ?? "m\(nextId)-\(UUID().uuidString)@test"
            return IncomingEmail(
                email: Email(accountId: account, messageId: id, inReplyTo: s.inReplyTo,
                             references: s.inReplyTo.map { [$0] } ?? [],
                             from: s.from.map { Address(name: s.fromName, email: $0) }, to: [Address(email: s.to)],
                             subject: s.subject, bodyPlain: s.body, snippet: String(s.body.prefix(100)),
                             dateSent: s.daysAgo.map { Self.now.addingTimeInterval(-$0 * Self.day) }, isRead: s.isRead,
                             category: s.category, sizeBytes: s.sizeBytes, hasAttachment: s.hasAttachment,
                             attachments: !s.hasAttachment ? []
                                : (s.attachments ?? [("file.pdf", "application/pdf")]).map {
                                    Attachment(filename: $0.0, mimeType: $0.1, sizeBytes: 100)
                                }),
                folders: s.folders.map { FolderSpec(path: $0) })
        }
        let result = try store.ingest(items, accountId: account)
        try index.index(result.inserted)
        return result.inserted.map(\.id)
    }

    func add(_ spec: Spec) throws -> Int64 { try add([spec])[0] }

    func folderId(_ path: String) throws -> Int64 {
        try XCTUnwrap(try store.folders().first { $0.path == path }?.id)
    }

    /// Asserts that searching `query` with `useCase` returns exactly the conversations of `expected`.
    func assertFinds(_ useCase: SearchEmailsUseCase, _ query: String, _ expected: Set<Int64>,
                     _ message: String = "", file: StaticString = #filePath, line: UInt = #line) async throws {
        let response = try await useCase.search(query, limit: 100)
        XCTAssertEqual(emailIds(response), expected, "\(query) \(message)", file: file, line: line)
    }

    /// Ids of the best emails of the result conversations.
    func emailIds(_ response: SearchResponse) -> Set<Int64> { Set(response.results.map(\.emailId)) }
}

final class NoticeBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ s: String) { lock.lock(); stored.append(s); lock.unlock() }
    var values: [String] { lock.lock(); defer { lock.unlock() }; return stored }
}

/// A semantic ranker that returns a fixed ranking and records its calls.
final class FakeSemanticRanker: SemanticRanker, @unchecked Sendable {
    let ranking: [Int64]
    let unavailableReason: SemanticSkipReason?
    let failure: Error?
    private let lock = NSLock()
    private(set) var calls: [(text: String, candidates: Set<Int64>?)] = []

    init(ranking: [Int64] = [], unavailableReason: SemanticSkipReason? = nil, failure: Error? = nil) {
        self.ranking = ranking
        self.unavailableReason = unavailableReason
        self.failure = failure
    }

    func rank(text: String, candidates: EmailIdSet?, limit: Int) async throws -> [SemanticHit] {
        lock.withLock { calls.append((text, candidates.map { Set($0.ids) })) }
        if let failure { throw failure }
        return Array(ranking.filter { candidates?.contains($0) ?? true }.prefix(limit)).enumerated()
            .map { SemanticHit(emailId: $1, similarity: 0.9 - 0.01 * Double($0)) }
    }
}
