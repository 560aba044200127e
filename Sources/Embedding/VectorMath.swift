/// Element-wise kernels of the encoder, written as branch-free loops over raw buffers so that
/// the optimiser vectorises them.
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

    /// `row = LayerNorm(row + residual)` for `rows` rows of `width` floats (residual may be nil).
    static func addLayerNorm(
        _ x: UnsafeMutablePointer<Float>, residual: UnsafePointer<Float>?, rows: Int, width: Int,
        gamma: UnsafePointer<Float>, beta: UnsafePointer<Float>, epsilon: Float
    ) {
        for row in 0..<rows {
            let v = x + row * width
            if let residual {
                let r = residual + row * width
                for i in 0..<width { v[i] += r[i] }
            }
            let mean = sum(v, width) / Float(width)
            let variance = sumOfSquares(v, width, minus: mean) / Float(width)
            let scale = 1 / (variance + epsilon).squareRoot()
            for i in 0..<width {
                v[i] = (v[i] - mean) * scale * gamma[i] + beta[i]
            }
        }
    }

    /// GELU with the exact (erf) formulation: x · ½ · (1 + erf(x / √2)).
    static func gelu(_ x: UnsafeMutablePointer<Float>, _ count: Int) {
        let inverseSquareRootOfTwo: Float = 0.707_106_781_186_547_5
        for i in 0..<count {
            let value = x[i]
            x[i] = 0.5 * value * (1 + erf(value * inverseSquareRootOfTwo))
        }
    }

    /// erf as a rational function of x² on [-4, 4] (absolute error below 1e-7), saturated outside.
    @inline(__always)
    static func erf(_ input: Float) -> Float {
        let x = min(max(input, -4), 4)
        let x2 = x * x
        var p: Float = -2.726_142_258_013_06e-10
        p = p * x2 + 2.770_681_424_959_02e-08
        p = p * x2 - 2.101_024_020_825_08e-06
        p = p * x2 - 5.692_506_394_623_46e-05
        p = p * x2 - 7.349_906_303_268_55e-04
        p = p * x2 - 2.954_599_808_540_25e-03
        p = p * x2 - 1.609_603_332_624_15e-02
        p *= x
        var q: Float = -1.456_607_184_649_96e-05
        q = q * x2 - 2.133_740_552_789_05e-04
        q = q * x2 - 1.682_826_974_382_03e-03
        q = q * x2 - 7.373_329_167_204_68e-03
        q = q * x2 - 1.426_473_905_141_89e-02
        return p / q
    }

    /// e^x for x ≤ 0 (softmax inputs after subtracting the maximum): range reduction to
    /// 2^n · e^r with |r| ≤ ln2/2 and a degree-6 polynomial; relative error about 2e-7.
    /// n is rounded by adding 1.5·2^23, whose low mantissa bits then hold n.
    @inline(__always)
    static func expNonPositive(_ input: SIMD16<Float>) -> SIMD16<Float> {
        let x = input.replacing(with: -87, where: input .< -87)
        let shifted = x * 1.442_695_040_888_963_4 + 12_582_912
        let n = shifted - 12_582_912
        let r = (x - n * 0.693_145_751_953_125) - n * 1.428_606_765_330_187_0e-06
        var p = SIMD16<Float>(repeating: 1.0 / 720)
        p = p * r + 1.0 / 120
        p = p * r + 1.0 / 24
        p = p * r + 1.0 / 6
        p = p * r + 0.5
        p = p * r + 1
        p = p * r + 1
        let exponent = (unsafeBitCast(shifted, to: SIMD16<UInt32>.self) &- 0x4B40_0000 &+ 127) &<< 23
        return p * unsafeBitCast(exponent, to: SIMD16<Float>.self)
    }

    @inline(__always)
    static func expNonPositive(_ input: Float) -> Float {
        expNonPositive(SIMD16<Float>(repeating: input))[0]
    }

    /// Softmax of each of `rows` rows of `width` floats, in place.
    static func softmaxRows(_ x: UnsafeMutablePointer<Float>, rows: Int, width: Int) {
        let vectorWidth = width & ~15
        for row in 0..<rows {
            let v = x + row * width
            let raw = UnsafeMutableRawPointer(v)
            var maxima = SIMD16<Float>(repeating: -.infinity)
            var index = 0
            while index < vectorWidth {
                let values = raw.loadUnaligned(fromByteOffset: index * 4, as: SIMD16<Float>.self)
                maxima = maxima.replacing(with: values, where: values .> maxima)
                index += 16
            }
            var maximum = maxima.max()
            for i in vectorWidth..<width { maximum = max(maximum, v[i]) }
            var sums = SIMD16<Float>(repeating: 0)
            index = 0
            while index < vectorWidth {
                let values = raw.loadUnaligned(fromByteOffset: index * 4, as: SIMD16<Float>.self)
                let exponentials = expNonPositive(values - maximum)
                raw.storeBytes(of: exponentials, toByteOffset: index * 4, as: SIMD16<Float>.self)
                sums += exponentials
                index += 16
            }
            var total = sums.sum()
            for i in vectorWidth..<width {
                v[i] = expNonPositive(v[i] - maximum)
                total += v[i]
            }
            let inverse = 1 / total
            for i in 0..<width { v[i] *= inverse }
        }
    }
}
