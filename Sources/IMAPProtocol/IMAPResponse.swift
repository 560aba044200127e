/// One complete server response, as `IMAPResponseParser` reads it from one frame.
public enum IMAPResponse: Hashable, Sendable {
    /// The end of a command: `A12 OK [READ-WRITE] Select completed.`
    case tagged(tag: String, IMAPStatusResponse)
    /// Data or status the server sends on its own or on the way to a tagged answer (`* …`).
    case untagged(IMAPUntaggedResponse)
    /// `+ …`: the server waits for the rest of a command (a synchronising literal, an
    /// AUTHENTICATE step) or has started IDLE. The text is the server's (base64 in SASL steps).
    case continuation(String)
}

/// `OK`, `NO`, `BAD`, `PREAUTH` or `BYE` with an optional response code and human-readable text.
public struct IMAPStatusResponse: Hashable, Sendable {
    public enum Status: String, Hashable, Sendable {
        case ok = "OK", no = "NO", bad = "BAD", preauth = "PREAUTH", bye = "BYE"
    }

    public var status: Status
    public var code: IMAPResponseCode?
    /// The server's text after the code, for logs and for people; never parsed for meaning.
    public var text: String

    public init(status: Status, code: IMAPResponseCode? = nil, text: String = "") {
        self.status = status
        self.code = code
        self.text = text
    }
}

/// The untagged responses (`* …`) the client understands, and `unknown` for the rest.
public enum IMAPUntaggedResponse: Hashable, Sendable {
    /// `* OK …`, `* NO …`, `* BAD …`, `* PREAUTH …`, `* BYE …`.
    case status(IMAPStatusResponse)
    case capability([IMAPCapability])
    /// `* ENABLED CONDSTORE QRESYNC` (RFC 5161).
    case enabled([IMAPCapability])
    case list(IMAPListEntry)
    case lsub(IMAPListEntry)
    /// `* STATUS INBOX (MESSAGES 3 UIDNEXT 6 …)`.
    case mailboxStatus(IMAPMailboxStatus)
    /// `* SEARCH 2 84 882`, with the highest MODSEQ of the matches when the search named MODSEQ
    /// (RFC 7162 §3.1.5).
    case search([UInt32], highestModSeq: UInt64?)
    /// `* ESEARCH (TAG "A3") UID ALL 1:5,9 COUNT 6` (RFC 4731).
    case esearch(IMAPESearchResponse)
    /// `* FLAGS (\Answered \Flagged …)`: the flags defined in the selected mailbox.
    case flags([IMAPFlag])
    case exists(UInt32)
    case recent(UInt32)
    /// `* 4 EXPUNGE`: a sequence number, not a UID (without QRESYNC enabled).
    case expunge(UInt32)
    /// `* VANISHED (EARLIER) 300:310,405`: UIDs expunged (RFC 7162 §3.2.10); `earlier` when they
    /// answer a resynchronisation rather than report a new expunge.
    case vanished(earlier: Bool, uids: IMAPSequenceSet)
    case fetch(IMAPFetchResponse)
    /// `* ID ("name" "Dovecot")` (RFC 2971): fields with NIL values left out; nil for `* ID NIL`.
    case id([String: String]?)
    /// Anything else (`NAMESPACE`, `METADATA`, a vendor's response): its name, upper-cased,
    /// and the whole response's bytes.
    case unknown(name: String, raw: [UInt8])
}
