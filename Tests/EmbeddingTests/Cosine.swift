/// The cosine of two vectors, in double precision (the embedding tests' measure of fidelity).
func cosine(_ a: [Float], _ b: [Float]) -> Double {
    var dot = 0.0, normA = 0.0, normB = 0.0
    for (x, y) in zip(a, b) {
        dot += Double(x) * Double(y)
        normA += Double(x) * Double(x)
        normB += Double(y) * Double(y)
    }
    return dot / max((normA * normB).squareRoot(), 1e-30)
}
