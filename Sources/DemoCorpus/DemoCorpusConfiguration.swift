import Foundation

/// What `DemoCorpusGenerator` produces: how many messages, over which period, for whom.
///
/// The same configuration always yields byte-identical output, on every platform.
public struct DemoCorpusConfiguration: Sendable, Equatable {
    /// The seed of the pseudo-random generator. Default: 42.
    public var seed: UInt64
    /// How many messages to generate. Default: 2,000.
    public var messageCount: Int
    /// The date of the newest message; older messages spread back over `span`.
    /// Whole seconds only (the fraction is dropped). Default: 2026-01-01T00:00:00Z, fixed so that
    /// fixtures and benchmarks are reproducible; `mailsearch demo` passes the current date.
    public var endDate: Date
    /// How far back the oldest message lies before `endDate`, in seconds. Default: 365 days.
    public var span: TimeInterval
    /// The mailbox owner: the address of `Sent` mail and the recipient of most other mail.
    /// Default: "alex.morgan@example.com".
    public var ownerAddress: String
    /// The owner's display name. Default: "Alex Morgan".
    public var ownerName: String
    /// The owner's offset from UTC in minutes, used for the owner's `Date` headers and the
    /// working-hours shape of the day. Default: -300 (UTC-05:00).
    public var ownerUTCOffsetMinutes: Int
    /// Messages newer than this many seconds before `endDate` stay in the Inbox; older ones
    /// are mostly archived. Default: 30 days.
    public var inboxWindow: TimeInterval

    public init(
        seed: UInt64 = 42,
        messageCount: Int = 2_000,
        endDate: Date = Date(timeIntervalSince1970: 1_767_225_600),
        span: TimeInterval = 365 * 86_400,
        ownerAddress: String = "alex.morgan@example.com",
        ownerName: String = "Alex Morgan",
        ownerUTCOffsetMinutes: Int = -300,
        inboxWindow: TimeInterval = 30 * 86_400
    ) {
        self.seed = seed
        self.messageCount = messageCount
        self.endDate = endDate
        self.span = span
        self.ownerAddress = ownerAddress
        self.ownerName = ownerName
        self.ownerUTCOffsetMinutes = ownerUTCOffsetMinutes
        self.inboxWindow = inboxWindow
    }
}
