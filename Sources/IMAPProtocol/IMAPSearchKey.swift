/// A SEARCH key. The few the sync engine needs, and NOT/OR/AND to combine them.
public indirect enum IMAPSearchKey: Hashable, Sendable {
    case all
    /// Internal date on or after the day (in the server's zone).
    case since(IMAPCalendarDate)
    /// Internal date before the day.
    case before(IMAPCalendarDate)
    case uid(IMAPSequenceSet)
    /// CONDSTORE: changed at or after this mod-sequence.
    case modSeq(UInt64)
    case unseen
    case deleted
    /// A header field containing the value (`HEADER Message-ID "<id@host>"`): printable ASCII only.
    case header(String, String)
    case not(IMAPSearchKey)
    case or(IMAPSearchKey, IMAPSearchKey)
    /// All of these (written in parentheses).
    case and([IMAPSearchKey])
}
