import Foundation

/// What a line of a message (or a sentence) is: a person's prose, or something a summary must not
/// quote as their words.
public enum LineKind: String, Sendable, Hashable, CaseIterable {
    case prose
    case blank
    /// A patch: `diff --git`, `index …`, `--- a/`, `+++ b/`, hunks, a diffstat, and what follows a
    /// patch's `---` separator.
    case diff
    /// Source code, a configuration file, a command line.
    case code
    /// Program output: log lines, console output, stack traces.
    case log
    /// Someone else's words: a `name>` quote, an attribution ("On … wrote:").
    case quote
    /// `Signed-off-by:`, `Reviewed-by:`, `Acked-by:`, `Cc:` and the other trailers of a commit message.
    case trailer
    /// A header line of a quoted or forwarded message ("From:", "Sent:", "Subject:" …).
    case header
    /// A signature block: name, title, company, phone.
    case signature
    /// A mailing list's or a mail program's boilerplate ("To unsubscribe …", "Sent from my iPhone").
    case footer
    /// A link, a path or an address with hardly any words around it.
    case link
    /// Figures, a table, a scrap of words: not code, not a sentence either.
    case data
}

/// Tells prose from patches, code, logs, quotes, trailers, signatures and footers, line by line and
/// in context (a hunk, a block of code, a patch's description above its `---`). Pure.
///
/// A line is judged by its own features first: markers that only code, a diff or a log has (`diff
/// --git`, `@@ -1,3 +1,4 @@`, `[INFO]`, `[ 12.345678]`, `#include`, a line ending in `;` or `{`), then
/// its share of code-like tokens (`a->b`, `x == y`, `foo()`, `a[i]`, `snake_case`, `0x1f`, `key=value`),
/// of symbols, and of English function words ("the", "is", "to" …), which prose has and code and logs
/// lack. Context then settles what a line alone cannot: a patch runs from its `---` and diffstat (or
/// `diff --git`) to its last hunk; a line with few words between code or log lines is part of them; a
/// last block of short lines with a phone number or an address is a signature.
public enum ProseClassifier {
    // MARK: Lines in context

    /// The kind of each line of a text (lines as written: their indentation matters).
    public static func kinds(of lines: [String]) -> [LineKind] {
        let features = lines.map(Features.init)
        var kinds = features.map { kind(of: $0, alone: false) }
        markPatch(lines, features, &kinds)
        markAttributedQuotes(features, &kinds)
        markPastedArticles(features, &kinds)
        markQuotedParagraphs(features, &kinds)
        markBlocks(features, &kinds)
        markFooterBlocks(&kinds)
        markContinuations(features, &kinds)
        markDisclaimers(features, &kinds)
        markSignature(features, &kinds)
        markValediction(features, &kinds)
        return kinds
    }

    /// The kind of a text on its own: a sentence, or a line without its context. Stricter than a
    /// line among others: a run of words with neither a function word nor an end of sentence (a
    /// heading, a name, a table row) is `.data` here, while a line like that may be half of a
    /// wrapped sentence.
    public static func kind(of text: String) -> LineKind {
        kind(of: Features(text), alone: true)
    }

    // MARK: One line

    static func kind(of f: Features, alone: Bool) -> LineKind {
        let t = f.trimmed
        // A lone backslash is a Markdown line break some mail programs write between paragraphs.
        if t.isEmpty || t == "\\" { return .blank }
        if f.isNameQuote { return .quote }
        // A line of nothing but pictures' placeholders: not text, and no program's output either.
        if f.hasBracket, t.utf8.contains(UInt8(ascii: "]")), ProseClassifier.imagePlaceholder.stringByReplacingMatches(
            in: t, range: NSRange(t.startIndex..., in: t), withTemplate: "").allSatisfy(\.isWhitespace) { return .data }
        // Each regular expression runs only on a line that could match it (they are the costly part).
        if f.labelColon, matches(trailer, t) { return .trailer }
        if f.labelColon, matches(headerLine, t) { return .header }
        // Lotus Notes lays a forwarded message's header out in columns, which a reflowed line
        // joins: "\"Heard, Marie\"   To:   someone@cwt.com   cc:   Subject:   FW: …".
        if f.hasColon, has(f.lower, "  "), notesHeader.numberOfMatches(in: t, range: NSRange(t.startIndex..., in: t)) >= 2 { return .header }
        // A form's fields run into one line ("Status last changed by: Alan Perry Expense Report Name:
        // 2001 April Report Total: $10,063.91 …"): three labels or more, each a capital and a colon.
        if f.hasColon, colonsBeforeSpace(f.lower) >= 3,
           formField.numberOfMatches(in: t, range: NSRange(t.startIndex..., in: t)) >= 3 { return .data }
        // A sign-off run into the name ("Thanks and Regards, Mariella") wherever it stands: a reply
        // written above an earlier message, unmarked, has its own in the middle.
        if f.tokens.count <= 7, t.count <= 60, t.utf8.contains(UInt8(ascii: ",")), matches(MessageCleaner.signOffWithName, t) {
            return .signature
        }
        if let c = f.first, "di-+@nrs".contains(c), matches(diffLine, t) { return .diff }
        if t.utf8.contains(UInt8(ascii: "|")) || has(f.lower, "changed"), matches(diffstat, f.line) { return .diff }
        if f.mayBeFooter, matches(footerLine, t) { return .footer }
        if let strong = strongMarker(f) { return strong }
        if f.tokens.isEmpty { return .data }
        // Shares of code-like tokens, symbols and function words.
        let codeShare = Double(f.codeTokens) / Double(f.tokens.count)
        let stopShare = f.words > 0 ? Double(f.stopwords) / Double(f.words) : 0
        if f.linkTokens > 0, f.words - f.linkTokens < 3, f.stopwords <= 1 { return .link }
        if f.logTokens >= 3 || f.logTokens >= 2 && stopShare < 0.25 { return .log }
        if codeShare >= 0.5 || (codeShare >= 0.3 && stopShare < 0.1) { return .code }
        if f.symbolShare >= 0.2, stopShare < 0.2 { return .code }
        if f.letterShare < 0.6 { return f.digitShare >= 0.25 || f.trimmed.count <= 3 && f.codeTokens == 0 ? .data : .code }
        if f.labelPrefix, stopShare < 0.15 { return .log }
        if alone, f.words >= 3, f.stopwords == 0, !f.endsSentence { return .data }
        return .prose
    }

    /// Markers that one occurrence settles.
    private static func strongMarker(_ f: Features) -> LineKind? {
        // Markdown's emphasis and code quotes around a pasted line do not hide it.
        let t = f.trimmed.drop { "`*".contains($0) }.description
        let first = t.first ?? " "
        if first == "[" || first == "\\", matches(bracketTagStart, t), f.words == 0 || Double(f.stopwords) / Double(f.words) < 0.3 { return .log }
        if has(f.lower, "//"), matches(trailingComment, t) { return .code }
        if f.hasBracket || f.hasColon || first.isNumber || t.hasPrefix("Traceback"), matches(logMarker, t) { return .log }
        if has(f.lower, "rw"), matches(longListing, t) { return .log }
        if f.hasBracket, matches(toolMessageId, t) { return .log }
        // A reply's attribution or a forward's separator run into the line: what follows is a quote.
        if has(f.lower, "wrote:") || has(f.lower, "original message"), matches(inlineAttribution, t) { return .quote }
        if "$#>%".contains(first) || t.utf8.contains(UInt8(ascii: "@")) && f.hasColon || has(f.lower, ":\\") || t.hasPrefix("In ["), matches(shellPrompt, t) { return .log }
        if first == "#" || first.isNumber || t.hasPrefix("at ") || t.hasPrefix("File \"") || t.hasPrefix("in "), matches(stackFrame, t) { return .log }
        if mayBeCode(f) || t != f.trimmed, matches(codeLine, t) { return .code }
        if let last = t.last, "{}".contains(last), f.stopwords <= 2 { return .code }
        if t.hasSuffix(";"), f.codeTokens >= 2 || f.stopwords == 0 || t.hasSuffix(");") { return .code }
        return nil
    }

    // MARK: Context

    /// A patch: from `diff --git` (or a `---` line followed by a diffstat, or `--- a/…` followed by
    /// `+++ b/…`) through its hunks. What a patch email says above it is its description.
    private static func markPatch(_ lines: [String], _ f: [Features], _ kinds: inout [LineKind]) {
        enum State { case text, header, hunk }
        var state = State.text
        for i in lines.indices {
            let line = lines[i]
            let t = f[i].trimmed
            switch state {
            case .text:
                if startsPatch(lines, f, at: i) { state = .header; kinds[i] = .diff }
            case .header:
                kinds[i] = .diff
                if line.hasPrefix("@@") { state = .hunk }
            case .hunk:
                if line.hasPrefix("@@") || line.hasPrefix("diff ") || line.hasPrefix("Index: ") {
                    kinds[i] = .diff
                    state = line.hasPrefix("@@") ? .hunk : .header
                } else if line.isEmpty || line.hasPrefix(" ") || line.hasPrefix("+") || line.hasPrefix("-") || line.hasPrefix("\\") || line.hasPrefix("\t") {
                    kinds[i] = .diff
                } else if t.isEmpty {
                    kinds[i] = .blank
                } else {
                    state = .text  // the hunk ended: what follows is read as usual
                }
            }
        }
    }

    /// A short line that attributes what follows to someone ("You originally said:", "Tim wrote:",
    /// "Quoting the article:") and the paragraph after it, up to a blank line: another person's
    /// words quoted without `>`, never the sender's (a rhetorical question quoted so was shown as
    /// "Waiting on …").
    private static func markAttributedQuotes(_ f: [Features], _ kinds: inout [LineKind]) {
        var i = 0
        while i < f.count {
            let t = f[i].trimmed
            guard kinds[i] == .prose || kinds[i] == .data, t.count < 300, matches(attribution, t) else { i += 1; continue }
            kinds[i] = .quote
            // "Martin wrote:>>And we know …", "In article <…> you write: As Hal noted …": the quote is
            // on this line; what follows is the sender's again.
            if t.count < 80, t.hasSuffix(":") {
                var j = i + 1
                while j < f.count, kinds[j] == .blank { j += 1 }  // the quote may start after a blank line
                while j < f.count, kinds[j] != .blank {
                    if kinds[j] == .prose || kinds[j] == .data { kinds[j] = .quote }
                    j += 1
                }
                i = j
            } else {
                i += 1
            }
        }
    }

    /// A pasted article, not the sender's words (list mail that forwards news under the forwarder's
    /// name):
    /// - a lone link or a separator line ("=====", "=="), then within six lines a
    ///   byline ("By Clint Boulton"), or below a link a dateline ("Wednesday August 28, 2002",
    ///   "MILPITAS, Calif., September 9, 2002-"): from the line after it to the end of the message
    ///   (a feed's "URL: link" and "Date:" above a post are no such thing: the post is the
    ///   feed's author's own);
    /// - a lone link and, right below it, a separator: the text up to the next separator (or the end);
    /// - a separator a blank line below the sender's sign-off (one to three names in a paragraph of
    ///   their own below the sender's prose; right below, the rule would underline a heading): what
    ///   follows it, to the end.
    private static func markPastedArticles(_ f: [Features], _ kinds: inout [LineKind]) {
        func isSeparator(_ t: String, minimum: Int = 2) -> Bool {
            t.count >= minimum && t.allSatisfy { "=_*~-".contains($0) } && !(t.count < 4 && t.allSatisfy { $0 == "-" })
        }
        func quoteAll(from start: Int, to end: Int) {
            for k in start..<end where kinds[k] != .blank { kinds[k] = .quote }
        }
        func nextLine(after i: Int) -> Int? {
            var j = i + 1
            while j < f.count, kinds[j] == .blank { j += 1 }
            return j < f.count ? j : nil
        }
        var i = 0
        while i < f.count {
            let t = f[i].trimmed
            let lone = (t.hasPrefix("http://") || t.hasPrefix("https://")) && !t.utf8.contains(0x20)
            let separator = isSeparator(t)
            guard lone || separator else { i += 1; continue }
            // A lone link with a separator right below it: the text between that and the next separator.
            if lone, let s = nextLine(after: i), isSeparator(f[s].trimmed, minimum: 10) {
                var end = s + 1
                while end < f.count, !isSeparator(f[end].trimmed, minimum: 10) { end += 1 }
                quoteAll(from: s + 1, to: end)
                i = end + 1
                continue
            }
            // A separator below a sign-off ("Eirikur", then "--------"): the rest is pasted.
            if separator, t.count >= 4, let previous = (0..<i).last(where: { kinds[$0] != .blank }), previous < i - 1,
               previous > 0, kinds[previous - 1] == .blank, [.prose, .data].contains(kinds[previous]), isSignOff(f[previous]),
               let text = (0..<previous).last(where: { kinds[$0] != .blank }), kinds[text] == .prose {
                quoteAll(from: i + 1, to: f.count)
                return
            }
            var seen = 0, j = i + 1
            while j < f.count, seen < 6 {
                if kinds[j] != .blank {
                    seen += 1
                    if matches(byline, f[j].trimmed) || lone && isDateline(f[j]) {
                        quoteAll(from: i + 1, to: f.count)
                        return
                    }
                }
                j += 1
            }
            i += 1
        }
    }

    /// "By Clint Boulton", "By Scott Tyler Shafer", "BY JANE DOE, Reuters".
    static let byline = regex(#"^(?i:by)\s+[A-Z][A-Za-z'.-]+(?:\s+[A-Z][A-Za-z'.-]+){1,3}\s*(?:,.*)?$"#)

    /// A line that is mostly a date with its year, as an article's header gives it: "Friday, 6
    /// September, 2002, 08:53 GMT", "*Päivämäärä:* 26.8.2002", "Date: 2002-09-12T23:03:40-08:00". Not
    /// a sentence, not an attribution ("On Sep 9, 2002, Bob wrote:"), not a file's name or a link
    /// ("[image: Screenshot from 2022-06-06 12-34-22.png]").
    static func isDateline(_ f: Features) -> Bool {
        guard f.tokens.count <= 8, f.stopwords <= 1, f.linkTokens == 0, !f.hasBracket, !f.trimmed.hasSuffix(":"),
              !matches(attribution, f.trimmed) else { return false }
        return matches(datelinePattern, f.trimmed)
    }

    static let datelinePattern = regex(
        #"(?:\b(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?,?\s+(?:\d{1,2}(?:st|nd|rd|th)?,?\s+)?(?:19|20)\d{2}\b|\b\d{1,2}\.?\s+(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?),?\s+(?:19|20)\d{2}\b|\b\d{1,2}[./]\d{1,2}[./](?:19|20)\d{2}\b|\b(?:19|20)\d{2}-\d{2}-\d{2}(?:\b|T\d))"#)

    /// A sender's sign-off: one to three names on a line of their own ("Eirikur", "R", "Bob Smith"),
    /// or two joined by "and" or "&" ("Lara and Bob").
    static func isSignOff(_ f: Features) -> Bool {
        let t = f.trimmed
        func isName(_ token: Substring) -> Bool {
            guard let first = token.first, first.isUppercase else { return false }
            return token.allSatisfy { $0.isLetter || $0 == "." || $0 == "'" || $0 == "-" }
        }
        guard t.count <= 30 else { return false }
        if f.tokens.count == 3, f.tokens[1] == "and" || f.tokens[1] == "&" { return isName(f.tokens[0]) && isName(f.tokens[2]) }
        guard (1...3).contains(f.tokens.count), f.stopwords == 0 else { return false }
        return f.tokens.allSatisfy(isName)
    }

    /// Colons followed by a space, in a line's lower-case bytes.
    static func colonsBeforeSpace(_ lower: [UInt8]) -> Int {
        var count = 0
        for i in lower.indices.dropLast() where lower[i] == UInt8(ascii: ":") && lower[i + 1] == UInt8(ascii: " ") { count += 1 }
        return count
    }

    /// A paragraph wrapped in quotation marks (the first opens it, the next closes it at its end),
    /// or a quotation opened at the start of a paragraph and left open (its only mark) up to the
    /// paragraph, among the next eight, whose end closes it: another's words quoted, not the
    /// sender's ("\"British scientists were honoured for research that found …\"", then the
    /// sender's comment). A quoted phrase in the sender's own sentence leaves it theirs.
    private static func markQuotedParagraphs(_ f: [Features], _ kinds: inout [LineKind]) {
        let paragraphs = paragraphs(kinds)
        func isMark(_ c: Character) -> Bool { c == "\"" || c == "“" || c == "”" }
        func marks(_ range: Range<Int>) -> Int { range.reduce(0) { $0 + f[$1].trimmed.filter(isMark).count } }
        func endsWithMark(_ range: Range<Int>) -> Bool {
            var last = f[range.upperBound - 1].trimmed
            while let c = last.last, ".,;:!?)".contains(c) { last.removeLast() }
            return last.last.map(isMark) ?? false
        }
        var p = 0
        while p < paragraphs.count {
            let range = paragraphs[p]
            guard let open = f[range.lowerBound].trimmed.first, isMark(open), kinds[range.lowerBound] == .prose else { p += 1; continue }
            var closing: Int?
            let own = marks(range)
            if own == 2, endsWithMark(range) {
                closing = p
            } else if own == 1 {
                var count = 1
                for q in (p + 1)..<min(paragraphs.count, p + 9) {
                    count += marks(paragraphs[q])
                    if endsWithMark(paragraphs[q]), count % 2 == 0 { closing = q; break }
                }
            }
            guard let q = closing else { p += 1; continue }
            let words = paragraphs[p...q].reduce(0) { sum, range in sum + range.reduce(0) { $0 + f[$1].words } }
            if words >= 12 {
                for range in paragraphs[p...q] { for k in range where [.prose, .data].contains(kinds[k]) { kinds[k] = .quote } }
            }
            p = q + 1
        }
    }

    /// A footer line starts a footer: the rest of its block (to a blank line) is the footer's too
    /// ("This sf.net email is sponsored by: OSDN - Tired of that same old" / "cell phone? Get a new
    /// here for FREE!" was a "Waiting on").
    private static func markFooterBlocks(_ kinds: inout [LineKind]) {
        var i = 0
        while i < kinds.count {
            guard kinds[i] == .footer else { i += 1; continue }
            var j = i + 1
            while j < kinds.count, kinds[j] != .blank {
                if [.prose, .data, .link].contains(kinds[j]) { kinds[j] = .footer }
                j += 1
            }
            i = j
        }
    }

    /// "X said:", "you wrote:", "quoting Y:" at the end of a short line.
    static let attribution = regex(#"(?i)(?:\b(?:said|says|say|wrote|writes|write|asked|asks|posted|quoted)|^quoting\b.*):\s*(?:$|>|&>)|^in article <[^>]*> .*\bwrites?:"#)

    private static func startsPatch(_ lines: [String], _ f: [Features], at i: Int) -> Bool {
        let line = lines[i]
        if line.hasPrefix("diff --git ") || line.hasPrefix("diff -u") || line.hasPrefix("diff -r") { return true }
        let next = lines[(i + 1)..<min(lines.count, i + 4)]
        if line.hasPrefix("--- "), let after = next.first, after.hasPrefix("+++ ") { return true }
        if line.hasPrefix("Index: "), let after = next.first, after.hasPrefix("=====") { return true }
        if f[i].trimmed == "---" {
            return next.contains { matches(diffstat, $0) || $0.hasPrefix("diff --git ") }
        }
        return false
    }

    /// In a block of lines with no blank between them, a line with few words among code or log
    /// lines is part of them (`else`, `Using Device: Single USRP:`, a wrapped argument list), and an
    /// indented block that holds code is code.
    private static func markBlocks(_ f: [Features], _ kinds: inout [LineKind]) {
        // A block's lines change kind here, never to or from blank: the blocks stay the same.
        for block in paragraphs(kinds) {
            let technical = block.filter { [.code, .log, .diff].contains(kinds[$0]) }
            if !technical.isEmpty {
                let codeCount = technical.filter { kinds[$0] != .log }.count
                let majority: LineKind = codeCount * 2 >= technical.count ? .code : .log
                let mostly = technical.count * 3 >= block.count * 2
                for i in block where kinds[i] == .prose || kinds[i] == .data {
                    let previous = technical.contains(i - 1)
                    let next = technical.contains(i + 1)
                    let strong = isStrong(f[i])
                    if previous && next && !strong
                        || mostly && (previous || next) && (f[i].stopwords <= 1 || f[i].words < 4) && !f[i].endsSentence
                        || f[i].indent >= 4 && (previous || next) && !strong {
                        kinds[i] = majority
                    }
                }
            }
        }
    }

    /// The runs of lines with no blank line between them.
    static func paragraphs(_ kinds: [LineKind]) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var start = 0
        while start < kinds.count {
            guard kinds[start] != .blank else { start += 1; continue }
            var end = start
            while end < kinds.count, kinds[end] != .blank { end += 1 }
            result.append(start..<end)
            start = end
        }
        return result
    }

    /// A short line that ends a sentence the line before it began (a wrapped model number, a
    /// name, a program's name, "5.8 GHz?"): prose, not a line of code or figures of its own. A line
    /// that more code follows, or a statement, stays code.
    private static func markContinuations(_ f: [Features], _ kinds: inout [LineKind]) {
        for i in f.indices.dropFirst() where kinds[i - 1] == .prose && [.code, .data, .link].contains(kinds[i]) {
            let previous = f[i - 1]
            // The end of a run: a line of code followed by more code is part of that code.
            let next = i + 1 < f.count ? kinds[i + 1] : .blank
            guard f[i].tokens.count <= 3, f[i].indent <= previous.indent, !previous.endsSentence,
                  !previous.trimmed.hasSuffix(":"), strongMarker(f[i]) == nil, ![.code, .log, .diff].contains(next),
                  !f[i].trimmed.hasSuffix(";"), !f[i].trimmed.hasSuffix("{") else { continue }
            kinds[i] = .prose
        }
    }

    /// A sentence beyond doubt: several function words and an end of sentence.
    private static func isStrong(_ f: Features) -> Bool {
        f.stopwords >= 2 && f.words >= 5 && f.endsSentence && f.codeTokens * 4 < f.tokens.count
    }

    /// The last block of a message (after its last blank line; footers after it do not count) when
    /// it is 2–8 short lines without an end of sentence, one of them a phone number, an address, a
    /// link or a company's or a job's name.
    private static func markSignature(_ f: [Features], _ kinds: inout [LineKind]) {
        guard let last = f.indices.last(where: { !f[$0].trimmed.isEmpty && kinds[$0] != .footer }) else { return }
        var first = last
        while first > 0, !f[first - 1].trimmed.isEmpty { first -= 1 }
        let block = first...last
        guard first > 0, (2...8).contains(block.count) else { return }
        let short = block.allSatisfy { f[$0].words <= 7 && f[$0].trimmed.count <= 70 && !(f[$0].endsSentence && f[$0].stopwords > 0) }
        let contact = block.contains { matches(contactLine, f[$0].trimmed) }
        guard short, contact else { return }
        for i in block where kinds[i] == .prose || kinds[i] == .data || kinds[i] == .link { kinds[i] = .signature }
    }

    /// A closing phrase that ends in a comma above the sender's name, with their prose above it and
    /// nothing of theirs below ("Blaming it on staying up past bedtime," / "Neale"; "Blue in the
    /// face," / "RAH"): a signature, not a sentence. A message of that line alone keeps it ("for the
    /// 10:30 meeting," / "Frank").
    private static func markValediction(_ f: [Features], _ kinds: inout [LineKind]) {
        for i in f.indices.dropFirst() where kinds[i] == .prose || kinds[i] == .data {
            guard isSignOff(f[i]), let above = (max(0, i - 2)..<i).last(where: { kinds[$0] != .blank }),
                  kinds[above] == .prose, f[above].trimmed.hasSuffix(","), f[above].words <= 8,
                  (0..<above).contains(where: { kinds[$0] == .prose }),
                  !f.indices.dropFirst(i + 1).contains(where: { kinds[$0] == .prose }) else { continue }
            kinds[above] = .signature
            kinds[i] = .signature
        }
    }

    /// A legal notice ("… intended recipient … confidential … prohibited") is a footer: the end of a
    /// block from the line where the notice starts (the last line from which the words are there,
    /// then back over the lines above with its words or wrapped into it), so a message without blank
    /// lines keeps its text.
    private static func markDisclaimers(_ f: [Features], _ kinds: inout [LineKind]) {
        func isNotice(_ lines: ArraySlice<Features>) -> Bool {
            let text = Array(lines.map(\.lower).joined(separator: [0x20]))
            let hits = disclaimerWords.filter { has(text, $0) }
            return hits.count >= 3 || hits.count >= 2 && (hits.contains("intended recipient") || hits.contains("in error"))
        }
        var start = 0
        while start < f.count {
            guard !f[start].trimmed.isEmpty else { start += 1; continue }
            var end = start
            while end < f.count, !f[end].trimmed.isEmpty { end += 1 }
            if isNotice(f[start..<end]) {
                var first = end - 1
                while first > start, !isNotice(f[first..<end]) { first -= 1 }
                // Back over the notice's other lines: those with its words, and the wrapped ones.
                while first > start, disclaimerWords.contains(where: { has(f[first - 1].lower, $0) })
                    || !f[first - 1].endsSentence && f[first - 1].words > 5 { first -= 1 }
                for i in first..<end where kinds[i] != .blank { kinds[i] = .footer }
            }
            start = end
        }
    }

    static let disclaimerWords = [
        "confidential", "intended recipient", "privileged", "unauthori", "prohibited", "in error", "notify the sender",
        "disclaimer", "addressee", "legally", "virus",
        // An export-control notice (National Instruments' on usrp-users: "… U.S. Export Administration
        // Regulations … a specific authorization may be required from the U.S. Commerce Department").
        "export administration", "license requirement", "specific authorization", "commerce department",
    ]

    // MARK: Features

    struct Features {
        var line: String
        var trimmed: String
        /// Leading spaces, a tab counting 4.
        var indent: Int
        var tokens: [Substring]
        /// Tokens with a letter.
        var words: Int
        var stopwords: Int
        var codeTokens: Int
        var logTokens: Int
        var linkTokens: Int
        var letterShare: Double
        var digitShare: Double
        var symbolShare: Double
        /// Ends with ".", "!" or "?" (not "..."), maybe inside a closing quote or parenthesis.
        var endsSentence: Bool
        /// Starts with an upper-case label and a colon ("EAL:", "BUILDER:"), not a prose one ("Note:").
        var labelPrefix: Bool
        /// "ralf> …", "RK> …": a quote in the supercite style.
        var isNameQuote: Bool
        var first: Character?
        var firstWord: String
        var hasColon: Bool
        var hasBracket: Bool
        /// A colon within the first 26 characters: "Signed-off-by:", "From:".
        var labelColon: Bool
        var mayBeFooter: Bool
        /// The trimmed line in lower case, as UTF-8.
        var lower: [UInt8]

        init(_ line: String) {
            self.line = line
            var indent = 0
            for c in line {
                if c == " " { indent += 1 } else if c == "\t" { indent += 4 } else { break }
            }
            self.indent = indent
            let trimmed = ProseClassifier.trim(Substring(line), ProseClassifier.spaces)
            self.trimmed = trimmed
            let ascii = trimmed.utf8.allSatisfy { $0 < 0x80 }
            // ASCII, the common case: split by bytes, not Characters (their Unicode properties cost more).
            tokens = ascii ? trimmed.utf8.split(whereSeparator: ProseClassifier.isASCIISpace).map { Substring($0) }
                : trimmed.split(whereSeparator: \.isWhitespace)
            var words = 0, stop = 0, code = 0, log = 0, link = 0
            for token in tokens {
                let bare = ProseClassifier.trim(token, ProseClassifier.wordEdges).lowercased()
                if token.contains(where: \.isLetter) { words += 1 }
                if ProseClassifier.stopwords.contains(bare) { stop += 1 }
                if ProseClassifier.isLink(token) { link += 1 } else if ProseClassifier.isCodeToken(token) { code += 1 }
                if ProseClassifier.isLogToken(token) { log += 1 }
            }
            self.words = words
            stopwords = stop
            codeTokens = code
            logTokens = log
            linkTokens = link
            var letters = 0, digits = 0, symbols = 0, visible = 0
            if ascii {
                for b in trimmed.utf8 where !ProseClassifier.isASCIISpace(b) {
                    visible += 1
                    if (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) { letters += 1 } else if (0x30...0x39).contains(b) { digits += 1 } else if ProseClassifier.symbolBytes.contains(b) { symbols += 1 }
                }
            } else {
                for c in trimmed where !c.isWhitespace {
                    visible += 1
                    if c.isLetter { letters += 1 } else if c.isNumber { digits += 1 } else if "{}[]()<>;=*&|\\$#%^~`".contains(c) { symbols += 1 }
                }
            }
            letterShare = visible > 0 ? Double(letters) / Double(visible) : 0
            digitShare = visible > 0 ? Double(digits) / Double(visible) : 0
            symbolShare = visible > 0 ? Double(symbols) / Double(visible) : 0
            var end = trimmed
            while let last = end.last, ")\"'”’*_\\".contains(last) { end.removeLast() }
            endsSentence = (end.hasSuffix(".") && !end.hasSuffix("..")) || end.hasSuffix("?") || end.hasSuffix("!")
            if let colon = trimmed.firstIndex(of: ":"), trimmed.distance(from: trimmed.startIndex, to: colon) <= 16 {
                let label = trimmed[..<colon]
                labelPrefix = label.count >= 2 && label.allSatisfy { $0.isUppercase || $0.isNumber || $0 == "_" || $0 == "-" }
                    && !ProseClassifier.proseLabels.contains(String(label))
            } else {
                labelPrefix = false
            }
            isNameQuote = line.utf8.contains(UInt8(ascii: ">")) && ProseClassifier.matches(ProseClassifier.nameQuote, line)
                || ProseClassifier.matches(ProseClassifier.markedQuote, line)
            first = trimmed.first
            hasColon = trimmed.utf8.contains(UInt8(ascii: ":")) || trimmed.unicodeScalars.contains("：")
            hasBracket = trimmed.utf8.contains(UInt8(ascii: "["))
            let colon = trimmed.firstIndex { $0 == ":" || $0 == "：" }
            labelColon = colon.map { trimmed.distance(from: trimmed.startIndex, to: $0) <= 26 } ?? false
            let lower = trimmed.lowercased()
            self.lower = Array(lower.utf8)
            mayBeFooter = ProseClassifier.has(self.lower, "unsubscribe") || ProseClassifier.has(self.lower, "mailing list")
                || ProseClassifier.has(self.lower, "sponsored by") || ProseClassifier.has(self.lower, "yahoo!")
                || ProseClassifier.has(self.lower, "listinfo")
                || lower.hasPrefix("sent from my") || lower.hasPrefix("get outlook") || lower.hasPrefix("you received this")
                || ProseClassifier.has(self.lower, "receiving this") || ProseClassifier.has(self.lower, "removal")
                || ProseClassifier.has(self.lower, "remove me") || ProseClassifier.has(self.lower, "removed from")
                || ProseClassifier.has(self.lower, "privacy policy")
                || ProseClassifier.has(self.lower, "trademarks")
            firstWord = String(trimmed.prefix { $0.isLetter || $0.isNumber || $0 == "_" })
        }
    }

    /// The ASCII bytes that are white space as a `Character` is (tab … carriage return, space).
    static func isASCIISpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    /// An ASCII byte in lower case (A–Z to a–z, the rest as it is).
    static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte + 0x20 : byte
    }

    /// The symbols `symbolShare` counts, as ASCII bytes.
    static let symbolBytes: Set<UInt8> = Set("{}[]()<>;=*&|\\$#%^~`".utf8)

    /// Trimmed from a token's ends before it is read as a word.
    static let wordEdges: Set<Character> = Set("\"'“”‘’()[]{}<>,.;:!?*_`")
    static let linkEdges: Set<Character> = Set("<>()[]\"',.;")
    static let spaces: Set<Character> = [" ", "\t", "\r", "\n", "\u{A0}", "\u{FEFF}"]

    /// `text` without the characters of `edges` at either end.
    static func trim(_ text: Substring, _ edges: Set<Character>) -> String {
        var s = text
        while let c = s.first, edges.contains(c) { s.removeFirst() }
        while let c = s.last, edges.contains(c) { s.removeLast() }
        return String(s)
    }

    /// Whether `needle` is in `text` (UTF-8): Foundation's `contains` costs several times more.
    static func has(_ text: [UInt8], _ needle: String) -> Bool {
        has(text, bytes: Array(needle.utf8))
    }

    /// Whether the bytes `n` are in `text`.
    static func has(_ text: [UInt8], bytes n: [UInt8]) -> Bool {
        guard !n.isEmpty, text.count >= n.count else { return n.isEmpty }
        outer: for i in 0...(text.count - n.count) where text[i] == n[0] {
            for k in 1..<n.count where text[i + k] != n[k] { continue outer }
            return true
        }
        return false
    }

    /// English function words: prose has them, code, logs and tables hardly do.
    static let stopwords: Set<String> = [
        "a", "an", "the", "and", "or", "but", "if", "then", "so", "because", "as", "of", "to", "in", "on", "at", "by",
        "for", "with", "from", "about", "into", "over", "after", "before", "between", "through", "than", "that",
        "this", "these", "those", "there", "here", "it", "its", "it's", "is", "are", "was", "were", "be", "been",
        "being", "am", "do", "does", "did", "have", "has", "had", "will", "would", "can", "could", "should", "may",
        "might", "must", "shall", "i", "i'm", "i've", "i'd", "i'll", "you", "your", "we", "our", "they", "their",
        "he", "she", "his", "her", "him", "them", "me", "my", "us", "not", "no", "don't", "doesn't", "didn't",
        "isn't", "can't", "won't", "what", "which", "who", "when", "where", "why", "how", "all", "any", "some",
        "also", "just", "only", "very", "too", "up", "out", "yes", "please", "thanks", "thank", "let", "any",
        "that's", "there's", "we're", "you're", "we'll", "we've", "you've", "what's", "while", "since", "until",
        "without", "within", "via", "per", "each", "both", "either", "neither", "nor", "yet", "still", "even",
    ]

    /// Upper-case labels a person writes before a sentence.
    static let proseLabels: Set<String> = [
        "NOTE", "NB", "PS", "P.S", "FYI", "BTW", "UPDATE", "EDIT", "TLDR", "TL;DR", "Q", "A", "IMPORTANT", "RE", "FW",
        "FWD", "ANSWER", "QUESTION", "OK", "OR", "AND", "BUT", "ALSO", "TODO", "ACTION", "URGENT", "REMINDER", "ATTN",
    ]

    /// A URL, an e-mail address or a path.
    static func isLink(_ token: Substring) -> Bool {
        let t = trim(token, linkEdges)
        if t.hasPrefix("http://") || t.hasPrefix("https://") || t.hasPrefix("www.") || t.hasPrefix("ftp://") || t.hasPrefix("mailto:") { return true }
        if t.utf8.contains(UInt8(ascii: "@")), t.utf8.contains(UInt8(ascii: ".")), !t.hasPrefix("@") { return true }
        if t.count > 2, t.hasPrefix("/") || t.hasPrefix("~/") || t.hasPrefix("./") || t.hasPrefix("../") { return t.dropFirst().contains("/" as Character) || t.count > 6 }
        if t.count > 3, t.dropFirst().hasPrefix(":\\") { return true }  // C:\…
        return false
    }

    /// A token that prose does not write: operators, calls, indexing, identifiers joined by "_" or
    /// written in camelCase, hexadecimal numbers, "key=value".
    static func isCodeToken(_ token: Substring) -> Bool {
        let bytes = Array(token.utf8)
        if bytes.count >= 2 {
            for k in 1..<bytes.count where codePairs.contains(UInt16(bytes[k - 1]) << 8 | UInt16(bytes[k])) { return true }
        }
        if token.hasPrefix("#include") || token.hasPrefix("#define") { return true }
        if token.count == 1, "=;{}".contains(token.first!) { return true }
        if token.hasSuffix(";") || token.hasSuffix("{") || token.hasPrefix("}") { return true }
        // Most tokens are words: none of "_([=" nor a digit, and no capital after a small letter.
        if bytes.allSatisfy({ $0 < 0x80 }) {
            var plain = true
            for (k, b) in bytes.enumerated() {
                if b == 0x5F || b == 0x28 || b == 0x5B || b == 0x3D || (0x30...0x39).contains(b) { plain = false; break }
                if k >= 2, (0x41...0x5A).contains(b), (0x61...0x7A).contains(bytes[k - 1]) { plain = false; break }
            }
            if plain { return false }
        }
        let chars = Array(token)
        var hasUnderscore = false, camel = false, call = false, index = false, hex = false, assign = false
        for (k, c) in chars.enumerated() {
            let before = k > 0 ? chars[k - 1] : " "
            let after = k + 1 < chars.count ? chars[k + 1] : " "
            switch c {
            case "_": if before.isLetter || before.isNumber, after.isLetter || after.isNumber { hasUnderscore = true }
            case "(":
                // "foo(" or "foo()", not "device(s)".
                if before.isLetter || before.isNumber || before == "_" {
                    let rest = String(chars[(k + 1)...])
                    if !(rest.hasPrefix("s)") || rest.hasPrefix("es)")) { call = true }
                }
            case "[": if before.isLetter || before.isNumber || before == "_" || before == ")" { index = true }
            case "=": if before.isLetter || before.isNumber || before == "_" || before == "]", after != "=", after != ">" { assign = true }
            case "x": if before == "0", k == 1 || !chars[k - 2].isLetter, after.isHexDigit { hex = true }
            default:
                if c.isUppercase, before.isLowercase, k >= 2, chars[0].isLowercase { camel = true }
            }
        }
        return hasUnderscore || camel || call || index || hex || assign
    }

    /// "->", "::", "==", "!=", "&&", "||", "<<", ">>", "+=", "-=", "|=", "&=", "++", "/*", "*/", "//", "${", "$(" as byte pairs.
    static let codePairs: Set<UInt16> = Set(["->", "::", "==", "!=", "&&", "||", "<<", ">>", "+=", "-=", "|=", "&=", "++", "/*", "*/", "//", "${", "$("]
        .map { s -> UInt16 in let b = Array(s.utf8); return UInt16(b[0]) << 8 | UInt16(b[1]) })

    /// A token of program output: a log level in brackets, a time of day with seconds, a float
    /// printed with 5+ decimals, a long hexadecimal address, "key=value".
    static func isLogToken(_ token: Substring) -> Bool {
        guard let first = token.first else { return false }
        let t = String(token)
        if first == "[" || first == "\\" || first == "-" || first.isNumber, matches(logToken, t) { return true }
        if let eq = t.firstIndex(of: "="), eq > t.startIndex, t.index(after: eq) < t.endIndex,
           t[..<eq].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." }) { return true }
        return false
    }

    /// Whether `codeLine` could match: a line that starts or ends the way code does.
    private static func mayBeCode(_ f: Features) -> Bool {
        let t = f.trimmed
        if let c = f.first, "#`/*}-".contains(c) { return true }
        if let c = t.last, ";{(=:,".contains(c) { return true }
        if f.hasColon, f.first?.isLowercase == true { return true }
        return codeKeywords.contains(f.firstWord) || f.firstWord.hasSuffix("_t") || t.hasPrefix("std::")
    }

    static let codeKeywords: Set<String> = [
        "import", "from", "def", "class", "fn", "func", "struct", "enum", "typedef", "template", "namespace", "module",
        "entity", "architecture", "package", "always", "public", "private", "protected", "static", "const", "void",
        "int", "unsigned", "bool", "char", "double", "float", "auto", "reg", "wire", "input", "output", "logic",
        "localparam", "parameter", "assign", "begin", "end", "endmodule", "endcase", "endfunction", "if", "for",
        "while", "switch", "catch", "else", "return",
    ]

    // MARK: Regular expressions

    /// "ralf> …", "RK> …", "jdoe> …"
    static let nameQuote = regex(#"^\s{0,8}[A-Za-z][A-Za-z0-9_.-]{0,15}>(?:\s|$)"#)
    /// Other quote marks some mail programs and people use: "| …", "--]…", "&> …", "} …", and a
    /// '>' left after an attribution on the same line.
    static let markedQuote = regex(#"^\s{0,4}(?:\|(?:\s|>|$)|--\]|&>|\}\s|>)"#)
    static let trailer = regex(
        #"^(?i:signed-off-by|acked-by|reviewed-by|tested-by|reported-by|suggested-by|co-developed-by|reported-and-tested-by|requested-by|cc|fixes|link|closes|change-id|buglink|message-id):\s*\S"#)
    static let headerLine = regex(
        #"^\*{0,2}(?:From|To|Sent|Date|Subject|Reply-To|Bcc|Von|An|Gesendet|Betreff|Datum|Envoyé|Objet|发件人|收件人|发送时间|主题|抄送|日期)\*{0,2}\s?[:：]\*{0,2}\s"#)
    /// A form's label: a capital, up to four words, a colon and a value ("Expense Report Name: 2001").
    static let formField = regex(#"(?:^|\s)\p{Lu}[\p{L}/&.'-]*(?:\s+[\p{L}/&.'-]+){0,3}:\s+\S"#)
    /// A header label after a run of spaces (Notes' columns) or at the start.
    static let notesHeader = regex(#"(?:^|\s{2,})(?:To|cc|bcc|Subject|From|Sent|Date):(?:\s|$)"#)
    static let diffLine = regex(
        #"^(?:diff --git |index [0-9a-f]{7,}\.\.[0-9a-f]{7,}|--- (?:a/|/dev/null)|\+\+\+ (?:b/|/dev/null)|@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@|new file mode \d|deleted file mode \d|similarity index \d|rename (?:from|to) \S)"#)
    /// " drivers/gpio/foo.c | 12 ++--", " 3 files changed, 10 insertions(+), 2 deletions(-)"
    static let diffstat = regex(#"^\s*(?:\S+\s+\|\s+(?:\d+ ?[+-]*|Bin \d+ -> \d+ bytes)\s*$|\d+ files? changed(?:, \d+ insertions?\(\+\))?(?:, \d+ deletions?\(-\))?\s*$)"#)
    static let footerLine = regex(
        #"(?i)(?:^to unsubscribe\b|\bunsubscribe (?:from|send|by|at|here|link)\b|\bmailing list\b.*(?:@|https?://)|/mailman/listinfo/|^sent from my (?:iphone|ipad|android|blackberry|mobile|phone|samsung|galaxy)|^get outlook for (?:ios|android)|^you received this (?:message|email) because you are subscribed|\b(?:e-?mail|message) is sponsored by\b|^your use of yahoo!|\byou are receiving this e-?mail because\b|\be-?mailing list removal\b|^remove me\b|\bto be removed from (?:this|our|the) (?:list|mailing)|\bprivacy policy\b.*\btrademarks?\b|\bare (?:registered )?trademarks (?:or registered trademarks )?of\b)"#)
    /// The message number of a tool's report in brackets: Vivado's "[Synth 8-439]", "[IP_Flow 19-2162]".
    static let toolMessageId = regex(#"\[[A-Z][A-Za-z_]+ \d+-\d+\]"#)
    /// "ann@example.com wrote: …", "… -----Original Message----- …" inside a line.
    static let inlineAttribution = regex(#"(?i)\S+@\S+\s+wrote:|-{3,}\s*original message"#)
    /// Log levels in brackets ("[INFO]", "\[ERROR\]"), kernel timestamps ("[ 12.345678]"), a level and
    /// a colon at the start, timestamps at the start ("2024-01-02 10:11:12", "Jan  2 10:11:12"), a
    /// Python traceback.
    static let logMarker = regex(
        #"(?:\\?\[(?:INFO|WARN|WARNING|ERROR|ERR|DEBUG|TRACE|FATAL|CRITICAL|NOTICE|EMERG|ALERT|TRACE)\\?\]|^\[\s*\d+\.\d{3,}\]|^(?:INFO|WARN|WARNING|ERROR|DEBUG|TRACE|FATAL|CRITICAL|CRITICAL WARNING)\s*[:|\]-]|^\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2})?|^\[?\d{2}:\d{2}:\d{2}[.,]\d+|^(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d{2}:\d{2}:\d{2}\b|^Traceback \(most recent call last\)|\.[a-zA-Z]{1,4}:\d+:(?:\d+:)?\s|^(?:Error|Fatal error):\s|^\w+(?:Error|Exception): \S|^(?:E|W|I|D)\d{4} \d{2}:\d{2}|^\d{2}:\d{2}:\d{2}\s+\S|^(?:W|E|N|Err|Get|Hit|Ign):\d*\s*\S)"#)
    /// "$ make", "# modprobe …", "user@host:~$ …", ">>> x = 1", "C:\> dir"
    static let shellPrompt = regex(#"^(?:\$ \S|% (?!of\b|the\b|and\b|to\b|in\b|is\b|are\b)[a-z./]|# (?!of\b)[a-z./]|>>> |\S+@\S+:[^\s]*[#$]\s?|[A-Z]:\\[^ ]*>\s?\S|In \[\d+\]: )"#)
    /// `ls -l` output: "-rwsr-sr-x    1 root     mail …".
    static let longListing = regex(#"(?:^|\s)[-dlcbps][rwxsStT-]{9}[.+@]?\s+\d+\s+\w+"#)
    /// Java, Python, gdb and C++ stack frames.
    static let stackFrame = regex(#"^(?:at [\w.$<>]+\([^)]*\)$|File "[^"]+", line \d+|#\d+\s+0x[0-9a-f]+ in |\d+: 0x[0-9a-f]+|in \S+::\S+\()"#)
    static let codeLine = regex(
        #"^(?:#(?:\s*(?:include|define|ifn?def|endif|if|else|elif|pragma|undef)\b|[-=#*]|\s+(?!of\b)\S)|import [\w.]+(?: as \w+)?;?$|from [\w.]+ import \w|(?:def|class|fn|func|struct|enum|typedef|template|namespace|module|entity|architecture|package|always) [\w<]+.*[:({;]$|(?:public|private|protected|static|const|void|int|unsigned|uint\d+_t|int\d+_t|size_t|bool|char|double|float|auto|std::\w+|reg|wire|input|output|logic|localparam|parameter|assign|begin|end(?:module|case|function)?)\b[^.!?]*[;{(=]\s*$|(?:if|for|while|switch|catch|else if)\s*\(.*\)\s*\{?$|return\b.*;$|\}\s*else\b|[\w.\[\]]+(?:->\w+)*\s*[+\-*/|&]?=\s*[^=\s].*;$|```|//|/\*|\*/$|- \{ ?\w+:|[a-z_][\w.-]*: (?:['"]?[\w./-]+['"]?|\[.*\]|\{.*\}|\d[\w.]*)\s*(?:#.*)?$)"#)
    /// "[INFO]"-like tags, times with seconds, long floats, long hex numbers.
    static let logToken = regex(#"^(?:\\?\[(?!(?:IMAGE|IMG|CID)\b)[A-Z][A-Z0-9_:/#.-]{1,30}\\?\]|\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?|-?\d+\.\d{5,}\w*|0x[0-9a-fA-F]{6,}|\[\s*\d+\.\d+\])"#)
    /// A line that starts with a tag of a program's output: "[LIBCONFIG] …", "\[HW\] …".
    static let bracketTagStart = regex(#"^\\?\[(?!(?:IMAGE|IMG|CID)\b)[A-Z][A-Z0-9_:/#. -]{1,30}\\?\]"#)
    /// What a mail program leaves of a picture: "[IMAGE]", "[image: plot.png]", "[cid:image001.png@…]", "[IMG: …]".
    static let imagePlaceholder = regex(#"\[(?:IMAGE|image|IMG|img|cid)\b[^\]]*\]"#)
    /// Code followed by a comment: "stream_args); // Is this correct?"
    static let trailingComment = regex(#"[;{})]\s*//"#)
    /// A signature's contact line: a phone or a fax, an address, a web site, a company or a title.
    static let contactLine = regex(
        #"(?i)(?:\b(?:tel|phone|mobile|cell|fax|office|direct|voice|ph|mob|m|t|f|e)\s*[.:]\s*\+?[\d(]|\+\d[\d ()./-]{7,}|\(\d{3}\)\s*\d{3}[-. ]\d{4}|\b\d{3}[-.]\d{3}[-.]\d{4}\b|@[\w-]+\.\w|https?://|www\.|\b(?:inc|llc|ltd|gmbh|corp|corporation|company|university|institute|laboratory|department|dept)\b\.?|\b(?:engineer|manager|director|president|scientist|professor|researcher|analyst|consultant|officer|architect|developer|student|ceo|cto|vp)\b)"#)

    static func regex(_ pattern: String) -> NSRegularExpression {
        try! NSRegularExpression(pattern: pattern)
    }

    static func matches(_ regex: NSRegularExpression, _ text: String) -> Bool {
        regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }
}
