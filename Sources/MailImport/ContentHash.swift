/// A 128-bit content hash (two independent 64-bit FNV-1a variants) used as the identity of
/// messages that carry no Message-ID. Stable across runs and platforms.
enum ContentHash {
    static func hex(_ bytes: [UInt8]) -> String {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325
        var b: UInt64 = 0x8422_2325_cbf2_9ce4 ^ UInt64(bytes.count)
        for byte in bytes {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            b = (b &+ UInt64(byte) &+ 0x9e37) &* 0xff51_afd7_ed55_8ccd
            b ^= b >> 29
        }
        return hex64(a) + hex64(b)
    }

    private static func hex64(_ v: UInt64) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}
