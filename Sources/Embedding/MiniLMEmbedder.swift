import CKernels
import Foundation

/// BERT sentence embeddings (all-MiniLM-L6-v2 by default; 384 floats, mean-pooled,
/// L2-normalised), computed on the CPU from the model's `model.safetensors`, `config.json` and
/// vocabulary: `vocab.txt` (WordPiece, the MiniLM models) or `unigram.tsv` + `normalizer.charsmap`
/// (SentencePiece Unigram, multilingual-e5-small) (`EmbeddingModel`). Documents are embedded with
/// the model's `documentPrefix` in front, queries (`embedQueries`) with its `queryPrefix`.
///
/// Safe to call from concurrent tasks: batches are encoded one at a time (each already uses
/// every core through the BLAS library), in chunks of at most `maxBatchTokens` tokens so that a
/// short query waits at most for one chunk of a long indexing run.
public final class MiniLMEmbedder: Embedder, @unchecked Sendable {
    public let dimension: Int
    public let tokenizer: any TextTokenizer
    public let configuration: BertConfiguration
    public let model: EmbeddingModel
    /// The most tokens encoded in one pass.
    public let maxBatchTokens: Int

    private let encoder: BertEncoder
    private let lock = NSLock()

    /// How many tokens of an email the default model embeds (`[CLS]` and `[SEP]` included).
    public static let documentTokenLimit = EmbeddingModel.default.documentTokenLimit

    /// Loads `model` from `modelDirectory`. Texts are cut at `maxSequenceLength` tokens
    /// (default: the model's `documentTokenLimit`, as sentence-transformers does). Batches of at most
    /// `halfPrecisionTokenLimit` tokens (a search query) run on the half-precision query kernels
    /// when the CPU has them; 0 turns them off. Larger batches run on `documentKernels` (default:
    /// `DocumentKernels.current`), longer queries too.
    public init(
        modelDirectory: URL, model: EmbeddingModel = .default, maxSequenceLength: Int? = nil, maxBatchTokens: Int = 4096,
        halfPrecisionTokenLimit: Int = 32, bfloat16: Bool = true, documentKernels: DocumentKernels? = nil
    ) throws {
        self.model = model
        let maxSequenceLength = maxSequenceLength ?? model.documentTokenLimit
        let problems = model.required.compactMap { file -> String? in
            FileManager.default.fileExists(atPath: modelDirectory.appendingPathComponent(file.name).path)
                ? nil : "missing \(file.name)"
        }
        guard problems.isEmpty else {
            throw EmbeddingError.modelNotInstalled(directory: modelDirectory.path, problems: problems)
        }
        try BLAS.load()
        BLAS.selectFastestKernel()
        configuration = try BertConfiguration(contentsOf: modelDirectory.appendingPathComponent("config.json"))
        tokenizer = try model.makeTokenizer(directory: modelDirectory,
                                            maxLength: min(maxSequenceLength, configuration.maxPositions))
        encoder = try BertEncoder(
            weightsFile: modelDirectory.appendingPathComponent("model.safetensors"), configuration: configuration,
            halfPrecisionTokenLimit: halfPrecisionTokenLimit, bfloat16: bfloat16, documentKernels: documentKernels?.rawValue)
        dimension = configuration.hiddenSize
        self.maxBatchTokens = max(maxBatchTokens, tokenizer.maxLength)
    }

    /// The token ids the model sees for `text` as a document (the model's `documentPrefix` in
    /// front), `[CLS]` and `[SEP]` (or `<s>` and `</s>`) included.
    public func tokenize(_ text: String) -> [Int32] {
        tokenizer.tokenize(model.documentPrefix + text)
    }

    /// The token ids the model sees for `text` as a search query (the model's `queryPrefix` in front).
    public func tokenizeQuery(_ text: String) -> [Int32] {
        tokenizer.tokenize(model.queryPrefix + text)
    }

    public func knownWordShare(_ text: String) -> Double {
        tokenizer.knownWordShare(text)
    }

    public func knowsWord(_ word: String) -> Bool {
        tokenizer.isWholeToken(word.lowercased())
    }

    public func embed(_ texts: [String]) throws -> [[Float]] {
        embed(tokenized: texts.map(tokenize))
    }

    public func embedQueries(_ texts: [String]) throws -> [[Float]] {
        embed(tokenized: texts.map(tokenizeQuery))
    }

    /// Embeds already tokenized texts (from `tokenize` or `tokenizeQuery`).
    public func embed(tokenized sequences: [[Int32]]) -> [[Float]] {
        guard !sequences.isEmpty else { return [] }
        var results = [[Float]](repeating: [], count: sequences.count)
        // Similar lengths together keep the attention work per chunk even; order is restored below.
        let order = sequences.indices.sorted { sequences[$0].count < sequences[$1].count }
        var chunk: [Int] = []
        var chunkTokens = 0
        func flush() {
            guard !chunk.isEmpty else { return }
            let batch = chunk.map { sequences[$0] }
            var output = [Float](repeating: 0, count: batch.count * dimension)
            output.withUnsafeMutableBufferPointer { buffer in
                lock.lock()
                defer { lock.unlock() }
                encoder.encode(batch, into: buffer.baseAddress!)
            }
            for (position, index) in chunk.enumerated() {
                results[index] = Array(output[(position * dimension)..<((position + 1) * dimension)])
            }
            chunk.removeAll(keepingCapacity: true)
            chunkTokens = 0
        }
        for index in order {
            let count = min(sequences[index].count, configuration.maxPositions)
            if chunkTokens + count > maxBatchTokens { flush() }
            chunk.append(index)
            chunkTokens += count
        }
        flush()
        return results
    }

    /// Whether this CPU runs the half-precision query kernels (AVX2/FMA/F16C); without them
    /// queries use the float32 BLAS path. `MAILSEARCH_KERNELS=portable` turns them off.
    public static var hasHalfPrecisionKernels: Bool {
        ms_kernels_accelerated() != 0
    }

    /// Whether batches larger than a query run their linear layers on the bfloat16 kernels (AVX-512
    /// BF16; `MAILSEARCH_KERNELS=float32` turns them off).
    public var usesBFloat16: Bool { encoder.usesBFloat16 }

    /// The kernels that run the linear layers of batches larger than a query.
    public enum DocumentKernels: Int, CaseIterable, Sendable {
        /// OpenBLAS float32 (`MAILSEARCH_KERNELS=float32` or `portable`; CPUs without AVX2).
        case float32
        /// bfloat16 products, float32 sums (AVX-512 BF16; the default where the CPU has it).
        case bfloat16
        /// int8, the query/key/value projections on 13 bits: AVX2 `vpmaddubsw` + `vpmaddwd`
        /// (`MAILSEARCH_KERNELS=int8-avx2`; the default with AVX2 but neither VNNI nor BF16).
        case int8AVX2
        /// The same on AVX-512 VNNI `vpdpbusd` / `vpdpwssd` (`MAILSEARCH_KERNELS=int8-vnni`; the
        /// default with VNNI but not BF16).
        case int8VNNI
        /// int8 in plain C, the same arithmetic (`MAILSEARCH_KERNELS=int8-portable`; tests).
        case int8Portable

        public var rawValue: Int {
            switch self {
            case .float32: MS_DOCUMENT_FLOAT32
            case .bfloat16: MS_DOCUMENT_BF16
            case .int8AVX2: MS_DOCUMENT_INT8_AVX2
            case .int8VNNI: MS_DOCUMENT_INT8_VNNI
            case .int8Portable: MS_DOCUMENT_INT8_PORTABLE
            }
        }

        public init?(rawValue: Int) {
            guard let kind = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
            self = kind
        }

        /// What this process uses by default (`MAILSEARCH_KERNELS`, else the CPU's best).
        public static var current: DocumentKernels { DocumentKernels(rawValue: Int(ms_document_kernels())) ?? .float32 }

        /// What `MAILSEARCH_KERNELS=name` would choose on this CPU (nil: the variable unset).
        public static func chosen(for name: String?) -> DocumentKernels {
            let kind = name.map { ms_document_kernels_for($0) } ?? ms_document_kernels_for(nil)
            return DocumentKernels(rawValue: Int(kind)) ?? .float32
        }

        /// Whether this CPU can run these kernels.
        public var isSupported: Bool {
            switch self {
            case .float32, .int8Portable: true
            case .bfloat16: ms_kernels_bf16() != 0
            case .int8AVX2: ms_kernels_accelerated() != 0
            case .int8VNNI: ms_kernels_vnni() != 0
            }
        }
    }

    /// Whether batches larger than a query run their linear layers on the int8 kernels.
    public var usesInt8: Bool { encoder.usesInt8 }

    /// The int8 path's matrices on 13-bit integers (`MAILSEARCH_INT8_WIDE_LAYERS`, by default `qkv`),
    /// comma-separated; "" for none.
    public static var int8WideLayers: String { BertEncoder.int8WideLayers.sorted().joined(separator: ",") }

    /// The kernels this embedder's document batches run on.
    public var documentKernels: DocumentKernels { DocumentKernels(rawValue: encoder.documentKernels) ?? .float32 }

    /// Whether a batch of `tokens` tokens runs on the half-precision query kernels.
    public func usesHalfPrecision(tokens: Int) -> Bool {
        encoder.usesHalfPrecision(tokens: tokens)
    }

    /// Multiply-adds of the matrix products for sequences of these lengths.
    public func multiplyAdds(lengths: [Int]) -> Int {
        encoder.multiplyAdds(lengths: lengths)
    }
}
