import Foundation
@testable import MailSearchKit
import MailModel
import MailStore
import ThreadInsights
import XCTest

/// 0 invented names, numbers and dates: every conversation of 3+ messages of the shared corpora,
/// imported and summarized through the service, has no summary line with a name, number or date
/// its thread does not have (`FactCheck`: the thread's bodies, subjects, names and addresses).
/// Needs the model and `make corpora` (skipped without them). usrp-users always; Enron's 2,615
/// conversations too with MAILSEARCH_CORPUS_SUMMARIES=all (minutes of the encoder).
final class CorpusSummaryFactTests: XCTestCase {
    var work: URL!

    override func setUpWithError() throws {
        work = FileManager.default.temporaryDirectory.appendingPathComponent("corpus-summaries-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: work)
    }

    static var corpora: URL {
        if let explicit = ProcessInfo.processInfo.environment["CORPORA"], !explicit.isEmpty { return URL(fileURLWithPath: explicit) }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("corpora")
    }

    func checkEveryConversation(of path: URL, account: String) async throws {
        guard FileManager.default.fileExists(atPath: path.path) else { throw XCTSkip("\(path.path) is missing: make corpora") }
        let service = try MailSearchService(configuration: .init(
            dataDirectory: DataDirectory(url: work.appendingPathComponent(account)), modelDirectory: try ServiceTests.modelDirectory()))
        defer { service.shutdown() }
        _ = try await service.mailbox.importMail(path: path.path, account: account)
        let ids = try service.store.threadsWithoutSummary(backend: ServiceCore.extractiveBackend(model: service.model),
                                                          minimumMessages: 3, limit: 100_000)
        XCTAssertFalse(ids.isEmpty)
        var failures: [String] = []
        var lines = 0
        for id in ids {
            let answer = try await service.insights.threadSummary(threadId: id)
            guard let summary = answer.summary, let (_, emails) = try service.store.thread(id: id) else {
                failures.append("t\(id): no summary (\(answer.status))")
                continue
            }
            let check = FactCheck(messages: emails.map(ServiceCore.conversationMessage))
            for point in summary.points {
                lines += 1
                let unsupported = check.unsupported(in: point.text)
                if !unsupported.isEmpty { failures.append("t\(id): \(unsupported) in \"\(point.text)\"") }
            }
        }
        print("\(account): \(ids.count) conversations of 3+ messages, \(lines) summary lines, \(failures.count) with invented facts")
        XCTAssertEqual(failures.count, 0, failures.prefix(10).joined(separator: "\n"))
    }

    func testNoSummaryOfUSRPUsersInventsANameNumberOrDate() async throws {
        try await checkEveryConversation(of: Self.corpora.appendingPathComponent("usrp-users.mbox"), account: "usrp")
    }

    func testNoSummaryOfEnronInventsANameNumberOrDate() async throws {
        guard ProcessInfo.processInfo.environment["MAILSEARCH_CORPUS_SUMMARIES"] == "all" else {
            throw XCTSkip("Enron's 2,615 conversations: set MAILSEARCH_CORPUS_SUMMARIES=all")
        }
        try await checkEveryConversation(of: Self.corpora.appendingPathComponent("enron-inbox/maildir"), account: "enron")
    }
}
