/// Turns texts into fixed-size vectors whose dot product measures semantic similarity.
public protocol Embedder: Sendable {
    /// The length of every vector `embed` returns.
    var dimension: Int { get }
    /// One L2-normalised vector of `dimension` floats per text, in the order given.
    func embed(_ texts: [String]) throws -> [[Float]]
    /// The vectors of search queries (`embed` is for the documents searched): for a model trained
    /// with a query prefix (E5: "query: ") that prefix, else the same as `embed`.
    func embedQueries(_ texts: [String]) throws -> [[Float]]
    /// The share (0–1) of the words of `text` (runs of three or more letters) that the model knows
    /// as whole words; 1 for an embedder without a vocabulary.
    func knownWordShare(_ text: String) -> Double
    /// Whether the model has `word` (lower-cased) as one whole token of its vocabulary; true for
    /// an embedder without a vocabulary.
    func knowsWord(_ word: String) -> Bool
}

extension Embedder {
    public func embedQueries(_ texts: [String]) throws -> [[Float]] { try embed(texts) }
    public func knownWordShare(_ text: String) -> Double { 1 }
    public func knowsWord(_ word: String) -> Bool { true }
}
