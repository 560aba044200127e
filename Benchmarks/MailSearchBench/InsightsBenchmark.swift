import Embedding
import Foundation
import MailModel
import MailParsing
import MailStore
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
///     insights corpus DATA_DIR OUT   every conversation of 3+ messages of an imported mailbox summarized,
///                                    each line checked for names, numbers and dates its thread does not
///                                    have (FactCheck); the summaries as JSON lines for side-by-side judging
///     insights side-by-side DATA_DIR CORPUS JUDGMENTS.json
///                                    the judged conversations of one corpus (by their first message's
///                                    Message-ID), each message's cleaned text beside the summary and the
///                                    judgment (docs/insights-judging.json: the judgments are committed,
///                                    the mail's text is not)
///     insights clean-pairs IN OUT    the same cleaning for pairs found elsewhere (JSON lines with raw
///                                    "message" and "reply": scripts/eval/enron_reply_pairs.py)
///     insights sentences|threads …   the prose filter on a corpus, and summaries of its threads read from
///                                    the corpus itself (InsightsProseBenchmark)
///     insights intents OUT.jsonl SOURCE...
///                                    every message that asks or requests, its replies with and without the
///                                    intent gate (ReplyIntents): congratulations and meeting times offered,
///                                    and how long each suggestion took (p50/p95, long emails apart)
///     insights latency [--candidates N] [--out FILE] SOURCE...
///                                    every 9–11-message conversation of each source summarized and timed:
///                                    p50/p95/max, candidate sentences (InsightsProseBenchmark.latency)
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
        case "corpus":
            guard args.count == 3 else { throw BenchError("usage: insights corpus DATA_DIR OUT.jsonl") }
            try corpus(dataDirectory: args[1], output: args[2], modelDirectory: modelDirectory)
        case "side-by-side":
            guard args.count == 4 else { throw BenchError("usage: insights side-by-side DATA_DIR CORPUS JUDGMENTS.json") }
            try sideBySide(dataDirectory: args[1], corpus: args[2], judgments: args[3], modelDirectory: modelDirectory)
        case "clean-pairs":
            guard args.count == 3 else { throw BenchError("usage: insights clean-pairs IN.jsonl OUT.jsonl") }
            try cleanPairs(input: args[1], output: args[2])
        case "sentences":
            guard args.count == 3 else { throw BenchError("usage: insights sentences SOURCE OUT.jsonl") }
            try InsightsProseBenchmark.sentences(source: args[1], output: args[2])
        case "threads":
            guard (4...6).contains(args.count), let minimum = Int(args[2]) else {
                throw BenchError("usage: insights threads SOURCE MIN OUT.txt [COUNT [SEED]]")
            }
            try InsightsProseBenchmark.threads(source: args[1], minimum: minimum, output: args[3],
                                               count: args.count > 4 ? Int(args[4]) : nil, seed: args.count > 5 ? UInt64(args[5]) ?? 1 : 1)
        case "intents":
            guard args.count >= 3 else { throw BenchError("usage: insights intents OUT.jsonl SOURCE...") }
            try InsightsProseBenchmark.intents(sources: Array(args.dropFirst(2)), output: args[1])
        case "latency":
            // insights latency [--candidates N] [--out FILE] SOURCE...
            var rest = Array(args.dropFirst()), limit: Int?, output: String?
            while let flag = rest.first, flag.hasPrefix("--"), rest.count >= 2 {
                if flag == "--candidates" { limit = Int(rest[1]) } else if flag == "--out" { output = rest[1] } else { break }
                rest.removeFirst(2)
            }
            guard !rest.isEmpty else { throw BenchError("usage: insights latency [--candidates N] [--out FILE] SOURCE...") }
            try InsightsProseBenchmark.latency(sources: rest, candidateLimit: limit, output: output)
        default:
            throw BenchError("insights: summaries [FIXTURE] | pairs MBOX OUT | clean-pairs IN OUT | sentences SOURCE OUT | threads SOURCE MIN OUT [COUNT [SEED]] | latency [--candidates N] [--out FILE] SOURCE...")
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

    static func cleanPairs(input: String, output: String) throws {
        struct Pair: Codable { var message: String; var reply: String; var messageId: String?; var replyId: String? }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var lines: [String] = []
        var read = 0
        for line in try String(contentsOfFile: input, encoding: .utf8).split(separator: "\n") where !line.isEmpty {
            read += 1
            var pair = try JSONDecoder().decode(Pair.self, from: Data(line.utf8))
            pair.message = MessageCleaner.clean(pair.message).text
            pair.reply = MessageCleaner.clean(pair.reply).text
            guard pair.message.count >= 10, pair.reply.count >= 10 else { continue }
            lines.append(String(decoding: try encoder.encode(pair), as: UTF8.self))
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: output, atomically: true, encoding: .utf8)
        print("\(read) pairs read, \(lines.count) with 10+ characters on both sides once cleaned → \(output)")
    }

    static func corpus(dataDirectory: String, output: String, modelDirectory: URL) throws {
        struct Row: Encodable {
            var threadId: Int64
            var subject: String
            var messageCount: Int
            var points: [String]
            var unsupported: [String]
            var milliseconds: Double
        }
        let store = try MailStore(directory: DataDirectory(url: URL(fileURLWithPath: dataDirectory)), readOnly: true)
        let ids = try store.database.read {
            try Int64.fetchAll($0, sql: "SELECT id FROM threads WHERE messageCount >= 3 ORDER BY id")
        }
        var summarizer = ExtractiveSummarizer(embedder: try MiniLMEmbedder(modelDirectory: modelDirectory))
        // INSIGHTS_NO_ANSWERS=1: without the answers a chosen question brings (to compare).
        summarizer.weights.answers = ProcessInfo.processInfo.environment["INSIGHTS_NO_ANSWERS"] != "1"
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var lines: [String] = []
        var times = Samples()
        var points = 0, invented = 0, withInvented = 0
        for id in ids {
            guard let (thread, emails) = try store.thread(id: id), emails.count >= 3 else { continue }
            let messages = emails.map { ConversationMessage(email: $0.email) }
            var summary: ThreadSummary?
            let ms = try measure { summary = try summarizer.summarize(messages) }
            times.add(ms)
            let check = FactCheck(messages: messages)
            let texts = summary?.points.map(\.text) ?? []
            let unsupported = texts.flatMap { check.unsupported(in: $0) }
            points += texts.count
            invented += unsupported.count
            if !unsupported.isEmpty { withInvented += 1 }
            lines.append(String(decoding: try encoder.encode(Row(threadId: id, subject: thread.subject, messageCount: emails.count,
                                                                 points: texts, unsupported: unsupported,
                                                                 milliseconds: (ms * 10).rounded() / 10)), as: UTF8.self))
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: output, atomically: true, encoding: .utf8)
        print("\(dataDirectory): \(lines.count) conversations of 3+ messages summarized, \(points) lines")
        print("  names, numbers and dates not in their thread: \(invented) (in \(withInvented) summaries)")
        print("  time per summary: \(times.summary())")
        print("  → \(output)")
    }

    struct Judgment: Decodable {
        var corpus: String
        var firstMessageId: String
        var keyFacts: [String]
        var covered: [String]
        var missed: [String]
        var wrong: [String]
        var verdict: String
    }

    static func sideBySide(dataDirectory: String, corpus: String, judgments: String, modelDirectory: URL) throws {
        struct File: Decodable { var threads: [Judgment] }
        let all = try JSONDecoder().decode(File.self, from: Data(contentsOf: URL(fileURLWithPath: judgments))).threads
        let store = try MailStore(directory: DataDirectory(url: URL(fileURLWithPath: dataDirectory)), readOnly: true)
        let summarizer = ExtractiveSummarizer(embedder: try MiniLMEmbedder(modelDirectory: modelDirectory))
        for judgment in all where judgment.corpus == corpus {
            let threadId = try store.database.read {
                try Int64.fetchOne($0, sql: "SELECT threadId FROM emails WHERE messageId = ?", arguments: [judgment.firstMessageId])
            }
            guard let threadId, let (thread, emails) = try store.thread(id: threadId) else {
                print("== \(judgment.firstMessageId): not in \(dataDirectory)\n")
                continue
            }
            let messages = emails.map { ConversationMessage(email: $0.email) }
            print("== t\(threadId) \(thread.subject) (\(emails.count) messages; first \(judgment.firstMessageId))")
            for (i, m) in messages.enumerated() {
                let text = MessageCleaner.clean(m.body).text.replacingOccurrences(of: "\n", with: " ")
                print("  [\(i + 1)] \(m.author): \(text.prefix(700))\(text.count > 700 ? " …" : "")")
            }
            print("  -- summary")
            let points = try summarizer.summarize(messages).points
            for p in points { print("  • \(p.text)") }
            var without = summarizer
            without.weights.answers = false
            let before = try without.summarize(messages).points
            if before != points {
                print("  -- without the answers of chosen questions")
                for p in before { print("  • \(p.text)") }
            }
            print("  -- judgment: \(judgment.verdict)")
            print("     key facts: \(judgment.keyFacts.joined(separator: "; "))")
            print("     covered: \(judgment.covered.joined(separator: "; "))")
            print("     missed: \(judgment.missed.joined(separator: "; "))")
            print("     wrong: \(judgment.wrong.isEmpty ? "nothing" : judgment.wrong.joined(separator: "; "))\n")
        }
    }
}
