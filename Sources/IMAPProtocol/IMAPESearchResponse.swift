/// An `* ESEARCH` response (RFC 4731): `* ESEARCH (TAG "A282") UID MIN 2 COUNT 3 ALL 2,10:11`.
public struct IMAPESearchResponse: Hashable, Sendable {
    /// The tag of the command this answers, when the server named it.
    public var tag: String?
    /// The numbers are UIDs (the answer to UID SEARCH), not sequence numbers.
    public var isUID: Bool
    public var min: UInt32?
    public var max: UInt32?
    public var count: UInt32?
    /// ALL: every match. Nil when not asked for or when nothing matched (the server omits it).
    public var all: IMAPSequenceSet?
    /// The highest mod-sequence of the matches (RFC 7162 §3.1.5).
    public var modSeq: UInt64?
    /// Other return data, by upper-cased name.
    public var other: [String: IMAPValue]

    public init(tag: String? = nil, isUID: Bool = false, min: UInt32? = nil, max: UInt32? = nil, count: UInt32? = nil,
                all: IMAPSequenceSet? = nil, modSeq: UInt64? = nil, other: [String: IMAPValue] = [:]) {
        self.tag = tag
        self.isUID = isUID
        self.min = min
        self.max = max
        self.count = count
        self.all = all
        self.modSeq = modSeq
        self.other = other
    }
}
