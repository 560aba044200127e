import Foundation

/// The BERT WordPiece tokenizer of all-MiniLM-L6-v2, reproducing the model's `tokenizer.json`
/// (Hugging Face `tokenizers`): special tokens matched first, then `BertNormalizer` (clean text,
/// CJK padding, accent stripping, lowercasing), `BertPreTokenizer`, greedy longest-match WordPiece,
/// and `[CLS] … [SEP]` with truncation.
public struct WordPieceTokenizer: Sendable {
    /// Token ids by token text.
    public let vocabulary: [String: Int32]
    /// The longest sequence produced, `[CLS]` and `[SEP]` included.
    public let maxLength: Int
    /// Words longer than this (in Unicode scalars) become `[UNK]`.
    public let maxInputCharsPerWord: Int

    public let classifierID: Int32
    public let separatorID: Int32
    public let unknownID: Int32
    public let paddingID: Int32

    /// Special tokens recognised in raw text before normalisation, longest first.
    private let specialTokens: [(scalars: [Unicode.Scalar], id: Int32)]

    /// Reads a `vocab.txt` file: one token per line, the line number is the id.
    public init(vocabularyFile: URL, maxLength: Int = 256) throws {
        let data: Data
        do {
            data = try Data(contentsOf: vocabularyFile)
        } catch {
            throw EmbeddingError.unreadableModelFile(path: vocabularyFile.path, reason: error.localizedDescription)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw EmbeddingError.invalidModelFile(path: vocabularyFile.path, reason: "not UTF-8 text")
        }
        var tokens = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasSuffix("\r") ? String($0.dropLast()) : String($0)
        }
        if tokens.last == "" { tokens.removeLast() }
        try self.init(vocabulary: tokens, maxLength: maxLength)
    }

    /// Builds a tokenizer from the tokens in id order.
    public init(vocabulary tokens: [String], maxLength: Int = 256, maxInputCharsPerWord: Int = 100) throws {
        var vocabulary: [String: Int32] = [:]
        vocabulary.reserveCapacity(tokens.count)
        for (index, token) in tokens.enumerated() where vocabulary[token] == nil {
            vocabulary[token] = Int32(index)
        }
        func id(_ token: String) throws -> Int32 {
            guard let id = vocabulary[token] else {
                throw EmbeddingError.invalidModelFile(path: "vocab.txt", reason: "the vocabulary has no \(token) token")
            }
            return id
        }
        self.vocabulary = vocabulary
        self.maxLength = max(2, maxLength)
        self.maxInputCharsPerWord = maxInputCharsPerWord
        self.classifierID = try id("[CLS]")
        self.separatorID = try id("[SEP]")
        self.unknownID = try id("[UNK]")
        self.paddingID = try id("[PAD]")
        self.specialTokens = ["[MASK]", "[CLS]", "[SEP]", "[UNK]", "[PAD]"].compactMap { token in
            vocabulary[token].map { (Array(token.unicodeScalars), $0) }
        }
    }

    /// The share of the words of `text` — runs of three or more ASCII letters, lower-cased — that
    /// are whole tokens of the vocabulary; 0 when there is no such word. Random letters and
    /// mistyped words are cut into pieces; words are not.
    public func knownWordShare(_ text: String) -> Double {
        var words = 0, known = 0
        var word = ""
        func finish() {
            if word.count >= 3 {
                words += 1
                if vocabulary[word] != nil { known += 1 }
            }
            word = ""
        }
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 97...122: word.unicodeScalars.append(scalar)
            case 65...90: word.unicodeScalars.append(Unicode.Scalar(UInt8(scalar.value + 32)))
            default: finish()
            }
        }
        finish()
        return words == 0 ? 0 : Double(known) / Double(words)
    }

    /// Whether `word` is one token of the vocabulary as it is (not a `##` piece).
    public func isWholeToken(_ word: String) -> Bool {
        !word.isEmpty && vocabulary[word] != nil
    }

    /// The token ids of `text`: `[CLS]`, the WordPiece ids of the text (cut so that the whole
    /// sequence has at most `maxLength` ids), `[SEP]`.
    public func tokenize(_ text: String) -> [Int32] {
        let budget = maxLength - 2
        var ids: [Int32] = [classifierID]
        ids.reserveCapacity(min(maxLength, text.utf8.count / 3 + 8))
        var segment: [Unicode.Scalar] = []
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count, ids.count - 1 < budget {
            if scalars[index] == "[", let special = specialToken(in: scalars, at: index) {
                appendWordPieces(ofSegment: segment, to: &ids, budget: budget)
                segment.removeAll(keepingCapacity: true)
                if ids.count - 1 < budget { ids.append(special.id) }
                index += special.length
            } else {
                segment.append(scalars[index])
                index += 1
            }
        }
        appendWordPieces(ofSegment: segment, to: &ids, budget: budget)
        ids.append(separatorID)
        return ids
    }

    // MARK: - Special tokens

    private func specialToken(in scalars: [Unicode.Scalar], at start: Int) -> (id: Int32, length: Int)? {
        for token in specialTokens where start + token.scalars.count <= scalars.count {
            var matches = true
            for (offset, scalar) in token.scalars.enumerated() where scalars[start + offset] != scalar {
                matches = false
                break
            }
            if matches { return (token.id, token.scalars.count) }
        }
        return nil
    }

    // MARK: - Normalisation, pre-tokenisation, WordPiece

    private func appendWordPieces(ofSegment segment: [Unicode.Scalar], to ids: inout [Int32], budget: Int) {
        guard !segment.isEmpty, ids.count - 1 < budget else { return }
        let normalized = Self.normalize(segment)
        var word: [Unicode.Scalar] = []
        for scalar in normalized {
            if ids.count - 1 >= budget { return }
            if scalar.properties.isWhitespace {
                appendWordPieces(ofWord: word, to: &ids, budget: budget)
                word.removeAll(keepingCapacity: true)
            } else if Self.isPunctuation(scalar) {
                appendWordPieces(ofWord: word, to: &ids, budget: budget)
                word.removeAll(keepingCapacity: true)
                appendWordPieces(ofWord: [scalar], to: &ids, budget: budget)
            } else {
                word.append(scalar)
            }
        }
        appendWordPieces(ofWord: word, to: &ids, budget: budget)
    }

    private func appendWordPieces(ofWord word: [Unicode.Scalar], to ids: inout [Int32], budget: Int) {
        guard !word.isEmpty, ids.count - 1 < budget else { return }
        if word.count > maxInputCharsPerWord {
            ids.append(unknownID)
            return
        }
        var pieces: [Int32] = []
        var start = 0
        while start < word.count {
            var end = word.count
            var found: Int32?
            while start < end {
                var candidate = start > 0 ? "##" : ""
                candidate.unicodeScalars.append(contentsOf: word[start..<end])
                if let id = vocabulary[candidate] {
                    found = id
                    break
                }
                end -= 1
            }
            guard let id = found else {
                ids.append(unknownID)
                return
            }
            pieces.append(id)
            start = end
        }
        ids.append(contentsOf: pieces.prefix(budget - (ids.count - 1)))
    }

    /// `BertNormalizer` with clean_text, handle_chinese_chars, strip_accents and lowercase on.
    static func normalize(_ input: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var cleaned: [Unicode.Scalar] = []
        cleaned.reserveCapacity(input.count)
        var isASCII = true
        for scalar in input {
            let value = scalar.value
            if value == 0 || value == 0xFFFD || isControl(scalar) { continue }
            if isWhitespace(scalar) {
                cleaned.append(" ")
            } else if isChineseCharacter(value) {
                cleaned.append(" ")
                cleaned.append(scalar)
                cleaned.append(" ")
                isASCII = false
            } else {
                cleaned.append(scalar)
                if value >= 0x80 { isASCII = false }
            }
        }
        if isASCII {
            for index in cleaned.indices where cleaned[index].value >= 0x41 && cleaned[index].value <= 0x5A {
                cleaned[index] = Unicode.Scalar(UInt8(cleaned[index].value + 0x20))
            }
            return cleaned
        }
        var string = ""
        string.unicodeScalars.append(contentsOf: cleaned)
        var output: [Unicode.Scalar] = []
        output.reserveCapacity(cleaned.count)
        for scalar in string.decomposedStringWithCanonicalMapping.unicodeScalars
        where scalar.properties.generalCategory != .nonspacingMark {
            if scalar.value < 0x80 {
                output.append(scalar.value >= 0x41 && scalar.value <= 0x5A ? Unicode.Scalar(UInt8(scalar.value + 0x20)) : scalar)
            } else if scalar.properties.changesWhenLowercased {
                output.append(contentsOf: scalar.properties.lowercaseMapping.unicodeScalars)
            } else {
                output.append(scalar)
            }
        }
        return output
    }

    /// Whitespace as BERT counts it: tab, newline, carriage return and Unicode White_Space.
    static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar.properties.isWhitespace
    }

    /// Control, format and private-use characters, which BERT removes (tab, newline and
    /// carriage return excepted: they count as whitespace).
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == "\t" || scalar == "\n" || scalar == "\r" { return false }
        switch scalar.properties.generalCategory {
        case .control, .format, .privateUse: return true
        default: return false
        }
    }

    /// ASCII symbols and Unicode punctuation (P*), each of which becomes a word of its own.
    static func isPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x80 {
            return (0x21...0x2F).contains(value) || (0x3A...0x40).contains(value)
                || (0x5B...0x60).contains(value) || (0x7B...0x7E).contains(value)
        }
        switch scalar.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
             .initialPunctuation, .finalPunctuation, .otherPunctuation:
            return true
        default:
            return false
        }
    }

    /// The CJK ideograph blocks that BERT splits into single characters.
    static func isChineseCharacter(_ value: UInt32) -> Bool {
        switch value {
        case 0x4E00...0x9FFF, 0x3400...0x4DBF, 0x20000...0x2A6DF, 0x2A700...0x2B73F,
             0x2B740...0x2B81F, 0x2B920...0x2CEAF, 0xF900...0xFAFF, 0x2F800...0x2FA1F:
            return true
        default:
            return false
        }
    }
}
