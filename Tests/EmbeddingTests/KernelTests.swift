import CKernels
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
}
