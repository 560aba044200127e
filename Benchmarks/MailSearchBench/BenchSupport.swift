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

enum BenchSupport {
    /// "AMD EPYC …, 2 cores, avx2 fma f16c avx512f …": the CPU a figure was measured on (from
    /// /proc/cpuinfo: the model and the SIMD features the kernels choose by).
    static var cpuDescription: String {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "CPU unknown" }
        var model = "CPU", flags: Set<Substring> = []
        for line in text.split(separator: "\n") {
            if model == "CPU", line.hasPrefix("model name"), let v = line.split(separator: ":", maxSplits: 1).last {
                model = v.trimmingCharacters(in: .whitespaces)
            }
            if flags.isEmpty, line.hasPrefix("flags"), let v = line.split(separator: ":", maxSplits: 1).last {
                flags = Set(v.split(separator: " "))
            }
        }
        let wanted = ["avx2", "fma", "f16c", "avx512f", "avx512_vnni", "avx512_bf16"].filter { flags.contains(Substring($0)) }
        return "\(model), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(wanted.joined(separator: " "))"
    }
}
