/// What the encoder needs of a tokenizer: the token ids of a text, ready for the model (its start
/// and end tokens included, cut to `maxLength`), and which words it knows whole.
/// `WordPieceTokenizer` (the MiniLM models) and `UnigramTokenizer` (multilingual-e5-small) implement it.
public protocol TextTokenizer: Sendable {
    /// The longest sequence produced, the start and end tokens included.
    var maxLength: Int { get }
    /// The token ids of `text`, the start and end tokens included, at most `maxLength` of them.
    func tokenize(_ text: String) -> [Int32]
    /// The share of the words of `text` (runs of three or more ASCII letters) that are whole tokens
    /// of the vocabulary; 0 when there is no such word.
    func knownWordShare(_ text: String) -> Double
    /// Whether `word` is one token of the vocabulary, as a whole word.
    func isWholeToken(_ word: String) -> Bool
}

extension WordPieceTokenizer: TextTokenizer {}
