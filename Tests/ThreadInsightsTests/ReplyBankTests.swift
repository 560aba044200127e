import Foundation
import ThreadInsights
import XCTest

/// The curated reply set and what the docs say of it.
final class ReplyBankTests: XCTestCase {
    func testTheDocsCountTheRepliesAndIntentsTheSetHas() throws {
        let replies = ReplyBank.replies
        let intents = Set(replies.map(\.intent))
        XCTAssertFalse(replies.contains { $0.text.isEmpty }, "no empty reply")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        for (path, phrase) in [("README.md", "\(replies.count) replies written for it in \(intents.count) intents"),
                               ("ARCHITECTURE.md", "\(replies.count) curated replies\nin \(intents.count) intents"),
                               ("docs/architecture-notes.md", "\(replies.count) curated replies in \(intents.count) intents"),
                               ("Sources/ThreadInsights/RetrievalReplySuggester.swift", "\(replies.count) in\n/// \(intents.count) intents")] {
            let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            XCTAssertTrue(text.contains(phrase), "\(path) should say \"\(phrase)\" (the set: \(replies.count) replies, \(intents.count) intents)")
        }
    }
}

/// Which intents an email gives occasion for.
final class ReplyIntentsTests: XCTestCase {
    func testTheGateKnowsEveryIntentOfTheSet() {
        XCTAssertEqual(ReplyIntents.all, Set(ReplyBank.replies.map(\.intent)))
    }

    func testATechnicalQuestionGetsNeitherACongratulationNorAMeetingTime() {
        let allowed = ReplyIntents.allowed(for: "How do I reshape a sparse matrix without making it dense? The docs only show arrays.")
        XCTAssertFalse(allowed.contains("congrats"))
        XCTAssertFalse(allowed.contains("schedule"))
        XCTAssertTrue(allowed.contains("help"))
        XCTAssertTrue(allowed.contains("thanks"))
    }

    func testNewsAndTalkOfMeetingOpenTheirIntents() {
        XCTAssertTrue(ReplyIntents.allowed(for: "I'm happy to announce that I got promoted! Drinks on Friday?").contains("congrats"))
        XCTAssertTrue(ReplyIntents.allowed(for: "Can we meet to go over the budget?").contains("schedule"))
        XCTAssertTrue(ReplyIntents.allowed(for: "Are you free at 3pm for a quick review?").contains("schedule"))
        XCTAssertFalse(ReplyIntents.allowed(for: "Can we meet to go over the budget?").contains("congrats"))
    }
}
