/// The flags encoded in a Maildir file name's info suffix (`:2,FRS`; `!2,` and `;2,` on systems
/// where `:` is not allowed in file names).
public struct MaildirInfo: Hashable, Sendable {
    /// `S`: the user has seen the message.
    public var seen: Bool
    /// `F`: flagged.
    public var flagged: Bool
    /// `D`: a draft.
    public var draft: Bool
    /// `R`: replied to.
    public var replied: Bool
    /// `T`: trashed, to be expunged.
    public var trashed: Bool
    /// `P`: passed (forwarded, resent or bounced).
    public var passed: Bool

    public init(seen: Bool = false, flagged: Bool = false, draft: Bool = false, replied: Bool = false,
                trashed: Bool = false, passed: Bool = false) {
        self.seen = seen
        self.flagged = flagged
        self.draft = draft
        self.replied = replied
        self.trashed = trashed
        self.passed = passed
    }

    /// Reads the flags from a file name (a path is fine: only the last component counts).
    /// A name without an info suffix has no flags.
    public static func parse(filename: String) -> MaildirInfo {
        var info = MaildirInfo()
        let bytes = Array(filename.utf8)
        var start = 0
        if let slash = bytes.lastIndex(of: UInt8(ascii: "/")) { start = slash + 1 }
        // Find the last "<sep>2," in the name.
        var i = bytes.count - 3
        var flagsStart: Int? = nil
        while i >= start {
            let sep = bytes[i]
            if (sep == UInt8(ascii: ":") || sep == UInt8(ascii: "!") || sep == UInt8(ascii: ";"))
                && bytes[i + 1] == UInt8(ascii: "2") && bytes[i + 2] == UInt8(ascii: ",") {
                flagsStart = i + 3
                break
            }
            i -= 1
        }
        guard let f = flagsStart else { return info }
        for c in bytes[f...] {
            switch c {
            case UInt8(ascii: "S"): info.seen = true
            case UInt8(ascii: "F"): info.flagged = true
            case UInt8(ascii: "D"): info.draft = true
            case UInt8(ascii: "R"): info.replied = true
            case UInt8(ascii: "T"): info.trashed = true
            case UInt8(ascii: "P"): info.passed = true
            default: break
            }
        }
        return info
    }
}
