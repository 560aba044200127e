import Embedding
import Foundation
import MailModel

/// An extractive summary of a conversation: 2–4 of its own sentences, chosen by their closeness
/// to the conversation's centroid in MiniLM space (boosted for questions, requests, dates and
/// times, and the latest message), made diverse by maximal marginal relevance, a chosen question
/// joined by its answer from the reply (`withAnswers`; one line more at most), shown in thread
/// order as "Author: sentence"; then "Waiting on X: question" when the last message asks
/// something of someone. Every sentence is copied from the mail's cleaned text, never written.
public struct ExtractiveSummarizer: ThreadSummarizer {
    public struct Weights: Sendable {
        public var question = 0.12
        public var request = 0.08
        public var dateOrTime = 0.05
        public var latestMessage = 0.06
        /// MMR's trade-off between relevance and novelty.
        public var lambda = 0.7
        /// Whether a chosen question brings its answer from the reply (`withAnswers`).
        public var answers = true
        /// The cosine an answer needs to its question: lets in 5 % of random replies' best sentences
        /// on usrp-users' pairs, 3 % and 2 % on Enron's and the SpamAssassin archive's
        /// (`scripts/eval/answer_threshold.py`).
        public var answerFloor = 0.36
        public init() {}
    }

    public let embedder: any Embedder
    public var weights: Weights

    /// The most candidate sentences embedded for one summary (`maximumCandidates` unless told).
    public let candidateLimit: Int

    public init(embedder: any Embedder, weights: Weights = Weights(), candidateLimit: Int = ExtractiveSummarizer.maximumCandidates) {
        self.embedder = embedder
        self.candidateLimit = max(1, candidateLimit)
        self.weights = weights
    }

    /// How many sentences a conversation of `messages` messages gets (2–4).
    public static func sentenceCount(messages: Int) -> Int {
        messages <= 3 ? 2 : messages <= 6 ? 3 : 4
    }

    /// The most sentences embedded for one summary (about 2 s of the encoder on this machine's 2 cores).
    public static let maximumCandidates = 256

    struct Candidate {
        var message: Int
        var sentence: Sentence
        var score: Double
    }

    public func summarize(_ messages: [ConversationMessage]) throws -> ThreadSummary {
        // The bodies cleaned (1.5 ms a message at the median, 5.6 at p95 on usrp-users) and folded on
        // every core; on this thread alone where its kernels run alone (the background summaries'
        // niced thread must not take a core from a search).
        let prepare: @Sendable (String) -> (CleanedMessage, Folded) = { (MessageCleaner.clean($0), Folded(Self.foldedText($0))) }
        let bodies = messages.map(\.body)
        let prepared = KernelThreads.runsAloneOnThisThread ? bodies.map(prepare) : bodies.concurrentMap(prepare)
        let cleaned = prepared.map(\.0), folded = prepared.map(\.1)
        // What the conversation waits for is said once, on its own line: not a candidate.
        let waiting = Self.waitingOn(messages: messages, cleaned: cleaned, folded: folded)
        let firstWith = Self.firstMessageBySender(messages: messages, cleaned: cleaned)
        var candidates: [Candidate] = []
        for (m, c) in cleaned.enumerated() {
            // A sentence ending in a colon introduces what follows it (a command, a list, a quote),
            // which is not a candidate: alone it says nothing ("(only tested on Linux):").
            for s in c.sentences where s.isProse && !s.text.hasSuffix(":") {
                if let waiting, waiting.source.emailId == messages[m].emailId, waiting.source.start == s.start { continue }
                if let first = firstWith[Self.templateKey(s.text, sender: messages[m].from?.email)], first.message < m || first.messages >= 3 { continue }
                if Self.isQuotedFromEarlier(s.text, message: m, messages: messages, folded: folded) { continue }
                candidates.append(Candidate(message: m, sentence: s, score: 0))
            }
        }
        if candidates.count > candidateLimit {
            // A very long conversation: its opening message and the newest sentences (each is embedded).
            let opening = candidates.filter { $0.message == 0 }.prefix(candidateLimit / 4)
            let newest = candidates.filter { $0.message > 0 }.suffix(candidateLimit - opening.count)
            candidates = Array(opening) + Array(newest)
        }
        var points: [SummaryPoint] = []
        if !candidates.isEmpty {
            // One batch: on this machine (2 cores, busy) 22 sentences took p50 163 ms so, 372 ms one by one
            // on the half-precision query kernels.
            let vectors = try embedder.embed(candidates.map(\.sentence.text))
            let centroid = Self.normalized(Self.mean(vectors))
            let last = messages.count - 1
            for i in candidates.indices {
                let s = candidates[i].sentence
                var score = Self.dot(vectors[i], centroid)
                if s.isQuestion { score += weights.question }
                if s.isRequest { score += weights.request }
                if s.hasDateOrTime { score += weights.dateOrTime }
                if candidates[i].message == last { score += weights.latestMessage }
                candidates[i].score = score
            }
            let count = Self.sentenceCount(messages: messages.count)
            let picked = Self.mmr(candidates: candidates, vectors: vectors, count: count, lambda: weights.lambda)
            let chosen = weights.answers
                ? Self.withAnswers(picked, candidates: candidates, vectors: vectors, messages: messages, count: count,
                                   floor: weights.answerFloor)
                : picked
            for i in chosen.sorted(by: { (candidates[$0].message, candidates[$0].sentence.start) < (candidates[$1].message, candidates[$1].sentence.start) }) {
                let c = candidates[i]
                let message = messages[c.message]
                points.append(SummaryPoint(
                    kind: .point, text: "\(message.author): \(c.sentence.text)", sentence: c.sentence.text,
                    source: SourceSpan(emailId: message.emailId, author: message.author, start: c.sentence.start, end: c.sentence.end),
                    waitingOn: nil))
            }
        }
        if let reviewed = Self.reviewedBy(messages: messages, cleaned: cleaned) { points.append(reviewed) }
        if let waiting { points.append(waiting) }
        return ThreadSummary(points: points, method: "extractive-minilm-mmr", messages: messages.count, sentences: candidates.count)
    }

    /// For each sentence (`templateKey`: its sender and its words, digits aside), the first message
    /// that has it and how many different messages (by their cleaned text) have it. A sender's later
    /// messages repeat the text of a template ("The report named: West VaR <…> is now available",
    /// three notices in one conversation), a reminder repeats the notice, one email is sent twice:
    /// the repeat is a candidate only where it first stood, so a summary never shows the same words
    /// of one sender twice; said in three different messages or more, it is a template's text and no
    /// candidate at all. (Leaving out every copy of a sentence said twice took out the notices'
    /// template lines, and as many lines people wrote once and sent again: "It is going to be
    /// Saturday, December 22.", on Enron's judged conversations.)
    static func firstMessageBySender(messages: [ConversationMessage], cleaned: [CleanedMessage]) -> [String: (message: Int, messages: Int)] {
        // Each message's text as the number of the first message with the same cleaned text.
        var firstWithText: [String: Int] = [:]
        for m in cleaned.indices where firstWithText[cleaned[m].text] == nil { firstWithText[cleaned[m].text] = m }
        let textId = cleaned.map { firstWithText[$0.text]! }
        var first: [String: (message: Int, texts: Set<Int>)] = [:]
        for (m, c) in cleaned.enumerated() {
            for key in Set(c.sentences.map { templateKey($0.text, sender: messages[m].from?.email) }) {
                if first[key] == nil { first[key] = (m, [textId[m]]) } else { first[key]!.texts.insert(textId[m]) }
            }
        }
        return first.mapValues { ($0.message, $0.texts.count) }
    }

    /// A sentence as a template would repeat it: its sender, then its folded words (`foldedText`)
    /// with every run of digits one "0" and every link one "<link>", so that filled-in counts, dates,
    /// numbers and a recipient's own tracking link match.
    static func templateKey(_ sentence: String, sender: String?) -> String {
        var key = (sender?.lowercased() ?? "") + "\u{0}"
        for (w, word) in foldedText(sentence).split(separator: " ").enumerated() {
            if w > 0 { key.append(" ") }
            if word.hasPrefix("http://") || word.hasPrefix("https://") || word.hasPrefix("www.") || word.hasPrefix("<http") {
                key.append("<link>")
                continue
            }
            var inDigits = false
            for character in word {
                if character.isASCII, character.isNumber {
                    if !inDigits { key.append("0") }
                    inDigits = true
                } else {
                    key.append(character)
                    inDigits = false
                }
            }
        }
        return key
    }

    /// Whether a sentence of message `message` was written before it by someone else: it is in an
    /// earlier message of another sender (whitespace and case folded; 25 characters or more). That
    /// is a quote without `>` (a reply that pastes the words it answers, a list footer every post
    /// carries), not this sender's words: on usrp-users 19 of 1,421 summary lines were such, shown
    /// under the quoter's name.
    static func isQuotedFromEarlier(_ sentence: String, message: Int, messages: [ConversationMessage], folded: [Folded]) -> Bool {
        let own = Folded(foldedText(sentence))
        guard own.text.count >= 25 else { return false }
        let author = messages[message].from?.email.lowercased()
        return (0..<message).contains { k in messages[k].from?.email.lowercased() != author && folded[k].contains(own) }
    }

    /// A folded text (`foldedText`) and its bytes: whether a sentence is in an earlier message is
    /// a search of bytes (Foundation's `contains`, which also matches canonically equivalent forms of
    /// a letter, cost 3 % of a summary; a quote copies the bytes).
    struct Folded {
        var text: String
        var bytes: [UInt8]
        init(_ text: String) {
            self.text = text
            bytes = Array(text.utf8)
        }

        func contains(_ other: Folded) -> Bool {
            ProseClassifier.has(bytes, bytes: other.bytes)
        }
    }

    /// Lower case, every run of white space one space.
    static func foldedText(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            // ASCII: the same by bytes (white space: tab, line feed … carriage return, space).
            var bytes: [UInt8] = []
            bytes.reserveCapacity(text.utf8.count)
            var gap = false
            for b in text.utf8 {
                if ProseClassifier.isASCIISpace(b) {
                    gap = !bytes.isEmpty
                    continue
                }
                if gap { bytes.append(0x20); gap = false }
                bytes.append(ProseClassifier.asciiLowercased(b))
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        return text.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Maximal marginal relevance: each step takes the candidate with the best
    /// λ·score − (1−λ)·(its highest cosine to one already taken). Returns indices.
    static func mmr(candidates: [Candidate], vectors: [[Float]], count: Int, lambda: Double) -> [Int] {
        var chosen: [Int] = []
        var left = Set(candidates.indices)
        while chosen.count < count, !left.isEmpty {
            var best = -1
            var bestValue = -Double.infinity
            for i in left.sorted() {
                let redundancy = chosen.map { dot(vectors[i], vectors[$0]) }.max() ?? 0
                let value = lambda * candidates[i].score - (1 - lambda) * redundancy
                if value > bestValue { bestValue = value; best = i }
            }
            chosen.append(best)
            left.remove(best)
        }
        return chosen
    }

    /// A chosen question that got an answer brings the answer: the sentence most like it (cosine,
    /// at least `floor`) among the prose statements of the first later message by someone else (the
    /// reply), unless it repeats a sentence already chosen (cosine 0.95: a forward, a quote). The
    /// summary then holds at most `count` + 1 lines: the sentences chosen last by MMR that are
    /// neither an answered question nor an answer give way, then the pairs chosen last. `chosen` in
    /// MMR order; indices.
    static func withAnswers(_ chosen: [Int], candidates: [Candidate], vectors: [[Float]], messages: [ConversationMessage],
                            count: Int, floor: Double = 0.36) -> [Int] {
        func author(_ m: Int) -> String? { messages[m].from?.email.lowercased() }
        var answerOf: [Int: Int] = [:]
        for q in chosen where candidates[q].sentence.isQuestion {
            let asker = author(candidates[q].message)
            guard let reply = messages.indices.first(where: { $0 > candidates[q].message && author($0) != asker }) else { continue }
            let statements = candidates.indices.filter { i in
                candidates[i].message == reply && !candidates[i].sentence.isQuestion
                    && !chosen.contains { $0 != i && dot(vectors[i], vectors[$0]) >= 0.95 }
            }
            guard let answer = statements.max(by: { dot(vectors[q], vectors[$0]) < dot(vectors[q], vectors[$1]) }),
                  dot(vectors[q], vectors[answer]) >= floor else { continue }
            answerOf[q] = answer
        }
        var result = chosen
        for q in chosen { if let a = answerOf[q], !result.contains(a) { result.append(a) } }
        let paired = Set(answerOf.keys).union(answerOf.values)
        while result.count > count + 1, let drop = result.lastIndex(where: { !paired.contains($0) }) {
            result.remove(at: drop)
        }
        // Still too long (several answered questions): the pairs MMR chose last give way.
        while result.count > count + 1, let q = chosen.last(where: { answerOf[$0] != nil && result.contains($0) }) {
            result.removeAll { $0 == q || $0 == answerOf[q] }
        }
        return result
    }

    /// In a thread of patches (some message holds a diff), who reviewed, acked or tested them, from
    /// the trailers: "Reviewed by Bob Stone and Eve Ray; acked by Carl Ode". The line's source is
    /// the first trailer; the names are the trailers' own.
    static func reviewedBy(messages: [ConversationMessage], cleaned: [CleanedMessage]) -> SummaryPoint? {
        guard cleaned.contains(where: { $0.sentences.contains { $0.kind == .diff } }) else { return nil }
        var order: [String] = [], roles: [String: [String]] = [:], seen: Set<String> = []
        var first: (Int, Sentence)?
        for (m, c) in cleaned.enumerated() {
            for s in c.sentences where s.kind == .trailer {
                guard let match = reviewTrailer.firstMatch(in: s.text, range: NSRange(s.text.startIndex..., in: s.text)),
                      let roleRange = Range(match.range(at: 1), in: s.text), let nameRange = Range(match.range(at: 2), in: s.text) else { continue }
                let role = s.text[roleRange].lowercased()
                let name = s.text[nameRange].trimmingCharacters(in: .whitespaces)
                guard !name.isEmpty, !seen.contains(role + "\u{0}" + name.lowercased()) else { continue }
                seen.insert(role + "\u{0}" + name.lowercased())
                if roles[role] == nil { order.append(role) }
                roles[role, default: []].append(name)
                if first == nil { first = (m, s) }
            }
        }
        guard let (m, s) = first else { return nil }
        func list(_ names: [String]) -> String {
            names.count <= 2 ? names.joined(separator: " and ") : names.dropLast().joined(separator: ", ") + " and " + names.last!
        }
        let parts = order.enumerated().map { i, role in (i == 0 ? role.prefix(1).uppercased() + role.dropFirst() : role) + " by " + list(roles[role]!) }
        let message = messages[m]
        return SummaryPoint(kind: .reviewedBy, text: parts.joined(separator: "; "), sentence: s.text,
                            source: SourceSpan(emailId: message.emailId, author: message.author, start: s.start, end: s.end),
                            waitingOn: nil, reviewers: order.flatMap { roles[$0]! })
    }

    /// The names a message addresses, as written: its first line's or its question's "Jason:", "Hi
    /// Ian,", "Dear Ms. Lee,", "Lindy - could you …", "Mark/Tana please …"; nil for a group ("All,",
    /// "Team:") or a word that opens a sentence ("Thanks,", "Yesterday,"). And whether the names are
    /// surely a greeting: alone on their line ("Anne,") or before a request or a question ("Lindy -
    /// could you …", "Jan, please …"), not before a statement ("Hmmm, know what?" and "Clearly, …"
    /// are no one's names).
    static func addressed(_ body: String, question: String) -> (names: [String], greeting: Bool)? {
        let first = body.split(separator: "\n").first { !$0.allSatisfy(\.isWhitespace) }.map(String.init) ?? ""
        for text in [question, first] {
            guard let match = addressedPattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                  let whole = Range(match.range, in: text) else { continue }
            let names = (1...2).compactMap { Range(match.range(at: $0), in: text).map { String(text[$0]) } }
            guard !names.isEmpty, !names.contains(where: { notAddressed.contains($0.lowercased()) }) else { continue }
            let next = text[whole.upperBound...].split(whereSeparator: { !$0.isLetter }).first.map { $0.lowercased() }
            return (names, next.map(requestOpeners.contains) ?? true)
        }
        return nil
    }

    /// Words that open a request or a question.
    static let requestOpeners: Set<String> = [
        "please", "pls", "plz", "could", "can", "would", "will", "do", "did", "does", "are", "is", "have", "has", "when",
        "what", "where", "who", "why", "how", "which", "any", "let", "kindly", "should", "shall", "may", "might",
    ]

    /// Greetings of a group or of no one by name ("All,", "Team:", "Sir,"), and capitalised words that
    /// open a sentence before a comma or a dash ("Thanks,", "Yesterday,", "Also -", "Please could …").
    static let notAddressed: Set<String> = [
        "all", "team", "everyone", "everybody", "folks", "guys", "gentlemen", "ladies", "friends", "colleagues", "sir", "madam",
        "hi", "hello", "hey", "dear", "thanks", "thank", "please", "pls", "yes", "no", "ok", "okay", "well", "also", "sorry",
        "again", "today", "yesterday", "tomorrow", "tonight", "however", "so", "and", "but", "great", "good", "sure", "fyi",
        "attached", "here", "there", "this", "that", "these", "those", "as", "if", "regarding", "re", "note", "update",
        "unfortunately", "actually", "btw", "oh", "ah", "anyway", "finally", "first", "second", "third", "next", "then",
        "now", "still", "meanwhile", "otherwise", "besides", "instead", "yet", "cheers", "regards", "morning", "afternoon",
        "evening", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january", "february",
        "march", "april", "may", "june", "july", "august", "september", "october", "november", "december", "question",
        "questions", "answer", "ps", "nb", "fwd", "fw", "subject", "from", "to", "cc", "sent", "date", "importance",
        "hm", "hmm", "hmmm", "yeah", "yep", "yup", "nope", "indeed", "clearly", "obviously", "honestly", "frankly",
        "basically", "lady", "group", "people", "gang", "wow", "ugh", "right", "true", "agreed", "correct", "exactly",
        "absolutely", "alright", "cool", "nice", "interesting", "fine", "perfect", "excellent", "whoa", "anyhow", "apparently",
        "i", "we", "you", "it", "he", "she", "they", "what", "why", "who", "when", "where", "how", "which", "our", "my",
        "your", "their", "west", "east", "north", "south", "assistants", "managers", "traders",
    ]

    /// A first name, two joined by a slash, then a comma, a colon, a dash or "please" ("Ava please put
    /// this on my calendar"; not "could" or "will": "What will it take", "We will need").
    static let addressedPattern = ProseClassifier.regex(
        #"^\s*(?:(?i:hi|hello|hey|dear)\s+)?(?:(?i:mr|mrs|ms|dr)\.?\s+)?(\p{Lu}[\p{Ll}'-]+)(?:\s*/\s*(\p{Lu}[\p{Ll}'-]+))?(?:\s*[,:]|\s+-+\s|\s+(?=(?i:please|pls|kindly)\b))"#)

    /// The participant whose message the last one quotes first, by its attribution ("On Tue, Harri
    /// Haataja wrote:", "At 12:32 PM, Adam wrote:") or Outlook's "From: Smith, Ann" under "-----Original
    /// Message-----": the person a reply to a list is written to. Nil when not exactly one matches.
    static func repliedTo(_ body: String, among people: [Address]) -> Address? {
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmedOfSpaces }
        var attribution: String?
        for (i, line) in lines.enumerated() where !line.hasPrefix(">") {
            let joined = i + 1 < lines.count ? line + " " + lines[i + 1] : line
            if line.count < 200, line.hasSuffix("wrote:") || line.hasSuffix("writes:") {
                attribution = line
            } else if joined.count < 200, !line.isEmpty, joined.hasSuffix("wrote:") || joined.hasSuffix("writes:") {
                attribution = joined
            } else if line.hasPrefix("From:"), i > 0, lines[..<i].suffix(3).contains(where: { $0.contains("Original Message") }) {
                attribution = String(line.dropFirst(5))
            }
            if attribution != nil { break }
        }
        guard let text = attribution?.lowercased() else { return nil }
        let words = Set(text.split { !$0.isLetter && $0 != "@" && $0 != "." && $0 != "-" && $0 != "_" }.map(String.init))
        var matching: [Address] = []
        for a in people where !matching.contains(where: { $0.email.lowercased() == a.email.lowercased() }) {
            let email = a.email.lowercased()
            let name = (a.name ?? "").lowercased().split { !$0.isLetter }.map(String.init).filter { $0.count >= 3 }
            if text.contains(email) || (!name.isEmpty && name.allSatisfy(words.contains)) { matching.append(a) }
        }
        return matching.count == 1 ? matching[0] : nil
    }

    /// The words of a participant's name and address, lower case: "Jason Roth" <jroth@…> → jason,
    /// roth, jroth.
    static func nameWords(_ a: Address) -> Set<String> {
        let local = a.email.split(separator: "@").first.map(String.init) ?? a.email
        let words = (a.name ?? "").lowercased().split { !$0.isLetter } + local.lowercased().split { !$0.isLetter }
        return Set(words.map(String.init))
    }

    /// "Reviewed-by: Bob Stone <bob@example.com>" → reviewed, Bob Stone.
    static let reviewTrailer = ProseClassifier.regex(#"(?i)^\s*(Reviewed|Acked|Tested)-by:\s*([^<#]*?)\s*(?:<[^>]*>.*|#.*)?$"#)

    /// "Waiting on X: question" when the last message asks a question (or makes a request ending
    /// the message): X is the person its greeting names ("Laura, can you …"), else the recipients of
    /// the last message who took part in the conversation, else its one to three recipients when
    /// none is a list's address, else the participant whose words it quotes first (a reply to a
    /// list), else the previous sender, else the recipients.
    static func waitingOn(messages: [ConversationMessage], cleaned: [CleanedMessage], folded: [Folded]) -> SummaryPoint? {
        // A newsletter's "Questions? Click here" waits on no one (Enron: "Waiting on <its
        // recipient>: To customize, reschedule, or turn off these reports please click here").
        guard let last = messages.last, !last.isBulk, let text = cleaned.last else { return nil }
        // A question of the sender's prose: not a "?" in a line of code, a log or a quote, nor one an
        // earlier message of someone else asked (pasted without marks: that one is being answered).
        // Nor one two or more of its sender's earlier, different messages already asked: the text of
        // a template (a broker's every notice ends "Need to make a deposit?"). A person who asks again
        // once ("Any word on this?"), or sends the same email again, still waits.
        let sender = last.from?.email.lowercased()
        var asked: [String: Int] = [:]
        for m in messages.indices.dropLast() where messages[m].from?.email.lowercased() == sender && cleaned[m].text != text.text {
            for key in Set(cleaned[m].sentences.map({ templateKey($0.text, sender: sender) })) { asked[key, default: 0] += 1 }
        }
        // Nor a greeting ("How are you?") or a newsletter's heading ("Did You Know?").
        let own = { (s: Sentence) in
            asked[templateKey(s.text, sender: sender), default: 0] < 2
                && !isQuotedFromEarlier(s.text, message: messages.count - 1, messages: messages, folded: folded)
                && !MessageCleaner.isPleasantry(s.text) && !MessageCleaner.isHeading(s.text)
        }
        let asks = text.sentences.filter { $0.isQuestion && $0.kind == .prose && $0.text.count >= 8 && own($0) }
        guard let question = asks.last ?? text.sentences.last(where: { $0.isRequest && $0.isProse && own($0) }) else { return nil }
        let author = last.from?.email.lowercased()
        let earlier = messages.dropLast()
        let participants = Dictionary(earlier.compactMap { m in m.from.map { ($0.email.lowercased(), $0) } },
                                      uniquingKeysWith: { a, _ in a })
        // Exchange's internal X.500 names ("/o=enron/ou=na/cn=recipients/cn=notesaddr/cn=a478079f-…")
        // name no one a reader knows: not shown.
        let named = { (a: Address) in !a.email.hasPrefix("/") }
        var people = last.to.filter { named($0) && $0.email.lowercased() != author && participants[$0.email.lowercased()] != nil }
            .map { participants[$0.email.lowercased()]!.displayName }
        // Mail to one to three people who took no part yet (a forward to a delegate, a reply to
        // someone cc'd before): they are the ones asked, not whoever wrote before. Not a list's
        // address: one that earlier messages of two or more senders went to, and that never wrote.
        if people.isEmpty {
            var sendersTo: [String: Set<String>] = [:]
            for m in earlier { for a in m.to + m.cc { sendersTo[a.email.lowercased(), default: []].insert(m.from?.email.lowercased() ?? "") } }
            let direct = last.to.filter { a in
                let key = a.email.lowercased()
                return named(a) && key != author && (sendersTo[key]?.count ?? 0) < 2
            }
            if !direct.isEmpty && direct.count <= 3 && direct.count == last.to.filter({ $0.email.lowercased() != author }).count {
                people = direct.map(\.displayName)
            }
        }
        // A reply to a list: the person whose words it quotes first, else the previous sender.
        if people.isEmpty, let replied = repliedTo(last.body, among: participants.values.filter { named($0) && $0.email.lowercased() != author }) {
            people = [replied.displayName]
        }
        if people.isEmpty, let previous = earlier.last(where: { $0.from?.email.lowercased() != author })?.from, named(previous) {
            people = [previous.displayName]
        }
        if people.isEmpty { people = last.to.filter { named($0) && $0.email.lowercased() != author }.map(\.displayName) }
        // A message that addresses someone by name ("Jason: please send a note …", "Hi Ian,", "Mark/Tana
        // please …") waits on that person: the participant or recipient with that name when exactly
        // one has it, the name as written when none has and it is surely a greeting (the message asks
        // someone this conversation does not show); else the rules above stand.
        if let addressed = addressed(last.body, question: question.text) {
            let everyone = (Array(participants.values) + last.to).filter { named($0) && $0.email.lowercased() != author }
            var found: [String] = []
            for name in addressed.names {
                // The whole name, else a short form of one ("Mich" for Michelle).
                let key = name.lowercased()
                var matching: [Address] = []
                for whole in [true, false] where matching.isEmpty && (whole || key.count >= 3) {
                    for a in everyone where !matching.contains(where: { $0.email.lowercased() == a.email.lowercased() })
                        && nameWords(a).contains(where: { whole ? $0 == key : $0.hasPrefix(key) }) {
                        matching.append(a)
                    }
                }
                guard matching.count == 1 || matching.isEmpty && addressed.greeting else { found = []; break }
                found.append(matching.first?.displayName ?? name)
            }
            if !found.isEmpty { people = found }
        }
        guard !people.isEmpty else { return nil }
        var unique: [String] = []
        for p in people where !unique.contains(p) { unique.append(p) }
        let names = unique.count <= 2 ? unique.joined(separator: " and ") : unique.prefix(2).joined(separator: ", ") + " and others"
        return SummaryPoint(
            kind: .waitingOn, text: "Waiting on \(names): \(question.text)", sentence: question.text,
            source: SourceSpan(emailId: last.emailId, author: last.author, start: question.start, end: question.end),
            waitingOn: unique)
    }

    // MARK: Vectors

    static func dot(_ a: [Float], _ b: [Float]) -> Double {
        var s: Float = 0
        for i in 0..<min(a.count, b.count) { s += a[i] * b[i] }
        return Double(s)
    }

    static func mean(_ vectors: [[Float]]) -> [Float] {
        guard let first = vectors.first else { return [] }
        var sum = [Float](repeating: 0, count: first.count)
        for v in vectors { for i in sum.indices { sum[i] += v[i] } }
        return sum.map { $0 / Float(vectors.count) }
    }

    static func normalized(_ v: [Float]) -> [Float] {
        let norm = v.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return norm > 0 ? v.map { $0 / norm } : v
    }
}
