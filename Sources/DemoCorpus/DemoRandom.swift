/// xoshiro256** seeded through SplitMix64: the same numbers on every platform,
/// unlike Foundation's or the standard library's system generators.
struct DemoRandom: Sendable {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64

    init(seed: UInt64) {
        var state = seed
        s0 = DemoRandom.splitMix(&state)
        s1 = DemoRandom.splitMix(&state)
        s2 = DemoRandom.splitMix(&state)
        s3 = DemoRandom.splitMix(&state)
    }

    static func splitMix(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A well-mixed 64-bit hash of two values, for identifiers that must not depend on the stream.
    static func hash(_ a: UInt64, _ b: UInt64) -> UInt64 {
        var state = a ^ (b &* 0xD6E8_FEB8_6659_FD93)
        return splitMix(&state)
    }

    @inline(__always)
    mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = (s3 << 45) | (s3 >> 19)
        return result
    }

    /// A number in `0..<bound` (`bound` > 0).
    @inline(__always)
    mutating func below(_ bound: Int) -> Int {
        Int(truncatingIfNeeded: next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// A number in `low...high`.
    @inline(__always)
    mutating func between(_ low: Int, _ high: Int) -> Int {
        low + below(high - low + 1)
    }

    /// A number in [0, 1).
    @inline(__always)
    mutating func unit() -> Double {
        Double(next() >> 11) * (1.0 / 9_007_199_254_740_992.0)
    }

    @inline(__always)
    mutating func chance(_ probability: Double) -> Bool {
        unit() < probability
    }

    @inline(__always)
    mutating func pick<T>(_ items: [T]) -> T {
        items[below(items.count)]
    }
}
