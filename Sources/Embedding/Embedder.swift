/// Turns texts into fixed-size vectors whose dot product measures semantic similarity.
public protocol Embedder: Sendable {
    /// The length of every vector `embed` returns.
    var dimension: Int { get }
    /// One L2-normalised vector of `dimension` floats per text, in the order given.
    func embed(_ texts: [String]) throws -> [[Float]]
}
