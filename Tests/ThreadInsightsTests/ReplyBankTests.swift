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
