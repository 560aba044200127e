import Foundation

/// How an email's category was decided, strongest first.
public enum CategoryMethod: String, Sendable, Codable, CaseIterable {
    /// The user chose it (kept by every later pass).
    case user
    /// The user chose a category for other mail of the same sender.
    case preference
    /// A category label the mail carried (Gmail Takeout, X-GM-LABELS).
    case label
    /// A header or sender rule.
    case rule
    /// The classifier over the email's embedding and header features.
    case classifier
    /// No rule was sure and no embedding was there to classify: the rules' best guess.
    case fallback
}

/// An email's category with why: what `show --json` prints as its `categorization`.
public struct CategoryDecision: Sendable, Codable, Hashable {
    public var category: AICategory
    public var method: CategoryMethod
    /// One sentence: the rule that fired, or the classifier's nearest category and margin.
    public var reason: String
    /// 0…1: how sure the deciding step was.
    public var confidence: Double
    /// Whether an embedding was there to classify with (a fallback decided without one is
    /// looked at again once the email is embedded).
    public var usedEmbedding: Bool

    public init(category: AICategory, method: CategoryMethod, reason: String, confidence: Double, usedEmbedding: Bool = false) {
        self.category = category
        self.method = method
        self.reason = reason
        self.confidence = confidence
        self.usedEmbedding = usedEmbedding
    }
}

/// What the categoriser sees of one stored email.
public struct CategorizationInput: Sendable {
    public var emailId: Int64
    public var accountId: Int64
    public var from: Address?
    public var toCount: Int
    public var ccCount: Int
    public var subject: String
    /// The start of the plain-text body (the categoriser reads no further).
    public var bodyPrefix: String
    /// In-Reply-To or References present.
    public var isReply: Bool
    public var hasAttachment: Bool
    /// Nil when the headers were never read (mail stored before signals were kept, source gone).
    public var signals: CategorySignals?
    /// The stored embedding (L2-normalised), when there is one.
    public var embedding: [Float]?
    /// The To and Cc addresses, lower case (what tells mail to a list address the mailbox has learnt).
    public var recipients: [String]
    /// The rules' decision made when the email was stored, without the mailbox's lists
    /// (`IncomingEmail.provisionalDecision`); nil for mail stored otherwise or decided since.
    public var provisional: CategoryDecision?

    public init(emailId: Int64, accountId: Int64, from: Address?, toCount: Int, ccCount: Int, subject: String,
                bodyPrefix: String, isReply: Bool, hasAttachment: Bool, signals: CategorySignals?, embedding: [Float]?,
                recipients: [String] = [], provisional: CategoryDecision? = nil) {
        self.provisional = provisional
        self.emailId = emailId; self.accountId = accountId; self.from = from; self.toCount = toCount
        self.ccCount = ccCount; self.subject = subject; self.bodyPrefix = bodyPrefix; self.isReply = isReply
        self.hasAttachment = hasAttachment; self.signals = signals; self.embedding = embedding
        self.recipients = recipients
    }
}
