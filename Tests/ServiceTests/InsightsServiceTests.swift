import Foundation
@testable import MailSearchKit
import MailModel
import MailStore
import ThreadInsights
import XCTest

/// `threadSummary` and `replySuggestions` with the real model on an imported mbox: a conversation
/// of four, one of two; the summary cached until the mail changes.
final class InsightsServiceTests: XCTestCase {
    var work: URL!

    override func setUpWithError() throws {
        work = FileManager.default.temporaryDirectory.appendingPathComponent("insights-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: work)
    }

    func message(_ id: String, parent: String?, from: String, to: String, subject: String, day: Int, body: String) -> String {
        var text = "From x@example.com Mon Mar  4 14:11:14 2024\nMessage-ID: <\(id)@example.com>\n"
        if let parent { text += "In-Reply-To: <\(parent)@example.com>\nReferences: <\(parent)@example.com>\n" }
        text += "From: \(from)\nTo: \(to)\nSubject: \(subject)\nDate: \(day) Mar 2024 10:00:00 +0000\n\n\(body)\n\n"
        return text
    }

    /// A service on a fresh data directory with the real model, and `mbox` written beside it.
    func serviceAndMbox(_ mbox: String) throws -> (MailSearchService, URL) {
        let path = work.appendingPathComponent("m.mbox")
        try Data(mbox.utf8).write(to: path)
        let service = try MailSearchService(configuration: .init(
            dataDirectory: DataDirectory(url: work.appendingPathComponent("data")), modelDirectory: try ServiceTests.modelDirectory(),
            embeddingThreads: 1))
        return (service, path)
    }

    func testSummaryOfAConversationAndRepliesToAQuestion() async throws {
        let ann = "Ann Lee <ann@example.com>", bob = "Bob Stone <bob@example.com>"
        var mbox = message("a1", parent: nil, from: ann, to: bob, subject: "Offsite venue", day: 4,
                           body: "Hi Bob,\n\nWe need a venue for the offsite in April. The options are Lisbon and Porto.\n\nThanks,\nAnn")
        mbox += message("a2", parent: "a1", from: bob, to: ann, subject: "Re: Offsite venue", day: 5,
                        body: "Lisbon is cheaper for most of us and the office has a big room.\n\nBob\n\n> We need a venue for the offsite in April.")
        mbox += message("a3", parent: "a2", from: ann, to: bob, subject: "Re: Offsite venue", day: 6,
                        body: "Lisbon it is. I will book the room for April 17.")
        mbox += message("a4", parent: "a3", from: bob, to: ann, subject: "Re: Offsite venue", day: 7,
                        body: "Great. Could you send me the booking confirmation by Friday?")
        mbox += message("b1", parent: nil, from: ann, to: bob, subject: "Lunch", day: 8, body: "Lunch at noon on Tuesday?")
        mbox += message("b2", parent: "b1", from: bob, to: ann, subject: "Re: Lunch", day: 8, body: "Yes, see you there.")
        let (service, path) = try serviceAndMbox(mbox)
        defer { service.shutdown() }
        _ = try await service.mailbox.importMail(path: path.path, account: "main")

        let offsite = try await service.search.search(SearchRequest(text: "venue", limit: 5, mode: .keyword, recordHistory: false))
        let threadId = try XCTUnwrap(offsite.results.first).threadId
        let answer = try await service.insights.threadSummary(threadId: threadId)
        XCTAssertEqual(answer.status, .summarized)
        XCTAssertEqual(answer.messageCount, 4)
        let summary = try XCTUnwrap(answer.summary)
        XCTAssertTrue((3...4).contains(summary.points.count), "\(summary.points.map(\.text))")
        XCTAssertEqual(summary.points.last?.text, "Waiting on Ann Lee: Could you send me the booking confirmation by Friday?")
        for point in summary.points {
            let email = try await service.reader.email(id: point.source.emailId)
            let cleaned = Array(MessageCleaner.clean(email.body).text)
            XCTAssertEqual(String(cleaned[point.source.start..<point.source.end]), point.sentence)
        }
        // Cached for the generation; the same answer again.
        XCTAssertEqual(service.core.insights.summary(threadId: threadId, generation: service.generation), answer)
        let again = try await service.insights.threadSummary(threadId: threadId)
        XCTAssertEqual(again, answer)
        // A change of the mail (here: deleting the last message) is a new generation: computed again.
        let last = try XCTUnwrap(summary.points.last).source.emailId
        try service.core.delete(emailIds: [last])
        XCTAssertNil(service.core.insights.summary(threadId: threadId, generation: service.generation))
        let after = try await service.insights.threadSummary(threadId: threadId)
        XCTAssertEqual(after.messageCount, 3)
        XCTAssertFalse(after.summary?.points.contains { $0.source.emailId == last } ?? true)

        let lunch = try await service.search.search(SearchRequest(text: "lunch", limit: 5, mode: .keyword, recordHistory: false))
        let short = try await service.insights.threadSummary(threadId: try XCTUnwrap(lunch.results.first).threadId)
        XCTAssertEqual(short.status, .tooShort)
        XCTAssertNil(short.summary)

        let noon = try await service.search.search(SearchRequest(text: "noon", limit: 5, mode: .keyword, recordHistory: false))
        let question = try XCTUnwrap(noon.results.first)
        let replies = try await service.insights.replySuggestions(emailId: question.emailId)
        XCTAssertTrue(replies.replies.triggered)
        XCTAssertEqual(replies.replies.suggestions.count, 3)
        XCTAssertEqual(replies.replies.method, "retrieval-minilm+tfidf", "ranked with the mailbox's document frequencies")
        let answerEmail = try await service.search.search(SearchRequest(text: "\"see you there\"", limit: 5, mode: .keyword, recordHistory: false))
        let none = try await service.insights.replySuggestions(emailId: try XCTUnwrap(answerEmail.results.first).emailId)
        XCTAssertFalse(none.replies.triggered)
        // No account has an address: nobody can tell whom the mail is for.
        XCTAssertNil(replies.addressedToYou)
    }

    /// With the account's address known, a question to a list (or to someone else) gets no suggestion;
    /// one to the user (To or Cc, any case) does.
    func testRepliesOnlyForMailAddressedToTheUser() async throws {
        let ann = "Ann Lee <ann@example.com>"
        var mbox = message("q1", parent: nil, from: ann, to: "Bob Stone <Bob@Example.com>", subject: "Lunch", day: 8,
                           body: "Lunch at noon on Tuesday?")
        mbox += message("q2", parent: nil, from: ann, to: "devel@lists.example.org", subject: "Build", day: 9,
                        body: "Can someone review my patch to the build scripts by Friday?")
        let (service, path) = try serviceAndMbox(mbox)
        defer { service.shutdown() }
        _ = try service.core.store.account(named: "main", email: "bob@example.com")
        _ = try await service.mailbox.importMail(path: path.path, account: "main")

        func email(_ word: String) async throws -> Int64 {
            let found = try await service.search.search(SearchRequest(text: word, limit: 5, mode: .keyword, recordHistory: false))
            return try XCTUnwrap(found.results.first).emailId
        }
        let toBob = try await service.insights.replySuggestions(emailId: try await email("noon"))
        XCTAssertEqual(toBob.addressedToYou, true)
        XCTAssertTrue(toBob.replies.triggered)
        XCTAssertEqual(toBob.replies.suggestions.count, 3)
        let toList = try await service.insights.replySuggestions(emailId: try await email("patch"))
        XCTAssertEqual(toList.addressedToYou, false)
        XCTAssertFalse(toList.replies.triggered)
        XCTAssertEqual(toList.replies.suggestions, [])
    }
}

/// Background summaries with the real model: computed after embedding, stored, served from the
/// store, counted in the status; and a local model that cannot load leaves the extractive answer.
final class StoredSummaryServiceTests: XCTestCase {
    var work: URL!

    override func setUpWithError() throws {
        work = FileManager.default.temporaryDirectory.appendingPathComponent("stored-summaries-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: work)
    }

    func message(_ id: String, parent: String?, from: String, to: String, subject: String, day: Int, body: String) -> String {
        var text = "From x@example.com Mon Mar  4 14:11:14 2024\nMessage-ID: <\(id)@example.com>\n"
        if let parent { text += "In-Reply-To: <\(parent)@example.com>\nReferences: <\(parent)@example.com>\n" }
        text += "From: \(from)\nTo: \(to)\nSubject: \(subject)\nDate: \(day) Mar 2024 10:00:00 +0000\n\n\(body)\n\n"
        return text
    }

    func writeMail() throws -> String {
        let ann = "Ann Lee <ann@example.com>", bob = "Bob Stone <bob@example.com>"
        var mbox = message("a1", parent: nil, from: ann, to: bob, subject: "Offsite venue", day: 4,
                                  body: "We need a venue for the offsite in April. The options are Lisbon and Porto.")
        mbox += message("a2", parent: "a1", from: bob, to: ann, subject: "Re: Offsite venue", day: 5,
                               body: "Lisbon is cheaper for most of us and the office has a big room.")
        mbox += message("a3", parent: "a2", from: ann, to: bob, subject: "Re: Offsite venue", day: 6,
                               body: "Lisbon it is. I will book the room for April 17.")
        let path = work.appendingPathComponent("m.mbox")
        try Data(mbox.utf8).write(to: path)
        return path.path
    }

    func testSummariesAreComputedInTheBackgroundAndServedFromTheStore() async throws {
        let path = try writeMail()
        var configuration = MailSearchService.Configuration(
            dataDirectory: DataDirectory(url: work.appendingPathComponent("data")), modelDirectory: try ServiceTests.modelDirectory(),
            embeddingThreads: 1, backgroundEmbedding: true)
        // A local model whose library is missing: the answer says so and stays extractive.
        let gguf = work.appendingPathComponent("model.gguf")
        try Data("GGUF".utf8).write(to: gguf)
        configuration.llm = LLMConfiguration(modelPath: gguf.path, libraryPath: work.appendingPathComponent("none.so").path)
        let service = try MailSearchService(configuration: configuration)
        defer { service.shutdown() }
        _ = try await service.mailbox.importMail(path: path, account: "main")
        await service.waitForEmbedding()
        // The summaries' queue waits for embedding, then runs.
        for _ in 0..<600 where try await service.status().summaries.stored < 1 { try await Task.sleep(nanoseconds: 100_000_000) }
        await service.insights.waitForSummaries()
        let status = try await service.status()
        XCTAssertEqual(status.summaries.eligible, 1)
        XCTAssertEqual(status.summaries.stored, 1)
        XCTAssertEqual(status.summaries.donePass, 1)

        let found = try await service.search.search(SearchRequest(text: "venue", limit: 5, mode: .keyword, recordHistory: false))
        let threadId = try XCTUnwrap(found.results.first).threadId
        let answer = try await service.insights.threadSummary(threadId: threadId)
        XCTAssertEqual(answer.origin, .stored)
        XCTAssertEqual(answer.backend, .extractive)
        XCTAssertNil(answer.generated)
        XCTAssertTrue(answer.llmError?.contains("not installed") ?? false, "\(answer.llmError ?? "nil")")
        XCTAssertEqual(answer.summary?.messages, 3)
    }

    func testASummaryMissingFromTheStoreIsComputedAndStored() async throws {
        let path = try writeMail()
        let service = try MailSearchService(configuration: .init(
            dataDirectory: DataDirectory(url: work.appendingPathComponent("data")), modelDirectory: try ServiceTests.modelDirectory(),
            embeddingThreads: 1))
        defer { service.shutdown() }
        _ = try await service.mailbox.importMail(path: path, account: "main")
        let found = try await service.search.search(SearchRequest(text: "venue", limit: 5, mode: .keyword, recordHistory: false))
        let threadId = try XCTUnwrap(found.results.first).threadId
        let first = try await service.insights.threadSummary(threadId: threadId)
        XCTAssertEqual(first.origin, .computed)
        let stored = try await service.status().summaries.stored
        XCTAssertEqual(stored, 1)
        service.core.mailChanged()  // a new generation: the memory cache no longer answers
        let second = try await service.insights.threadSummary(threadId: threadId)
        XCTAssertEqual(second.origin, .stored)
        XCTAssertEqual(second.summary, first.summary)
    }
}
