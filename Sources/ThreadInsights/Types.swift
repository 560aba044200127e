import Foundation
import MailModel

/// One message of a conversation as the summarizer and the reply suggester read it.
public struct ConversationMessage: Sendable, Hashable {
    public var emailId: Int64
    public var from: Address?
    public var to: [Address]
    public var cc: [Address]
    public var date: Date?
    /// The plain-text body as stored (quotes, signatures and all: `MessageCleaner` removes them).
    public var body: String
    public var subject: String
    /// Sent by a program or a marketer to many (its category Promotions, Updates or Social: a
    /// newsletter, a notice, an offer): it waits on no one's answer, whatever it asks.
    public var isBulk: Bool

    public init(emailId: Int64, from: Address?, to: [Address] = [], cc: [Address] = [], date: Date?, body: String, subject: String = "",
                isBulk: Bool = false) {
        self.isBulk = isBulk
        self.emailId = emailId
        self.from = from
        self.to = to
        self.cc = cc
        self.date = date
        self.body = body
        self.subject = subject
    }

    /// A stored email as a conversation's message: its plain body, and bulk by its category.
    public init(email e: Email) {
        self.init(emailId: e.id, from: e.from, to: e.to, cc: e.cc, date: e.date, body: e.bodyPlain, subject: e.subject,
                  isBulk: Self.isBulk(category: e.category))
    }

    /// Whether mail of this category is bulk (`isBulk`): Promotions, Updates, Social.
    public static func isBulk(category: AICategory) -> Bool {
        category == .promotions || category == .updates || category == .social
    }

    /// The name shown for the author: the display name, else the address.
    public var author: String { from?.displayName ?? "unknown sender" }
}

/// Where a piece of a result came from: an email, its author, and a range of characters
/// (`Character` offsets, end excluded) in that email's cleaned text (`MessageCleaner.clean`).
public struct SourceSpan: Sendable, Codable, Hashable {
    public var emailId: Int64
    public var author: String
    public var start: Int
    public var end: Int

    public init(emailId: Int64, author: String, start: Int, end: Int) {
        self.emailId = emailId
        self.author = author
        self.start = start
        self.end = end
    }
}

/// One line of a summary: a sentence of the mail, said by its author, what the conversation waits
/// for, or who reviewed a patch.
public struct SummaryPoint: Sendable, Codable, Hashable {
    public enum Kind: String, Sendable, Codable { case point, waitingOn, reviewedBy }
    public var kind: Kind
    /// The line as shown: "Author: sentence" or "Waiting on X: question".
    public var text: String
    /// The sentence, exactly as it is in the cleaned text at `source`.
    public var sentence: String
    public var source: SourceSpan
    /// For `waitingOn`: who is expected to answer (recipients' or a previous sender's names).
    public var waitingOn: [String]?
    /// For `reviewedBy`: the people a patch thread's `Reviewed-by:`, `Acked-by:` and `Tested-by:`
    /// trailers name, in the order they appear.
    public var reviewers: [String]? = nil
}

/// A conversation's extractive summary: nothing in it is text the mail does not have.
public struct ThreadSummary: Sendable, Codable, Hashable {
    public var points: [SummaryPoint]
    public var method: String
    /// The messages read, and the sentences that were candidates.
    public var messages: Int
    public var sentences: Int
}

/// A short reply a user might send, from the curated set.
public struct ReplySuggestion: Sendable, Codable, Hashable {
    public var text: String
    public var intent: String
    public var score: Double
}

/// What the suggester says about a message: suggestions only when it asks or requests something.
public struct ReplySuggestions: Sendable, Codable, Hashable {
    public var emailId: Int64
    /// Whether the message asks or requests something (else no suggestion).
    public var triggered: Bool
    /// The sentences that asked or requested, with where they are in the cleaned text.
    public var triggers: [SourceSpan]
    public var suggestions: [ReplySuggestion]
    public var method: String

    public init(emailId: Int64, triggered: Bool, triggers: [SourceSpan], suggestions: [ReplySuggestion], method: String) {
        self.emailId = emailId
        self.triggered = triggered
        self.triggers = triggers
        self.suggestions = suggestions
        self.method = method
    }
}

/// Summarizes a conversation (its messages in date order). Implementations must be extractive
/// or say where each part came from (`SourceSpan`).
public protocol ThreadSummarizer: Sendable {
    func summarize(_ messages: [ConversationMessage]) throws -> ThreadSummary
}

/// Suggests short replies to a message.
public protocol ReplySuggester: Sendable {
    func suggest(for message: ConversationMessage) throws -> ReplySuggestions
}
