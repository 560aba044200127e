import MailModel

/// The mailing lists of a mailbox, learnt from the mailbox itself: an address that many different
/// people write to, most of whose mail carries list headers, is a list's address (so its mail
/// without them — a post whose list software wrote none of the headers, a reply that reached the
/// user directly — is list mail too); a `[tag]` that begins the subjects of many different people is
/// a list's subject prefix. Nothing of the mail is kept: addresses and tags only.
public struct MailboxListDetector: Sendable {
    /// What the detector reads of one email.
    public struct Row: Sendable {
        public var accountId: Int64
        /// The sender's address, lower case.
        public var from: String
        /// To and Cc addresses, lower case.
        public var recipients: [String]
        public var subject: String
        public var signals: CategorySignals?
        public init(accountId: Int64, from: String, recipients: [String], subject: String, signals: CategorySignals?) {
            self.accountId = accountId; self.from = from; self.recipients = recipients; self.subject = subject; self.signals = signals
        }
    }

    /// The least number of different people who wrote to an address (or used a tag) for it to be a list.
    public var minimumSenders = 3
    /// The least share of the mail people sent to an address that must carry list headers.
    public var minimumListShare = 0.5

    public init(minimumSenders: Int = 3, minimumListShare: Double = 0.5) {
        self.minimumSenders = minimumSenders
        self.minimumListShare = minimumListShare
    }

    /// Whether an email's headers say it came through a list (or, from a person, was sent in bulk:
    /// `Precedence: bulk` is what majordomo-era list software wrote).
    static func listMarked(_ s: CategorySignals, fromPerson: Bool) -> Bool {
        !s.isDisjoint(with: .anyList) || (fromPerson && s.contains(.precedenceBulk) && !s.contains(.emailServiceProvider))
    }

    /// The lists of each account.
    public func lists(of rows: [Row]) -> MailboxLists {
        struct Tally {
            var senders: Set<String> = []
            var mail = 0
            var marked = 0
            mutating func add(_ sender: String, marked isMarked: Bool) {
                senders.insert(sender)
                mail += 1
                if isMarked { marked += 1 }
            }
        }
        var isPerson: [String: Bool] = [:]
        var addresses: [Int64: [String: Tally]] = [:]
        var tags: [Int64: [String: Set<String>]] = [:]
        // People write mail; a list's address is a sender only when the list rewrites From to itself
        // (and then it is a recipient too). Someone copied on many list threads is not a list.
        var writers: [Int64: Set<String>] = [:]
        for row in rows where !row.from.isEmpty && !row.recipients.contains(row.from) {
            writers[row.accountId, default: []].insert(row.from)
        }
        for row in rows {
            guard let s = row.signals, !row.from.isEmpty else { continue }
            guard !s.contains(.emailServiceProvider), !s.contains(.autoSubmitted) else { continue }
            let fromPerson: Bool
            if let known = isPerson[row.from] { fromPerson = known } else {
                fromPerson = RuleCategorizer.senderKind(Address(name: nil, email: row.from)) == .person
                isPerson[row.from] = fromPerson
            }
            guard fromPerson else { continue }
            let marked = Self.listMarked(s, fromPerson: true)
            // Each address once (its first place): a set, not a search of the addresses before it
            // (quadratic: Enron's announcements go to hundreds of people).
            var counted = Set<String>()
            for r in row.recipients where r != row.from && r.utf8.contains(UInt8(ascii: "@")) && counted.insert(r).inserted {
                addresses[row.accountId, default: [:]][r, default: Tally()].add(row.from, marked: marked)
            }
            if let tag = Self.subjectTag(row.subject) {
                tags[row.accountId, default: [:]][tag, default: []].insert(row.from)
            }
        }
        var out = MailboxLists()
        for (account, tallies) in addresses {
            let people = writers[account] ?? []
            for (address, t) in tallies where t.senders.count >= minimumSenders
                && Double(t.marked) >= minimumListShare * Double(t.mail) && !people.contains(address) {
                out.addresses[account, default: []].insert(address)
            }
        }
        for (account, byTag) in tags {
            for (tag, senders) in byTag where senders.count >= minimumSenders {
                out.subjectTags[account, default: []].insert(tag)
            }
        }
        return out
    }

    /// The `[tag]` a subject begins with (after `Re:`/`Fwd:`), lower case: letters, digits, `-`,
    /// `_`, `.` and spaces, at least two characters, not a number alone (ticket and order numbers).
    public static func subjectTag(_ subject: String) -> String? {
        // Most subjects have no `[` at all: no tag, without the lower-casing below.
        guard subject.utf8.contains(UInt8(ascii: "[")) else { return nil }
        var rest = Substring(subject)
        while true {
            rest = rest.drop(while: { $0 == " " || $0 == "\t" })
            let lower = rest.prefix(5).lowercased()
            if lower.hasPrefix("re:") { rest = rest.dropFirst(3); continue }
            if lower.hasPrefix("fw:") { rest = rest.dropFirst(3); continue }
            if lower.hasPrefix("fwd:") { rest = rest.dropFirst(4); continue }
            break
        }
        guard rest.first == "[", let close = rest.firstIndex(of: "]") else { return nil }
        let tag = rest[rest.index(after: rest.startIndex)..<close].lowercased()
        guard tag.count >= 2, tag.count <= 40, tag.contains(where: \.isLetter),
              tag.allSatisfy({ $0.isLetter || $0.isNumber || "-_. ".contains($0) }) else { return nil }
        return tag
    }
}

/// The list addresses and subject tags each account's mailbox has shown (`MailboxListDetector`).
public struct MailboxLists: Sendable {
    public var addresses: [Int64: Set<String>] = [:]
    public var subjectTags: [Int64: Set<String>] = [:]
    public init() {}

    /// The list address among an email's recipients, or its subject's list tag; nil when neither.
    /// A list address counts when the email was written to lists alone or came in bulk
    /// (`Precedence: bulk`): a reply sent to someone with the list in copy reached them directly.
    public func evidence(for input: CategorizationInput) -> String? {
        evidence(accountId: input.accountId, recipients: input.recipients, subject: input.subject, signals: input.signals)
    }

    public func evidence(accountId: Int64, recipients: [String], subject: String, signals: CategorySignals?) -> String? {
        if let known = addresses[accountId], let address = recipients.first(where: known.contains),
           signals?.contains(.precedenceBulk) == true || recipients.allSatisfy(known.contains) {
            return "written to \(address), an address many people write to with list headers"
        }
        if let known = subjectTags[accountId], let tag = MailboxListDetector.subjectTag(subject), known.contains(tag) {
            return "the subject tag [\(tag)] that many people's mail to a list carries"
        }
        return nil
    }
}
