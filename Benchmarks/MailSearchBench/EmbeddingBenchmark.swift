import Embedding
import Foundation

/// Measures the encoder: query latency, indexing throughput, and how close its matrix products
/// come to this machine's single-precision GEMM peak.
enum EmbeddingBenchmark {
    static func run(modelDirectory: URL, documents: [String], queries: [String]) throws {
        let embedder = try queryOnly(modelDirectory: modelDirectory, queries: queries)

        // Indexing throughput on documents cut at 256 tokens.
        let tokenized = documents.map(embedder.tokenize)
        let lengths = tokenized.map(\.count)
        _ = embedder.embed(tokenized: Array(tokenized.prefix(8)))
        let indexStart = DispatchTime.now()
        _ = embedder.embed(tokenized: tokenized)
        let seconds = milliseconds(since: indexStart) / 1000
        let tokenizeStart = DispatchTime.now()
        _ = documents.map(embedder.tokenize)
        let tokenizeSeconds = milliseconds(since: tokenizeStart) / 1000
        let flops = 2 * Double(embedder.multiplyAdds(lengths: lengths))
        report(String(
            format: "indexing: %.1f docs/s (%d docs, %.0f tokens on average, %.2f s; tokenizing adds %.3f s)",
            Double(documents.count) / seconds, documents.count,
            Double(lengths.reduce(0, +)) / Double(max(1, documents.count)), seconds, tokenizeSeconds))
        report(String(format: "encoder matrix products: %.1f GFLOP/s achieved while indexing", flops / seconds / 1e9))

        // Peak: square sgemm large enough to reach the library's best kernel.
        let peak = gemmPeak()
        report(String(format: "sgemm peak on this machine: %.1f GFLOP/s (n = %d); encoder reaches %.0f%%",
                     peak.gflops, peak.size, 100 * flops / seconds / 1e9 / peak.gflops))
        // The shapes the encoder uses while indexing (256-token documents).
        let shapes = [(256, 1152, 384), (256, 1536, 384), (256, 384, 1536)]
        for (m, n, k) in shapes {
            report(String(format: "sgemm %d×%d×%d (encoder shape): %.1f GFLOP/s", m, n, k, gemm(m: m, n: n, k: k)))
        }
    }

    /// Query latency, one query per call, as a search does: on the half-precision query kernels
    /// (the default), then on the float32 BLAS path that indexing uses. Returns the embedder.
    @discardableResult
    static func queryOnly(modelDirectory: URL, queries: [String]) throws -> MiniLMEmbedder {
        let loadStart = DispatchTime.now()
        let embedder = try MiniLMEmbedder(modelDirectory: modelDirectory)
        let threads = BLAS.threadCount.map(String.init) ?? "Accelerate"
        report("== Embedding (all-MiniLM-L6-v2, BLAS threads: \(threads), kernels: \(BLAS.kernelName ?? "Accelerate")) ==")
        report(String(format: "model load: %.1f ms", milliseconds(since: loadStart)))
        // Query latency, one query per call, as a search does: on the half-precision query
        // kernels (the default), then on the float32 BLAS path that indexing uses.
        let queryTokens = queries.map { embedder.tokenize($0).count }
        let route = embedder.usesHalfPrecision(tokens: queryTokens.max() ?? 0)
            ? "half-precision AVX2/FMA/F16C query kernels" : "float32 BLAS (no AVX2/FMA/F16C)"
        let latencies = queryLatencies(embedder, queries)
        report(String(
            format: "query embedding (%@): p50 %.2f ms, p95 %.2f ms (%d queries, %d–%d tokens, %d runs)",
            route, percentile(latencies, 0.50), percentile(latencies, 0.95), queries.count,
            queryTokens.min() ?? 0, queryTokens.max() ?? 0, latencies.count))
        let floatEmbedder = try MiniLMEmbedder(modelDirectory: modelDirectory, halfPrecisionTokenLimit: 0)
        let floatLatencies = queryLatencies(floatEmbedder, queries)
        report(String(
            format: "query embedding (float32 BLAS path, for comparison): p50 %.2f ms, p95 %.2f ms",
            percentile(floatLatencies, 0.50), percentile(floatLatencies, 0.95)))
        return embedder
    }

    /// Latency of embedding each query alone, after a warm-up, over about 200 runs
    /// (`BENCH_QUERY_RUNS` sets another number, for profiling).
    static func queryLatencies(_ embedder: MiniLMEmbedder, _ queries: [String]) -> [Double] {
        for query in queries.prefix(5) { _ = try? embedder.embed([query]) }
        var latencies: [Double] = []
        let runs = Int(ProcessInfo.processInfo.environment["BENCH_QUERY_RUNS"] ?? "") ?? 200
        let rounds = max(1, runs / max(queries.count, 1))
        for _ in 0..<rounds {
            for query in queries {
                let start = DispatchTime.now()
                _ = try? embedder.embed([query])
                latencies.append(milliseconds(since: start))
            }
        }
        return latencies
    }

    static func gemmPeak() -> (gflops: Double, size: Int) {
        var best = (0.0, 0)
        for size in [512, 1024, 1536] {
            let gflops = gemm(m: size, n: size, k: size)
            if gflops > best.0 { best = (gflops, size) }
        }
        return best
    }

    /// GFLOP/s of C = A·Bᵀ with the encoder's layout, best of a few runs.
    static func gemm(m: Int, n: Int, k: Int) -> Double {
        let a = [Float](repeating: 0.5, count: m * k)
        let b = [Float](repeating: 0.25, count: n * k)
        var c = [Float](repeating: 0, count: m * n)
        var best = Double.infinity
        let repeats = max(3, Int(2e9 / Double(2 * m * n * k)))
        for run in 0..<(repeats + 1) {
            let start = DispatchTime.now()
            BLAS.multiply(m: m, n: n, k: k, a: a, b: b, into: &c)
            let elapsed = milliseconds(since: start) / 1000
            if run > 0 { best = min(best, elapsed) }
        }
        return 2 * Double(m) * Double(n) * Double(k) / best / 1e9
    }

    static func milliseconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6
    }

    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
    }
}
