/// The category of an email (spec 001 §4.2).
public enum AICategory: String, Sendable, Codable, CaseIterable {
    case primary, social, promotions, updates, forums, uncategorized
}
