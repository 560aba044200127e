import Foundation
import MailParsing

/// A message's cleaned text and its sentences.
public struct CleanedMessage: Sendable, Hashable {
    /// What the sender wrote: quoted text, attributions, signatures and list footers removed
    /// (`EmbeddingText.ownText`), then the greeting ("Hi Bob,") and the sign-off ("Thanks, Ann" and
    /// what follows it); the lines of a paragraph joined by spaces, paragraphs and list items by "\n".
    public var text: String
    public var sentences: [Sentence]
}

/// A sentence of a cleaned text, with its place in it (`Character` offsets, end excluded).
public struct Sentence: Sendable, Hashable {
    public var text: String
    public var start: Int
    public var end: Int
    /// Ends with a question mark.
    public var isQuestion: Bool
    /// Has a request phrase ("could you", "please", "can we", "let me know", …).
    public var isRequest: Bool
    /// Names a day, a date or a time.
    public var hasDateOrTime: Bool
    /// Reads like prose (enough words and letters): a candidate for a summary. Log lines, code,
    /// addresses and one-word lines are not.
    public var isProse: Bool
}

/// Removes what a person did not write for this message (quotes, signatures, greetings, sign-offs)
/// and splits the rest into sentences. Pure.
public enum MessageCleaner {
    public static func clean(_ body: String) -> CleanedMessage {
        var lines = withoutCutSentence(EmbeddingText.ownText(of: withoutQuotedHeaderBlock(body)))
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        removeGreeting(&lines)
        removeSignOff(&lines)
        // Paragraphs: wrapped lines joined; a list item starts a segment of its own.
        var segments: [String] = []
        var current = ""
        var previousIsText = false
        for line in lines {
            let isText = looksLikeText(line)
            if line.isEmpty {
                if !current.isEmpty { segments.append(current); current = "" }
            } else if current.isEmpty {
                current = line
            } else if startsListItem(line) || !isText || !previousIsText {
                // A list item, a log or code line, or what follows one: a segment of its own.
                segments.append(current)
                current = line
            } else {
                current += " " + line
            }
            previousIsText = isText
        }
        if !current.isEmpty { segments.append(current) }
        let text = segments.joined(separator: "\n")
        return CleanedMessage(text: text, sentences: sentences(of: text))
    }

    /// `EmbeddingText.ownText` keeps at most `EmbeddingText.keptCharacters`: a text of that length was
    /// cut, most likely inside a sentence (or a word), which then goes, back to the last line break or
    /// sentence end ("Resolution Center" must not become "Resolution C").
    static func withoutCutSentence(_ own: String) -> String {
        guard own.count >= EmbeddingText.keptCharacters else { return own }
        var end = own.endIndex
        while end > own.startIndex {
            let before = own.index(before: end)
            let c = own[before]
            if c == "\n" { return String(own[..<before]) }
            if ".!?".contains(c), end < own.endIndex, own[end].isWhitespace { return String(own[..<end]) }
            end = before
        }
        return own
    }

    /// Cuts a body at a quoted original that starts with a header block, as Outlook and others
    /// write it below a reply ("From: … / Sent: … / To: … / Subject: …"): a "From:" line followed
    /// within four lines by "Sent:", "Date:", "To:" or "Subject:".
    static func withoutQuotedHeaderBlock(_ body: String) -> String {
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false)
        for (i, line) in lines.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("From:") || trimmed.hasPrefix("*From:*") else { continue }
            let next = lines[(i + 1)..<min(lines.count, i + 5)].map { $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "*", with: "") }
            if next.contains(where: { $0.hasPrefix("Sent:") || $0.hasPrefix("Date:") || $0.hasPrefix("To:") || $0.hasPrefix("Subject:") }) {
                return lines[..<i].joined(separator: "\n")
            }
        }
        return body
    }

    // MARK: Greetings and sign-offs

    private static let greetingLine = regex(
        #"^(?i:hi|hello|hey|hiya|dear|greetings|howdy|good (?:morning|afternoon|evening|day)|morning)\b[^.!?]{0,40}[,!:]?$"#)
    private static let greetingPrefix = regex(#"^(?i:hi|hello|hey|dear)\s+[^,!:.?]{1,30}[,!:]\s+"#)
    /// A first line that is only a name or a group: "Bob,", "All,", "Team,".
    private static let addressLine = regex(#"^[\p{L}'.-]+(?:\s+[\p{L}'.-]+){0,2},$"#)
    private static let signOffWords =
        #"(?i:thanks|thank you|thank you very much|thanks again|thanks a lot|thanks so much|many thanks|thanks in advance|thx|tia|cheers|regards|best|best regards|kind regards|warm regards|warmest regards|best wishes|sincerely|yours|yours truly|all the best|take care|talk soon|br|rgds|ciao|later)"#
    private static let signOffLine = regex("^" + signOffWords + #"[,.!]*$"#)
    private static let signOffWithName = regex("^" + signOffWords + #"[,.!]+\s+\p{Lu}[\p{L}.'-]*(?:\s+\p{Lu}[\p{L}.'-]*){0,2}$"#)
    private static let nameLine = regex(#"^\p{Lu}[\p{L}.'-]*(?:\s+\p{Lu}[\p{L}.'-]*){0,2}$"#)

    static func removeGreeting(_ lines: inout [String]) {
        guard let first = lines.firstIndex(where: { !$0.isEmpty }) else { return }
        let line = lines[first]
        if matches(greetingLine, line) || (line.count <= 25 && matches(addressLine, line)) {
            lines.remove(at: first)
        } else if let range = firstMatch(greetingPrefix, line) {
            lines[first] = String(line[range.upperBound...])
        }
    }

    static func removeSignOff(_ lines: inout [String]) {
        while let last = lines.last, last.isEmpty { lines.removeLast() }
        let nonEmpty = lines.indices.filter { !lines[$0].isEmpty }
        for index in nonEmpty.suffix(4) where matches(signOffLine, lines[index]) || matches(signOffWithName, lines[index]) {
            lines.removeSubrange(index...)
            return
        }
        // No sign-off: a last line that is only a name (the sender's) goes.
        if nonEmpty.count > 1, let last = nonEmpty.last, lines[last].count <= 30, matches(nameLine, lines[last]) {
            lines.removeSubrange(last...)
        }
    }

    /// Mostly letters: a line of prose, not of a log, code or a table.
    private static func looksLikeText(_ line: String) -> Bool {
        let visible = line.filter { !$0.isWhitespace }
        guard !visible.isEmpty else { return false }
        return Double(visible.filter(\.isLetter).count) / Double(visible.count) >= 0.6
    }

    private static func startsListItem(_ line: String) -> Bool {
        line.hasPrefix("- ") || line.hasPrefix("* ") || line.hasPrefix("• ") || matches(listNumber, line)
    }
    private static let listNumber = regex(#"^\d{1,2}[.)]\s"#)

    // MARK: Sentences

    private static let abbreviations: Set<String> = [
        "e.g", "i.e", "etc", "mr", "mrs", "ms", "dr", "vs", "approx", "fig", "no", "cf", "st", "jr", "sr", "inc", "ltd", "co",
    ]

    /// Splits at ".", "!" or "?" (runs of them) followed by a space, and at line breaks; not after
    /// an abbreviation or a single letter ("e.g.", "J. Smith"), nor inside numbers ("3.5"). A "?"
    /// or "!" that ends a word and runs into a capital starts a new sentence too ("the file?Thanks"),
    /// but not inside a link or a query string ("page?Id=4").
    static func sentences(of text: String) -> [Sentence] {
        let chars = Array(text)
        var result: [Sentence] = []
        var start = 0
        func emit(_ end: Int) {
            var s = start, e = end
            while s < e, chars[s].isWhitespace { s += 1 }
            while e > s, chars[e - 1].isWhitespace { e -= 1 }
            if e > s { result.append(makeSentence(String(chars[s..<e]), start: s, end: e)) }
            start = end
        }
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c == "\n" {
                emit(i)
                start = i + 1
            } else if c == "." || c == "!" || c == "?" {
                var j = i
                while j + 1 < chars.count, ".!?)\"'".contains(chars[j + 1]) { j += 1 }
                if j + 1 >= chars.count || chars[j + 1].isWhitespace, !(c == "." && isAbbreviation(chars, before: i)) {
                    emit(j + 1)
                    i = j + 1
                    continue
                }
                if c != ".", chars[j + 1].isUppercase, i > 0, chars[i - 1].isLetter, !isInLink(chars, at: i) {
                    emit(j + 1)
                    i = j + 1
                    continue
                }
            }
            i += 1
        }
        emit(chars.count)
        return result
    }

    /// Whether the word around `index` is a link, a path or a query string.
    private static func isInLink(_ chars: [Character], at index: Int) -> Bool {
        var s = index, e = index
        while s > 0, !chars[s - 1].isWhitespace { s -= 1 }
        while e + 1 < chars.count, !chars[e + 1].isWhitespace { e += 1 }
        return chars[s...e].contains { "/=&@:".contains($0) }
    }

    private static func isAbbreviation(_ chars: [Character], before dot: Int) -> Bool {
        var k = dot
        while k > 0, chars[k - 1].isLetter || chars[k - 1] == "." { k -= 1 }
        let word = String(chars[k..<dot]).lowercased()
        if word.count == 1 { return word.first!.isLetter }  // an initial
        return abbreviations.contains(word)
    }

    private static let request = regex(
        #"(?i)\b(could you|can you|would you|will you|can we|could we|shall we|should we|please|pls|let me know|let us know|do you|did you|are you|have you|is there|any idea|any thoughts|need you to|would it be possible|is it possible|i'd appreciate|would appreciate|kindly)\b"#)
    private static let dateOrTime = regex(
        #"(?i)\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|wed|thu|fri|today|tomorrow|tonight|yesterday|next week|this week|end of (?:the )?(?:day|week|month)|eod|noon|january|february|march|april|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|\d{1,2}:\d{2}|\d{1,2}\s?(?:am|pm)|\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}(?:/\d{2,4})?)\b"#)

    static func makeSentence(_ text: String, start: Int, end: Int) -> Sentence {
        let words = text.split(whereSeparator: { $0.isWhitespace })
        let visible = text.filter { !$0.isWhitespace }
        let letters = visible.filter(\.isLetter).count
        let prose = words.count >= 4 && words.count <= 60 && visible.count > 0
            && Double(letters) / Double(visible.count) >= 0.6 && text.count <= 400
        return Sentence(
            text: text, start: start, end: end,
            isQuestion: text.hasSuffix("?") || text.hasSuffix("?)") || text.hasSuffix("?\""),
            isRequest: matches(request, text), hasDateOrTime: matches(dateOrTime, text), isProse: prose)
    }

    // MARK: Regular expressions

    static func regex(_ pattern: String) -> NSRegularExpression {
        try! NSRegularExpression(pattern: pattern)
    }

    static func matches(_ regex: NSRegularExpression, _ text: String) -> Bool {
        regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    static func firstMatch(_ regex: NSRegularExpression, _ text: String) -> Range<String.Index>? {
        regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)).flatMap { Range($0.range, in: text) }
    }
}
