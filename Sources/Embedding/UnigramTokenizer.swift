import Foundation

/// The SentencePiece Unigram tokenizer of multilingual-e5-small (XLM-R's 250,002 pieces),
/// reproducing the model's `tokenizer.json` as Hugging Face `tokenizers` runs it:
///
/// 1. the special tokens (`<s>`, `</s>`, `<unk>`, `<pad>`, `<mask>`) are matched in the raw text;
/// 2. each other stretch is normalised by the precompiled XLM-R charsmap (NFKC-like: compatibility
///    forms, composed accents, whitespace to a space, control characters removed), grapheme by
///    grapheme as `tokenizers` does it: a grapheme of under 6 bytes whose bytes begin with a key of
///    the map becomes that key's replacement as a whole, else each code point is looked up alone;
///    then runs of spaces become one;
/// 3. Metaspace: spaces become "▁", a "▁" is put in front, and the text is cut into words before
///    each "▁";
/// 4. each word is cut by Viterbi into the pieces whose log-probabilities sum highest; a character
///    no piece covers is `<unk>` (scored 10 below the least likely piece), and consecutive unknown
///    characters make one `<unk>`;
/// 5. `<s> … </s>`, cut to `maxLength` ids.
///
/// Reads `unigram.tsv` (`piece<TAB>score` lines, the line number is the id) and
/// `normalizer.charsmap` (the `precompiled_charsmap` bytes), both written by
/// `scripts/e5_to_safetensors.py`.
public struct UnigramTokenizer: TextTokenizer {
    public let maxLength: Int
    public let startID: Int32
    public let endID: Int32
    public let unknownID: Int32
    public let paddingID: Int32
    /// How many pieces the vocabulary has.
    public var pieceCount: Int { scores.count }

    /// The pieces' UTF-8 bytes, end to end; piece `i` is `pieceBytes[pieceOffsets[i]..<pieceOffsets[i + 1]]`.
    private let pieceBytes: [UInt8]
    private let pieceOffsets: [Int32]
    private let scores: [Double]
    /// Open addressing over the pieces (FNV-1a of their bytes): piece id + 1, 0 for an empty slot.
    private let table: [Int32]
    private let tableMask: Int
    private let longestPiece: Int
    private let unknownScore: Double
    private let charsmap: PrecompiledCharsmap?
    private let specialTokens: [(scalars: [Unicode.Scalar], id: Int32)]

    static let metaspace: [UInt8] = [0xE2, 0x96, 0x81]  // U+2581 ▁

    /// Reads `unigram.tsv` and, when given, `normalizer.charsmap`.
    public init(vocabularyFile: URL, charsmapFile: URL?, maxLength: Int = 256) throws {
        let data: Data
        do {
            data = try Data(contentsOf: vocabularyFile)
        } catch {
            throw EmbeddingError.unreadableModelFile(path: vocabularyFile.path, reason: error.localizedDescription)
        }
        var pieces: [[UInt8]] = []
        var scores: [Double] = []
        pieces.reserveCapacity(250_002)
        scores.reserveCapacity(250_002)
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let bytes = raw.bindMemory(to: UInt8.self)
            var lineStart = 0
            while lineStart < bytes.count {
                var lineEnd = lineStart
                while lineEnd < bytes.count, bytes[lineEnd] != 0x0A { lineEnd += 1 }
                var tab = lineEnd - 1
                while tab > lineStart, bytes[tab] != 0x09 { tab -= 1 }
                guard tab > lineStart,
                      let score = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[(tab + 1)..<lineEnd]), as: UTF8.self))
                else {
                    throw EmbeddingError.invalidModelFile(
                        path: vocabularyFile.path, reason: "line \(pieces.count + 1) is not piece<TAB>score")
                }
                pieces.append(Array(bytes[lineStart..<tab]))
                scores.append(score)
                lineStart = lineEnd + 1
            }
        }
        var charsmap: PrecompiledCharsmap?
        if let charsmapFile {
            do {
                charsmap = try PrecompiledCharsmap(data: Data(contentsOf: charsmapFile))
            } catch let error as EmbeddingError {
                throw error
            } catch {
                throw EmbeddingError.unreadableModelFile(path: charsmapFile.path, reason: error.localizedDescription)
            }
        }
        try self.init(pieces: pieces, scores: scores, charsmap: charsmap, maxLength: maxLength)
    }

    /// Builds a tokenizer from the pieces (UTF-8) and their scores, in id order.
    public init(pieces: [[UInt8]], scores: [Double], charsmap: PrecompiledCharsmap?, maxLength: Int = 256) throws {
        guard pieces.count == scores.count, !pieces.isEmpty else {
            throw EmbeddingError.invalidModelFile(path: "unigram.tsv", reason: "no pieces")
        }
        var bytes: [UInt8] = []
        var offsets: [Int32] = [0]
        offsets.reserveCapacity(pieces.count + 1)
        for piece in pieces {
            bytes.append(contentsOf: piece)
            offsets.append(Int32(bytes.count))
        }
        var size = 1
        while size < pieces.count * 2 { size <<= 1 }
        var table = [Int32](repeating: 0, count: size)
        var ids: [String: Int32] = [:]
        for (index, piece) in pieces.enumerated() where !piece.isEmpty {
            var slot = Int(Self.hash(piece[...])) & (size - 1)
            while table[slot] != 0 { slot = (slot + 1) & (size - 1) }
            table[slot] = Int32(index + 1)
            if piece.first == UInt8(ascii: "<"), piece.count <= 7 { ids[String(decoding: piece, as: UTF8.self)] = Int32(index) }
        }
        func id(_ token: String) throws -> Int32 {
            guard let id = ids[token] else {
                throw EmbeddingError.invalidModelFile(path: "unigram.tsv", reason: "the vocabulary has no \(token) piece")
            }
            return id
        }
        self.pieceBytes = bytes
        self.pieceOffsets = offsets
        self.scores = scores
        self.table = table
        self.tableMask = size - 1
        self.longestPiece = pieces.map(\.count).max() ?? 1
        self.unknownScore = (scores.min() ?? 0) - 10
        self.charsmap = charsmap
        self.maxLength = max(2, maxLength)
        startID = try id("<s>")
        endID = try id("</s>")
        unknownID = try id("<unk>")
        paddingID = try id("<pad>")
        specialTokens = ["<mask>", "<pad>", "<unk>", "</s>", "<s>"].compactMap { token in
            ids[token].map { (Array(token.unicodeScalars), $0) }
        }
    }

    // MARK: - Lookup

    private static func hash(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var h: UInt32 = 2_166_136_261
        for byte in bytes { h = (h ^ UInt32(byte)) &* 16_777_619 }
        return h
    }

    /// The id of the piece spelled by `bytes`, or nil.
    func pieceID(_ bytes: ArraySlice<UInt8>) -> Int32? {
        var slot = Int(Self.hash(bytes)) & tableMask
        while true {
            let entry = table[slot]
            if entry == 0 { return nil }
            let index = Int(entry - 1)
            let start = Int(pieceOffsets[index]), end = Int(pieceOffsets[index + 1])
            if end - start == bytes.count, pieceBytes[start..<end].elementsEqual(bytes) { return entry - 1 }
            slot = (slot + 1) & tableMask
        }
    }

    /// The id of `piece`, or nil.
    public func pieceID(_ piece: String) -> Int32? { pieceID(Array(piece.utf8)[...]) }

    public func isWholeToken(_ word: String) -> Bool {
        !word.isEmpty && pieceID(Self.metaspace[...] + Array(word.utf8)[...]) != nil
    }

    /// Words of three or more ASCII letters that are one piece ("▁" + the word, as written or in
    /// lower case), against those cut into pieces.
    public func knownWordShare(_ text: String) -> Double {
        var words = 0, known = 0
        var word: [UInt8] = []
        func finish() {
            if word.count >= 3 {
                words += 1
                if pieceID(Self.metaspace[...] + word[...]) != nil
                    || pieceID(Self.metaspace[...] + word.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }[...]) != nil {
                    known += 1
                }
            }
            word.removeAll(keepingCapacity: true)
        }
        for byte in text.utf8 {
            if (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) { word.append(byte) } else { finish() }
        }
        finish()
        return words == 0 ? 0 : Double(known) / Double(words)
    }

    // MARK: - Tokenize

    /// `<s>`, the ids of the text's pieces (cut so that the whole sequence has at most `maxLength`
    /// ids), `</s>`.
    public func tokenize(_ text: String) -> [Int32] {
        let budget = maxLength - 2
        var ids: [Int32] = [startID]
        ids.reserveCapacity(min(maxLength, text.utf8.count / 2 + 8))
        var segment = String.UnicodeScalarView()
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count, ids.count - 1 < budget {
            if scalars[index] == "<", let special = specialToken(in: scalars, at: index) {
                appendPieces(ofSegment: String(segment), to: &ids, budget: budget)
                segment.removeAll()
                if ids.count - 1 < budget { ids.append(special.id) }
                index += special.length
            } else {
                segment.append(scalars[index])
                index += 1
            }
        }
        appendPieces(ofSegment: String(segment), to: &ids, budget: budget)
        ids.append(endID)
        return ids
    }

    private func specialToken(in scalars: [Unicode.Scalar], at start: Int) -> (id: Int32, length: Int)? {
        var best: (id: Int32, length: Int)?
        for token in specialTokens where start + token.scalars.count <= scalars.count {
            if (0..<token.scalars.count).allSatisfy({ scalars[start + $0] == token.scalars[$0] }),
               token.scalars.count > (best?.length ?? 0) {
                best = (token.id, token.scalars.count)
            }
        }
        return best
    }

    /// The normalised UTF-8 of `text`: the charsmap, then runs of spaces as one.
    func normalize(_ text: String) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count + 8)
        if let charsmap {
            for character in text {
                let utf8 = character.utf8
                if utf8.count < 6, let replacement = charsmap.transform(Array(utf8)[...]) {
                    output.append(contentsOf: replacement)
                    continue
                }
                if utf8.count == 1 {
                    output.append(utf8.first!)
                    continue
                }
                for scalar in character.unicodeScalars {
                    let bytes = Array(String(scalar).utf8)
                    if let replacement = charsmap.transform(bytes[...]) {
                        output.append(contentsOf: replacement)
                    } else {
                        output.append(contentsOf: bytes)
                    }
                }
            }
        } else {
            output.append(contentsOf: text.utf8)
        }
        // Replace(" {2,}", " ")
        var write = 0
        for read in output.indices {
            if output[read] == 0x20, write > 0, output[write - 1] == 0x20 { continue }
            output[write] = output[read]
            write += 1
        }
        output.removeLast(output.count - write)
        return output
    }

    private func appendPieces(ofSegment segment: String, to ids: inout [Int32], budget: Int) {
        guard !segment.isEmpty, ids.count - 1 < budget else { return }
        let normalized = normalize(segment)
        guard !normalized.isEmpty else { return }
        // Metaspace: " " → "▁", "▁" in front unless there is one, words begin at each "▁".
        var text: [UInt8] = []
        text.reserveCapacity(normalized.count + 16)
        for byte in normalized {
            if byte == 0x20 { text.append(contentsOf: Self.metaspace) } else { text.append(byte) }
        }
        if !text.starts(with: Self.metaspace) { text.insert(contentsOf: Self.metaspace, at: 0) }
        var wordStart = 0
        var position = 3
        while position <= text.count, ids.count - 1 < budget {
            if position == text.count || (text[position] == 0xE2 && position + 2 < text.count
                                          && text[position + 1] == 0x96 && text[position + 2] == 0x81) {
                if position > wordStart { appendViterbi(text[wordStart..<position], to: &ids, budget: budget) }
                wordStart = position
                if position == text.count { break }
                position += 3
            } else {
                position += 1
            }
        }
    }

    /// The best segmentation of one word into pieces (Hugging Face's `encode_optimized`).
    private func appendViterbi(_ word: ArraySlice<UInt8>, to ids: inout [Int32], budget: Int) {
        let base = word.startIndex
        let count = word.count
        var bestScore = [Double](repeating: 0, count: count + 1)
        var bestID = [Int32](repeating: -2, count: count + 1)  // -2: not reached; -1: unknown
        var bestStart = [Int](repeating: 0, count: count + 1)
        var start = 0
        while start < count {
            let lead = word[base + start]
            let charLength = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
            let scoreHere = bestScore[start]
            var hasSingle = false
            var end = start + 1
            while end <= count, end - start <= longestPiece {
                if end == count || word[base + end] & 0xC0 != 0x80 {
                    if let id = pieceID(word[(base + start)..<(base + end)]) {
                        let candidate = scores[Int(id)] + scoreHere
                        if bestID[end] == -2 || candidate > bestScore[end] {
                            bestScore[end] = candidate
                            bestID[end] = id
                            bestStart[end] = start
                        }
                        if end - start == charLength { hasSingle = true }
                    }
                }
                end += 1
            }
            if !hasSingle {
                let end = min(count, start + charLength)
                let candidate = unknownScore + scoreHere
                if bestID[end] == -2 || candidate > bestScore[end] {
                    bestScore[end] = candidate
                    bestID[end] = -1
                    bestStart[end] = start
                }
            }
            start += charLength
        }
        var pieces: [Int32] = []
        var position = count
        while position > 0 {
            let id = bestID[position]
            if id == -1 {
                if pieces.last != -1 { pieces.append(-1) }  // consecutive unknown characters make one <unk>
            } else {
                pieces.append(id)
            }
            position = bestStart[position]
        }
        for id in pieces.reversed() {
            if ids.count - 1 >= budget { return }
            ids.append(id == -1 ? unknownID : id)
        }
    }
}

/// SentencePiece's precompiled normalisation map, as `tokenizers`' `Precompiled` normaliser reads
/// it: a little-endian u32 trie size, a Darts-clone double-array trie over UTF-8 keys, then the
/// replacement strings, each ended by a NUL byte (the trie's values are their offsets).
public struct PrecompiledCharsmap: Sendable {
    private let units: [UInt32]
    private let strings: [UInt8]

    public init(data: Data) throws {
        let bytes = [UInt8](data)
        guard bytes.count >= 4 else { throw EmbeddingError.invalidModelFile(path: "normalizer.charsmap", reason: "too short") }
        let trieSize = Int(UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24)
        guard trieSize % 4 == 0, trieSize > 0, 4 + trieSize <= bytes.count else {
            throw EmbeddingError.invalidModelFile(path: "normalizer.charsmap", reason: "trie size \(trieSize) does not fit")
        }
        var units = [UInt32](repeating: 0, count: trieSize / 4)
        for index in units.indices {
            let at = 4 + index * 4
            units[index] = UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        self.units = units
        self.strings = Array(bytes[(4 + trieSize)...])
    }

    private static func offset(_ unit: UInt32) -> Int { Int((unit >> 10) << ((unit & (1 << 9)) >> 6)) }

    /// The replacement of the shortest key that begins `key` (the first result of Darts'
    /// common-prefix search, which is what `tokenizers` uses), or nil when no key does.
    public func transform(_ key: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        var node = Self.offset(units[0])
        for byte in key {
            if byte == 0 { return nil }
            node ^= Int(byte)
            guard node < units.count else { return nil }
            let unit = units[node]
            if unit & ((1 << 31) | 0xFF) != UInt32(byte) { return nil }
            node ^= Self.offset(unit)
            if (unit >> 8) & 1 == 1 {
                guard node < units.count else { return nil }
                let value = Int(units[node] & ((1 << 31) - 1))
                guard value < strings.count else { return nil }
                var end = value
                while end < strings.count, strings[end] != 0 { end += 1 }
                return strings[value..<end]
            }
        }
        return nil
    }
}
