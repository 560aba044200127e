import Embedding
import Foundation
import MailParsing
import SearchEngine

/// Measures the encoder: query latency, indexing throughput on real mail, and how close indexing
/// comes to this machine's single-precision GEMM peak, measured in the same run.
///
/// FLOPs are counted as 2 × the multiply-adds of the encoder's matrix products on the exact,
/// unpadded token counts (texts cut at 256 tokens): per layer and token the four linear layers
/// (Q/K/V, attention output, intermediate, output: 4·h² + 2·h·i multiply-adds), per layer and
/// sequence of L tokens the two attention products QKᵀ and PV (2·L²·h). Softmax, LayerNorm, GELU,
/// embeddings, pooling and tokenizing count for nothing but take time: "effective GFLOP/s" is
/// that count over the wall-clock time of the whole `embed` (tokenizing included).
enum EmbeddingBenchmark {
    /// `mailsearch-bench embed`: query latency, then indexing of real mail as `mailsearch index embed`
    /// runs it (one encoder per core on one BLAS thread each, batches of 64 per encoder), each run
    /// between two measurements of the sgemm peak with every core; then one encoder on every core.
    /// `BENCH_EMBED_DOCS` (default 400) sets the number of emails, `BENCH_EMBED_RUNS` (default 3)
    /// the runs, `BENCH_EMBED_CORPUS` the mail folder (default corpora/enron-inbox/maildir).
    static func run(modelDirectory: URL, queries: [String]) throws {
        let environment = ProcessInfo.processInfo.environment
        let cores = ProcessInfo.processInfo.activeProcessorCount
        if environment["BENCH_EMBED_SKIP_QUERIES"] != "1" {
            try queryOnly(modelDirectory: modelDirectory, queries: queries)
        }
        let corpus = environment["BENCH_EMBED_CORPUS"] ?? "corpora/enron-inbox/maildir"
        let wanted = Int(environment["BENCH_EMBED_DOCS"] ?? "") ?? 400
        let runs = Int(environment["BENCH_EMBED_RUNS"] ?? "") ?? 3
        let documents = try realMail(folder: corpus, count: wanted)

        BLAS.setThreadCount(1)
        let embedders = try (0..<cores).map { _ in try MiniLMEmbedder(modelDirectory: modelDirectory) }
        let lengths = documents.map { embedders[0].tokenize($0).count }
        let sorted = lengths.sorted()
        let capped = lengths.filter { $0 >= embedders[0].tokenizer.maxLength }.count
        report(String(
            format: "documents: %d real emails from %@ (subject, sender name, first 2,000 body characters, as `index embed` reads them); tokens: mean %.0f, p5 %d, p50 %d, p95 %d, %d%% cut at %d",
            documents.count, corpus, Double(lengths.reduce(0, +)) / Double(max(1, lengths.count)),
            sorted[sorted.count * 5 / 100], sorted[sorted.count / 2], sorted[min(sorted.count - 1, sorted.count * 95 / 100)],
            100 * capped / max(1, lengths.count), embedders[0].tokenizer.maxLength))
        let flops = 2 * Double(embedders[0].multiplyAdds(lengths: lengths))
        report(String(format: "work: %.2f GFLOP (%.2f per email; 2 × multiply-adds of the matrix products, see EmbeddingBenchmark)",
                      flops / 1e9, flops / 1e9 / Double(documents.count)))

        // Warm-up: page in the weights of every encoder.
        _ = try EmbeddingIndexer.embedInParallel(Array(documents.prefix(4 * cores)), embedders: embedders)

        var rates: [Double] = []
        var ratios: [Double] = []
        var cpuRatios: [Double] = []
        var peaks: [Double] = []
        for run in 1...max(1, runs) {
            BLAS.setThreadCount(cores)
            let before = gemmPeak().gflops
            BLAS.setThreadCount(1)
            let threadPeakBefore = gemmPeak(cpuTime: true).gflops
            let machineBefore = machineBusySeconds(), ownBefore = processCPUSeconds()
            let start = DispatchTime.now()
            for first in stride(from: 0, to: documents.count, by: 64 * cores) {
                let batch = Array(documents[first..<min(documents.count, first + 64 * cores)])
                _ = try EmbeddingIndexer.embedInParallel(batch, embedders: embedders)
            }
            let seconds = milliseconds(since: start) / 1000
            let own = processCPUSeconds() - ownBefore
            let others = max(0, machineBusySeconds() - machineBefore - own)
            let threadPeak = max(threadPeakBefore, gemmPeak(cpuTime: true).gflops)
            BLAS.setThreadCount(cores)
            let after = gemmPeak().gflops
            let peak = max(before, after)
            let achieved = flops / seconds / 1e9
            rates.append(Double(documents.count) / seconds)
            ratios.append(achieved / peak)
            cpuRatios.append(flops / own / 1e9 / threadPeak)
            peaks.append(peak)
            report(String(
                format: "run %d: indexing with %d encoders × 1 BLAS thread (as `index embed` runs): %.1f docs/s, %.1f effective GFLOP/s; sgemm peak (%d threads) %.1f before, %.1f after: %.1f%% of the higher. Per CPU second: %.1f GFLOP against %.1f of a 1-thread sgemm (CPU time): %.1f%%. Other processes used %.1f of the %.1f core-seconds",
                run, cores, rates.last!, achieved, cores, before, after, 100 * ratios.last!, flops / own / 1e9, threadPeak,
                100 * cpuRatios.last!, others, seconds * Double(cores)))
        }
        report(String(
            format: "indexing, %d runs: %.1f–%.1f docs/s (p50 %.1f); %.1f–%.1f%% of the sgemm peak (p50 %.1f%%), peak %.1f–%.1f GFLOP/s; per CPU second %.1f–%.1f%% of the 1-thread peak (p50 %.1f%%)",
            rates.count, rates.min()!, rates.max()!, percentile(rates, 0.5), 100 * ratios.min()!, 100 * ratios.max()!,
            100 * percentile(ratios, 0.5), peaks.min()!, peaks.max()!, 100 * cpuRatios.min()!, 100 * cpuRatios.max()!,
            100 * percentile(cpuRatios, 0.5)))

        // One encoder on every core (BLAS threads), for comparison.
        BLAS.setThreadCount(cores)
        let single = try MiniLMEmbedder(modelDirectory: modelDirectory)
        let tokenized = documents.map(single.tokenize)
        _ = single.embed(tokenized: Array(tokenized.prefix(8)))
        let start = DispatchTime.now()
        _ = single.embed(tokenized: tokenized)
        let seconds = milliseconds(since: start) / 1000
        let peak = gemmPeak()
        report(String(
            format: "one encoder on %d BLAS threads (tokens given): %.1f docs/s, %.1f GFLOP/s, %.1f%% of the sgemm peak %.1f (n = %d)",
            cores, Double(documents.count) / seconds, flops / seconds / 1e9, 100 * flops / seconds / 1e9 / peak.gflops,
            peak.gflops, peak.size))
        BLAS.setThreadCount(1)
        report(String(format: "sgemm peak, 1 thread: %.1f GFLOP/s", gemmPeak().gflops))
        for (m, n, k) in [(512, 1152, 384), (512, 1536, 384), (512, 384, 1536)] {
            report(String(format: "sgemm %d×%d×%d (encoder shape), 1 thread: %.1f GFLOP/s", m, n, k, gemm(m: m, n: n, k: k)))
        }
        BLAS.setThreadCount(cores)
    }

    /// `count` real emails spread evenly over the sorted files of `folder` (every file a message),
    /// each as the text `mailsearch index embed` embeds: subject, sender name and the first 2,000
    /// characters of the plain-text body, one per line, empty parts left out.
    static func realMail(folder: String, count: Int) throws -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder) else {
            throw BenchError("\(folder) not found (make corpora)")
        }
        var files: [String] = []
        while let path = walker.nextObject() as? String {
            var directory: ObjCBool = false
            let full = (folder as NSString).appendingPathComponent(path)
            if FileManager.default.fileExists(atPath: full, isDirectory: &directory), !directory.boolValue {
                files.append(full)
            }
        }
        files.sort()
        guard !files.isEmpty else { throw BenchError("no files in \(folder)") }
        let step = max(1, files.count / max(1, count))
        var texts: [String] = []
        for index in stride(from: 0, to: files.count, by: step) where texts.count < count {
            guard let data = FileManager.default.contents(atPath: files[index]) else { continue }
            let message = MIMEParser.parse([UInt8](data))
            let fromName = (message.from.first ?? message.sender)?.name ?? ""
            let parts = [message.subject, fromName, String(message.textBody.prefix(2_000))]
            let text = parts.filter { !$0.isEmpty }.joined(separator: "\n")
            if !text.isEmpty { texts.append(text) }
        }
        return texts
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

    /// The best square sgemm (C = A·Bᵀ) with the current BLAS thread count; per second of the
    /// calling thread's CPU time with `cpuTime` (for one thread: not slowed by other processes).
    static func gemmPeak(cpuTime: Bool = false) -> (gflops: Double, size: Int) {
        var best = (0.0, 0)
        for size in [512, 1024, 1536] {
            let gflops = gemm(m: size, n: size, k: size, cpuTime: cpuTime)
            if gflops > best.0 { best = (gflops, size) }
        }
        return best
    }

    /// GFLOP/s of C = A·Bᵀ with the encoder's layout, best of a few runs.
    static func gemm(m: Int, n: Int, k: Int, cpuTime: Bool = false) -> Double {
        let a = [Float](repeating: 0.5, count: m * k)
        let b = [Float](repeating: 0.25, count: n * k)
        var c = [Float](repeating: 0, count: m * n)
        var best = Double.infinity
        let repeats = max(3, Int(2e9 / Double(2 * m * n * k)))
        for run in 0..<(repeats + 1) {
            let start = cpuTime ? threadCPUSeconds() : Double(DispatchTime.now().uptimeNanoseconds) / 1e9
            BLAS.multiply(m: m, n: n, k: k, a: a, b: b, into: &c)
            let end = cpuTime ? threadCPUSeconds() : Double(DispatchTime.now().uptimeNanoseconds) / 1e9
            if run > 0 { best = min(best, end - start) }
        }
        return 2 * Double(m) * Double(n) * Double(k) / best / 1e9
    }

    /// CPU seconds of the calling thread.
    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// CPU seconds (user + system) of this process.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// Busy CPU seconds of the whole machine (every core) from /proc/stat, 0 where there is none.
    static func machineBusySeconds() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") })
        else { return 0 }
        let fields = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard fields.count >= 8 else { return 0 }
        // user nice system idle iowait irq softirq steal: all but idle and iowait.
        let busy = fields[0] + fields[1] + fields[2] + fields[5] + fields[6] + fields[7]
        return busy / Double(sysconf(Int32(_SC_CLK_TCK)))
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
