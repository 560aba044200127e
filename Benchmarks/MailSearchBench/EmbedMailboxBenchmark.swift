import Embedding
import Foundation
import GRDB
import MailModel
import MailStore
import SearchEngine

/// Time to semantic: a whole imported mailbox embedded as `mailsearch index embed` does it (one
/// encoder per core, one BLAS thread each, newest first, committed batch by batch), with
///
/// - docs/s and minutes to 100 %, and how many distinct texts were encoded (a text repeated
///   nearby takes the vector already made) at what rate: the like-for-like figure for the peer;
/// - minutes until the last 30 days are embedded: the 30 days before the mailbox's newest date,
///   taken as the date 99.9 % of its mail is older than (real mailboxes hold a few messages dated
///   years ahead; newest first embeds those first too, and they are counted);
/// - the effective GFLOP/s of the matrix products against the single-precision GEMM peak of every
///   core, measured before and after in the same run;
/// - fidelity: the smallest cosine between these encoders' vectors and the reference vectors of
///   `../shared/reference` (sentence-transformers), on the same texts, for the default model.
///
///     mailsearch-bench embed-mailbox DIR     (DIR: a data directory with mail imported; its vectors of
///                                             the model in use are made again only when missing)
enum EmbedMailboxBenchmark {
    static func run(directory: URL, model: EmbeddingModel, modelDirectory: URL, referenceDirectory: URL) throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let store = try MailStore(directory: DataDirectory(url: directory))
        let total = try store.emailsWithoutEmbeddingCount(model: model.name)
        let emails = try store.database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM emails") ?? 0 }
        guard total > 0 else {
            throw BenchError("every email in \(directory.path) already has a \(model.name) vector: give a fresh copy of the import")
        }
        let dates = try store.database.read { db in
            try Double.fetchAll(db, sql: "SELECT sortDate FROM emails WHERE sortDate IS NOT NULL ORDER BY sortDate")
        }
        let newest = dates.isEmpty ? 0 : dates[min(dates.count - 1, dates.count * 999 / 1000)]
        let recentCount = try store.database.read { db in
            try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM emails e WHERE e.sortDate >= ?
                AND NOT EXISTS (SELECT 1 FROM embeddings m WHERE m.emailId = e.id AND m.model = ?)
                """, arguments: [newest - 30 * 86_400, model.name]) ?? 0
        }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        report("mailbox: \(emails) emails in \(directory.path), \(total) without a \(model.name) vector; the last 30 days "
            + "before \(formatter.string(from: Date(timeIntervalSince1970: newest))) (p99.9 of the dates): \(recentCount) emails")

        BLAS.setThreadCount(cores)
        let peakBefore = EmbeddingBenchmark.gemmPeak().gflops
        BLAS.setThreadCount(1)
        let embedders = try (0..<cores).map { _ in try MiniLMEmbedder(modelDirectory: modelDirectory, model: model) }
        let counter = TokenCounter()
        let counted: [any Embedder] = embedders.map { CountingEmbedder(inner: $0, counter: counter) }
        let indexer = EmbeddingIndexer(store: store, embedders: counted, modelName: model.name, batchSize: 64)
        let timings = EmbeddingTimings()
        let start = Date()
        var recentSeconds: Double?
        var lastReport = start
        try indexer.run(timings: timings) { done, all in
            let now = Date()
            if recentSeconds == nil, done >= recentCount { recentSeconds = now.timeIntervalSince(start) }
            if now.timeIntervalSince(lastReport) >= 30 || done == all {
                lastReport = now
                let rate = Double(done) / max(0.001, now.timeIntervalSince(start))
                report(String(format: "  %d/%d (%.1f%%) after %.1f min: %.1f docs/s", done, all,
                              100 * Double(done) / Double(max(1, all)), now.timeIntervalSince(start) / 60, rate))
            }
        }
        let seconds = Date().timeIntervalSince(start)
        BLAS.setThreadCount(cores)
        let peakAfter = EmbeddingBenchmark.gemmPeak().gflops
        let peak = max(peakBefore, peakAfter)
        let gflops = 2 * Double(embedders[0].multiplyAdds(lengths: counter.lengths)) / seconds / 1e9
        report(String(format: "embedded %d emails in %.2f min: %.1f docs/s; the last 30 days (%d emails) after %.2f min",
                      total, seconds / 60, Double(total) / seconds, recentCount, (recentSeconds ?? seconds) / 60))
        report(String(format: "encoded %d distinct texts of %d (%d repeated a text of their batch or the batch before, and took its vector): %.1f encoded texts/s",
                      timings.encoded, timings.texts, timings.texts - timings.encoded, Double(timings.encoded) / seconds))
        report(String(format: "time: reading and composing texts %.1f s, encoding %.1f s (the cores busy %.1f%% of it: parts of unequal work wait for each other), storing vectors %.1f s",
                      timings.fetch, timings.embed, 100 * timings.partBusy / max(timings.partCapacity, 1e-9), timings.save))
        report(String(format: "matrix products: %.1f GFLOP/s effective; sgemm peak (%d threads) %.1f before, %.1f after: %.1f%% of the higher; tokens per email: mean %.0f",
                      gflops, cores, peakBefore, peakAfter, 100 * gflops / peak,
                      Double(counter.lengths.reduce(0, +)) / Double(max(1, counter.lengths.count))))

        if model == .default {
            let url = referenceDirectory.appendingPathComponent("embeddings.jsonl")
            struct Reference: Decodable { var text: String; var embedding: [Float] }
            let references = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
                .map { try JSONDecoder().decode(Reference.self, from: Data($0.utf8)) }
            let vectors = try EmbeddingIndexer.embedInParallel(references.map(\.text), embedders: embedders)
            let cosines = zip(references, vectors).map { reference, vector in
                zip(reference.embedding, vector).reduce(0.0) { $0 + Double($1.0) * Double($1.1) }
            }
            report(String(format: "fidelity: %d reference texts embedded by the same encoders, cosine to sentence-transformers min %.6f, p50 %.7f",
                          cosines.count, cosines.min() ?? 0, EmbeddingBenchmark.percentile(cosines, 0.5)))
        }
    }

    /// The token lengths of every text embedded (for the GFLOP count).
    final class TokenCounter: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var lengths: [Int] = []
        func add(_ counts: [Int]) {
            lock.withLock { lengths += counts }
        }
    }

    struct CountingEmbedder: Embedder {
        let inner: MiniLMEmbedder
        let counter: TokenCounter
        var dimension: Int { inner.dimension }
        /// What `MiniLMEmbedder.embed` does, its token counts kept on the way (each text tokenized once).
        func embed(_ texts: [String]) throws -> [[Float]] {
            let sequences = texts.map(inner.tokenize)
            counter.add(sequences.map(\.count))
            return inner.embed(tokenized: sequences)
        }
        func knownWordShare(_ text: String) -> Double { inner.knownWordShare(text) }
    }
}
