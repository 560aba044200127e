import Foundation

/// Latency samples with percentiles.
struct Samples {
    var values: [Double] = []

    mutating func add(_ v: Double) { values.append(v) }

    func percentile(_ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count - 1)).rounded())
        return sorted[min(sorted.count - 1, max(0, rank))]
    }

    /// "p50=… p95=… (n=…)" in milliseconds.
    func summary(unit: String = "ms", scale: Double = 1) -> String {
        String(format: "p50=%.3f %@  p95=%.3f %@  (n=%d)", percentile(50) * scale, unit, percentile(95) * scale, unit, values.count)
    }
}

/// Milliseconds taken by `body`.
@inline(__always)
func measure(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

func measureAsync(_ body: () async throws -> Void) async rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try await body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

func report(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
