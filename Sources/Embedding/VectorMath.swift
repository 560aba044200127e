/// Sums over raw float buffers, written so that the optimiser vectorises them (the encoder's
/// element-wise kernels are in CKernels: `ms_add_layer_norm`, `ms_bias_gelu`, `ms_attention`).
enum VectorMath {
    /// The sum of `count` floats, with eight independent accumulators.
    @inline(__always)
    static func sum(_ x: UnsafePointer<Float>, _ count: Int) -> Float {
        var accumulator = SIMD8<Float>(repeating: 0)
        var index = 0
        let raw = UnsafeRawPointer(x)
        while index + 8 <= count {
            accumulator += raw.loadUnaligned(fromByteOffset: index * 4, as: SIMD8<Float>.self)
            index += 8
        }
        var total = accumulator.sum()
        while index < count {
            total += x[index]
            index += 1
        }
        return total
    }

    /// The sum of squares of `x[i] - offset`.
    @inline(__always)
    static func sumOfSquares(_ x: UnsafePointer<Float>, _ count: Int, minus offset: Float) -> Float {
        var accumulator = SIMD8<Float>(repeating: 0)
        let shift = SIMD8<Float>(repeating: offset)
        var index = 0
        let raw = UnsafeRawPointer(x)
        while index + 8 <= count {
            let centred = raw.loadUnaligned(fromByteOffset: index * 4, as: SIMD8<Float>.self) - shift
            accumulator += centred * centred
            index += 8
        }
        var total = accumulator.sum()
        while index < count {
            let centred = x[index] - offset
            total += centred * centred
            index += 1
        }
        return total
    }
}
