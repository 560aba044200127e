import Foundation

/// The shape of a BERT encoder, as read from the model's `config.json`.
public struct BertConfiguration: Sendable, Equatable, Decodable {
    public var hiddenSize: Int
    public var layerCount: Int
    public var headCount: Int
    public var intermediateSize: Int
    public var maxPositions: Int
    public var vocabularySize: Int
    public var tokenTypeCount: Int
    public var layerNormEpsilon: Float
    public var activation: String

    /// all-MiniLM-L6-v2.
    public static let miniLML6 = BertConfiguration(
        hiddenSize: 384, layerCount: 6, headCount: 12, intermediateSize: 1536, maxPositions: 512,
        vocabularySize: 30522, tokenTypeCount: 2, layerNormEpsilon: 1e-12, activation: "gelu")

    public init(
        hiddenSize: Int, layerCount: Int, headCount: Int, intermediateSize: Int, maxPositions: Int,
        vocabularySize: Int, tokenTypeCount: Int, layerNormEpsilon: Float, activation: String
    ) {
        self.hiddenSize = hiddenSize
        self.layerCount = layerCount
        self.headCount = headCount
        self.intermediateSize = intermediateSize
        self.maxPositions = maxPositions
        self.vocabularySize = vocabularySize
        self.tokenTypeCount = tokenTypeCount
        self.layerNormEpsilon = layerNormEpsilon
        self.activation = activation
    }

    enum CodingKeys: String, CodingKey {
        case hiddenSize = "hidden_size"
        case layerCount = "num_hidden_layers"
        case headCount = "num_attention_heads"
        case intermediateSize = "intermediate_size"
        case maxPositions = "max_position_embeddings"
        case vocabularySize = "vocab_size"
        case tokenTypeCount = "type_vocab_size"
        case layerNormEpsilon = "layer_norm_eps"
        case activation = "hidden_act"
    }

    /// Reads and checks `config.json`.
    public init(contentsOf url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw EmbeddingError.unreadableModelFile(path: url.path, reason: error.localizedDescription)
        }
        do {
            self = try JSONDecoder().decode(BertConfiguration.self, from: data)
        } catch {
            throw EmbeddingError.invalidModelFile(path: url.path, reason: "not a BERT config.json (\(error))")
        }
        guard hiddenSize > 0, headCount > 0, hiddenSize % headCount == 0, layerCount > 0,
              intermediateSize > 0, maxPositions > 2, vocabularySize > 0, tokenTypeCount > 0
        else {
            throw EmbeddingError.invalidModelFile(path: url.path, reason: "inconsistent sizes")
        }
        guard activation == "gelu" else {
            throw EmbeddingError.invalidModelFile(path: url.path, reason: "activation \(activation) is not supported (gelu only)")
        }
    }
}
