import Embedding
import Foundation
import GRDB
@testable import MailSearchKit
import MailModel
import MailStore
import ThreadInsights
import XCTest

/// Background summaries (`SummaryQueue`) stored in mail.sqlite: what is stored, when a stored summary
/// stops counting (the thread gains or loses a message), and the queue stepping aside for
/// foreground work. A stand-in encoder: no model needed.
final class SummaryQueueTests: XCTestCase {
    var work: URL!

    override func setUpWithError() throws {
        work = FileManager.default.temporaryDirectory.appendingPathComponent("summary-queue-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: work)
    }

    /// Bag-of-words vectors hashed into 64 dimensions; counts its calls and can run a hook before each.
    final class StubEmbedder: Embedder, @unchecked Sendable {
        let dimension = 64
        private let lock = NSLock()
        private var callsValue = 0
        var onCall: (@Sendable () -> Void)?
        var calls: Int { lock.withLock { callsValue } }

        func embed(_ texts: [String]) throws -> [[Float]] {
            lock.withLock { callsValue += 1 }
            onCall?()
            return texts.map { text in
                var v = [Float](repeating: 0, count: 64)
                for word in text.lowercased().split(whereSeparator: { !$0.isLetter }) {
                    v[Int(UInt(bitPattern: word.hashValue) % 64)] += 1
                }
                let norm = max(v.reduce(0) { $0 + $1 * $1 }.squareRoot(), 1e-6)
                return v.map { $0 / norm }
            }
        }
    }

    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Bool
        init(_ value: Bool) { self.value = value }
        var isSet: Bool { lock.withLock { value } }
        func set(_ v: Bool) { lock.withLock { value = v } }
    }

    func message(_ id: String, parent: String?, from: String, subject: String, day: Int, body: String) -> String {
        var text = "From x@example.com Mon Mar  4 14:11:14 2024\nMessage-ID: <\(id)@example.com>\n"
        if let parent { text += "In-Reply-To: <\(parent)@example.com>\nReferences: <\(parent)@example.com>\n" }
        text += "From: \(from)\nTo: team@example.com\nSubject: \(subject)\nDate: \(day) Mar 2024 10:00:00 +0000\n\n\(body)\n\n"
        return text
    }

    /// Threads: "Venue" (4 messages), "Budget" (3), "Lunch" (2).
    func importMail(_ service: MailSearchService) async throws {
        let ann = "Ann Lee <ann@example.com>", bob = "Bob Stone <bob@example.com>"
        var mbox = ""
        let venue = ["We need a venue for the offsite in April. The options are Lisbon and Porto.",
                     "Lisbon is cheaper for most of us and the office has a big room.",
                     "Lisbon it is. I will book the room for the second week of April.",
                     "Could you send me the booking confirmation by Friday?"]
        for (i, body) in venue.enumerated() {
            mbox += message("v\(i)", parent: i == 0 ? nil : "v\(i - 1)", from: i % 2 == 0 ? ann : bob,
                            subject: i == 0 ? "Venue" : "Re: Venue", day: 4 + i, body: body)
        }
        let budget = ["The budget for the offsite is twelve thousand euros for the whole team.",
                      "Travel takes most of it; the rooms are free in the Lisbon office.",
                      "Then we can afford a dinner on the last evening of the offsite."]
        for (i, body) in budget.enumerated() {
            mbox += message("b\(i)", parent: i == 0 ? nil : "b\(i - 1)", from: i % 2 == 0 ? bob : ann,
                            subject: i == 0 ? "Budget" : "Re: Budget", day: 10 + i, body: body)
        }
        mbox += message("l0", parent: nil, from: ann, subject: "Lunch", day: 20, body: "Lunch at noon on Tuesday at the usual place?")
        mbox += message("l1", parent: "l0", from: bob, subject: "Re: Lunch", day: 20, body: "Yes, see you there at noon.")
        let path = work.appendingPathComponent("mail.mbox")
        try Data(mbox.utf8).write(to: path)
        _ = try await service.mailbox.importMail(path: path.path, account: "main")
    }

    func openService(backgroundSummaries: Bool? = nil) throws -> MailSearchService {
        try MailSearchService(configuration: .init(dataDirectory: DataDirectory(url: work.appendingPathComponent("data")),
                                                   modelDirectory: work.appendingPathComponent("no-model"), embeddingThreads: 1,
                                                   backgroundSummaries: backgroundSummaries))
    }

    func threadId(_ store: MailStore, subject: String) throws -> Int64 {
        try XCTUnwrap(try store.database.read { try Int64.fetchOne($0, sql: "SELECT id FROM threads WHERE subject = ?", arguments: [subject]) })
    }

    func emailIds(_ store: MailStore, thread: Int64) throws -> [Int64] {
        try store.database.read { try Int64.fetchAll($0, sql: "SELECT id FROM emails WHERE threadId = ? ORDER BY id", arguments: [thread]) }
    }

    func rows(_ store: MailStore, thread: Int64) throws -> Int? {
        try store.database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM thread_summaries WHERE threadId = ?", arguments: [thread]) }
    }

    func testSummariesOfThreadsOfThreeOrMoreAreStoredAndDroppedWhenTheThreadChanges() async throws {
        let service = try openService()
        defer { service.shutdown() }
        try await importMail(service)
        let store = service.store
        let queue = SummaryQueue(store: store, backend: "test", minimumMessages: 3, makeEmbedder: { StubEmbedder() }, isBusy: { false })
        defer { queue.stop() }
        XCTAssertEqual(try store.threadSummaryCounts(backend: "test", minimumMessages: 3), ThreadSummaryCounts(eligible: 2, stored: 0))
        queue.wake()
        queue.waitUntilIdle()
        XCTAssertEqual(try store.threadSummaryCounts(backend: "test", minimumMessages: 3), ThreadSummaryCounts(eligible: 2, stored: 2))
        XCTAssertEqual(queue.progress.donePass, 2)
        XCTAssertEqual(queue.progress.state, .idle)

        let venue = try threadId(store, subject: "Venue")
        let ids = try emailIds(store, thread: venue)
        let stored = try XCTUnwrap(try store.storedThreadSummary(threadId: venue, backend: "test", emailIds: ids))
        let summary = try JSONDecoder().decode(ThreadSummary.self, from: stored.json)
        XCTAssertEqual(summary.messages, 4)
        XCTAssertTrue(summary.points.allSatisfy { ids.contains($0.source.emailId) })
        // Asked with other emails (one more, one less), the stored summary does not count.
        XCTAssertNil(try store.storedThreadSummary(threadId: venue, backend: "test", emailIds: ids.dropLast()))

        // A reply joins the thread: its stored summary goes (trigger), and the queue makes a new one of 5 messages.
        let reply = message("v4", parent: "v3", from: "Ann Lee <ann@example.com>", subject: "Re: Venue", day: 9,
                            body: "Sent it this morning, the room is booked.")
        let path = work.appendingPathComponent("reply.mbox")
        try Data(reply.utf8).write(to: path)
        _ = try await service.mailbox.importMail(path: path.path, account: "main")
        XCTAssertEqual(try store.threadSummaryCounts(backend: "test", minimumMessages: 3).stored, 1)
        XCTAssertEqual(try store.threadsWithoutSummary(backend: "test", minimumMessages: 3, limit: 10), [venue])
        queue.wake()
        queue.waitUntilIdle()
        let five = try emailIds(store, thread: venue)
        XCTAssertEqual(five.count, 5)
        let again = try XCTUnwrap(try store.storedThreadSummary(threadId: venue, backend: "test", emailIds: five))
        XCTAssertEqual(try JSONDecoder().decode(ThreadSummary.self, from: again.json).messages, 5)

        // A message leaves the thread: its summary goes too; a two-message thread is no longer due one.
        let budget = try threadId(store, subject: "Budget")
        try service.core.delete(emailIds: [try XCTUnwrap(try emailIds(store, thread: budget).last)])
        XCTAssertEqual(try store.threadSummaryCounts(backend: "test", minimumMessages: 3), ThreadSummaryCounts(eligible: 1, stored: 1))
        let budgetRows = try rows(store, thread: budget)
        XCTAssertEqual(budgetRows, 0)

        // A summary computed from emails the thread no longer has is not stored.
        XCTAssertFalse(try store.storeThreadSummary(threadId: venue, backend: "test", emailIds: ids, json: Data("{}".utf8)))
    }

    func testTheQueueWaitsWhileSearchesRunEvenInsideASummary() async throws {
        let service = try openService()
        defer { service.shutdown() }
        try await importMail(service)
        let store = service.store
        let busy = Flag(true)
        let embedder = StubEmbedder()
        // One sentence per chunk; the first chunk "starts a search".
        embedder.onCall = { [weak embedder] in if embedder?.calls == 1 { busy.set(true) } }
        let queue = SummaryQueue(store: store, backend: "test", minimumMessages: 3, chunk: 1, pollInterval: 0.01,
                                 makeEmbedder: { embedder }, isBusy: { busy.isSet })
        defer { queue.stop() }
        queue.wake()
        try await Task.sleep(nanoseconds: 300_000_000)
        XCTAssertEqual(embedder.calls, 0, "nothing is embedded while a search runs")
        XCTAssertEqual(queue.progress.state, .waiting)
        busy.set(false)
        // The first chunk sets busy again: the summary stops between two chunks.
        try await Task.sleep(nanoseconds: 300_000_000)
        XCTAssertEqual(embedder.calls, 1)
        XCTAssertEqual(queue.progress.state, .waiting)
        XCTAssertEqual(try store.threadSummaryCounts(backend: "test", minimumMessages: 3).stored, 0)
        busy.set(false)
        queue.waitUntilIdle()
        XCTAssertEqual(try store.threadSummaryCounts(backend: "test", minimumMessages: 3).stored, 2)
        XCTAssertGreaterThan(embedder.calls, 2)
    }

    func testWithoutTheModelTheStatusSaysSo() async throws {
        let service = try openService()
        defer { service.shutdown() }
        try await importMail(service)
        service.core.summaries.wake()
        service.core.summaries.waitUntilIdle()
        let status = try await service.status()
        XCTAssertEqual(status.summaries.state, .modelMissing)
        XCTAssertEqual(status.summaries.eligible, 2)
        XCTAssertEqual(status.summaries.stored, 0)
    }

    /// `serve --no-background-embedding` keeps its background summaries: the two switches are
    /// independent (the summaries' queue was once woken only where embedding was).
    func testBackgroundSummariesRunWithoutBackgroundEmbedding() async throws {
        let service = try openService(backgroundSummaries: true)
        defer { service.shutdown() }
        XCTAssertFalse(service.configuration.backgroundEmbedding)
        try await importMail(service)
        await service.insights.waitForSummaries()
        let status = try await service.status()
        XCTAssertEqual(status.summaries.state, .modelMissing, "the queue ran a pass (and found no model to summarize with)")
        XCTAssertEqual(status.summaries.eligible, 2)

        // Neither switch given: summaries follow background embedding (off for a one-shot command).
        let quiet = try openService()
        defer { quiet.shutdown() }
        XCTAssertFalse(quiet.configuration.backgroundSummaries)
        await quiet.insights.waitForSummaries()
        let quietStatus = try await quiet.status()
        XCTAssertEqual(quietStatus.summaries.state, .idle, "nothing asked for a pass")
    }

    /// Summaries an earlier version of the summarizer stored (another key) are forgotten by the next
    /// pass, which makes them again: a user sees what the current rules choose.
    func testAPassForgetsTheSummariesOfAnEarlierVersion() async throws {
        let service = try openService()
        defer { service.shutdown() }
        try await importMail(service)
        let store = service.store
        let venue = try threadId(store, subject: "Venue")
        let ids = try emailIds(store, thread: venue)
        XCTAssertTrue(try store.storeThreadSummary(threadId: venue, backend: "old", emailIds: ids, json: Data("{}".utf8)))
        let queue = SummaryQueue(store: store, backend: "new", superseded: ["old"], minimumMessages: 3,
                                 makeEmbedder: { StubEmbedder() }, isBusy: { false })
        defer { queue.stop() }
        queue.wake()
        queue.waitUntilIdle()
        XCTAssertNil(try store.storedThreadSummary(threadId: venue, backend: "old", emailIds: ids), "the earlier version's summary is gone")
        XCTAssertNotNil(try store.storedThreadSummary(threadId: venue, backend: "new", emailIds: ids), "and made again")
        XCTAssertNotEqual(ServiceCore.extractiveBackend(model: .default), "extractive:\(EmbeddingModel.default.name)")
        XCTAssertTrue(ServiceCore.earlierExtractiveBackends(model: .default).contains("extractive:\(EmbeddingModel.default.name)"))
    }
}
