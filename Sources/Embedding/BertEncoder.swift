import CKernels
import Foundation

/// A BERT encoder with mean pooling and L2 normalisation (the sentence-transformers pipeline of
/// all-MiniLM-L6-v2), running on CBLAS matrix products.
///
/// The sequences of a batch are packed one after the other without padding: every step but
/// attention works token by token, and attention runs per sequence over its own tokens, which
/// is exactly what the padding mask computes. The linear layers are OpenBLAS GEMMs over every
/// token of the batch; attention (`ms_attention`: scores, softmax and weighted values of a few
/// rows at a time, in cache), GELU and residual + LayerNorm are C kernels (`CKernels`). Not thread-safe on its own: `MiniLMEmbedder`
/// serialises calls.
///
/// Small batches (a search query: a few tokens) take another route for the four linear layers.
/// With few rows a matrix product streams its weights once and does little arithmetic on each,
/// so reading 42 MB of float32 weights from memory bounds it. The query route reads half-
/// precision copies of the weights instead (21 MB, which stays in a typical L3 cache between
/// queries), with AVX2/FMA/F16C kernels, split over the cores by output. Activations and sums
/// stay float32; the vectors keep cosine ≥ 0.9999 to the reference (a test).
///
/// Larger batches (mail being indexed) run their linear layers on bfloat16 copies of the weights
/// when the CPU has AVX-512 BF16 (`ms_linear_bf16_panels`: inputs and weights rounded to
/// bfloat16, products summed in float32, twice the multiply-adds of float32 per instruction),
/// and their attention too (`ms_attention_bf16`: scores from bfloat16 queries and keys, the
/// softmax in float32, its numerators and the values rounded to bfloat16). The vectors keep cosine
/// ≥ 0.9999 to the reference (a test).
///
/// Elsewhere (`ms_document_kernels`), or when `MAILSEARCH_KERNELS` asks for it (`int8-avx2`,
/// `int8-vnni`, `int8`), on int8 copies
/// (`ms_linear_int8_panels`: weights in 7-bit integers with a scale per output and group of 64
/// inputs, each row of activations in u8 with its own step and zero point, integer dot products
/// by AVX2 `vpmaddubsw` or AVX-512 VNNI `vpdpbusd`), the query, key and value projections on 13-bit
/// integers (`ms_linear_int16_panels`, `int8WideLayers`); attention, GELU and LayerNorm stay float32.
/// Those vectors keep cosine ≥ 0.998 to the reference (a test); see docs/benchmarks.md. Without
/// AVX2 (or with `MAILSEARCH_KERNELS=float32`), on OpenBLAS and `ms_attention` in float32.
final class BertEncoder {
    let configuration: BertConfiguration
    /// Batches of at most this many tokens use the half-precision kernels (0: never), when the
    /// CPU has AVX2/FMA/F16C.
    let halfPrecisionTokenLimit: Int
    /// How larger batches run their linear layers: `MS_DOCUMENT_FLOAT32` (OpenBLAS), `MS_DOCUMENT_BF16`,
    /// `MS_DOCUMENT_INT8_AVX2`, `MS_DOCUMENT_INT8_VNNI` or `MS_DOCUMENT_INT8_PORTABLE` (`ms_document_kernels`).
    let documentKernels: Int
    /// Whether larger batches use the bfloat16 kernels (asked for, and the CPU has them).
    var usesBFloat16: Bool { documentKernels == MS_DOCUMENT_BF16 }
    /// Whether larger batches use the int8 kernels.
    var usesInt8: Bool {
        documentKernels == MS_DOCUMENT_INT8_AVX2 || documentKernels == MS_DOCUMENT_INT8_VNNI
            || documentKernels == MS_DOCUMENT_INT8_PORTABLE
    }

    private let file: SafeTensorsFile
    private var storage: [FloatStorage] = []
    private let wordEmbeddings: UnsafePointer<Float>
    private let positionEmbeddings: UnsafePointer<Float>
    private let tokenTypeEmbeddings: UnsafePointer<Float>
    private let embeddingNormGamma: UnsafePointer<Float>
    private let embeddingNormBeta: UnsafePointer<Float>
    private var layers: [Layer] = []
    /// Half-precision copies of each layer's weight matrices, made on the first small batch.
    private var halfLayers: [PackedLayer]?
    /// bfloat16 or int8 copies (`documentKernels`), made on the first large batch.
    private var documentLayers: [PackedLayer]?

    /// One transformer layer's parameters; query, key and value projections fused into one matrix.
    private struct Layer {
        var qkvWeight: UnsafePointer<Float>  // (3·hidden) × hidden
        var qkvBias: UnsafePointer<Float>
        var attentionOutputWeight: UnsafePointer<Float>  // hidden × hidden
        var attentionOutputBias: UnsafePointer<Float>
        var attentionNormGamma: UnsafePointer<Float>
        var attentionNormBeta: UnsafePointer<Float>
        var intermediateWeight: UnsafePointer<Float>  // intermediate × hidden
        var intermediateBias: UnsafePointer<Float>
        var outputWeight: UnsafePointer<Float>  // hidden × intermediate
        var outputBias: UnsafePointer<Float>
        var outputNormGamma: UnsafePointer<Float>
        var outputNormBeta: UnsafePointer<Float>
    }

    /// The int8 path's matrices kept in float32, for measuring which carry int8's error:
    /// `MAILSEARCH_INT8_FLOAT_LAYERS`, a comma-separated list of `qkv`, `attn`, `ffn1`, `ffn2`, each
    /// for every layer or with a layer's index (`qkv5`). Unset: none (docs/benchmarks.md has what
    /// each costs and gains).
    static let int8FloatLayers = Set(
        (ProcessInfo.processInfo.environment["MAILSEARCH_INT8_FLOAT_LAYERS"] ?? "").split(separator: ",").map(String.init))

    /// The int8 path's matrices that run on 13-bit integers instead (`ms_linear_int16_panels`):
    /// `MAILSEARCH_INT8_WIDE_LAYERS` names them as `MAILSEARCH_INT8_FLOAT_LAYERS` does (empty: none);
    /// by default `qkv`, the query, key and value projections, which carry most of int8's error
    /// (attention scores multiply the errors of Q and K) for a sixth of its products. With them on
    /// 13 bits the 298 reference texts keep cosine ≥ 0.998 (all int8: 0.997), as with them in float32,
    /// at 1.2× int8's time for those products instead of float32's 1.8× (docs/benchmarks.md).
    static let int8WideLayers = Set(
        (ProcessInfo.processInfo.environment["MAILSEARCH_INT8_WIDE_LAYERS"] ?? "qkv").split(separator: ",").map(String.init))

    /// One layer's weight matrices in half precision, bfloat16 or int8 (same shapes as in `Layer`);
    /// nil: that matrix runs in float32.
    private struct PackedLayer {
        var qkv: PackedWeights?
        var attentionOutput: PackedWeights?
        var intermediate: PackedWeights?
        var output: PackedWeights?
    }

    /// Whether a batch of `tokens` tokens runs on the half-precision kernels.
    func usesHalfPrecision(tokens: Int) -> Bool {
        tokens <= halfPrecisionTokenLimit && ms_kernels_accelerated() != 0
    }

    /// `documentKernels` forces the kind of document kernels (one the CPU lacks falls back as
    /// `ms_document_kernels_for` does); nil: `ms_document_kernels()`, or float32 with `bfloat16: false`.
    init(weightsFile url: URL, configuration: BertConfiguration, halfPrecisionTokenLimit: Int = 32,
         bfloat16: Bool = true, documentKernels: Int? = nil) throws {
        self.configuration = configuration
        self.halfPrecisionTokenLimit = halfPrecisionTokenLimit
        var kind = documentKernels ?? (bfloat16 ? Int(ms_document_kernels()) : MS_DOCUMENT_FLOAT32)
        if kind == MS_DOCUMENT_BF16 && (!bfloat16 || ms_kernels_bf16() == 0) { kind = MS_DOCUMENT_FLOAT32 }
        if kind == MS_DOCUMENT_INT8_VNNI && ms_kernels_vnni() == 0 { kind = MS_DOCUMENT_INT8_AVX2 }
        if kind == MS_DOCUMENT_INT8_AVX2 && ms_kernels_accelerated() == 0 { kind = MS_DOCUMENT_INT8_PORTABLE }
        self.documentKernels = kind
        let file = try SafeTensorsFile(url: url)
        self.file = file
        let hidden = configuration.hiddenSize
        var storage: [FloatStorage] = []
        // Float32 tensors are read in place from the memory-mapped file (no copy: the pages are
        // the page cache's, read as first used); other types, or a misaligned tensor, are converted.
        func load(_ name: String, _ shape: [Int]) throws -> UnsafePointer<Float> {
            if let info = file.tensors[name], info.dtype == "F32", info.shape == shape {
                let raw = try file.bytes(of: name)
                if let base = raw.baseAddress, Int(bitPattern: base) % MemoryLayout<Float>.alignment == 0 {
                    return base.assumingMemoryBound(to: Float.self)
                }
            }
            let buffer = FloatStorage(try file.floats(name, shape: shape))
            storage.append(buffer)
            return UnsafePointer(buffer.pointer)
        }
        func loadConcatenated(_ names: [String], _ shape: [Int]) throws -> UnsafePointer<Float> {
            let buffer = FloatStorage(try names.flatMap { try file.floats($0, shape: shape) })
            storage.append(buffer)
            return UnsafePointer(buffer.pointer)
        }
        wordEmbeddings = try load("embeddings.word_embeddings.weight", [configuration.vocabularySize, hidden])
        positionEmbeddings = try load("embeddings.position_embeddings.weight", [configuration.maxPositions, hidden])
        tokenTypeEmbeddings = try load("embeddings.token_type_embeddings.weight", [configuration.tokenTypeCount, hidden])
        embeddingNormGamma = try load("embeddings.LayerNorm.weight", [hidden])
        embeddingNormBeta = try load("embeddings.LayerNorm.bias", [hidden])
        var layers: [Layer] = []
        for index in 0..<configuration.layerCount {
            let prefix = "encoder.layer.\(index)."
            let attention = prefix + "attention."
            let projections = ["query", "key", "value"].map { attention + "self." + $0 }
            layers.append(Layer(
                qkvWeight: try loadConcatenated(projections.map { $0 + ".weight" }, [hidden, hidden]),
                qkvBias: try loadConcatenated(projections.map { $0 + ".bias" }, [hidden]),
                attentionOutputWeight: try load(attention + "output.dense.weight", [hidden, hidden]),
                attentionOutputBias: try load(attention + "output.dense.bias", [hidden]),
                attentionNormGamma: try load(attention + "output.LayerNorm.weight", [hidden]),
                attentionNormBeta: try load(attention + "output.LayerNorm.bias", [hidden]),
                intermediateWeight: try load(prefix + "intermediate.dense.weight", [configuration.intermediateSize, hidden]),
                intermediateBias: try load(prefix + "intermediate.dense.bias", [configuration.intermediateSize]),
                outputWeight: try load(prefix + "output.dense.weight", [hidden, configuration.intermediateSize]),
                outputBias: try load(prefix + "output.dense.bias", [hidden]),
                outputNormGamma: try load(prefix + "output.LayerNorm.weight", [hidden]),
                outputNormBeta: try load(prefix + "output.LayerNorm.bias", [hidden])))
        }
        self.layers = layers
        self.storage = storage
    }

    /// Multiply-add operations of one forward pass over sequences of these lengths
    /// (matrix products only; used to report achieved GFLOP/s).
    func multiplyAdds(lengths: [Int]) -> Int {
        let h = configuration.hiddenSize
        let i = configuration.intermediateSize
        let perToken = 4 * h * h + 2 * h * i
        let tokens = lengths.reduce(0, +)
        let attention = lengths.reduce(0) { $0 + 2 * $1 * $1 * h }
        return configuration.layerCount * (tokens * perToken + attention)
    }

    /// Encodes token-id sequences (each already `[CLS] … [SEP]`, at most `maxPositions` long) and
    /// writes one L2-normalised, mean-pooled vector of `hiddenSize` floats per sequence to `output`.
    func encode(_ sequences: [[Int32]], into output: UnsafeMutablePointer<Float>) {
        let hidden = configuration.hiddenSize
        let inner = configuration.intermediateSize
        let heads = configuration.headCount
        let headSize = hidden / heads
        let lengths = sequences.map { min($0.count, configuration.maxPositions) }
        let tokens = lengths.reduce(0, +)
        guard tokens > 0 else {
            output.initialize(repeating: 0, count: sequences.count * hidden)
            return
        }
        var starts: [Int] = []
        starts.reserveCapacity(lengths.count)
        var offset = 0
        for length in lengths {
            starts.append(offset)
            offset += length
        }
        let starts32 = starts.map { Int32($0) }, lengths32 = lengths.map { Int32($0) }

        // Work buffers for the whole batch, reused by every layer.
        let x = FloatStorage(count: tokens * hidden)
        let qkv = FloatStorage(count: tokens * 3 * hidden)
        let context = FloatStorage(count: tokens * hidden)
        let projected = FloatStorage(count: tokens * hidden)
        let intermediate = FloatStorage(count: tokens * inner)

        // Embeddings: word + position + token type (all type 0), then LayerNorm.
        for (sequence, ids) in sequences.enumerated() {
            for position in 0..<lengths[sequence] {
                let row = x.pointer + (starts[sequence] + position) * hidden
                let vocabularyIndex = min(max(Int(ids[position]), 0), configuration.vocabularySize - 1)
                let word = wordEmbeddings + vocabularyIndex * hidden
                let place = positionEmbeddings + position * hidden
                for i in 0..<hidden { row[i] = word[i] + place[i] + tokenTypeEmbeddings[i] }
            }
        }
        // The linear layers (half precision, bfloat16, int8), the attention and the element-wise
        // layers split over as many cores as BLAS may use.
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let threads = min(cores, BLAS.threadCount ?? cores)
        ms_add_layer_norm(
            x.pointer, nil, nil, Int32(tokens), Int32(hidden), embeddingNormGamma, embeddingNormBeta,
            configuration.layerNormEpsilon, Int32(threads))

        let scale = 1 / Float(headSize).squareRoot()
        let halfPrecision = usesHalfPrecision(tokens: tokens)
        let documentPrecision = !halfPrecision && documentKernels != MS_DOCUMENT_FLOAT32
        let copies = halfPrecision ? halfPrecisionLayers() : documentPrecision ? documentPrecisionLayers() : nil
        // Documents' attention in bfloat16 products too (queries keep float32).
        let bfloat16Attention = documentPrecision && usesBFloat16
        for (index, layer) in layers.enumerated() {
            let packed = copies?[index]
            // Q, K, V for every token at once.
            Self.linear(
                x.pointer, rows: tokens, inputs: hidden, weight: layer.qkvWeight, packed: packed?.qkv, threads: threads, bias: layer.qkvBias,
                outputs: 3 * hidden, into: qkv.pointer)
            // Attention, sequence by sequence (all heads in one fused kernel: scores, softmax and
            // the weighted values of a few rows at a time, in cache).
            if bfloat16Attention {
                for (sequence, length) in lengths.enumerated() where length > 0 {
                    ms_attention_bf16(
                        qkv.pointer + starts[sequence] * 3 * hidden, Int32(length), Int32(3 * hidden), Int32(hidden),
                        Int32(heads), scale, context.pointer + starts[sequence] * hidden, Int32(hidden), Int32(threads))
                }
            } else {
                // Every sequence's heads in one job on the team (a summary's 40 short sentences
                // were 40 jobs of a few microseconds each).
                ms_attention_batch(
                    qkv.pointer, starts32, lengths32, Int32(lengths.count), Int32(3 * hidden), Int32(hidden), Int32(heads), scale,
                    context.pointer, Int32(hidden), Int32(threads))
            }
            Self.linear(
                context.pointer, rows: tokens, inputs: hidden, weight: layer.attentionOutputWeight,
                packed: packed?.attentionOutput, threads: threads, bias: layer.attentionOutputBias, outputs: hidden, into: projected.pointer)
            ms_add_layer_norm(
                x.pointer, projected.pointer, nil, Int32(tokens), Int32(hidden), layer.attentionNormGamma, layer.attentionNormBeta,
                configuration.layerNormEpsilon, Int32(threads))
            // Feed-forward.
            Self.linear(
                x.pointer, rows: tokens, inputs: hidden, weight: layer.intermediateWeight,
                packed: packed?.intermediate, threads: threads, bias: layer.intermediateBias, outputs: inner, into: intermediate.pointer)
            ms_bias_gelu(intermediate.pointer, nil, Int32(tokens), Int32(inner), Int32(threads))
            Self.linear(
                intermediate.pointer, rows: tokens, inputs: inner, weight: layer.outputWeight,
                packed: packed?.output, threads: threads, bias: layer.outputBias, outputs: hidden, into: projected.pointer)
            ms_add_layer_norm(
                x.pointer, projected.pointer, nil, Int32(tokens), Int32(hidden), layer.outputNormGamma, layer.outputNormBeta,
                configuration.layerNormEpsilon, Int32(threads))
        }

        // Mean pooling over each sequence's tokens, then L2 normalisation.
        for (sequence, length) in lengths.enumerated() {
            let vector = output + sequence * hidden
            vector.initialize(repeating: 0, count: hidden)
            guard length > 0 else { continue }
            for position in 0..<length {
                let row = x.pointer + (starts[sequence] + position) * hidden
                for i in 0..<hidden { vector[i] += row[i] }
            }
            let inverseLength = 1 / Float(length)
            for i in 0..<hidden { vector[i] *= inverseLength }
            let norm = VectorMath.sumOfSquares(vector, hidden, minus: 0).squareRoot()
            let inverseNorm = 1 / max(norm, 1e-12)
            for i in 0..<hidden { vector[i] *= inverseNorm }
        }
    }

    /// output[rows × outputs] = input[rows × inputs] · weightᵀ + bias, weight stored outputs × inputs;
    /// from the half-precision or bfloat16 copy of the weights when there is one.
    private static func linear(
        _ input: UnsafePointer<Float>, rows: Int, inputs: Int,
        weight: UnsafePointer<Float>, packed: PackedWeights?, threads: Int, bias: UnsafePointer<Float>, outputs: Int,
        into output: UnsafeMutablePointer<Float>
    ) {
        if let packed {
            if packed.format == .int8 {
                ms_linear_int8_panels(
                    input, Int32(rows), Int32(inputs), packed.raw, bias, Int32(outputs), output, Int32(outputs),
                    Int32(threads), Int32(packed.int8Kernels))
            } else if packed.format == .int16 {
                ms_linear_int16_panels(
                    input, Int32(rows), Int32(inputs), packed.raw, bias, Int32(outputs), output, Int32(outputs),
                    Int32(threads), Int32(packed.int8Kernels))
            } else if packed.isBFloat16 {
                ms_linear_bf16_panels(
                    input, Int32(rows), Int32(inputs), packed.pointer, bias, Int32(outputs), output, Int32(outputs),
                    Int32(threads))
            } else {
                ms_linear_half_panels(
                    input, Int32(rows), Int32(inputs), packed.pointer, bias, Int32(outputs), output, Int32(outputs),
                    Int32(threads))
            }
            return
        }
        for row in 0..<rows {
            (output + row * outputs).update(from: bias, count: outputs)
        }
        BLAS.gemm(
            m: rows, n: outputs, k: inputs, a: input, lda: inputs, b: weight, ldb: inputs, transposeB: true,
            beta: 1, c: output, ldc: outputs)
    }

    /// The half-precision weights, converted from the float ones on first use.
    private func halfPrecisionLayers() -> [PackedLayer] {
        if let halfLayers { return halfLayers }
        let converted = packedLayers(format: .half)
        halfLayers = converted
        // Queries now read the half-precision copies: the float32 pages they were made from leave
        // the process until a document batch reads them again (a server that only searches stays lean).
        file.releaseResidentPages()
        return converted
    }

    /// The bfloat16 or int8 weights, converted from the float ones on first use.
    private func documentPrecisionLayers() -> [PackedLayer] {
        if let documentLayers { return documentLayers }
        let converted = packedLayers(format: usesBFloat16 ? .bfloat16 : .int8)
        documentLayers = converted
        // Documents now read the bfloat16 or int8 copies: the float32 weight pages can leave the process.
        file.releaseResidentPages()
        return converted
    }

    private func packedLayers(format: PackedWeights.Format) -> [PackedLayer] {
        let hidden = configuration.hiddenSize
        let inner = configuration.intermediateSize
        let kernels = documentKernels
        let float32 = format == .int8 ? Self.int8FloatLayers : []
        let wide = format == .int8 ? Self.int8WideLayers : []
        return layers.enumerated().map { i, layer in
            // A matrix left out runs on OpenBLAS in float32 (`linear` without a packed copy).
            func packed(_ name: String, _ weight: UnsafePointer<Float>, _ outputs: Int, _ inputs: Int) -> PackedWeights? {
                func named(_ names: Set<String>) -> Bool { names.contains(name) || names.contains("\(name)\(i)") }
                if named(float32) { return nil }
                return PackedWeights(packing: weight, outputs: outputs, inputs: inputs, format: named(wide) ? .int16 : format,
                                     int8Kernels: kernels)
            }
            return PackedLayer(
                qkv: packed("qkv", layer.qkvWeight, 3 * hidden, hidden),
                attentionOutput: packed("attn", layer.attentionOutputWeight, hidden, hidden),
                intermediate: packed("ffn1", layer.intermediateWeight, inner, hidden),
                output: packed("ffn2", layer.outputWeight, hidden, inner))
        }
    }
}

/// A linear layer's weight matrix packed for a kernel: IEEE half precision in panels of 16 outputs
/// for `ms_linear_half_panels`, bfloat16 pairs for `ms_linear_bf16_panels`, 7-bit integers with
/// their scales for `ms_linear_int8_panels`, or 13-bit ones for `ms_linear_int16_panels`; 64-byte
/// aligned, freed with its owner.
final class PackedWeights {
    enum Format {
        case half, bfloat16, int8, int16
    }

    let raw: UnsafeMutableRawPointer
    let format: Format
    /// The `MS_DOCUMENT_INT8_*` kernel an int8 matrix runs on.
    let int8Kernels: Int
    var isBFloat16: Bool { format == .bfloat16 }
    var pointer: UnsafeMutablePointer<UInt16> { raw.assumingMemoryBound(to: UInt16.self) }

    /// Packs `weight` (outputs × inputs, row-major float32).
    init(packing weight: UnsafePointer<Float>, outputs: Int, inputs: Int, format: Format = .half,
         int8Kernels: Int = MS_DOCUMENT_INT8_PORTABLE) {
        self.format = format
        self.int8Kernels = int8Kernels
        let bytes: Int
        switch format {
        case .half: bytes = ms_half_panels_count(Int32(outputs), Int32(inputs)) * 2
        case .bfloat16: bytes = ms_bf16_panels_count(Int32(outputs), Int32(inputs)) * 2
        case .int8: bytes = ms_int8_panels_bytes(Int32(outputs), Int32(inputs))
        case .int16: bytes = ms_int16_panels_bytes(Int32(outputs), Int32(inputs))
        }
        raw = UnsafeMutableRawPointer.allocate(byteCount: max(64, bytes), alignment: 64)
        switch format {
        case .half:
            ms_pack_half_panels(weight, Int32(outputs), Int32(inputs), raw.bindMemory(to: UInt16.self, capacity: bytes / 2))
        case .bfloat16:
            ms_pack_bf16_panels(weight, Int32(outputs), Int32(inputs), raw.bindMemory(to: UInt16.self, capacity: bytes / 2))
        case .int8:
            ms_pack_int8_panels(weight, Int32(outputs), Int32(inputs), raw)
        case .int16:
            ms_pack_int16_panels(weight, Int32(outputs), Int32(inputs), raw)
        }
    }

    deinit {
        raw.deallocate()
    }
}

/// A 64-byte-aligned float buffer freed with its owner.
final class FloatStorage {
    let pointer: UnsafeMutablePointer<Float>
    let count: Int

    /// Zeros.
    convenience init(count: Int) {
        self.init(uninitialized: count)
        pointer.initialize(repeating: 0, count: count)
    }

    /// A copy of `values` (written once: no zeroing first).
    convenience init(_ values: [Float]) {
        self.init(uninitialized: values.count)
        values.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { pointer.initialize(from: base, count: count) }
        }
    }

    private init(uninitialized count: Int) {
        self.count = count
        let raw = UnsafeMutableRawPointer.allocate(byteCount: max(1, count) * MemoryLayout<Float>.stride, alignment: 64)
        pointer = raw.bindMemory(to: Float.self, capacity: max(1, count))
    }

    deinit {
        pointer.deallocate()
    }
}
