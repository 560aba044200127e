/// A fixed list of ASCII words, looked up by binary search over their bytes: a vocabulary without
/// hashing. Inlinable, so that each use is specialised where it is compiled (generic code would
/// have the runtime look its types up, the cost this avoids). The first `Set<String>` a process makes costs it a search of the runtime's protocol
/// conformance records (a tenth of a millisecond in this binary), which a one-shot search can do
/// without. Membership is `Set<String>`'s: an ASCII word is canonically equivalent to itself alone,
/// so a word with any other character is in no list.
public struct WordList: Sequence, ExpressibleByArrayLiteral, Sendable {
    /// The words, sorted by their bytes, each once.
    public let words: [String]

    @inlinable
    public init(_ words: [String]) {
        precondition(words.allSatisfy { $0.utf8.allSatisfy { $0 < 0x80 } }, "a WordList holds ASCII words")
        var sorted = words
        InPlaceSort.sort(&sorted, by: WordList.precedes)
        var unique: [String] = []
        unique.reserveCapacity(sorted.count)
        for word in sorted where unique.last.map({ WordList.precedes($0, word) }) ?? true { unique.append(word) }
        self.words = unique
    }

    @inlinable
    public init(arrayLiteral elements: String...) { self.init(elements) }

    @inlinable
    public func contains(_ word: String) -> Bool { WordList.index(of: word, in: words) != nil }

    public func makeIterator() -> IndexingIterator<[String]> { words.makeIterator() }

    @inlinable
    static func precedes(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    /// Where `word` is in `sorted` (ASCII, by bytes, each once), or nil.
    @inlinable
    static func index(of word: String, in sorted: [String]) -> Int? {
        guard word.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        var low = 0, high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if precedes(sorted[mid], word) { low = mid + 1 } else { high = mid }
        }
        return low < sorted.count && sorted[low].utf8.elementsEqual(word.utf8) ? low : nil
    }

}

/// Sorting in place without allocating: the standard library's sort allocates a scratch array,
/// whose element type the runtime then looks up on first use — a tenth of a millisecond of a
/// one-shot search, more than sorting a few hundred values takes.
public enum InPlaceSort {
    /// Shell sort (Ciura's gaps) up to 10,000 values, the standard library's sort above (where its
    /// look-up no longer matters). Not stable: for orders where no two values tie.
    @inlinable
    public static func sort<T>(_ values: inout [T], by less: (T, T) -> Bool) {
        guard values.count <= 10_000 else { return values.sort(by: less) }
        for gap in [3937, 1750, 701, 301, 132, 57, 23, 10, 4, 1] where gap < values.count {
            for i in gap..<values.count {
                var j = i
                while j >= gap && less(values[j], values[j - gap]) {
                    values.swapAt(j, j - gap)
                    j -= gap
                }
            }
        }
    }
}

/// A fixed table of ASCII words and their values, looked up by binary search (`WordList`'s
/// reasons and membership). A word given twice is a programming error, as in a dictionary literal.
public struct WordTable<Value: Sendable>: ExpressibleByDictionaryLiteral, Sendable {
    /// The words, sorted by their bytes.
    public let keys: [String]
    @usableFromInline let values: [Value]

    @inlinable
    public init(dictionaryLiteral elements: (String, Value)...) {
        precondition(elements.allSatisfy { $0.0.utf8.allSatisfy { $0 < 0x80 } }, "a WordTable holds ASCII words")
        var sorted = elements
        InPlaceSort.sort(&sorted) { WordList.precedes($0.0, $1.0) }
        for i in sorted.indices.dropFirst() { precondition(sorted[i - 1].0 != sorted[i].0, "\(sorted[i].0) is in the table twice") }
        keys = sorted.map(\.0)
        values = sorted.map(\.1)
    }

    @inlinable
    public subscript(word: String) -> Value? {
        WordList.index(of: word, in: keys).map { values[$0] }
    }
}
