import Foundation

/// A command the client sends, typed; `IMAPCommandEncoder` writes it with a tag.
///
/// Extensions are named in the cases that use them: send those only when the server offers the
/// capability (the encoder does not second-guess the caller, whose capability list may be newer).
public enum IMAPCommand: Hashable, Sendable {
    case capability
    case noop
    case logout
    case startTLS
    /// RFC 2971: the client's identification (fields written in key order); nil sends `ID NIL`.
    case id([String: String]?)
    /// Refused by the encoder while the server announces LOGINDISABLED (no password in clear).
    case login(username: String, password: String)
    /// SASL PLAIN; with SASL-IR the credentials travel with the command, else after a `+`.
    case authenticatePlain(username: String, password: String)
    /// Google's and Microsoft's OAuth 2 mechanism. When the token is refused the server sends a
    /// `+` with an error in base64 first: answer it with `IMAPCommandEncoder.emptyResponse` to
    /// get the tagged NO.
    case authenticateXOAuth2(username: String, accessToken: String)
    /// RFC 7628's OAuth 2.0 mechanism: `n,a=USER,^Ahost=HOST^Aport=PORT^Aauth=Bearer TOKEN^A^A`
    /// (host and port when given, as §3.1 recommends). When the token is refused the server sends a
    /// `+` with a JSON error in base64 first: answer it with
    /// `IMAPCommandEncoder.oauthBearerErrorResponse` (a lone ^A, §3.2.3) to get the tagged NO.
    case authenticateOAuthBearer(username: String, accessToken: String, host: String? = nil, port: Int? = nil)
    /// RFC 5161: `ENABLE CONDSTORE QRESYNC`.
    case enable([IMAPCapability])
    /// `LIST reference pattern [RETURN (…)]`; return options need LIST-EXTENDED (RFC 5258),
    /// SPECIAL-USE (RFC 6154) or LIST-STATUS (RFC 5819).
    case list(reference: IMAPMailboxName = IMAPMailboxName(raw: []), pattern: String = "*", returning: [IMAPListReturnOption] = [])
    case select(IMAPMailboxName, IMAPSelectOption = .plain)
    case examine(IMAPMailboxName, IMAPSelectOption = .plain)
    case status(IMAPMailboxName, [IMAPStatusItem])
    /// `UID SEARCH keys`, the keys ANDed (none: ALL). With `returning` (ESEARCH, RFC 4731) the
    /// answer is an `* ESEARCH` (`[]` asks for ALL), else an `* SEARCH`.
    case uidSearch([IMAPSearchKey], returning: [IMAPSearchReturnOption]? = nil)
    /// `UID FETCH set (items) [(CHANGEDSINCE m [VANISHED])]` (CONDSTORE; VANISHED needs QRESYNC
    /// enabled and `changedSince`).
    case uidFetch(IMAPSequenceSet, [IMAPFetchAttribute], changedSince: UInt64? = nil, vanished: Bool = false)
    /// `UID STORE set [(UNCHANGEDSINCE m)] ±FLAGS[.SILENT] (flags)`.
    case uidStore(IMAPSequenceSet, IMAPStoreOperation, [IMAPFlag], silent: Bool = true, unchangedSince: UInt64? = nil)
    /// Gmail (X-GM-EXT-1): `UID STORE set ±X-GM-LABELS[.SILENT] (labels)`. A system label
    /// (`\Inbox`, `\Sent`, `\Starred`…) is written as it is, a user's label as an astring of its
    /// name in modified UTF-7 (as Gmail lists labels).
    case uidStoreGmailLabels(IMAPSequenceSet, IMAPStoreOperation, [String], silent: Bool = true)
    /// `UID COPY set mailbox`; with UIDPLUS the answer's COPYUID gives the new UIDs.
    case uidCopy(IMAPSequenceSet, IMAPMailboxName)
    /// RFC 6851 (MOVE): `UID MOVE set mailbox`, atomic; COPYUID comes in an untagged OK.
    case uidMove(IMAPSequenceSet, IMAPMailboxName)
    /// RFC 4315 (UIDPLUS): expunges only these UIDs' messages marked \Deleted.
    case uidExpunge(IMAPSequenceSet)
    /// Expunges every message of the selected mailbox marked \Deleted.
    case expunge
    /// `CREATE mailbox`.
    case create(IMAPMailboxName)
    /// RFC 2177. The server answers `+ idling`; end it with `IMAPCommandEncoder.idleDone`.
    case idle
    /// `APPEND mailbox [(flags)] [date] literal`; the message may not hold NUL bytes.
    case append(IMAPMailboxName, flags: [IMAPFlag] = [], date: Date? = nil, message: [UInt8])
    /// RFC 3691: leave the mailbox without expunging.
    case unselect
    case close
}

/// How SELECT or EXAMINE opens a mailbox.
public enum IMAPSelectOption: Hashable, Sendable {
    case plain
    /// `(CONDSTORE)`: the answer carries HIGHESTMODSEQ (RFC 7162 §3.1.8).
    case condStore
    /// `(QRESYNC (uidvalidity modseq [known-uids]))`: the answer also reports the flag changes
    /// (FETCH) and expunges (VANISHED (EARLIER)) since `modSeq` (RFC 7162 §3.2.5). Needs
    /// `ENABLE QRESYNC` first.
    case qresync(uidValidity: UInt32, modSeq: UInt64, knownUIDs: IMAPSequenceSet? = nil)
}

/// `RETURN (…)` options of LIST.
public enum IMAPListReturnOption: Hashable, Sendable {
    case specialUse
    case subscribed
    case children
    /// LIST-STATUS: a `* STATUS` for each selectable mailbox listed.
    case status([IMAPStatusItem])
}

/// Items of STATUS.
public enum IMAPStatusItem: String, Hashable, Sendable, CaseIterable {
    case messages = "MESSAGES"
    case recent = "RECENT"
    case uidNext = "UIDNEXT"
    case uidValidity = "UIDVALIDITY"
    case unseen = "UNSEEN"
    /// CONDSTORE.
    case highestModSeq = "HIGHESTMODSEQ"
    /// STATUS=SIZE (RFC 8438).
    case size = "SIZE"
}

/// ESEARCH's return options.
public enum IMAPSearchReturnOption: String, Hashable, Sendable {
    case min = "MIN", max = "MAX", all = "ALL", count = "COUNT"
}

/// What UID STORE does with the flags.
public enum IMAPStoreOperation: Hashable, Sendable {
    case add, remove, replace
}
