/// The bracketed code of a status response: `* OK [UIDVALIDITY 3857529045] UIDs valid`.
public enum IMAPResponseCode: Hashable, Sendable {
    /// The text must be shown to the user (RFC 3501 §7.1).
    case alert
    case capability([IMAPCapability])
    case permanentFlags([IMAPFlag])
    case readOnly
    case readWrite
    /// The target mailbox of APPEND or COPY does not exist; CREATE may help.
    case tryCreate
    case uidNext(UInt32)
    case uidValidity(UInt32)
    case unseen(UInt32)
    /// RFC 7162 §3.1.2.1.
    case highestModSeq(UInt64)
    /// The mailbox keeps no mod-sequences (RFC 7162 §3.1.2.2).
    case noModSeq
    /// The UIDs APPEND gave the new messages (RFC 4315).
    case appendUID(uidValidity: UInt32, uids: IMAPSequenceSet)
    /// Source and destination UIDs of COPY or MOVE (RFC 4315).
    case copyUID(uidValidity: UInt32, source: IMAPSequenceSet, destination: IMAPSequenceSet)
    /// The previously selected mailbox is closed (RFC 7162 §3.2.11).
    case closed
    /// The server could not parse a message's headers (RFC 3501 §7.1).
    case parse
    /// Any other code, or a known one whose arguments did not parse: its name, upper-cased, and
    /// the text between the name and `]`.
    case other(name: String, arguments: String?)
}
