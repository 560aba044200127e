import Foundation

/// The text of an email that its embedding is computed from: the subject, the sender's name and
/// what the sender wrote — quoted replies, the "-----Original Message-----" chain below a reply,
/// attribution lines ("On … wrote:"), signatures after "-- " and mailing-list footers removed, so
/// the model's few tokens go to the words the email adds to its conversation. A forwarded message
/// is content and stays. A reply too short to say what it is about keeps the text it quotes after
/// its own (see `mainText`).
public enum EmbeddingText {
    /// How much of the body is read (characters) before it is cleaned.
    public static let bodyWindow = 6_000
    /// How much of the cleaned body is kept (characters): more than the model reads at 256 tokens.
    public static let keptCharacters = 2_000

    /// The text to embed for an email.
    public static func compose(subject: String, fromName: String?, body: String, clean: Bool = true) -> String {
        let main = clean ? mainText(of: body) : String(body.prefix(keptCharacters))
        return [subject, fromName ?? "", main].filter { !$0.isEmpty }.joined(separator: "\n")
    }

    /// The part of `body` its sender wrote (see the type's comment), at most `keptCharacters`.
    /// A short reply ("Agreed, go ahead") is followed by what it quotes, markers removed: alone it
    /// says too little to be found by its topic.
    public static func mainText(of body: String) -> String {
        let (ownLines, quoted) = split(body)
        var text = ownLines.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        if text.count < shortReply {
            let rest = quoted.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
            if !rest.isEmpty { text = text.isEmpty ? rest : text + "\n" + rest }
        }
        if text.count < 3 { text = String(body.prefix(keptCharacters)).trimmingCharacters(in: .whitespacesAndNewlines) }
        return String(text.prefix(keptCharacters))
    }

    /// Only the lines the sender wrote (the same cleaning as `mainText`, without its fallbacks: a
    /// short reply does not get what it quotes), trimmed, at most one empty line in a row. What
    /// thread summaries and reply suggestions read: they must not repeat quoted text as new.
    public static func ownText(of body: String) -> String {
        String(split(body).own.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines).prefix(keptCharacters))
    }

    /// The body's own lines and its quoted ones (markers removed).
    private static func split(_ body: String) -> (own: [String], quoted: [String]) {
        let lines = body.prefix(bodyWindow).split(separator: "\n", omittingEmptySubsequences: false)
        var own: [String] = [], quoted: [String] = []
        var inQuote = false
        for raw in lines {
            var line = raw.trimmedOfSpaces
            if inQuote || line.hasPrefix(">") {
                while line.hasPrefix(">") { line = line.dropFirst().trimmedOfSpaces }
                append(line, to: &quoted)
                continue
            }
            if line == "--" && raw.hasPrefix("--") { break }  // the "-- " signature delimiter
            if line.count >= 10, line.allSatisfy({ $0 == "_" }) { break }  // a list footer
            if isReplyBoundary(line) { inQuote = true; continue }
            if isAttribution(line) { continue }
            append(line, to: &own)
        }
        return (own, quoted)
    }

    /// Own text shorter than this (characters) is followed by what it quotes.
    static let shortReply = 300

    /// Appends a line, keeping at most one empty line in a row.
    private static func append(_ line: String, to lines: inout [String]) {
        if line.isEmpty, lines.last?.isEmpty ?? true { return }
        lines.append(line)
    }

    /// The start of a quoted original below a reply: "-----Original Message-----" (and Lotus
    /// Notes' "----- Original Message -----"). Forwarded messages are not a boundary: they are content.
    static func isReplyBoundary(_ line: String) -> Bool {
        guard line.hasPrefix("-----") else { return false }
        return line.lowercased().contains("original message")
    }

    /// "On Tue, 3 Jan 2023, Ann <a@b> wrote:" and its common forms.
    static func isAttribution(_ line: String) -> Bool {
        guard line.hasSuffix("wrote:") || line.hasSuffix("writes:") else { return false }
        return line.hasPrefix("On ") || line.hasPrefix("Am ") || line.hasPrefix("Le ") || line.count < 120
    }
}
