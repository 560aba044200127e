import MailModel

/// The fast, explainable categoriser: a label the mail carried, then list, bulk-mail and
/// automatic-mail headers, the sender (social networks, programs, marketing addresses) and the
/// words of the subject and the body's start. Each decision says which rule fired; rules that
/// are not sure say so with a confidence under `RuleCategorizer.sure`, and the classifier may
/// decide those instead.
public struct RuleCategorizer: Categorizer {
    /// Decisions at or above this confidence are not second-guessed by the classifier.
    public static let sure = 0.75

    /// The mailbox's own lists (addresses and subject tags), learnt from all of its mail.
    public var lists: MailboxLists

    public init(lists: MailboxLists = MailboxLists()) { self.lists = lists }

    /// A decision made when the email was stored (`provisional`, with no lists) stands where these
    /// lists give no evidence for the email: `decide` reads the lists at one place only, and with
    /// no evidence there it decides as it did.
    public func categorize(_ inputs: [CategorizationInput]) -> [CategoryDecision] {
        inputs.map { input in
            guard var provisional = input.provisional, lists.evidence(for: input) == nil else { return decide(input) }
            // The store keeps no method for it: the one `decide` gives such a decision.
            provisional.method = input.signals?.labelCategory != nil ? .label : Self.method(confidence: provisional.confidence)
            return provisional
        }
    }

    /// How many bytes of the body the rules read (`TextFeatures`' default limit).
    public static let bodyBytes = 1500

    /// The start of a body that holds all the rules read of it: its first `bodyBytes` bytes of
    /// UTF-8, to the end of the character under the last (a copy of those bytes, not a walk over
    /// its characters). A body the categoriser reads back from the store (its first 1,500
    /// characters) gives the rules the same bytes.
    public static func bodyPrefix(_ body: String) -> String {
        let u = body.utf8
        guard u.count > bodyBytes else { return body }
        var end = u.index(u.startIndex, offsetBy: bodyBytes)
        while end < u.endIndex, u[end] & 0xC0 == 0x80 { end = u.index(after: end) }
        return String(body[..<end])
    }

    /// Who sent it, judged by the address alone.
    enum SenderKind: Equatable {
        case socialNetwork(String), automatic(String), marketing(String), person
    }

    /// Whether an address (by itself) looks like a person's rather than a program's, a marketer's or a social network's.
    public static func isPersonAddress(_ email: String) -> Bool {
        senderKind(Address(name: nil, email: email)) == .person
    }

    static func senderKind(_ address: Address?) -> SenderKind {
        guard let email = address?.email.lowercased(), let at = email.lastIndex(of: "@") else { return .person }
        let local = String(email[..<at])
        let domain = String(email[email.index(after: at)...])
        var d = Substring(domain)
        while true {
            if CategoryVocabulary.socialDomains.contains(String(d)) { return .socialNetwork(domain) }
            guard let dot = d.firstIndex(of: ".") else { break }
            d = d[d.index(after: dot)...]
            if !d.contains(".") { break }
        }
        let head = local.split(whereSeparator: { $0 == "+" }).first.map(String.init) ?? local
        let parts = head.split(whereSeparator: { "-._".contains($0) }).map(String.init)
        if isAutomatic(head) { return .automatic(local) }
        if parts.count <= 2, let first = parts.first, CategoryVocabulary.marketingLocalParts.contains(first),
           parts.count == 1 || CategoryVocabulary.marketingLocalParts.contains(parts[1]) || parts[1].count > 2 {
            return .marketing(local)
        }
        if domain.hasPrefix("email.") || domain.hasPrefix("e.") || domain.hasPrefix("em.") || domain.hasPrefix("mail.")
            || domain.hasPrefix("news.") || domain.hasPrefix("newsletter.") || domain.hasPrefix("mailer.")
            || domain.hasPrefix("info.") || domain.hasPrefix("marketing.") || domain.hasPrefix("offers.") {
            if domain.hasPrefix("mail.") && parts.count >= 2 { return .person }
            return .marketing(local)
        }
        return .person
    }

    /// Whether a local part (before any `+`) is a program's: one of `automaticLocalParts`, one of
    /// them and then `-`, `.` or `_`, or holding one of seven letters or more. An ASCII local part
    /// (nearly every one) is compared byte by byte: the same answer without a String made for each
    /// word and Foundation's substring search, which were most of the categoriser's time on Enron.
    static func isAutomatic(_ head: String) -> Bool {
        guard head.utf8.allSatisfy({ $0 < 0x80 }) else {
            return CategoryVocabulary.automaticLocalParts.contains { word in
                head == word || head.hasPrefix(word + "-") || head.hasPrefix(word + ".") || head.hasPrefix(word + "_")
                    || (word.count >= 7 && head.contains(word))
            }
        }
        let h = Array(head.utf8)
        return CategoryVocabulary.automaticLocalPartBytes.contains { word in
            if h.count >= word.count, h.starts(with: word) {
                if h.count == word.count { return true }
                let next = h[word.count]
                if next == UInt8(ascii: "-") || next == UInt8(ascii: ".") || next == UInt8(ascii: "_") { return true }
            }
            return word.count >= 7 && contains(h, word)
        }
    }

    /// Whether `needle` occurs in `haystack` (bytes).
    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return needle.isEmpty }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            var j = 1
            while j < needle.count && haystack[start + j] == needle[j] { j += 1 }
            if j == needle.count { return true }
        }
        return false
    }

    /// The rules' decision for one email (`provisional` not consulted).
    public func decide(_ input: CategorizationInput) -> CategoryDecision {
        let s = input.signals ?? []
        if let label = s.labelCategory {
            return CategoryDecision(category: label, method: .label, reason: "the mail carries the label Category \(label.rawValue.capitalized)",
                                    confidence: 1)
        }
        let sender = Self.senderKind(input.from)
        let subject = TextFeatures(input.subject, limit: 300, keeping: CategoryVocabulary.wordHashes)
        let body = TextFeatures(input.bodyPrefix, limit: Self.bodyBytes, keeping: CategoryVocabulary.wordHashes)
        let bulkWords = CategoryVocabulary.bulkBody.hits(in: body, limit: 3)

        // Discussion lists: people write to them.
        if s.contains(.listPost) || s.contains(.mailingList) {
            if case .socialNetwork(let domain) = sender {
                return decision(.social, 0.9, "sent by the social network \(domain) through a list")
            }
            if !s.contains(.emailServiceProvider) {
                return decision(.forums, 0.97, s.contains(.listPost) ? "List-Post header: a discussion list" : "Mailing-List header: a discussion list")
            }
        }
        if case .socialNetwork(let domain) = sender {
            return decision(.social, 0.95, "the sender's domain \(domain) is a social network")
        }
        // Mail a person sent through list software (or to one of the mailbox's lists): Forums,
        // whatever `Precedence: bulk` says; programs' and marketers' mail through lists goes on below.
        if case .person = sender, !s.contains(.emailServiceProvider), !s.contains(.autoSubmitted) {
            if s.contains(.listId) { return decision(.forums, 0.9, "List-Id header from a person: a mailing list") }
            if s.contains(.listManager) { return decision(.forums, 0.9, "a list manager's headers on mail from a person: a mailing list") }
            if s.contains(.listSender) { return decision(.forums, 0.9, "a list's owner or bounce address (Sender, Return-Path or Errors-To) on mail from a person: a mailing list") }
            if let why = lists.evidence(for: input) { return decision(.forums, 0.88, "\(why): a mailing list") }
        }
        if s.contains(.precedenceList) && !s.contains(.emailServiceProvider) && !s.contains(.listUnsubscribe) {
            return decision(.forums, 0.8, "Precedence: list: a mailing list")
        }

        // Mail sent by programs or in bulk.
        var evidence: [String] = []
        if s.contains(.emailServiceProvider) { evidence.append("a bulk-mail service's headers") }
        if s.contains(.listUnsubscribe) { evidence.append("List-Unsubscribe") }
        if s.contains(.precedenceBulk) { evidence.append("Precedence: bulk") }
        if s.contains(.listId) { evidence.append("List-Id") }
        if s.contains(.autoSubmitted) { evidence.append("Auto-Submitted") }
        if s.contains(.autoResponseHeader) { evidence.append("an automatic-mail header") }
        if s.contains(.bulkReturnPath) && !s.contains(.personalMailer) { evidence.append("a bulk bounce address") }
        var automatic = s.contains(.autoSubmitted) || s.contains(.autoResponseHeader)
        var marketingSender = false
        switch sender {
        case .automatic(let local):
            automatic = true
            evidence.append("the sender \(local)@ is a program")
        case .marketing(let local):
            marketingSender = true
            evidence.append("the sender \(local)@ is a mailing address")
        default: break
        }
        let personal = sender == .person && !s.contains(.emailServiceProvider)
        if !bulkWords.isEmpty && (!personal || !evidence.isEmpty || input.from?.name == nil) {
            evidence.append("bulk-mail words (\(bulkWords.prefix(2).joined(separator: ", ")))")
        }

        if evidence.isEmpty {
            if !bulkWords.isEmpty {
                return decision(.primary, 0.6, "from a person, with no bulk-mail headers, but with bulk-mail words (\(bulkWords.prefix(2).joined(separator: ", ")))")
            }
            if input.isReply { return decision(.primary, 0.95, "a reply from a person, with no bulk-mail signal") }
            if s.contains(.personalMailer) { return decision(.primary, 0.92, "written in a mail program by a person, with no bulk-mail signal") }
            if input.from == nil { return decision(.primary, 0.5, "no sender and no bulk-mail signal") }
            return decision(.primary, 0.85, "from a person to \(input.toCount + input.ccCount) recipient\(input.toCount + input.ccCount == 1 ? "" : "s"), with no bulk-mail signal")
        }

        // Which kind of bulk mail: the words decide (subject words count double).
        let u = CategoryVocabulary.updates.hits(in: subject).count * 2 + CategoryVocabulary.updates.hits(in: body).count
        let p = CategoryVocabulary.promotions.hits(in: subject).count * 2 + CategoryVocabulary.promotions.hits(in: body).count
        let so = CategoryVocabulary.social.hits(in: subject).count * 2 + CategoryVocabulary.social.hits(in: body).count
        let why = evidence.prefix(3).joined(separator: ", ")
        let strongHeaders = s.contains(.emailServiceProvider) || s.contains(.listUnsubscribe) || s.contains(.precedenceBulk)
            || automatic || marketingSender
        let base = strongHeaders ? 0.9 : 0.7
        if so >= 3 && so > u && so > p {
            return decision(.social, base - 0.1, "\(why); social-network words (\(so))")
        }
        if automatic && u >= p && u > 0 {
            return decision(.updates, base, "\(why); transactional words outweigh promotional ones (\(u) to \(p))")
        }
        if u > p + 1 || (u > p && !marketingSender) {
            return decision(.updates, u >= 3 ? base : base - 0.15, "\(why); transactional words outweigh promotional ones (\(u) to \(p))")
        }
        if p > u {
            return decision(.promotions, p >= 3 ? base : base - 0.15, "\(why); promotional words outweigh transactional ones (\(p) to \(u))")
        }
        if automatic { return decision(.updates, 0.65, "\(why); no telling words: a program's notice") }
        if case .person = sender, s.contains(.precedenceBulk), s.isDisjoint(with: [.emailServiceProvider, .listUnsubscribe]),
           input.from?.name != nil, bulkWords.isEmpty {
            // `Precedence: bulk` alone on a person's mail is what list software writes, not a marketer.
            return decision(.forums, 0.6, "\(why) on a person's mail, no other bulk-mail sign: most likely a mailing list")
        }
        return decision(.promotions, 0.6, "\(why); no telling words: a newsletter")
    }

    private func decision(_ category: AICategory, _ confidence: Double, _ reason: String) -> CategoryDecision {
        CategoryDecision(category: category, method: Self.method(confidence: confidence), reason: reason,
                         confidence: (confidence * 100).rounded() / 100)
    }

    /// A rule sure enough is a rule's decision, else a fallback the classifier may overrule.
    static func method(confidence: Double) -> CategoryMethod { confidence >= sure ? .rule : .fallback }
}
