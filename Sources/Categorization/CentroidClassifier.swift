import MailModel

/// A nearest-centroid classifier over the MiniLM embeddings the search already stores, plus a few
/// header features: one mean vector per category, learnt from examples whose category is sure
/// (the user's choices, labels, confident rules of the same mailbox). No text is kept: centroids only.
public struct CentroidClassifier: Sendable {
    /// Per category: the L2-normalised mean of its examples' features, and how many there were.
    public private(set) var centroids: [AICategory: [Float]] = [:]
    public private(set) var counts: [AICategory: Int] = [:]
    /// Weight of the header features beside the 384 embedding dimensions.
    static let headerWeight: Float = 0.35
    /// The least examples a category needs to take part.
    public static let minimumExamples = 5

    public init() {}

    /// Learns centroids from (category, features) pairs; a `weight` counts an example more (the user's).
    public init(examples: [(category: AICategory, features: [Float], weight: Float)]) {
        var sums: [AICategory: [Float]] = [:]
        for e in examples {
            var sum = sums[e.category] ?? [Float](repeating: 0, count: e.features.count)
            guard sum.count == e.features.count else { continue }
            for i in sum.indices { sum[i] += e.features[i] * e.weight }
            sums[e.category] = sum
            counts[e.category, default: 0] += 1
        }
        for (category, sum) in sums where counts[category, default: 0] >= Self.minimumExamples {
            centroids[category] = Self.normalized(sum)
        }
    }

    /// Whether there are at least two categories to choose between.
    public var isTrained: Bool { centroids.count >= 2 }

    /// The features of an email: its embedding and the header features, L2-normalised.
    public static func features(embedding: [Float], input: CategorizationInput) -> [Float] {
        let s = input.signals ?? []
        let sender = RuleCategorizer.senderKind(input.from)
        var isAutomatic: Float = 0, isMarketing: Float = 0, isSocial: Float = 0
        switch sender {
        case .automatic: isAutomatic = 1
        case .marketing: isMarketing = 1
        case .socialNetwork: isSocial = 1
        case .person: break
        }
        let header: [Float] = [
            s.contains(.listUnsubscribe) || s.contains(.precedenceBulk) || s.contains(.emailServiceProvider) ? 1 : 0,
            s.contains(.autoSubmitted) || s.contains(.autoResponseHeader) ? 1 : 0,
            s.isDisjoint(with: .anyList) ? 0 : 1,
            s.contains(.personalMailer) ? 1 : 0,
            input.isReply ? 1 : 0,
            isAutomatic, isMarketing, isSocial,
        ]
        var out = embedding
        out.reserveCapacity(embedding.count + header.count)
        for h in header { out.append(h * headerWeight) }
        return normalized(out)
    }

    /// The nearest category, its cosine similarity and the margin over the runner-up.
    /// Only `among` take part when given (at least two of them must have centroids).
    public func classify(_ features: [Float], among: Set<AICategory>? = nil) -> (category: AICategory, similarity: Float, margin: Float)? {
        var best: (AICategory, Float)?
        var second: Float = -1
        let candidates = centroids.filter { among?.contains($0.key) ?? true }
        guard candidates.count >= 2 else { return nil }
        for (category, centroid) in candidates where centroid.count == features.count {
            var dot: Float = 0
            for i in features.indices { dot += features[i] * centroid[i] }
            if let b = best {
                if dot > b.1 { second = b.1; best = (category, dot) } else if dot > second { second = dot }
            } else {
                best = (category, dot)
            }
        }
        guard let best else { return nil }
        return (best.0, best.1, best.1 - second)
    }

    static func normalized(_ v: [Float]) -> [Float] {
        var n: Float = 0
        for x in v { n += x * x }
        n = n.squareRoot()
        return n > 0 ? v.map { $0 / n } : v
    }
}
