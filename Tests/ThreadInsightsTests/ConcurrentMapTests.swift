import Embedding
import MailModel
@testable import ThreadInsights
import XCTest

/// `concurrentMap` (MailModel): what a summary's cleaning and an import's parsing run on.
final class ConcurrentMapTests: XCTestCase {
    func testTheSameAsMapInOrder() {
        for count in [0, 1, 2, 3, 17, 1_000] {
            let input = Array(0..<count)
            XCTAssertEqual(input.concurrentMap { $0 * $0 + 1 }, input.map { $0 * $0 + 1 })
        }
    }

    func testFromATaskOfSwiftConcurrency() async {
        let input = (0..<64).map { String(repeating: "x", count: $0) }
        let counts = await Task.detached { input.concurrentMap(\.count) }.value
        XCTAssertEqual(counts, Array(0..<64))
    }

    /// A thread whose kernels run alone (the background summaries' niced one) is told so, other
    /// threads are not, and a summary made there is the one made elsewhere (its bodies then cleaned on
    /// that thread alone).
    func testAThreadThatRunsAloneSummarizesAlone() throws {
        let messages = (0..<6).map { i in
            ConversationMessage(emailId: Int64(i + 1), from: Address(name: "P\(i % 2)", email: "p\(i % 2)@example.com"), to: [],
                                date: Date(timeIntervalSince1970: Double(i) * 3600),
                                body: "Hello,\n\nThe board rev \(i) fails the clock test at 10 MHz after the update. Could you check the FPGA image version?\n\nThanks,\nP")
        }
        let summarizer = ExtractiveSummarizer(embedder: WordHashEmbedder())
        let here = try summarizer.summarize(messages)
        XCTAssertFalse(KernelThreads.runsAloneOnThisThread)
        let done = expectation(description: "the niced thread's summary")
        let result = LockedBox<(Bool, ThreadSummary?)>((false, nil))
        let thread = Thread {
            KernelThreads.runAloneOnThisThread()
            let alone = KernelThreads.runsAloneOnThisThread, summary = try? summarizer.summarize(messages)
            result.withLockedValue { $0 = (alone, summary) }
            done.fulfill()
        }
        thread.start()
        wait(for: [done], timeout: 30)
        XCTAssertTrue(result.withLockedValue { $0.0 })
        XCTAssertEqual(result.withLockedValue { $0.1?.points.map(\.text) }, here.points.map(\.text))
        XCTAssertFalse(KernelThreads.runsAloneOnThisThread, "only the thread that asked runs alone")
    }
}
