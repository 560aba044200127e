import Embedding
import Foundation
import MailParsing
import MailStore
import XCTest

/// The embedding model for tests that need vectors: a failure when `make test` requires it.
enum ServiceModel {
    static func directory() throws -> URL {
        let directory = ModelStore.defaultDirectory()
        guard ModelStore(directory: directory).status().isInstalled else {
            let message = "the all-MiniLM-L6-v2 model is not installed in \(directory.path); run scripts/install-model.sh"
            if ProcessInfo.processInfo.environment["MAILSEARCH_REQUIRE_MODEL"] == "1" { XCTFail(message) }
            throw XCTSkip(message)
        }
        return directory
    }
}

enum MailFixtures {
    /// The first `limit` messages of an mbox, as bytes.
    static func mboxMessages(_ path: String, limit: Int) throws -> [[UInt8]] {
        var messages: [[UInt8]] = []
        for message in try MboxReader(path: path) {
            messages.append(message.bytes)
            if messages.count == limit { break }
        }
        return messages
    }

    /// What `mailsearch export` writes, without the ids that depend on the order of arrival:
    /// each email's line keyed by Message-ID, and the conversations as sets of Message-IDs.
    struct Export: Equatable {
        var emails: [String: String]
        var threads: Set<Set<String>>
    }

    static func export(_ store: MailStore) throws -> Export {
        var emails: [String: String] = [:]
        var threads: [Int64: Set<String>] = [:]
        let dates = ISO8601DateFormatter()
        try store.forEachEmail { email, folders in
            let line = [email.messageId, folders.joined(separator: ","), email.date.map { dates.string(from: $0) } ?? "-",
                        email.from?.email ?? "-", email.subject, "\(email.hasAttachment)", "\(email.isRead)",
                        "\(email.isStarred)", email.category.rawValue].joined(separator: "|")
            emails[email.messageId] = line
            if let thread = email.threadId { threads[thread, default: []].insert(email.messageId) }
        }
        return Export(emails: emails, threads: Set(threads.values))
    }
}
