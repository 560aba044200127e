import Embedding
import Foundation
import MailModel
import MailParsing
import ThreadInsights

/// `mailsearch-bench insights sentences|threads …`: what the prose filter keeps, read straight from a
/// corpus (no import), for scripts/eval/prose_lines.py and for reading summaries as a user would.
///
///     insights sentences SOURCE OUT.jsonl
///         every message of SOURCE (an mbox file, or a folder of one-message files: Maildir, .eml)
///         parsed as the import parses it and cleaned by `MessageCleaner`: one JSON line per message
///         with its body, its cleaned text and its sentences (text, isProse)
///     insights threads SOURCE MIN OUT.txt [COUNT [SEED]]
///         conversations of MIN+ messages (Message-ID, In-Reply-To and References joined), COUNT of them
///         picked at random with SEED (default: all), each message's cleaned text beside its summary
enum InsightsProseBenchmark {
    /// The messages of an mbox file or of every regular file under a folder, in a stable order.
    static func messages(of source: String) throws -> [(name: String, parsed: ParsedMessage)] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source, isDirectory: &isFolder) else {
            throw InsightsBenchmark.BenchError("\(source): no such file or folder")
        }
        if !isFolder.boolValue {
            return try MboxReader(path: source).map { raw in
                ("\(source)@\(raw.offset)", MIMEParser.parse(raw.bytes, mboxFromLineDate: raw.fromLineDate, fallbackDate: nil))
            }
        }
        let root = URL(fileURLWithPath: source)
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        var paths: [String] = []
        for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            paths.append(String(url.path.dropFirst(root.path.count + 1)))
        }
        return try paths.sorted().map { path in
            let bytes = try [UInt8](Data(contentsOf: root.appendingPathComponent(path)))
            return (path, MIMEParser.parse(bytes, fallbackDate: nil))
        }
    }

    static func sentences(source: String, output: String) throws {
        struct Row: Encodable {
            /// Text, prose; kind, character span, question, request, date or time: all of a sentence.
            struct Line: Encodable { var t: String; var p: Bool; var k: String; var s: Int; var e: Int; var q: Bool; var r: Bool; var d: Bool }
            var n: Int
            var name: String
            var messageId: String
            var body: String
            var text: String
            var sentences: [Line]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var out = Data()
        var count = 0, total = 0, prose = 0
        var times = Samples()
        for (n, message) in try messages(of: source).enumerated() {
            let body = message.parsed.textBody
            var clean: CleanedMessage?
            times.add(measure { clean = MessageCleaner.clean(body) })
            guard let cleaned = clean else { continue }
            let row = Row(n: n, name: message.name, messageId: message.parsed.messageId ?? "",
                          body: String(body.prefix(EmbeddingText.bodyWindow)), text: cleaned.text,
                          sentences: cleaned.sentences.map {
                              .init(t: $0.text, p: $0.isProse, k: $0.kind.rawValue, s: $0.start, e: $0.end, q: $0.isQuestion,
                                    r: $0.isRequest, d: $0.hasDateOrTime)
                          })
            out.append(try encoder.encode(row))
            out.append(0x0A)
            count += 1
            total += cleaned.sentences.count
            prose += cleaned.sentences.filter(\.isProse).count
        }
        try out.write(to: URL(fileURLWithPath: output))
        print("\(source): \(count) messages, \(total) sentences, \(prose) marked prose → \(output)")
        print("  MessageCleaner.clean per message: \(times.summary()), \(String(format: "%.1f", times.values.reduce(0, +) / 1000)) s in all")
    }

    /// The conversations of `all` (messages joined by their Message-ID, In-Reply-To and References,
    /// union-find), each in date order, ordered by their first message.
    static func conversations(of all: [ParsedMessage]) -> [[Int]] {
        var parent: [String: String] = [:]
        func find(_ x: String) -> String {
            var x = x
            while let p = parent[x], p != x { parent[x] = parent[p] ?? p; x = p }
            return x
        }
        func union(_ a: String, _ b: String) {
            let ra = find(a), rb = find(b)
            if ra != rb { parent[ra] = rb }
        }
        for (i, m) in all.enumerated() {
            let id = m.messageId ?? "#\(i)"
            if parent[id] == nil { parent[id] = id }
            for other in m.inReplyTo + m.references {
                if parent[other] == nil { parent[other] = other }
                union(id, other)
            }
        }
        var groups: [String: [Int]] = [:]
        for (i, m) in all.enumerated() { groups[find(m.messageId ?? "#\(i)"), default: []].append(i) }
        return groups.values
            .map { $0.sorted { (all[$0].date ?? .distantPast, $0) < (all[$1].date ?? .distantPast, $1) } }
            .sorted { $0[0] < $1[0] }
    }

    /// The messages of a conversation as the summarizer gets them.
    static func conversationMessages(_ thread: [Int], of all: [ParsedMessage]) -> [ConversationMessage] {
        thread.map { i -> ConversationMessage in
            let m = all[i]
            func address(_ a: ParsedAddress) -> Address { Address(name: a.name, email: a.address) }
            return ConversationMessage(emailId: Int64(i), from: m.from.first.map(address), to: m.to.map(address),
                                       cc: m.cc.map(address), date: m.date, body: m.textBody, subject: m.subject)
        }
    }

    static func threads(source: String, minimum: Int, output: String, count: Int?, seed: UInt64) throws {
        let all = try messages(of: source).map(\.parsed)
        var threads = conversations(of: all).filter { $0.count >= minimum }
        if let count, count < threads.count {
            var generator = SeededGenerator(seed: seed)
            threads = Array(threads.shuffled(using: &generator).prefix(count)).sorted { $0[0] < $1[0] }
        }
        let summarizer = ExtractiveSummarizer(embedder: try MiniLMEmbedder(modelDirectory: ModelStore().directory))
        var text = ""
        for thread in threads {
            let messages = conversationMessages(thread, of: all)
            text += "== \(all[thread[0]].subject) (\(thread.count) messages; first \(all[thread[0]].messageId ?? "?"))\n"
            for (n, m) in messages.enumerated() {
                let cleaned = MessageCleaner.clean(m.body).text.replacingOccurrences(of: "\n", with: " ⏎ ")
                text += "  [\(n + 1)] \(m.author): \(cleaned.prefix(600))\(cleaned.count > 600 ? " …" : "")\n"
            }
            text += "  -- summary\n"
            for p in try summarizer.summarize(messages).points { text += "  • \(p.text)\n" }
            text += "\n"
        }
        try text.write(toFile: output, atomically: true, encoding: .utf8)
        print("\(source): \(threads.count) conversations of \(minimum)+ messages summarized → \(output)")
    }

    /// Every conversation of 9–11 messages of each source summarized as the service computes one
    /// (`ExtractiveSummarizer`, the model on one thread), timed one by one after a warm-up: p50, p95
    /// and max per source, with the candidate sentences each had. `candidateLimit` caps the
    /// sentences embedded (nil: the summarizer's own). With `output`, the points of every summary
    /// as JSON lines (source, first Message-ID, ms, candidates, points), for comparing two settings.
    static func latency(sources: [String], candidateLimit: Int?, output: String?) throws {
        let summarizer = ExtractiveSummarizer(embedder: try MiniLMEmbedder(modelDirectory: ModelStore().directory),
                                              candidateLimit: candidateLimit ?? ExtractiveSummarizer.maximumCandidates)
        print("[insights latency: \(BenchSupport.cpuDescription); candidate limit \(summarizer.candidateLimit); sentence kernels \(MiniLMEmbedder.DocumentKernels.current)]")
        var lines: [String] = []
        for source in sources {
            let all = try messages(of: source).map(\.parsed)
            let threads = conversations(of: all).filter { (9...11).contains($0.count) }
            guard let first = threads.first else { print("\(source): no conversation of 9–11 messages"); continue }
            _ = try summarizer.summarize(conversationMessages(first, of: all))  // warm-up
            var times = Samples(), candidates: [Int] = []
            for thread in threads {
                let messages = conversationMessages(thread, of: all)
                var summary: ThreadSummary?
                let ms = try measure { summary = try summarizer.summarize(messages) }
                times.add(ms)
                candidates.append(summary?.sentences ?? 0)
                let object: [String: Any] = ["source": source, "thread": all[thread[0]].messageId ?? "#\(thread[0])", "ms": ms,
                                             "candidates": summary?.sentences ?? 0, "points": summary?.points.map(\.text) ?? []]
                lines.append(String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self))
            }
            let sortedCandidates = candidates.sorted()
            print(String(format: "%@: %d conversations of 9–11 messages: computed p50 %.0f ms, p95 %.0f ms, max %.0f ms; candidate sentences median %d, max %d",
                         source, threads.count, times.percentile(50), times.percentile(95), times.values.max() ?? 0,
                         sortedCandidates[sortedCandidates.count / 2], sortedCandidates.last ?? 0))
        }
        if let output { try (lines.joined(separator: "\n") + "\n").write(toFile: output, atomically: true, encoding: .utf8) }
    }

    /// Every message of each source that asks or requests something, with the replies offered with
    /// and without the intent gate (`ReplyIntents`): how often a congratulation or a meeting time is
    /// offered, and what; as JSON lines in `output` for reading.
    static func intents(sources: [String], output: String) throws {
        let embedder = try MiniLMEmbedder(modelDirectory: ModelStore().directory)
        let gated = RetrievalReplySuggester(embedder: embedder)
        let open = RetrievalReplySuggester(embedder: embedder)
        open.gatesIntents = false
        var lines: [String] = []
        _ = try gated.rank("Could you send me the file?")  // the reply set, embedded once per process
        for source in sources {
            let all = try messages(of: source).map(\.parsed)
            // The ranker's idf from this source's own mail, as the product takes it from the mailbox's index.
            gated.wordStatistics = ReplyWordStatistics(counting: all.map(\.textBody), words: gated.replyWords)
            open.wordStatistics = gated.wordStatistics
            var asked = 0, offeredBefore: [String: Int] = [:], offeredAfter: [String: Int] = [:]
            var times = Samples(), longTimes = Samples()
            for (i, m) in all.enumerated() {
                let message = conversationMessages([i], of: all)[0]
                var after: ReplySuggestions!
                let ms = try measure { after = try gated.suggest(for: message) }
                guard after.triggered else { continue }
                asked += 1
                times.add(ms)
                // Long: a cleaned text of more than 1,500 characters (about the 256 tokens the model reads).
                if MessageCleaner.clean(message.body).text.count > 1500 { longTimes.add(ms) }
                let before = try open.suggest(for: message)
                for s in before.suggestions { offeredBefore[s.intent, default: 0] += 1 }
                for s in after.suggestions { offeredAfter[s.intent, default: 0] += 1 }
                let object: [String: Any] = [
                    "source": source, "subject": m.subject, "text": String(MessageCleaner.clean(m.textBody).text.prefix(400)),
                    "before": before.suggestions.map { "\($0.intent): \($0.text)" },
                    "after": after.suggestions.map { "\($0.intent): \($0.text)" },
                ]
                lines.append(String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self))
            }
            print("\(source): \(asked) messages that ask or request; offered a congratulation \(offeredBefore["congrats"] ?? 0) → \(offeredAfter["congrats"] ?? 0) times, a meeting time \(offeredBefore["schedule"] ?? 0) → \(offeredAfter["schedule"] ?? 0) (without → with the intent gate)")
            print(String(format: "  replies computed (suggest, one thread): p50 %.1f ms, p95 %.1f ms, max %.1f ms over %d; cleaned text over 1,500 characters: p50 %.1f, p95 %.1f ms over %d",
                         times.percentile(50), times.percentile(95), times.values.max() ?? 0, times.values.count,
                         longTimes.percentile(50), longTimes.percentile(95), longTimes.values.count))
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: output, atomically: true, encoding: .utf8)
    }

    /// SplitMix64: the same sample on every run.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
