import Foundation

/// A set of email ids as one bit per id: the emails that pass a search's filters and scope.
/// Membership costs a shift and a mask, so the keyword scan can test every FTS5 match against it
/// (inside SQLite, through `ms_email_in`) and the vector scan can turn it into a row mask.
public struct EmailIdSet: Sendable, Hashable {
    /// Bit `id & 63` of word `id >> 6` is set when `id` is a member.
    public private(set) var words: [UInt64]
    /// Number of members.
    public private(set) var count: Int

    public init() {
        words = []
        count = 0
    }

    public init<S: Sequence<Int64>>(_ ids: S) {
        self.init()
        for id in ids { insert(id) }
    }

    public var isEmpty: Bool { count == 0 }

    @inline(__always)
    public func contains(_ id: Int64) -> Bool {
        guard id >= 0 else { return false }
        let word = Int(id >> 6)
        return word < words.count && words[word] & (1 << UInt64(id & 63)) != 0
    }

    /// Adds `id` (ids are positive rowids; a negative id is ignored).
    public mutating func insert(_ id: Int64) {
        guard id >= 0 else { return }
        let word = Int(id >> 6)
        if word >= words.count { words.append(contentsOf: repeatElement(0, count: max(word + 1 - words.count, words.count / 2))) }
        let bit: UInt64 = 1 << UInt64(id & 63)
        if words[word] & bit == 0 {
            words[word] |= bit
            count += 1
        }
    }

    /// The members in ascending order.
    public var ids: [Int64] {
        var out: [Int64] = []
        out.reserveCapacity(count)
        for (w, word) in words.enumerated() where word != 0 {
            var bits = word
            while bits != 0 {
                let b = bits.trailingZeroBitCount
                out.append(Int64(w << 6 + b))
                bits &= bits - 1
            }
        }
        return out
    }

    public static func == (a: EmailIdSet, b: EmailIdSet) -> Bool { a.ids == b.ids }
    public func hash(into hasher: inout Hasher) { hasher.combine(count); hasher.combine(ids) }
}
