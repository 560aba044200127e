/// Whether the model is installed in a directory, and if not, why.
public struct ModelStatus: Sendable, Equatable, Codable {
    /// The model directory that was checked.
    public var directory: String
    /// True when every required file is present with the expected size and digest.
    public var isInstalled: Bool
    /// What is wrong, one entry per file ("missing vocab.txt", "model.safetensors has 12 bytes,
    /// expected 90868376", …); empty when installed.
    public var problems: [String]
    /// Bytes taken by the files in the directory.
    public var totalBytes: Int64
    public var model: String
    public var license: String
    /// Where the files come from.
    public var source: String
}
