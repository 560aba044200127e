import Foundation
import MailModel

/// Writes text from a chat prompt: a local language model (`LlamaLibrary`), or a stand-in in tests.
public protocol TextGenerator: Sendable {
    /// What produced the text (the model file's name).
    var name: String { get }
    func generate(system: String, user: String, maxTokens: Int) throws -> String
}

/// What a language model wrote for a conversation, and whether it may be shown.
public struct GeneratedSummary: Sendable, Codable, Hashable {
    public enum Verdict: String, Sendable, Codable {
        /// Every name, number and date it states is in the conversation: shown.
        case accepted
        /// It states a name, number or date the conversation does not have (`unsupported`), or it
        /// is empty or repeats itself (`problem`): the extractive summary is shown instead.
        case rejected
    }

    public var model: String
    /// The model's text as written, and its lines without bullets.
    public var text: String
    public var lines: [String]
    public var verdict: Verdict
    /// The names, numbers and dates of `text` absent from the conversation (`FactCheck`).
    public var unsupported: [String]
    /// Why it was rejected when it is not (only) for `unsupported`: "empty", "repeats a line".
    public var problem: String?
    public var milliseconds: Double
}

/// A summary written by a local language model, checked before it is shown: the conversation's
/// cleaned messages (`MessageCleaner`: quotes, signatures, greetings left out) go into one prompt,
/// the first message and then the newest that fit `promptCharacters`; the reply's lines are the
/// summary. Its output is rejected when it names people, numbers or dates the conversation does
/// not have (`FactCheck`), is empty or repeats a line: the caller then shows the extractive summary.
public struct LLMSummarizer: Sendable {
    public let generator: any TextGenerator
    public var maxTokens: Int
    /// The most characters of mail in one prompt (a 2,048-token context holds about 6,000).
    public var promptCharacters: Int
    /// The most characters of one message.
    public var messageCharacters = 1_500

    public static let systemPrompt = """
        You summarize email conversations. Write 2 to 4 short bullet points with the key facts, decisions and \
        open questions, saying who said what. Use only names, numbers and dates that appear in the messages.
        """

    public init(generator: any TextGenerator, maxTokens: Int = 160, promptCharacters: Int = 5_000) {
        self.generator = generator
        self.maxTokens = maxTokens
        self.promptCharacters = promptCharacters
    }

    /// The user prompt: the subject, then each message kept as "[n] Author: text".
    public func prompt(_ messages: [ConversationMessage]) -> String {
        let texts = messages.map { m -> String in
            let cleaned = MessageCleaner.clean(m.body).text.replacingOccurrences(of: "\n", with: " ")
            let cut = cleaned.count > messageCharacters ? String(cleaned.prefix(messageCharacters)) + " …" : cleaned
            return "\(m.author): \(cut)"
        }
        // The first message, then the newest that fit.
        var kept: [Int] = texts.isEmpty ? [] : [0]
        var used = texts.first?.count ?? 0
        for i in texts.indices.dropFirst().reversed() {
            if used + texts[i].count > promptCharacters { break }
            kept.append(i)
            used += texts[i].count
        }
        kept.sort()
        var lines = ["Subject: \(messages.first?.subject ?? "")", ""]
        var previous = -1
        for i in kept {
            if i > previous + 1 { lines.append("(\(i - previous - 1) messages left out)") }
            lines.append("[\(i + 1)] \(texts[i])")
            previous = i
        }
        lines.append("")
        lines.append("Summarize this conversation of \(messages.count) messages.")
        return lines.joined(separator: "\n")
    }

    /// Asks the model and checks what it wrote.
    public func summarize(_ messages: [ConversationMessage]) throws -> GeneratedSummary {
        let started = Date()
        let text = try generator.generate(system: Self.systemPrompt, user: prompt(messages), maxTokens: maxTokens)
        var result = Self.check(text, messages: messages, model: generator.name)
        result.milliseconds = (Date().timeIntervalSince(started) * 10_000).rounded() / 10
        return result
    }

    /// The guard: the lines of `text`, and whether it may be shown for this conversation.
    public static func check(_ text: String, messages: [ConversationMessage], model: String) -> GeneratedSummary {
        let lines = Self.lines(of: text)
        // The prompt's own wording ("Subject", "Summarize") may come back; it names nobody.
        let unsupported = FactCheck(messages: messages).unsupported(in: lines.joined(separator: "\n"))
        var problem: String?
        if lines.isEmpty {
            problem = "empty"
        } else if Set(lines.map { $0.lowercased() }).count < lines.count {
            problem = "repeats a line"
        }
        return GeneratedSummary(model: model, text: text, lines: lines,
                                verdict: unsupported.isEmpty && problem == nil ? .accepted : .rejected,
                                unsupported: unsupported, problem: problem, milliseconds: 0)
    }

    /// Non-empty lines, without list markers ("-", "*", "•", "1.") and a "Summary:" heading.
    static func lines(of text: String) -> [String] {
        text.split(separator: "\n").compactMap { raw -> String? in
            var line = raw.trimmingCharacters(in: .whitespaces)
            while let first = line.first, "-*•".contains(first) { line = String(line.dropFirst()).trimmingCharacters(in: .whitespaces) }
            if let dot = line.firstIndex(where: { !$0.isNumber }), dot != line.startIndex, line[dot] == "." || line[dot] == ")" {
                line = String(line[line.index(after: dot)...]).trimmingCharacters(in: .whitespaces)
            }
            line = line.replacingOccurrences(of: "**", with: "")
            if line.lowercased().hasSuffix(":"), line.lowercased().hasPrefix("summary") { return nil }
            return line.isEmpty ? nil : line
        }
    }
}
