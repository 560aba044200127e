import Embedding
import Foundation
import MailModel
import MailParsing
import ThreadInsights

/// `mailsearch-bench insights …`: thread summaries and reply suggestions.
///
///     insights summaries [FIXTURE]   key-fact recall of the summaries of the hand-written threads
///                                    (Tests/Fixtures/insights/summary-threads.json), then latency:
///                                    the summary of a 10-message thread and reply suggestions, p50/p95
///                                    after warm-up
///     insights pairs MBOX OUT        (message, reply) pairs of an mbox (a reply's In-Reply-To → its
///                                    parent), both as `MessageCleaner` cleans them, as JSON lines for
///                                    scripts/eval/reply_selection.py
enum InsightsBenchmark {
    struct FixtureThread: Decodable {
        struct Person: Decodable { var name: String?; var email: String }
        struct Message: Decodable { var from: Person; var to: [Person]; var date: String; var body: String }
        var id: String
        var messages: [Message]
        var keyFacts: [String]
    }

    static func run(_ args: [String], modelDirectory: URL) throws {
        switch args.first ?? "summaries" {
        case "summaries":
            try summaries(fixture: args.dropFirst().first ?? "Tests/Fixtures/insights/summary-threads.json", modelDirectory: modelDirectory)
        case "pairs":
            guard args.count == 3 else { throw BenchError("usage: insights pairs MBOX OUT.jsonl") }
            try pairs(mbox: args[1], output: args[2])
        default:
            throw BenchError("insights: summaries [FIXTURE] | pairs MBOX OUT")
        }
    }

    struct BenchError: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }

    static func conversation(_ thread: FixtureThread, firstId: Int64 = 1) -> [ConversationMessage] {
        let dates = ISO8601DateFormatter()
        return thread.messages.enumerated().map { i, m in
            ConversationMessage(emailId: firstId + Int64(i), from: Address(name: m.from.name, email: m.from.email),
                                to: m.to.map { Address(name: $0.name, email: $0.email) }, date: dates.date(from: m.date), body: m.body)
        }
    }

    static func summaries(fixture: String, modelDirectory: URL) throws {
        struct File: Decodable { var threads: [FixtureThread] }
        let threads = try JSONDecoder().decode(File.self, from: Data(contentsOf: URL(fileURLWithPath: fixture))).threads
        let embedder = try MiniLMEmbedder(modelDirectory: modelDirectory)
        let summarizer = ExtractiveSummarizer(embedder: embedder)
        var found = 0, total = 0
        print("Key-fact recall (\(fixture)): a fact counts when one summary line contains it")
        for thread in threads {
            let summary = try summarizer.summarize(conversation(thread))
            let lines = summary.points.map(\.text)
            let hits = thread.keyFacts.filter { fact in lines.contains { $0.localizedCaseInsensitiveContains(fact) } }
            found += hits.count
            total += thread.keyFacts.count
            print("  \(thread.id) (\(thread.messages.count) messages): \(hits.count)/\(thread.keyFacts.count)"
                  + (hits.count < thread.keyFacts.count ? "  missing: \(thread.keyFacts.filter { !hits.contains($0) })" : ""))
            for line in lines { print("    • \(line)") }
        }
        print(String(format: "  recall: %d/%d = %.3f", found, total, Double(found) / Double(max(total, 1))))

        // A 10-message thread: the fixture's messages one after another.
        var ten: [ConversationMessage] = []
        for thread in threads { ten += conversation(thread, firstId: Int64(ten.count + 1)) }
        ten = Array(ten.prefix(10))
        for _ in 0..<3 { _ = try summarizer.summarize(ten) }
        var summaryTimes = Samples()
        for _ in 0..<30 { summaryTimes.add(try measure { _ = try summarizer.summarize(ten) }) }
        let sentences = try summarizer.summarize(ten).sentences
        print("Summary of a 10-message thread (\(sentences) candidate sentences), after 3 warm-ups: \(summaryTimes.summary())")

        let suggester = RetrievalReplySuggester(embedder: embedder)
        var coldReplies = 0.0
        coldReplies = try measure { try suggester.warmUp() }
        print(String(format: "Reply set embedded once per process (%d replies): %.1f ms", ReplyBank.replies.count, coldReplies))
        let asking = threads.flatMap { conversation($0) }.filter { (try? suggester.suggest(for: $0).triggered) == true }
        var replyTimes = Samples()
        for _ in 0..<5 { for m in asking { replyTimes.add(try measure { _ = try suggester.suggest(for: m) }) } }
        print("Reply suggestions for the \(asking.count) fixture messages that ask something, ×5: \(replyTimes.summary())")
        for m in asking.prefix(6) {
            let s = try suggester.suggest(for: m)
            let question = MessageCleaner.clean(m.body).text.replacingOccurrences(of: "\n", with: " ").prefix(90)
            print("  \"\(question)\" → " + s.suggestions.map { "\($0.text) (\($0.intent))" }.joined(separator: " | "))
        }
    }

    static func pairs(mbox: String, output: String) throws {
        var byId: [String: ParsedMessage] = [:]
        var all: [ParsedMessage] = []
        for raw in try MboxReader(path: mbox) {
            let parsed = MIMEParser.parse(raw.bytes, mboxFromLineDate: raw.fromLineDate, fallbackDate: nil)
            all.append(parsed)
            if let id = parsed.messageId { byId[id] = parsed }
        }
        var lines: [String] = []
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for reply in all {
            guard let parentId = reply.inReplyTo.first, let parent = byId[parentId] else { continue }
            let message = MessageCleaner.clean(parent.textBody).text
            let answer = MessageCleaner.clean(reply.textBody).text
            guard message.count >= 10, answer.count >= 10 else { continue }
            let row = ["message": message, "reply": answer, "messageId": parentId, "replyId": reply.messageId ?? ""]
            lines.append(String(decoding: try encoder.encode(row), as: UTF8.self))
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: output, atomically: true, encoding: .utf8)
        print("\(all.count) messages, \(lines.count) (message, reply) pairs → \(output)")
    }
}
