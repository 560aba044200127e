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
    /// What the sentence is (`ProseClassifier`): prose, or a line of a patch, code, a log, a quote,
    /// a trailer, a signature, a footer … A sentence of a line that is not prose has that line's kind.
    public var kind: LineKind
    /// A candidate for a summary: prose (`kind`) of 4–60 words, mostly letters. Patches, code, logs,
    /// quotes, trailers, signatures, footers, links and one-word lines are not.
    public var isProse: Bool
}

/// Removes what a person did not write for this message (quotes, signatures, greetings, sign-offs)
/// and splits the rest into sentences, each marked prose or not (`ProseClassifier`). Pure.
public enum MessageCleaner {
    public static func clean(_ body: String) -> CleanedMessage {
        let unquoted = withoutNameQuotes(withoutUnmarkedQuote(withoutQuotedHeaderBlock(body)))
        let own = withoutCutSentence(EmbeddingText.ownText(of: unquoted))
        var lines = aligned(own.split(separator: "\n", omittingEmptySubsequences: false).map(String.init),
                            to: unquoted.split(separator: "\n", omittingEmptySubsequences: false))
        removeGreeting(&lines)
        removeSignOff(&lines)
        // What a mail program leaves of a picture ("[IMAGE]", "[image: plot.png]") is not text.
        for i in lines.indices where lines[i].text.utf8.contains(UInt8(ascii: "[")) {
            let text = lines[i].text
            let kept = ProseClassifier.imagePlaceholder.stringByReplacingMatches(
                in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "").trimmingCharacters(in: .whitespaces)
            if kept.count != text.count { lines[i].text = kept.isEmpty ? "" : kept }
        }
        // Paragraphs: wrapped prose lines joined; a list item, and each line that is not prose (code,
        // a log, a patch …), a segment of its own.
        var segments: [(text: String, kind: LineKind)] = []
        var current = ""
        var currentKind = LineKind.blank
        for line in lines {
            if line.text.isEmpty || line.kind == .blank {
                if !current.isEmpty { segments.append((current, currentKind)); current = "" }
            } else if current.isEmpty {
                current = line.text
                currentKind = line.kind
            } else if startsListItem(line.text) || line.kind != .prose || currentKind != .prose {
                segments.append((current, currentKind))
                current = line.text
                currentKind = line.kind
            } else {
                current += " " + line.text
            }
        }
        if !current.isEmpty { segments.append((current, currentKind)) }
        let text = segments.map(\.text).joined(separator: "\n")
        // Each sentence is within one segment: a segment that is not prose gives its kind to its sentences.
        var bounds: [(end: Int, kind: LineKind)] = []
        var offset = 0
        for segment in segments {
            offset += segment.text.count
            bounds.append((offset, segment.kind))
            offset += 1
        }
        var sentences = sentences(of: text)
        var k = 0
        for i in sentences.indices {
            while k < bounds.count - 1, sentences[i].start >= bounds[k].end { k += 1 }
            if k < bounds.count, bounds[k].kind != .prose {
                sentences[i].kind = bounds[k].kind
                sentences[i].isProse = false
            }
        }
        return CleanedMessage(text: text, sentences: sentences)
    }

    /// A line of the own text, trimmed, and what it is (judged on the line as written, in its context).
    struct Line {
        var text: String
        var kind: LineKind
    }

    /// The own text's lines (`EmbeddingText.ownText`: trimmed, quotes left out) matched, in order,
    /// with the lines of the body they came from, whose indentation `ProseClassifier` reads.
    static func aligned(_ own: [String], to body: [Substring]) -> [Line] {
        var raw: [String] = []
        var next = 0
        var trimmedBody: [String?] = Array(repeating: nil, count: body.count)
        for (n, line) in own.enumerated() {
            var found: String?
            var trimmedFound = ""
            var j = next
            while j < body.count {
                let trimmed = trimmedBody[j] ?? body[j].trimmedOfSpaces
                trimmedBody[j] = trimmed
                if trimmed == line || (n == own.count - 1 && !line.isEmpty && trimmed.hasPrefix(line)) {
                    found = String(body[j])
                    trimmedFound = trimmed
                    break
                }
                j += 1
            }
            if let found {
                raw.append(n == own.count - 1 && trimmedFound != line ? line : found)
                next = j + 1
            } else {
                raw.append(line)
            }
        }
        let kinds = ProseClassifier.kinds(of: raw)
        return zip(own, kinds).map { Line(text: $0, kind: $1) }
    }

    /// Cuts a body at a mail program's attribution ("On Aug 15, 2023, at 04:19, Ann Lee <ann@…>
    /// wrote:", "At 12:32 PM 12/28/00 -0600, Adam wrote:", also wrapped over two lines) when the text
    /// below it carries no `>`: the quoted original, pasted without marks (as phones send it), is the
    /// earlier sender's words down to the end. An attribution above `>` lines is left to the quote
    /// markers (a reply written between the quoted lines stays the sender's).
    static func withoutUnmarkedQuote(_ body: String) -> String {
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false)
        let openings = ["On ", "Am ", "Le ", "At ", "El "]
        func isBlank(_ line: Substring) -> Bool { line.allSatisfy { $0.isWhitespace || $0 == "\u{FEFF}" || $0 == "\u{200B}" } }
        func isMailAttribution(_ text: String) -> Bool {
            (text.hasSuffix("wrote:") || text.hasSuffix("writes:")) && text.count < 200 && text.contains(where: \.isNumber)
        }
        var i = 0
        while i < lines.count {
            let trimmed = lines[i].trimmedOfSpaces
            guard !trimmed.hasPrefix(">"), openings.contains(where: trimmed.hasPrefix) else { i += 1; continue }
            var end = i
            if !isMailAttribution(trimmed) {
                // Wrapped: "On Mon, 11 Sep 2023 at 05:30, Ann Lee <" / "ann@example.com> wrote:".
                guard i + 1 < lines.count, isMailAttribution(trimmed + " " + lines[i + 1].trimmedOfSpaces) else { i += 1; continue }
                end = i + 1
            }
            var next = end + 1
            while next < lines.count, isBlank(lines[next]) { next += 1 }
            if next < lines.count, !lines[next].trimmedOfSpaces.hasPrefix(">") {
                return lines[..<i].joined(separator: "\n")
            }
            i = end + 1
        }
        return body
    }

    /// Leaves out what the body quotes in ways `EmbeddingText.ownText` does not see: supercite's
    /// "name>" quotes ("ralf> the clock stops", "RK> …") and an attribution wrapped over two lines
    /// ("On Mon, 11 Sep 2023 at 05:30, Ann Lee <" / "ann@example.com> wrote:").
    static func withoutNameQuotes(_ body: String) -> String {
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false)
        var kept: [Substring] = []
        var i = 0
        while i < lines.count {
            let line = lines[i]
            if line.utf8.contains(UInt8(ascii: ">")), ProseClassifier.matches(ProseClassifier.nameQuote, String(line)) {
                i += 1
                continue
            }
            let trimmed = line.trimmedOfSpaces
            if trimmed.hasPrefix("On "), !trimmed.hasSuffix("wrote:"), !trimmed.hasSuffix("writes:"), i + 1 < lines.count {
                let next = lines[i + 1].trimmedOfSpaces
                if next.count < 80, next.hasSuffix("wrote:") || next.hasSuffix("writes:") {
                    i += 2
                    continue
                }
            }
            kept.append(line)
            i += 1
        }
        return kept.count == lines.count ? body : kept.joined(separator: "\n")
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
    /// within four lines by "Sent:", "Date:", "To:" or "Subject:"; or at GroupWise's attribution, the
    /// original below it unmarked (`>>> "Taylor, Michael E" <…@ENRON.com> 08/23/01 03:10PM >>>`;
    /// Enron: 120 lines, usrp-users and the SpamAssassin lists none).
    static func withoutQuotedHeaderBlock(_ body: String) -> String {
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false)
        // Whichever header comes first starts the quote.
        let notes = notesHeaderBlockStart(lines)
        for (i, line) in lines.enumerated() {
            if let notes, notes <= i { return lines[..<notes].joined(separator: "\n") }
            if line.hasPrefix(">>> "), matches(groupWiseAttribution, String(line)) { return lines[..<i].joined(separator: "\n") }
            // Every "From:" field has a colon (ASCII or full width): a line without one is no such field.
            guard line.utf8.contains(UInt8(ascii: ":")) || line.unicodeScalars.contains("：") else { continue }
            let trimmed = line.trimmedOfSpaces.replacingOccurrences(of: "*", with: "")
            guard fromFields.contains(where: { trimmed.hasPrefix($0) }) else { continue }
            let next = lines[(i + 1)..<min(lines.count, i + 5)].map { $0.trimmedOfSpaces.replacingOccurrences(of: "*", with: "") }
            if next.contains(where: { line in followingFields.contains { line.hasPrefix($0) } }) {
                return lines[..<i].joined(separator: "\n")
            }
        }
        if let notes { return lines[..<notes].joined(separator: "\n") }
        return body
    }

    /// Where Lotus Notes' quoted header starts, laid out in columns: the sender's name and address on
    /// the left, "To:", "cc:" and "Subject:" lined up on the right, the date below the name:
    ///
    ///                     "Tycholiz,
    ///                     Barry"                  To:     Judith L. Perdomo/CA/TLS/PwC@Americas-CA
    ///                     <Barry.Tycholiz@        cc:
    ///                     ENRON.com>              Subject:     RE: Counselling
    ///
    /// A "To:" after the name column and a gap, with "cc:" and "Subject:" in its column within four
    /// lines; the block starts at its first line after a blank one. (Enron: 183 of 44,715 emails; the SpamAssassin lists 1, usrp-users none.)
    static func notesHeaderBlockStart(_ lines: [Substring]) -> Int? {
        for (i, line) in lines.enumerated() where line.utf8.contains(UInt8(ascii: ":")) {
            guard let to = line.range(of: "To:"), line[..<to.lowerBound].hasSuffix("  "),
                  line[..<to.lowerBound].contains(where: { !$0.isWhitespace }) else { continue }
            let column = line.distance(from: line.startIndex, to: to.lowerBound)
            let below = lines[(i + 1)..<min(lines.count, i + 5)]
            func inColumn(_ label: String) -> Bool {
                below.contains { next in
                    guard let at = next.range(of: label) else { return false }
                    return abs(next.distance(from: next.startIndex, to: at.lowerBound) - column) <= 2
                }
            }
            guard inColumn("cc:"), inColumn("Subject:") else { continue }
            var start = i
            while start > 0, !lines[start - 1].allSatisfy(\.isWhitespace) { start -= 1 }
            return start
        }
        return nil
    }

    static let groupWiseAttribution = regex(
        #"^>>> .*\b\d{1,2}/\d{1,2}/\d{2,4}\s+\d{1,2}:\d{2}(?::\d{2})?\s*(?:[AaPp][Mm])?\s*>>>\s*$"#)

    /// "From:" as Outlook writes it in English, German, French and Spanish, and Chinese.
    private static let fromFields = ["From:", "Von:", "De :", "De:", "发件人:", "发件人："]
    private static let followingFields = [
        "Sent:", "Date:", "To:", "Subject:", "Gesendet:", "An:", "Betreff:", "Datum:", "Envoyé :", "À :", "Objet :",
        "Enviado:", "Para:", "Asunto:", "发送时间:", "收件人:", "主题:", "发送时间：", "收件人：", "主题：",
    ]

    // MARK: Greetings and sign-offs

    private static let greetingLine = regex(
        #"^(?i:hi|hello|hey|hiya|dear|greetings|howdy|good (?:morning|afternoon|evening|day)|morning)\b[^.!?]{0,40}[,!:]?$"#)
    private static let greetingPrefix = regex(#"^(?i:hi|hello|hey|dear)\s+[^,!:.?]{1,30}[,!:]\s+"#)
    /// A first line that is only a name or a group: "Bob,", "All,", "Team,", "Mr. Taylor:".
    private static let addressLine = regex(#"^[\p{L}'.-]+(?:\s+[\p{L}'.-]+){0,2}[,:]$"#)
    static let signOffWords =
        #"(?i:thanks and regards|thanks & regards|thanks and best regards|thanks and kind regards|with regards|with best regards|with kind regards|respectfully|thanks|thank you|thank you very much|thanks again|thanks a lot|thanks so much|many thanks|thanks in advance|thx|tia|cheers|regards|best|best regards|kind regards|warm regards|warmest regards|best wishes|sincerely|yours|yours truly|all the best|take care|talk soon|br|rgds|ciao|later)"#
    private static let signOffLine = regex("^" + signOffWords + #"[,.!]*$"#)
    static let signOffWithName = regex("^" + signOffWords + #"[,.!]+\s+\p{Lu}[\p{L}.'-]*(?:\s+\p{Lu}[\p{L}.'-]*){0,2}$"#)
    /// Two or three capitals at the end of a message: after a dash that follows a word or a sentence
    /// ("data-  MK"), or after two spaces that follow a sentence's end ("etc.  RC"); not after a word
    /// and spaces ("the office in  NYC" keeps its city).
    private static let trailingInitials = regex(#"(?:(?<=[\p{Ll}\d.!?)])\s*-\s*|(?<=[.!?)])\s{2,})\p{Lu}{2,3}$"#)
    private static let nameLine = regex(#"^\p{Lu}[\p{L}.'-]*(?:\s+\p{Lu}[\p{L}.'-]*){0,2}$"#)

    static func removeGreeting(_ lines: inout [Line]) {
        guard let first = lines.firstIndex(where: { !$0.text.isEmpty }) else { return }
        let line = lines[first].text
        if matches(greetingLine, line) || (line.count <= 25 && matches(addressLine, line)) {
            lines.remove(at: first)
        } else if let range = firstMatch(greetingPrefix, line) {
            lines[first].text = String(line[range.upperBound...])
        }
    }

    static func removeSignOff(_ lines: inout [Line]) {
        while let last = lines.last, last.text.isEmpty { lines.removeLast() }
        // Initials run onto the last sentence: "… the posting verification data-  MK", "… etc.  RC".
        if let last = lines.indices.last, lines[last].text.utf8.last.map({ (0x41...0x5A).contains($0) }) == true,
           let range = firstMatch(trailingInitials, lines[last].text),
           lines[last].text[..<range.lowerBound].split(separator: " ").count >= 3 {
            lines[last].text = String(lines[last].text[..<range.lowerBound])
        }
        let nonEmpty = lines.indices.filter { !lines[$0].text.isEmpty }
        for index in nonEmpty.suffix(4) where matches(signOffLine, lines[index].text) || matches(signOffWithName, lines[index].text) {
            lines.removeSubrange(index...)
            return
        }
        // No sign-off: a last line that is only a name (the sender's) goes.
        if nonEmpty.count > 1, let last = nonEmpty.last, lines[last].text.count <= 30, matches(nameLine, lines[last].text) {
            lines.removeSubrange(last...)
        }
    }

    private static func startsListItem(_ line: String) -> Bool {
        line.hasPrefix("- ") || line.hasPrefix("* ") || line.hasPrefix("• ") || matches(listNumber, line)
    }
    private static let listNumber = regex(#"^\d{1,2}[.)]\s"#)

    // MARK: Sentences

    private static let abbreviations: Set<String> = [
        "e.g", "i.e", "etc", "mr", "mrs", "ms", "dr", "vs", "approx", "fig", "no", "cf", "st", "jr", "sr", "inc", "ltd", "co",
        // A telephone extension ("at ext. 3-5432"), "ie." and "eg." written without their inner dots.
        "ext", "tel", "ie", "eg", "attn",
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
                if j + 1 >= chars.count || chars[j + 1].isWhitespace, !(c == "." && isAbbreviation(chars, before: i)),
                   !(c == "." && j == i && continuesAfterAbbreviation(chars, dot: i)) {
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

    /// "U.S.", "a.m.", "Corp.", "Jan.": an abbreviation that may end a sentence too. It does not
    /// when a small letter, a digit or a dash follows ("the U.S. economy", "Enron Corp. and its
    /// affiliates", "6 a.m. - 7 p.m.", "Jan. 5"): Enron's summaries showed halves of such sentences.
    private static func continuesAfterAbbreviation(_ chars: [Character], dot: Int) -> Bool {
        let word = word(chars, before: dot)
        let dotted = word.count >= 3 && word.enumerated().allSatisfy { $0.offset % 2 == 0 ? $0.element.isLetter : $0.element == "." }
        guard dotted || endingAbbreviations.contains(word) else { return false }
        var n = dot + 1
        while n < chars.count, chars[n] == " " || chars[n] == "\t" { n += 1 }
        guard n < chars.count, let next = chars[n].unicodeScalars.first else { return false }
        return CharacterSet.lowercaseLetters.contains(next) || chars[n].isNumber || "-–,;(&".contains(chars[n])
    }

    private static let endingAbbreviations: Set<String> = [
        "corp", "dept", "govt", "bros", "univ", "intl", "assn", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep",
        "sept", "oct", "nov", "dec",
    ]

    /// The letters and dots before a dot, in lower case ("u.s" before the last dot of "U.S.").
    private static func word(_ chars: [Character], before dot: Int) -> String {
        var k = dot
        while k > 0, chars[k - 1].isLetter || chars[k - 1] == "." { k -= 1 }
        return String(chars[k..<dot]).lowercased()
    }

    private static func isAbbreviation(_ chars: [Character], before dot: Int) -> Bool {
        let word = word(chars, before: dot)
        if word.count == 1 { return word.first!.isLetter }  // an initial
        return abbreviations.contains(word)
    }

    /// "is there" asks only where a question starts ("Is there a way…", "Also, is there…"), not
    /// in a statement ("I know it is there").
    private static let request = regex(
        #"(?i)\b(could you|can you|would you|will you|can we|could we|shall we|should we|please|pls|let me know|let us know|do you|did you|are you|have you|(?:^|[,;:(]\s*|\b(?:so|and|but|also|then|or)\s+)is there|any idea|any thoughts|need you to|would it be possible|is it possible|i'd appreciate|would appreciate|kindly|(?:does|do|did|has|have) any(?:one|body) (?:know|have|tried|seen|got)|any(?:one|body) knows?)\b"#)
    /// An offer of help that closes a message ("If you have any questions, please call me.", "Please
    /// let me know if you need anything else.", "Feel free to contact me."), or what presents an
    /// attachment ("Attached please find the report.", "Please see the attached file for details."):
    /// no request anyone waits on or answers. (Enron: 101 of 757 "Waiting on" lines were such offers,
    /// 19 more such presentations; "Please note …", "For other questions, please contact …", "Please
    /// click below …" tell, not ask.) "Please find attached a form which I need you to fill in" asks.
    /// A condition whose only ask is to hear back or call ("If not please let me know.", "If you are
    /// ever in Denver, please give me a call (303-…)."), a list's way out ("if you'd rather not
    /// receive future e-mails …", "if this report has been sent to you in error, please contact …")
    /// offer, too; "If so, would you email me the request" and "If possible, let me know by Friday" ask.
    private static let offerOfHelp = regex(
        #"(?i)(?:\bplease find\b|\bplease see (?:the )?attached\b)(?!.*\b(?:need you to|fill (?:it )?(?:in|out)|sign|return)\b)|\b(?:if|should) (?:you|anyone|anybody|there) (?:have|has|are|is|need|needs|require|requires|run into|experience|encounter)\s+(?:any\s+)?(?:further\s+|other\s+|more\s+|additional\s+)?(?:questions?|concerns?|problems?|difficult(?:y|ies)|trouble|help|assistance|anything(?:\s+else)?)\b|\bfeel free to\b|\b(?:do not|don't|dont) hesitate\b|\bif I can (?:be of )?(?:any )?(?:further |more )?(?:help|assistance|assist)\b|\bif you need (?:anything|me)\b|\blet me know if (?:this|that|it|anything) (?:doesn't|does not|isn't|is not) (?:make sense|clear)\b|\bfor (?:any|other|more|further|additional|detailed|specific|general)(?: [\w/-]+){0,2} (?:questions|information|details|inquiries|issues)\b|\bif you would like (?:further|more|additional) (?:information|details)\b|\bplease note\b|\bplease click (?:below|here|on the link)\b|^(?:if|should)\b(?![^.?!]*\b(?:ideas?|any(?:one|body) knows?|some(?:one|body) knows?|you know|clue|solutions?|fix|suggestions?|advice|experience|seen|tried|found|pointers?|tips?|insights?|answers?)\b)[^.?!]*?[,\s](?:please\s+)?(?:let (?:me|us) know|give (?:me|us) a (?:call|ring)|call me|contact me)(?:\s*\([^)]*\))?[.!]*$|\bif you(?:'d| would) rather not receive\b|\b(?:to unsubscribe|no longer wish to receive)\b|\bsent to you in error\b"#)
    private static let dateOrTime = regex(
        #"(?i)\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|wed|thu|fri|today|tomorrow|tonight|yesterday|next week|this week|end of (?:the )?(?:day|week|month)|eod|noon|january|february|march|april|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|\d{1,2}:\d{2}|\d{1,2}\s?(?:am|pm)|\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}(?:/\d{2,4})?)\b"#)

    static func makeSentence(_ text: String, start: Int, end: Int) -> Sentence {
        let kind = ProseClassifier.kind(of: text)
        var words = 0, visible = 0, letters = 0
        // ASCII, the common case: bytes, not Characters, and the regular expressions only where a
        // word they need is there (in lower case: ASCII letters fold to ASCII letters alone).
        let lower: [UInt8]? = text.utf8.allSatisfy { $0 < 0x80 } ? text.utf8.map(ProseClassifier.asciiLowercased) : nil
        if let lower {
            var inWord = false
            for b in lower {
                if ProseClassifier.isASCIISpace(b) {
                    inWord = false
                    continue
                }
                if !inWord { words += 1 }
                inWord = true
                visible += 1
                if (0x61...0x7A).contains(b) { letters += 1 }
            }
        } else {
            words = text.split(whereSeparator: { $0.isWhitespace }).count
            let shown = text.filter { !$0.isWhitespace }
            visible = shown.count
            letters = shown.filter(\.isLetter).count
        }
        let prose = kind == .prose && words >= 4 && words <= 60 && visible > 0
            && Double(letters) / Double(visible) >= 0.6 && text.count <= 400
        let isRequest = lower.map { bytes in requestWords.contains { ProseClassifier.has(bytes, bytes: $0) } } ?? true
            && matches(request, text) && !matches(offerOfHelp, text)
        let hasDateOrTime = lower.map { bytes in
            bytes.contains { (0x30...0x39).contains($0) } || dateWords.contains { ProseClassifier.has(bytes, bytes: $0) }
        } ?? true && matches(dateOrTime, text)
        return Sentence(
            text: text, start: start, end: end,
            // A "?" in an aside at the end ("… uses IDT (now named something else?)") asks nothing;
            // a question wholly in parentheses does.
            isQuestion: text.hasSuffix("?") || text.hasSuffix("?)") && !isAsideQuestion(text) || text.hasSuffix("?\""),
            isRequest: isRequest, hasDateOrTime: hasDateOrTime, kind: kind, isProse: prose)
    }

    /// A question that greets ("How are you, how is everything over there?", "How was your
    /// weekend?"): no one waits on its answer. Only the greeting, or the greeting and a short rest
    /// ("How are you doing?"); "How are you getting on with the contract we sent?" asks.
    static func isPleasantry(_ text: String) -> Bool {
        guard let range = firstMatch(pleasantry, text) else { return false }
        let rest = text[range.upperBound...].drop(while: { $0 == " " })
        return rest.first.map { ",?!.;".contains($0) } ?? true || text.split(separator: " ").count <= 6
    }
    private static let pleasantry = regex(
        #"(?i)^(?:(?:hi|hello|hey)\b[^?]{0,20}?[,!]?\s*)?(?:how (?:are|r) (?:you|u|things|ya)|how is (?:everything|everyone|life|it going)|how's (?:everything|everyone|life|it going)|how have you been|how (?:was|were) your (?:weekend|trip|holidays?|vacation|flight|christmas|thanksgiving))\b"#)

    /// A question in title case, as a newsletter's heading is ("Did You Know?", "Need A Loan Today?"):
    /// three to six words, each a capitalised word of letters ("All: Ideas/comments/solutions?" and
    /// "To What ?" ask).
    static func isHeading(_ text: String) -> Bool {
        let words = text.trimmingCharacters(in: CharacterSet(charactersIn: "?!")).split(separator: " ")
        return words.count >= 3 && words.count <= 6
            && words.allSatisfy { $0.first?.isUppercase == true && $0.allSatisfy { $0.isLetter || $0 == "'" } }
    }

    /// "… (or feature?)": the question mark closes a parenthesis the sentence opened after its start.
    static func isAsideQuestion(_ text: String) -> Bool {
        guard let open = text.lastIndex(of: "(") else { return false }
        return open != text.startIndex
    }

    /// A word of every alternative of `request` (lower case): a text with none of them cannot match it.
    private static let requestWords = ["you", "we", "please", "pls", "let", "is there", "any", "possible", "appreciate", "kindly"]
        .map { Array($0.utf8) }
    /// The same for `dateOrTime`, whose other alternatives all need a digit.
    private static let dateWords = [
        "mon", "tue", "wed", "thu", "fri", "sat", "sun", "today", "tomorrow", "tonight", "yesterday", "week", "end of", "eod",
        "noon", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ].map { Array($0.utf8) }

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
