#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Lower-cased ASCII bytes of a subject or body prefix, with the vocabulary's hits counted:
/// single words by a hash of each word (one pass), phrases by a byte search.
struct TextFeatures {
    let bytes: [UInt8]
    private let words: Set<UInt64>
    /// Which pairs of adjacent bytes the text has, hashed into 4,096 bits: a phrase with a pair the
    /// text lacks is not in it, without a search (most phrases of the vocabularies, in most mail).
    private let pairs: [UInt64]

    /// - Parameter keeping: the hashes of the only words `contains(word:)` will be asked about
    ///   (nil: every word): a look-up in a set made once instead of an insertion for each word
    ///   of each text (the larger part of the categoriser's reading of a text).
    init(_ text: String, limit: Int = 1500, keeping: Set<UInt64>? = nil) {
        var text = text
        let b = text.withUTF8 { utf8 in
            let n = min(limit, utf8.count)
            return [UInt8](unsafeUninitializedCapacity: n) { buffer, count in
                for i in 0..<n {
                    let c = utf8[i]
                    buffer[i] = c >= 65 && c <= 90 ? c + 32 : c
                }
                count = n
            }
        }
        bytes = b
        var words = Set<UInt64>()
        var h: UInt64 = Self.seed
        var inWord = false
        for c in b {
            if Self.isWordByte(c) {
                h = (h ^ UInt64(c)) &* 0x100000001b3
                inWord = true
            } else if inWord {
                if keeping?.contains(h) ?? true { words.insert(h) }
                h = Self.seed
                inWord = false
            }
        }
        if inWord, keeping?.contains(h) ?? true { words.insert(h) }
        self.words = words
        pairs = [UInt64](unsafeUninitializedCapacity: 64) { buffer, count in
            buffer.initialize(repeating: 0)
            b.withUnsafeBufferPointer { text in
                guard text.count > 1 else { return }
                for i in 1..<text.count {
                    let slot = Self.pairSlot(text[i - 1], text[i])
                    buffer[slot >> 6] |= 1 << UInt64(slot & 63)
                }
            }
            count = 64
        }
    }

    static func pairSlot(_ a: UInt8, _ b: UInt8) -> Int { (Int(a) &* 31 ^ Int(b)) & 4095 }

    private func hasPair(_ a: UInt8, _ b: UInt8) -> Bool {
        let slot = Self.pairSlot(a, b)
        return pairs[slot >> 6] & (1 << UInt64(slot & 63)) != 0
    }

    static let seed: UInt64 = 0xcbf29ce484222325

    static func isWordByte(_ c: UInt8) -> Bool { (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c >= 128 }

    static func hash(_ word: String) -> UInt64 {
        var h = seed
        for c in word.utf8 { h = (h ^ UInt64(c)) &* 0x100000001b3 }
        return h
    }

    func contains(word hash: UInt64) -> Bool { words.contains(hash) }

    func contains(phrase: [UInt8]) -> Bool {
        let n = phrase.count
        guard n > 0, bytes.count >= n else { return false }
        if n > 1 {
            // Its first, middle and last pairs must all be in the text.
            let m = n / 2
            guard hasPair(phrase[0], phrase[1]), hasPair(phrase[m - 1], phrase[m]), hasPair(phrase[n - 2], phrase[n - 1]) else {
                return false
            }
        }
        // The C library's memmem (glibc: a skip table of byte pairs, so most places are never
        // compared): 2.4× a memchr for the first byte and a memcmp at each, measured over 20,000
        // Enron bodies and the rules' 83 phrases; that loop was itself 4 % of an import's CPU as a
        // byte loop.
        return bytes.withUnsafeBytes { hay in
            phrase.withUnsafeBytes { needle in
                guard let start = hay.baseAddress, let key = needle.baseAddress else { return false }
                return cMemmem(start, hay.count, key, n) != nil
            }
        }
    }
}

/// glibc's `memmem` (a GNU extension the Glibc module does not declare; as `mallopt` in the lean
/// front end). Its arguments and result are machine words and pointers, passed alike either way.
@_silgen_name("memmem")
private func cMemmem(_ haystack: UnsafeRawPointer, _ haystackLength: Int, _ needle: UnsafeRawPointer, _ needleLength: Int)
    -> UnsafeMutableRawPointer?

/// A list of words and phrases, and which of them a text has.
struct Vocabulary: Sendable {
    let name: String
    private let words: [(String, UInt64)]
    private let phrases: [(String, [UInt8])]
    /// The hashes of its single words (what a `TextFeatures` read for it must keep).
    var wordHashes: Set<UInt64> { Set(words.map(\.1)) }

    init(_ name: String, _ terms: [String]) {
        self.name = name
        var words: [(String, UInt64)] = []
        var phrases: [(String, [UInt8])] = []
        for term in terms {
            if term.utf8.allSatisfy(TextFeatures.isWordByte) { words.append((term, TextFeatures.hash(term))) }
            else { phrases.append((term, Array(term.utf8))) }
        }
        self.words = words
        self.phrases = phrases
    }

    /// The terms `text` contains, at most `limit`.
    func hits(in text: TextFeatures, limit: Int = 8) -> [String] {
        var out: [String] = []
        for (term, h) in words where text.contains(word: h) {
            out.append(term)
            if out.count == limit { return out }
        }
        for (term, p) in phrases where text.contains(phrase: p) {
            out.append(term)
            if out.count == limit { return out }
        }
        return out
    }
}
