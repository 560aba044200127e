import CKernels
@testable import Embedding
import XCTest

/// The int8 linear layers of document batches (`ms_linear_int8_panels`) and the choice of
/// document kernels (`MAILSEARCH_KERNELS`).
final class Int8KernelTests: XCTestCase {
    /// Odd shapes (inputs not a multiple of 64, outputs not a multiple of 16 or 48, rows not a
    /// multiple of 4), one and two threads: every int8 kernel this CPU runs gives the portable C
    /// kernel's floats bit for bit, which stay within 2.5 % (relative RMS) of the float32 product,
    /// and the columns past the outputs are left alone.
    func testInt8KernelsAgreeWithPortableAndFloat() throws {
        let worst = try worstErrorOfKernelsAgreeingWithPortable(
            bytes: ms_int8_panels_bytes, pack: ms_pack_int8_panels, linear: ms_linear_int8_panels)
        print("int8 linear: worst relative RMS error against float32: \(worst)")
        XCTAssertLessThan(worst, 0.025)
    }

    /// The same for the 13-bit products of the query, key and value projections
    /// (`ms_linear_int16_panels`): bit for bit the portable kernel's, within 0.1 % of float32 (int8:
    /// 2.5 %).
    func testInt16KernelsAgreeWithPortableAndFloat() throws {
        let worst = try worstErrorOfKernelsAgreeingWithPortable(
            bytes: ms_int16_panels_bytes, pack: ms_pack_int16_panels, linear: ms_linear_int16_panels)
        print("int16 linear: worst relative RMS error against float32: \(worst)")
        XCTAssertLessThan(worst, 0.001)
    }

    private func worstErrorOfKernelsAgreeingWithPortable(
        bytes: (Int32, Int32) -> Int,
        pack: (UnsafePointer<Float>, Int32, Int32, UnsafeMutableRawPointer) -> Void,
        linear: (UnsafePointer<Float>, Int32, Int32, UnsafeRawPointer, UnsafePointer<Float>, Int32,
                 UnsafeMutablePointer<Float>, Int32, Int32, Int32) -> Void
    ) throws -> Double {
        var kinds = [MS_DOCUMENT_INT8_PORTABLE]
        if ms_kernels_accelerated() != 0 { kinds.append(MS_DOCUMENT_INT8_AVX2) }
        if ms_kernels_vnni() != 0 { kinds.append(MS_DOCUMENT_INT8_VNNI) }
        var worst = 0.0
        for (outputs, inputs) in [(16, 8), (37, 100), (50, 384), (100, 20), (384, 1536), (1152, 384)] {
            let weights = (0..<(outputs * inputs)).map { Float(sin(Double($0) * 0.13)) * 0.1 }
            let bias = (0..<outputs).map { Float($0) * 0.01 }
            var packed = [UInt8](repeating: 0, count: bytes(Int32(outputs), Int32(inputs)) + 64)
            try packed.withUnsafeMutableBytes { raw in
                // 64-byte alignment, as PackedWeights gives it.
                let base = try XCTUnwrap(raw.baseAddress)
                let aligned = UnsafeMutableRawPointer(bitPattern: (Int(bitPattern: base) + 63) & ~63)!
                pack(weights, Int32(outputs), Int32(inputs), aligned)
                for rows in [1, 3, 5, 33, 100] {
                    // Activations with an outlier column, as after a LayerNorm.
                    let x = (0..<(rows * inputs)).map { Float(cos(Double($0) * 0.7)) * ($0 % inputs == 3 ? 9 : 1) }
                    let stride = outputs + 3
                    var first: [Float]?
                    for kind in kinds {
                        for threads in 1...2 {
                            var y = [Float](repeating: 12345, count: rows * stride)
                            linear(x, Int32(rows), Int32(inputs), aligned, bias, Int32(outputs), &y, Int32(stride),
                                   Int32(threads), Int32(kind))
                            if let first {
                                let different = zip(y, first).filter { $0.bitPattern != $1.bitPattern }.count
                                XCTAssertEqual(different, 0, "kind \(kind), \(threads) threads, \(rows)×\(inputs)→\(outputs): floats unlike the portable kernel's")
                            } else {
                                first = y
                                var error = 0.0, total = 0.0
                                for r in 0..<rows {
                                    for o in 0..<outputs {
                                        var sum = Double(bias[o])
                                        for i in 0..<inputs { sum += Double(x[r * inputs + i]) * Double(weights[o * inputs + i]) }
                                        error += (sum - Double(y[r * stride + o])) * (sum - Double(y[r * stride + o]))
                                        total += sum * sum
                                    }
                                    for o in outputs..<stride { XCTAssertEqual(y[r * stride + o], 12345) }
                                }
                                worst = max(worst, (error / max(total, 1e-30)).squareRoot())
                            }
                        }
                    }
                }
            }
        }
        return worst
    }

    /// `MAILSEARCH_KERNELS` picks each document path, falling back to float32 where the CPU lacks it;
    /// unset (or an unknown name), bfloat16 where the CPU has it, else int8 (VNNI, else AVX2), else float32.
    func testDispatcherChoosesEachPath() {
        let bf16 = ms_kernels_bf16() != 0, avx2 = ms_kernels_accelerated() != 0, vnni = ms_kernels_vnni() != 0
        let best: MiniLMEmbedder.DocumentKernels = bf16 ? .bfloat16 : vnni ? .int8VNNI : avx2 ? .int8AVX2 : .float32
        let expected: [(String?, MiniLMEmbedder.DocumentKernels)] = [
            (nil, best), ("unknown", best),
            ("float32", .float32), ("portable", .float32),
            ("bf16", bf16 ? .bfloat16 : .float32),
            ("int8-avx2", avx2 ? .int8AVX2 : .float32),
            ("int8-vnni", vnni ? .int8VNNI : .float32),
            ("int8", vnni ? .int8VNNI : avx2 ? .int8AVX2 : .float32),
            ("int8-portable", .int8Portable),
        ]
        for (name, kernels) in expected {
            XCTAssertEqual(MiniLMEmbedder.DocumentKernels.chosen(for: name), kernels, name ?? "(unset)")
        }
        XCTAssertEqual(MiniLMEmbedder.DocumentKernels.chosen(for: ProcessInfo.processInfo.environment["MAILSEARCH_KERNELS"]),
                       MiniLMEmbedder.DocumentKernels.current)
    }

    /// Every document path this CPU runs embeds the 298 reference texts (in batches larger than a
    /// query) close to sentence-transformers: float32 and bfloat16 cosine ≥ 0.9999, int8 (its query,
    /// key and value projections on 13 bits) ≥ 0.998 each and ≥ 0.999 on average (all on int8, 0.997
    /// and 0.9990); the int8 kernels give the same vectors as one another. (The portable
    /// int8 kernel, slow, runs the model only where no SIMD int8 kernel does: the test above holds it
    /// to them bit for bit.)
    func testEveryDocumentPathMatchesSentenceTransformers() throws {
        let directory = try ModelTestSupport.modelDirectory()
        let references = try ModelTestSupport.reference("embeddings")
        XCTAssertEqual(references.count, 298)
        var int8Vectors: [[Float]]?
        let simdInt8 = MiniLMEmbedder.DocumentKernels.int8AVX2.isSupported
        for kernels in MiniLMEmbedder.DocumentKernels.allCases where kernels.isSupported && !(kernels == .int8Portable && simdInt8) {
            let embedder = try MiniLMEmbedder(modelDirectory: directory, documentKernels: kernels)
            XCTAssertEqual(embedder.documentKernels, kernels)
            let vectors = try embedder.embed(references.map(\.text))
            let cosines = zip(references, vectors).map { cosine($0.embedding ?? [], $1) }
            let minimum = cosines.min() ?? 0, mean = cosines.reduce(0, +) / Double(cosines.count)
            print("document kernels \(kernels): cosine to the reference min \(minimum), mean \(mean)")
            let isInt8 = kernels == .int8AVX2 || kernels == .int8VNNI || kernels == .int8Portable
            XCTAssertGreaterThanOrEqual(minimum, isInt8 ? 0.998 : 0.9999, "\(kernels)")
            if isInt8 {
                XCTAssertGreaterThanOrEqual(mean, 0.999, "\(kernels)")
                if let int8Vectors {
                    XCTAssertEqual(vectors, int8Vectors, "\(kernels) against the other int8 kernels")
                }
                int8Vectors = vectors
            }
        }
    }
}
