import CKernels
import Foundation
import XCTest

/// The C kernels on shapes the model never uses (outputs not a multiple of the 16-wide panel,
/// inputs not a multiple of 8, 1–13 rows), one to three threads, against plain Swift loops.
final class KernelTests: XCTestCase {
    private static func halfRounded(_ value: Float) -> Float {
        var input = value, half: UInt16 = 0, output: Float = 0
        ms_float_to_half(&input, &half, 1)
        ms_half_to_float(&half, &output, 1)
        return output
    }

    /// Which thread ran each part of a team job (pthread ids), filled by `recordThread`.
    private final class PartThreads: @unchecked Sendable {
        var threads: [pthread_t?]
        init(parts: Int) { threads = Array(repeating: nil, count: parts) }
    }

    private static let recordThread: ms_team_task = { context, part in
        let parts = Unmanaged<PartThreads>.fromOpaque(context!).takeUnretainedValue()
        // Long enough for the helpers to take their share when they may.
        var x = 0.0
        for i in 0..<200_000 { x += sin(Double(i)) }
        if x.isNaN { return }
        parts.threads[Int(part)] = pthread_self()
    }

    private static func runTeamJob(parts count: Int) -> Set<UInt> {
        let parts = PartThreads(parts: count)
        ms_team_run(Int32(count), recordThread, Unmanaged.passUnretained(parts).toOpaque())
        return Set(parts.threads.map { UInt($0!) })
    }

    /// A thread that asked for it (the background summaries') runs its jobs alone; others use the team.
    func testAThreadSetToRunAloneNeverUsesTheTeam() {
        let helped = LockedResult()
        let alone = LockedResult()
        let normal = Thread { helped.set(Self.runTeamJob(parts: 8)); }
        let serial = Thread {
            ms_team_serial_on_this_thread(1)
            alone.set(Self.runTeamJob(parts: 8))
            ms_team_serial_on_this_thread(0)
        }
        normal.start()
        while helped.value == nil { Thread.sleep(forTimeInterval: 0.01) }
        serial.start()
        while alone.value == nil { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertGreaterThan(helped.value!.count, 1, "the team's helpers took parts of an ordinary thread's job")
        XCTAssertEqual(alone.value!.count, 1, "every part ran on the thread set to run alone")
    }

    private final class LockedResult: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Set<UInt>?
        var value: Set<UInt>? { lock.withLock { stored } }
        func set(_ value: Set<UInt>) { lock.withLock { stored = value } }
    }

    func testHalfConversionRoundsToNearestEven() {
        XCTAssertEqual(Self.halfRounded(1), 1)
        XCTAssertEqual(Self.halfRounded(65504), 65504)
        XCTAssertEqual(Self.halfRounded(1e6), .infinity)
        XCTAssertEqual(Self.halfRounded(-2.5e-8), 0)  // below half the smallest subnormal
        XCTAssertEqual(Self.halfRounded(1 + 1.0 / 2048), 1)  // a tie rounds to even
        XCTAssertEqual(Self.halfRounded(1 + 3.0 / 2048), 1 + 2.0 / 1024)
        XCTAssertEqual(Self.halfRounded(5.960_464_5e-8), 5.960_464_5e-8)  // smallest subnormal
        XCTAssertTrue(Self.halfRounded(.nan).isNaN)
    }

    func testLinearHalfPanelsMatchesPlainLoops() {
        var worst: Float = 0
        for (outputs, inputs) in [(16, 8), (37, 24), (50, 384), (384, 20)] {
            let weights = (0..<(outputs * inputs)).map { Float(sin(Double($0) * 0.13)) }
            let bias = (0..<outputs).map { Float($0) * 0.01 }
            var panels = [UInt16](repeating: 0, count: ms_half_panels_count(Int32(outputs), Int32(inputs)))
            ms_pack_half_panels(weights, Int32(outputs), Int32(inputs), &panels)
            let rounded = weights.map(Self.halfRounded)
            for rows in 1...13 {
                let x = (0..<(rows * inputs)).map { Float(cos(Double($0) * 0.7)) }
                for threads in 1...3 {
                    let stride = outputs + 3  // the columns past `outputs` must stay untouched
                    var y = [Float](repeating: 12345, count: rows * stride)
                    ms_linear_half_panels(
                        x, Int32(rows), Int32(inputs), panels, bias, Int32(outputs), &y, Int32(stride), Int32(threads))
                    for r in 0..<rows {
                        for o in 0..<outputs {
                            var sum = Double(bias[o])
                            for i in 0..<inputs { sum += Double(x[r * inputs + i]) * Double(rounded[o * inputs + i]) }
                            worst = max(worst, abs(Float(sum) - y[r * stride + o]))
                        }
                        for o in outputs..<stride { XCTAssertEqual(y[r * stride + o], 12345) }
                    }
                }
            }
        }
        XCTAssertLessThan(worst, 1e-4)
    }

    /// float → bfloat16, round to nearest, ties to even (as `ms_pack_bf16_panels` and the kernel do).
    static func bfloat16Rounded(_ value: Float) -> Float {
        var bits = value.bitPattern
        bits = bits &+ 0x7fff &+ ((bits >> 16) & 1)
        return Float(bitPattern: bits & 0xffff_0000)
    }

    /// Odd shapes (inputs odd, outputs not a multiple of 16 or 64, rows not a multiple of 4 or
    /// 32), several threads: the bfloat16 kernel equals the sums of the bfloat16-rounded
    /// products, and leaves the columns past its outputs alone.
    func testLinearBFloat16PanelsMatchesPlainLoops() throws {
        guard ms_kernels_bf16() != 0 else { throw XCTSkip("no AVX-512 BF16 on this CPU: documents use float32 BLAS") }
        var worst: Float = 0
        for (outputs, inputs) in [(16, 8), (37, 25), (50, 384), (100, 20), (384, 1536)] {
            let weights = (0..<(outputs * inputs)).map { Float(sin(Double($0) * 0.13)) }
            let bias = (0..<outputs).map { Float($0) * 0.01 }
            var panels = [UInt16](repeating: 0, count: ms_bf16_panels_count(Int32(outputs), Int32(inputs)))
            ms_pack_bf16_panels(weights, Int32(outputs), Int32(inputs), &panels)
            let w = weights.map(Self.bfloat16Rounded)
            for rows in [1, 3, 4, 5, 31, 33, 70] {
                let x = (0..<(rows * inputs)).map { Float(cos(Double($0) * 0.7)) }
                let xb = x.map(Self.bfloat16Rounded)
                for threads in 1...2 {
                    let stride = outputs + 3
                    var y = [Float](repeating: 12345, count: rows * stride)
                    ms_linear_bf16_panels(
                        x, Int32(rows), Int32(inputs), panels, bias, Int32(outputs), &y, Int32(stride), Int32(threads))
                    for r in 0..<rows {
                        for o in 0..<outputs {
                            var sum = Double(bias[o])
                            for i in 0..<inputs { sum += Double(xb[r * inputs + i]) * Double(w[o * inputs + i]) }
                            worst = max(worst, abs(Float(sum) - y[r * stride + o]) / max(1, abs(Float(sum))))
                        }
                        for o in outputs..<stride { XCTAssertEqual(y[r * stride + o], 12345) }
                    }
                }
            }
        }
        XCTAssertLessThan(worst, 1e-4)
    }

    func testInt8Quantization() {
        for count in [8, 13, 384] {
            let vector = (0..<count).map { Float(sin(Double($0) * 1.7)) * 0.3 }
            var bytes = [Int8](repeating: 99, count: count)
            let step = ms_quantize_int8(vector, count, &bytes)
            let largest = vector.map(\.magnitude).max()!
            XCTAssertEqual(step, largest / 127, accuracy: 1e-9)
            for (value, byte) in zip(vector, bytes) {
                XCTAssertEqual(Int(byte), Int((value * (127 / largest)).rounded(.toNearestOrEven)), "count \(count)")
            }
        }
        var bytes = [Int8](repeating: 99, count: 8)
        XCTAssertEqual(ms_quantize_int8([Float](repeating: 0, count: 8), 8, &bytes), 0)
        XCTAssertEqual(bytes, [Int8](repeating: 0, count: 8))
        XCTAssertEqual(ms_quantize_int8([1, .nan, 0, 0, 0, 0, 0, 0], 8, &bytes), 0, "a NaN gives a zero row")
        XCTAssertEqual(ms_quantize_int8([1, -.infinity, 0, 0, 0, 0, 0, 0], 8, &bytes), 0)
    }

    func testInt8DotProducts() {
        for dimension in [32, 40, 384] {
            let rows = 7
            let matrix = (0..<(rows * dimension)).map { Int8(truncatingIfNeeded: ($0 * 37) % 255 - 127) }
            let query = (0..<dimension).map { Int16(truncatingIfNeeded: $0 * 511 - 16000) }
            var out = [Int32](repeating: 0, count: rows)
            ms_dot_int8(matrix, rows, dimension, query, &out)
            for r in 0..<rows {
                let expected = (0..<dimension).reduce(Int32(0)) { $0 + Int32(matrix[r * dimension + $1]) * Int32(query[$1]) }
                XCTAssertEqual(out[r], expected, "dimension \(dimension), row \(r)")
            }
        }
    }

    /// Attention of one sequence (every length from 1 to 40, and 130; 1 and 3 threads) against
    /// plain loops: softmax(scale · QKᵀ) · V head by head, with rows of Q, K, V side by side.
    func testAttentionMatchesPlainLoops() {
        let hidden = 64, heads = 2, d = hidden / heads, stride = 3 * hidden + 5
        let scale = 1 / Float(d).squareRoot()
        var worst: Float = 0
        for length in Array(1...40) + [130] {
            let qkv = (0..<(length * stride)).map { Float(sin(Double($0) * 0.37)) * 2 }
            for threads in [1, 3] {
                let ldc = hidden + 3  // the columns past `hidden` must stay untouched
                var context = [Float](repeating: 12345, count: length * ldc)
                ms_attention(qkv, Int32(length), Int32(stride), Int32(hidden), Int32(heads), scale, &context, Int32(ldc), Int32(threads))
                for head in 0..<heads {
                    for i in 0..<length {
                        var scores = (0..<length).map { j in
                            (0..<d).reduce(0.0) { $0 + Double(qkv[i * stride + head * d + $1]) * Double(qkv[j * stride + hidden + head * d + $1]) } * Double(scale)
                        }
                        let maximum = scores.max()!
                        scores = scores.map { exp($0 - maximum) }
                        let total = scores.reduce(0, +)
                        for c in 0..<d {
                            let expected = (0..<length).reduce(0.0) { $0 + scores[$1] / total * Double(qkv[$1 * stride + 2 * hidden + head * d + c]) }
                            worst = max(worst, abs(Float(expected) - context[i * ldc + head * d + c]))
                        }
                    }
                }
                for i in 0..<length {
                    for c in hidden..<ldc { XCTAssertEqual(context[i * ldc + c], 12345) }
                }
            }
        }
        XCTAssertLessThan(worst, 1e-5)
    }

    /// A batch's attention in one job (`ms_attention_batch`: (sequence, head) pairs split over the
    /// team by cost) gives every sequence exactly what `ms_attention` gives it alone, on 1–3 threads;
    /// rows between and after the sequences stay untouched.
    func testBatchAttentionIsEachSequencesAttention() {
        let hidden = 64, heads = 4, d = hidden / heads, stride = 3 * hidden + 5, ldc = hidden + 3
        let scale = 1 / Float(d).squareRoot()
        for lengths in [[1], [7, 0, 33, 2, 130, 16], (1...60).map { ($0 * 7) % 41 + 1 }] {
            var starts: [Int32] = [], row = 0
            for length in lengths {
                starts.append(Int32(row))
                row += length + 1  // a row between sequences that no sequence owns
            }
            let qkv = (0..<(row * stride)).map { Float(sin(Double($0) * 0.37)) * 2 }
            var alone = [Float](repeating: 12345, count: row * ldc)
            for (i, length) in lengths.enumerated() where length > 0 {
                alone.withUnsafeMutableBufferPointer { out in
                    qkv.withUnsafeBufferPointer { input in
                        ms_attention(input.baseAddress! + Int(starts[i]) * stride, Int32(length), Int32(stride), Int32(hidden), Int32(heads),
                                     scale, out.baseAddress! + Int(starts[i]) * ldc, Int32(ldc), 1)
                    }
                }
            }
            for threads in [1, 2, 3] {
                var batch = [Float](repeating: 12345, count: row * ldc)
                ms_attention_batch(qkv, starts, lengths.map { Int32($0) }, Int32(lengths.count), Int32(stride), Int32(hidden), Int32(heads),
                                   scale, &batch, Int32(ldc), Int32(threads))
                XCTAssertEqual(batch, alone, "lengths \(lengths), \(threads) threads")
            }
        }
    }

    /// The element-wise layers and the int8 layer split over the team give what one thread gives.
    func testRowsSplitOverThreadsChangeNothing() {
        let rows = 700, width = 384
        let x = (0..<(rows * width)).map { Float(sin(Double($0) * 0.53)) * 3 + 1 }
        let residual = (0..<(rows * width)).map { Float(cos(Double($0) * 0.29)) }
        let bias = (0..<width).map { Float($0 % 5) * 0.2 }
        let gamma = (0..<width).map { 1 + Float($0 % 3) * 0.1 }
        let beta = (0..<width).map { Float($0 % 4) * -0.05 }
        var one = x, two = x
        ms_bias_gelu(&one, bias, Int32(rows), Int32(width), 1)
        ms_bias_gelu(&two, bias, Int32(rows), Int32(width), 2)
        XCTAssertEqual(one, two)
        one = x
        two = x
        ms_add_layer_norm(&one, residual, bias, Int32(rows), Int32(width), gamma, beta, 1e-12, 1)
        ms_add_layer_norm(&two, residual, bias, Int32(rows), Int32(width), gamma, beta, 1e-12, 3)
        XCTAssertEqual(one, two)
    }

    /// The bfloat16 attention (documents) against plain loops over the same roundings: scores
    /// from bfloat16 queries and keys, softmax numerators and values rounded to bfloat16, sums
    /// and the softmax in float32. Every length from 1 to 40, 130 and 256; 1 and 3 threads.
    func testAttentionBFloat16MatchesPlainLoops() throws {
        guard ms_kernels_bf16() != 0 else { throw XCTSkip("no AVX-512 BF16 on this CPU: documents use float32 attention") }
        let hidden = 64, heads = 2, d = hidden / heads, stride = 3 * hidden + 5
        let scale = 1 / Float(d).squareRoot()
        let round = Self.bfloat16Rounded
        var worst: Double = 0
        for length in Array(1...40) + [130, 256] {
            let qkv = (0..<(length * stride)).map { Float(sin(Double($0) * 0.37)) * 2 }
            for threads in [1, 3] {
                let ldc = hidden + 3  // the columns past `hidden` must stay untouched
                var context = [Float](repeating: 12345, count: length * ldc)
                ms_attention_bf16(
                    qkv, Int32(length), Int32(stride), Int32(hidden), Int32(heads), scale, &context, Int32(ldc), Int32(threads))
                for head in 0..<heads {
                    for i in 0..<length {
                        var scores = (0..<length).map { j in
                            (0..<d).reduce(0.0) {
                                $0 + Double(round(qkv[i * stride + head * d + $1])) * Double(round(qkv[j * stride + hidden + head * d + $1]))
                            } * Double(scale)
                        }
                        let maximum = scores.max()!
                        scores = scores.map { exp($0 - maximum) }
                        let total = scores.reduce(0, +)
                        for c in 0..<d {
                            let expected = (0..<length).reduce(0.0) {
                                $0 + Double(round(Float(scores[$1]))) * Double(round(qkv[$1 * stride + 2 * hidden + head * d + c]))
                            } / total
                            worst = max(worst, abs(expected - Double(context[i * ldc + head * d + c])))
                        }
                    }
                }
                for i in 0..<length {
                    for c in hidden..<ldc { XCTAssertEqual(context[i * ldc + c], 12345) }
                }
            }
        }
        XCTAssertLessThan(worst, 2e-3)
    }

    func testGeluMatchesErfFormula() {
        for width in [8, 13, 1536] {
            let rows = 3
            let bias = (0..<width).map { Float($0 % 7) * 0.1 - 0.3 }
            let input = (0..<(rows * width)).map { Float(sin(Double($0) * 0.91)) * 6 }
            var output = input
            ms_bias_gelu(&output, bias, Int32(rows), Int32(width), 1)
            for (index, value) in input.enumerated() {
                let x = Double(value + bias[index % width])
                let expected = 0.5 * x * (1 + erf(x / 2.0.squareRoot()))
                XCTAssertEqual(Double(output[index]), expected, accuracy: 2e-6, "width \(width), x \(x)")
            }
            var unbiased = input
            ms_bias_gelu(&unbiased, nil, Int32(rows), Int32(width), 1)
            XCTAssertEqual(Double(unbiased[5]), 0.5 * Double(input[5]) * (1 + erf(Double(input[5]) / 2.0.squareRoot())), accuracy: 2e-6)
        }
    }

    func testAddLayerNormMatchesPlainLoops() {
        for width in [8, 12, 384] {
            let rows = 4
            let x = (0..<(rows * width)).map { Float(sin(Double($0) * 0.53)) * 3 + 1 }
            let residual = (0..<(rows * width)).map { Float(cos(Double($0) * 0.29)) }
            let bias = (0..<width).map { Float($0 % 5) * 0.2 }
            let gamma = (0..<width).map { 1 + Float($0 % 3) * 0.1 }
            let beta = (0..<width).map { Float($0 % 4) * -0.05 }
            var output = x
            ms_add_layer_norm(&output, residual, bias, Int32(rows), Int32(width), gamma, beta, 1e-12, 1)
            for r in 0..<rows {
                let v = (0..<width).map { Double(x[r * width + $0] + residual[r * width + $0] + bias[$0]) }
                let mean = v.reduce(0, +) / Double(width)
                let variance = v.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(width)
                for i in 0..<width {
                    let expected = (v[i] - mean) / (variance + 1e-12).squareRoot() * Double(gamma[i]) + Double(beta[i])
                    XCTAssertEqual(Double(output[r * width + i]), expected, accuracy: 1e-5, "width \(width)")
                }
            }
        }
    }
}
