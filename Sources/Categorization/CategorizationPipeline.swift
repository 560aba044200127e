import MailModel

/// The categoriser the service runs: the user's preferences for a sender first, then the rules;
/// where the rules are not sure and the email has an embedding, the classifier decides when it is
/// confident (its margin over the runner-up), else the rules' guess stays.
public struct CategorizationPipeline: Categorizer {
    /// The user's choices: per account and sender address (lower case), the category and the email chosen for.
    public struct Preference: Sendable {
        public var category: AICategory
        public var emailId: Int64
        public init(category: AICategory, emailId: Int64) { self.category = category; self.emailId = emailId }
    }

    public var rules: any Categorizer
    public var classifier: CentroidClassifier
    public var preferences: [Int64: [String: Preference]]
    /// The least margin (cosine) over the runner-up for the classifier to decide.
    public var minimumMargin: Float

    public init(rules: any Categorizer = RuleCategorizer(), classifier: CentroidClassifier = CentroidClassifier(),
                preferences: [Int64: [String: Preference]] = [:], minimumMargin: Float = 0.03) {
        self.rules = rules
        self.classifier = classifier
        self.preferences = preferences
        self.minimumMargin = minimumMargin
    }

    public func categorize(_ inputs: [CategorizationInput]) throws -> [CategoryDecision] {
        let ruled = try rules.categorize(inputs)
        return zip(inputs, ruled).map { input, rule in
            var d = decide(input, rule)
            d.usedEmbedding = input.embedding != nil
            return d
        }
    }

    private func decide(_ input: CategorizationInput, _ rule: CategoryDecision) -> CategoryDecision {
        if let sender = input.from?.email.lowercased(), let p = preferences[input.accountId]?[sender], p.emailId != input.emailId {
            return CategoryDecision(category: p.category, method: .preference,
                                    reason: "you chose \(p.category.rawValue.capitalized) for mail from \(sender) (email \(p.emailId))",
                                    confidence: 0.95)
        }
        guard rule.method == .fallback, rule.confidence < RuleCategorizer.sure, classifier.isTrained,
              let embedding = input.embedding else { return rule }
        let features = CentroidClassifier.features(embedding: embedding, input: input)
        // The classifier refines what the headers found, it does not overrule it: with bulk-mail evidence
        // (the rules chose a bulk category) Primary is out; Forums only with list headers.
        let signals = input.signals ?? []
        var among: Set<AICategory> = [.primary, .social, .promotions, .updates]
        if rule.category != .primary { among.remove(.primary) }
        if !signals.isDisjoint(with: .anyList) || rule.category == .forums { among.insert(.forums) }
        guard let c = classifier.classify(features, among: among), c.margin >= minimumMargin else { return rule }
        let confidence = min(0.95, 0.5 + Double(c.margin) * 5)
        return CategoryDecision(
            category: c.category, method: .classifier,
            reason: "classifier: nearest to \(c.category.rawValue.capitalized) (similarity \(fmt(c.similarity)), margin \(fmt(c.margin))); rules alone: \(rule.category.rawValue) — \(rule.reason)",
            confidence: (confidence * 100).rounded() / 100)
    }

    private func fmt(_ x: Float) -> String {
        let r = (Double(x) * 100).rounded() / 100
        return String(r)
    }
}
