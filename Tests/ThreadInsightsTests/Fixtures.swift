import Embedding
import Foundation
import MailModel
import ThreadInsights
import XCTest

/// The hand-written conversations of `Tests/Fixtures/insights/summary-threads.json`.
struct FixtureThread: Decodable {
    struct Person: Decodable { var name: String?; var email: String }
    struct Message: Decodable { var from: Person; var to: [Person]; var date: String; var body: String }
    var id: String
    var messages: [Message]
    var keyFacts: [String]

    var conversation: [ConversationMessage] {
        let dates = ISO8601DateFormatter()
        return messages.enumerated().map { i, m in
            ConversationMessage(emailId: Int64(i + 1), from: Address(name: m.from.name, email: m.from.email),
                                to: m.to.map { Address(name: $0.name, email: $0.email) }, date: dates.date(from: m.date), body: m.body)
        }
    }

    static func all() throws -> [FixtureThread] {
        struct File: Decodable { var threads: [FixtureThread] }
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/insights/summary-threads.json")
        return try JSONDecoder().decode(File.self, from: Data(contentsOf: url)).threads
    }
}

/// The installed all-MiniLM-L6-v2, loaded once; a skip without it (a failure with MAILSEARCH_REQUIRE_MODEL=1).
enum Model {
    nonisolated(unsafe) private static var loaded: MiniLMEmbedder?
    private static let lock = NSLock()

    static func embedder() throws -> MiniLMEmbedder {
        try lock.withLock {
            if let loaded { return loaded }
            let directory = ModelStore().directory
            guard ModelStore().status().isInstalled else {
                let message = "all-MiniLM-L6-v2 is not installed in \(directory.path): make model"
                if ProcessInfo.processInfo.environment["MAILSEARCH_REQUIRE_MODEL"] == "1" { XCTFail(message); throw XCTSkip(message) }
                throw XCTSkip(message)
            }
            let embedder = try MiniLMEmbedder(modelDirectory: directory)
            loaded = embedder
            return embedder
        }
    }
}
