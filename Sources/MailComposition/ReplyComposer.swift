import Foundation
import MailModel

/// What a new message answers or forwards (spec 001 §5.5.1).
public enum ComposeKind: String, Sendable, Hashable, Codable, CaseIterable {
    case new
    case reply
    case replyAll
    case forward
}

/// The message being answered or forwarded, as the store has it: its headers and its plain text
/// (already the text a reader sees: an HTML-only message's extracted text, never markup).
public struct ComposeParent: Sendable, Hashable {
    /// Without angle brackets. Nil when the message had none (a content-hash identity is no Message-ID).
    public var messageId: String?
    public var references: [String]
    public var inReplyTo: String?
    public var from: Address?
    public var to: [Address]
    public var cc: [Address]
    public var replyTo: [Address]
    public var subject: String
    public var date: Date?
    public var text: String

    public init(messageId: String?, references: [String] = [], inReplyTo: String? = nil, from: Address?, to: [Address] = [],
                cc: [Address] = [], replyTo: [Address] = [], subject: String, date: Date?, text: String) {
        self.messageId = messageId
        self.references = references
        self.inReplyTo = inReplyTo
        self.from = from
        self.to = to
        self.cc = cc
        self.replyTo = replyTo
        self.subject = subject
        self.date = date
        self.text = text
    }
}

/// The fields a reply, reply-all or forward starts with.
public struct ComposeTemplate: Sendable, Hashable {
    public var to: [Address]
    public var cc: [Address]
    public var subject: String
    /// An empty line to write on, then the quoted (reply) or forwarded text.
    public var body: String
    /// Without angle brackets; nil for a forward and a new message.
    public var inReplyTo: String?
    public var references: [String]

    public init(to: [Address] = [], cc: [Address] = [], subject: String = "", body: String = "", inReplyTo: String? = nil,
                references: [String] = []) {
        self.to = to
        self.cc = cc
        self.subject = subject
        self.body = body
        self.inReplyTo = inReplyTo
        self.references = references
    }
}

/// Reply, reply-all and forward as mail clients write them: `Re:`/`Fwd:` subjects that do not
/// stack, In-Reply-To and References (RFC 5322 §3.6.4), the parent's text quoted under an
/// attribution line, reply-all recipients without the user's own addresses. Pure: no I/O.
public struct ReplyComposer: Sendable {
    /// The user's own addresses (every account's), compared without case.
    public var ownAddresses: Set<String>
    /// The attribution's date is written in this time zone.
    public var timeZone: TimeZone

    public init(ownAddresses: [String], timeZone: TimeZone = .current) {
        self.ownAddresses = Set(ownAddresses.map { $0.lowercased() })
        self.timeZone = timeZone
    }

    public func template(_ kind: ComposeKind, parent: ComposeParent) -> ComposeTemplate {
        switch kind {
        case .new:
            return ComposeTemplate(to: [], cc: [], subject: "", body: "", inReplyTo: nil, references: [])
        case .forward:
            return ComposeTemplate(to: [], cc: [], subject: Self.forwardSubject(parent.subject),
                                   body: "\n\n" + forwardedBlock(parent), inReplyTo: nil, references: [])
        case .reply, .replyAll:
            let (to, cc) = recipients(kind, parent: parent)
            var inReplyTo: String?
            var references: [String] = []
            if let id = parent.messageId.flatMap(Self.usableID) {
                let headers = OutgoingMessage.replyHeaders(
                    parentMessageID: id, parentReferences: parent.references.compactMap(Self.usableID),
                    parentInReplyTo: parent.inReplyTo.flatMap(Self.usableID).map { [$0] } ?? [])
                inReplyTo = headers.inReplyTo
                references = headers.references
            }
            return ComposeTemplate(to: to, cc: cc, subject: Self.replySubject(parent.subject),
                                   body: "\n\n" + attribution(parent) + "\n" + Self.quoted(parent.text), inReplyTo: inReplyTo,
                                   references: references)
        }
    }

    // MARK: Recipients

    /// Reply: the parent's Reply-To, else its From; when the user wrote the parent, its To (as
    /// Gmail and Thunderbird answer their own message). Reply-all adds the parent's other To and Cc
    /// addresses in Cc. The user's own addresses are left out, and each address comes once.
    public func recipients(_ kind: ComposeKind, parent: ComposeParent) -> (to: [Address], cc: [Address]) {
        let fromSelf = parent.from.map { isOwn($0) } ?? false
        var to: [Address]
        if fromSelf {
            to = parent.to
        } else if !parent.replyTo.isEmpty {
            to = parent.replyTo
        } else {
            to = parent.from.map { [$0] } ?? []
        }
        var seen = Set<String>()
        to = to.filter { !isOwn($0) && seen.insert($0.email.lowercased()).inserted }
        guard kind == .replyAll else {
            // Writing to oneself: the reply goes back to oneself rather than nowhere.
            if to.isEmpty, let from = parent.from { to = [from] }
            return (to, [])
        }
        var cc = (fromSelf ? [] : parent.to) + parent.cc
        cc = cc.filter { !isOwn($0) && seen.insert($0.email.lowercased()).inserted }
        if to.isEmpty, !cc.isEmpty { to = [cc.removeFirst()] }
        if to.isEmpty, let from = parent.from { to = [from] }
        return (to, cc)
    }

    private func isOwn(_ address: Address) -> Bool {
        ownAddresses.contains(address.email.lowercased())
    }

    // MARK: Subjects

    /// `Re: ` before the subject, unless it already starts with a reply prefix (`Re:`, `RE:`,
    /// `Re[2]:`, `AW:`, `SV:`, `Antw:`): then one `Re: ` before the rest, never `Re: Re:`.
    public static func replySubject(_ subject: String) -> String {
        var rest = subject.trimmingCharacters(in: .whitespaces)
        while let next = strip(rest, prefixes: replyPrefixes) { rest = next }
        return rest.isEmpty ? "Re:" : "Re: " + rest
    }

    /// `Fwd: ` before the subject, with any leading `Fwd:`/`Fw:`/`WG:`/`TR:` prefixes folded into one.
    public static func forwardSubject(_ subject: String) -> String {
        var rest = subject.trimmingCharacters(in: .whitespaces)
        while let next = strip(rest, prefixes: forwardPrefixes) { rest = next }
        return rest.isEmpty ? "Fwd:" : "Fwd: " + rest
    }

    static let replyPrefixes = ["re", "aw", "sv", "antw", "vs", "odp"]
    static let forwardPrefixes = ["fwd", "fw", "wg", "tr", "rv"]

    /// The subject without one leading `prefix:` or `prefix[n]:` (any case), or nil.
    private static func strip(_ subject: String, prefixes: [String]) -> String? {
        guard let colon = subject.firstIndex(of: ":") else { return nil }
        var word = subject[..<colon].lowercased()
        if word.hasSuffix("]"), let open = word.firstIndex(of: "["), word[word.index(after: open)..<word.index(before: word.endIndex)].allSatisfy(\.isNumber) {
            word = String(word[..<open])
        }
        guard prefixes.contains(word.trimmingCharacters(in: .whitespaces)) else { return nil }
        return subject[subject.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }

    // MARK: Text

    /// `On Wed, 25 Nov 2026 at 14:02, Bob Example wrote:`
    public func attribution(_ parent: ComposeParent) -> String {
        let name = parent.from?.displayName ?? "someone"
        guard let date = parent.date else { return "\(name) wrote:" }
        return "On \(Self.shortDate(date, timeZone: timeZone)), \(name) wrote:"
    }

    /// Each line of `text` after `> ` (`>` alone for an empty line, `>>` for an already quoted one),
    /// CRLF and CR read as line ends; trailing empty lines left out.
    public static func quoted(_ text: String) -> String {
        var lines = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .split(separator: "\n", omittingEmptySubsequences: false)
        while let last = lines.last, last.trimmingCharacters(in: .whitespaces).isEmpty { lines.removeLast() }
        return lines.map { line in
            line.isEmpty ? ">" : line.hasPrefix(">") ? ">" + line : "> " + line
        }.joined(separator: "\n") + "\n"
    }

    /// The forwarded message's header block and text, as Gmail writes it.
    public func forwardedBlock(_ parent: ComposeParent) -> String {
        var lines = ["---------- Forwarded message ---------"]
        if let from = parent.from { lines.append("From: \(from.formatted)") }
        if let date = parent.date { lines.append("Date: \(MessageBuilder.rfc5322Date(date, timeZone: timeZone))") }
        lines.append("Subject: \(parent.subject)")
        if !parent.to.isEmpty { lines.append("To: \(parent.to.map(\.formatted).joined(separator: ", "))") }
        if !parent.cc.isEmpty { lines.append("Cc: \(parent.cc.map(\.formatted).joined(separator: ", "))") }
        var text = parent.text.replacingOccurrences(of: "\r\n", with: "\n")
        if !text.hasSuffix("\n") { text += "\n" }
        return lines.joined(separator: "\n") + "\n\n" + text
    }

    static func shortDate(_ date: Date, timeZone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = "EEE, d MMM yyyy 'at' HH:mm"
        return formatter.string(from: date)
    }

    /// A Message-ID fit for In-Reply-To/References (checked as the builder checks it), or nil.
    static func usableID(_ id: String) -> String? {
        try? MessageBuilder.checkedID(id, field: "References")
    }
}
