/// A set of message sequence numbers or UIDs as IMAP writes it: `1:5,7,9:*`.
///
/// `*` ("the largest number in use") is stored as `UInt32.max`: no mailbox can hold a larger UID,
/// so `n:*` and `n:4294967295` select the same messages whenever the largest UID is at least `n`.
/// Ranges keep the order the server or caller gave them; they are not merged, so a response's set
/// is never expanded (a hostile `1:4294967294` costs one range, not four billion numbers).
public struct IMAPSequenceSet: Hashable, Sendable, CustomStringConvertible {
    public var ranges: [ClosedRange<UInt32>]

    /// `*` in a set.
    public static let last: UInt32 = .max

    public init(_ ranges: [ClosedRange<UInt32>]) {
        self.ranges = ranges
    }

    public init(_ range: ClosedRange<UInt32>) {
        self.ranges = [range]
    }

    /// A set of single numbers, written with runs joined: `[1, 2, 3, 7]` → `1:3,7`.
    public init(numbers: some Sequence<UInt32>) {
        var result: [ClosedRange<UInt32>] = []
        for n in Set(numbers).sorted() {
            if let tail = result.last, tail.upperBound != .max, tail.upperBound + 1 == n {
                result[result.count - 1] = tail.lowerBound...n
            } else {
                result.append(n...n)
            }
        }
        ranges = result
    }

    /// `first:*`, everything from `first` on (`UID FETCH 4201:*`).
    public static func from(_ first: UInt32) -> IMAPSequenceSet {
        IMAPSequenceSet(first...last)
    }

    public var isEmpty: Bool { ranges.isEmpty }

    public func contains(_ number: UInt32) -> Bool {
        ranges.contains { $0.contains(number) }
    }

    /// How many numbers the set names (ranges counted apart, so overlaps count twice).
    public var count: UInt64 {
        ranges.reduce(0) { $0 + UInt64($1.upperBound - $1.lowerBound) + 1 }
    }

    /// The set as IMAP writes it; an empty set is written as an empty string (not valid IMAP:
    /// callers send no command for an empty set).
    public var description: String {
        ranges.map { range in
            let low = Self.format(range.lowerBound)
            return range.lowerBound == range.upperBound ? low : "\(low):\(Self.format(range.upperBound))"
        }.joined(separator: ",")
    }

    private static func format(_ n: UInt32) -> String {
        n == last ? "*" : String(n)
    }
}
