/// What an email's headers say about its category, read once when the message is converted (the
/// store keeps parsed fields, not raw headers): list and bulk-mail headers, the sending service,
/// automatic-mail markers, and a category label the mail carried (Gmail Takeout's "Category …",
/// IMAP's X-GM-LABELS). Stored as one integer beside the email; the categoriser reads it back.
public struct CategorySignals: OptionSet, Sendable, Hashable, Codable {
    public var rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }

    /// `List-Id` (a mailing list, or a newsletter sent through a list manager).
    public static let listId = CategorySignals(rawValue: 1 << 0)
    /// `List-Post`: members can write to the list (a discussion list).
    public static let listPost = CategorySignals(rawValue: 1 << 1)
    /// `Mailing-List` or `X-Mailing-List` (ezmlm, older list managers).
    public static let mailingList = CategorySignals(rawValue: 1 << 2)
    /// `List-Unsubscribe`.
    public static let listUnsubscribe = CategorySignals(rawValue: 1 << 3)
    /// `Precedence: bulk` or `junk`.
    public static let precedenceBulk = CategorySignals(rawValue: 1 << 4)
    /// `Precedence: list`.
    public static let precedenceList = CategorySignals(rawValue: 1 << 5)
    /// A header only bulk-mail services write (`X-Mailchimp-*`, `X-SG-EID`, `Feedback-ID`, `X-Mailgun-*`, …)
    /// or such a service in `X-Mailer`.
    public static let emailServiceProvider = CategorySignals(rawValue: 1 << 6)
    /// `Auto-Submitted` other than `no` (RFC 3834): written by a program.
    public static let autoSubmitted = CategorySignals(rawValue: 1 << 7)
    /// A bounce address of a mass mailer in `Return-Path` (VERP, `bounce…@`).
    public static let bulkReturnPath = CategorySignals(rawValue: 1 << 8)
    /// `X-Mailer`/`User-Agent` of a mail program people write with (Outlook, Thunderbird, Apple Mail, …).
    public static let personalMailer = CategorySignals(rawValue: 1 << 9)
    /// `X-Auto-Response-Suppress`, `X-Autoreply`, `X-Autorespond`: automatic mail of servers.
    public static let autoResponseHeader = CategorySignals(rawValue: 1 << 10)
    /// A list manager's own headers: Mailman's `X-BeenThere`/`X-Mailman-Version`, RFC 2369's
    /// `List-Subscribe`/`List-Help`/`List-Archive`/`List-Owner`, `X-Loop`, LISTSERV's, ezmlm's
    /// `Delivered-To: mailing list …`, `X-List`, `X-ML-Name`, `X-Ecartis-Version`, `X-Sequence`.
    public static let listManager = CategorySignals(rawValue: 1 << 11)
    /// A list's owner or bounce address in `Sender` or `Return-Path` (majordomo's `owner-…@`,
    /// `…-owner@`, `…-request@`, Mailman's `…-admin@`/`…-bounces@`, LISTSERV's `…-L@`), or an
    /// `Errors-To` header (list software of the 1990s and 2000s).
    public static let listSender = CategorySignals(rawValue: 1 << 12)

    /// Any header of list software: the email came through a mailing list.
    public static let anyList: CategorySignals = [.listId, .listPost, .mailingList, .listManager, .listSender, .precedenceList]

    /// The bits of a category label the mail carried (0: none).
    static let labelShift: Int64 = 16
    static let labelMask: Int64 = 0x7 << labelShift
    static let labelled: [AICategory] = [.primary, .social, .promotions, .updates, .forums]

    /// The category a label on the mail gave (Gmail "Category Promotions", X-GM-LABELS `\\Promotions`…).
    public var labelCategory: AICategory? {
        get {
            let code = Int((rawValue & Self.labelMask) >> Self.labelShift)
            return code == 0 || code > Self.labelled.count ? nil : Self.labelled[code - 1]
        }
        set {
            rawValue &= ~Self.labelMask
            if let newValue, let i = Self.labelled.firstIndex(of: newValue) {
                rawValue |= Int64(i + 1) << Self.labelShift
            }
        }
    }

    /// The category named by one mailbox label: Gmail Takeout's "Category Promotions" (and
    /// "Category Personal" for Primary), or IMAP X-GM-LABELS' `\Promotions`, `CATEGORY_SOCIAL`…
    public static func category(ofLabel label: String) -> AICategory? {
        var lower = label.lowercased()
        let system = lower.hasPrefix("\\")
        if system { lower.removeFirst() }
        for prefix in ["category ", "category_", "category:"] where lower.hasPrefix(prefix) {
            lower = String(lower.dropFirst(prefix.count))
            return lower == "personal" ? .primary : AICategory(rawValue: lower).flatMap { $0 == .uncategorized ? nil : $0 }
        }
        guard system else { return nil }  // a user's own label "Social" is a folder, not a category
        switch lower {
        case "social": return .social
        case "promotions": return .promotions
        case "updates": return .updates
        case "forums": return .forums
        default: return nil
        }
    }
}
