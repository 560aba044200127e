import MailModel

/// Decides the category of emails (spec 001 §5.6.2). The runtime behind it can be swapped
/// (§5.6.1): the rules and the embedding classifier here, an LLM later.
public protocol Categorizer: Sendable {
    /// One decision per input, in order.
    func categorize(_ inputs: [CategorizationInput]) throws -> [CategoryDecision]
}
