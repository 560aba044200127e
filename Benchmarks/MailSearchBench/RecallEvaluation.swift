import Embedding
import Foundation
import GRDB
import MailImport
import MailModel
import MailStore
import SearchEngine
import SearchIndex

/// AC-S-06: Recall@20 of keyword-only, semantic-only and hybrid search on a labelled set whose
/// labels come from the data itself. Each query is the (normalised) subject of a thread's first
/// message; the relevant set is the messages of that thread: References/In-Reply-To threading where
/// the mail has it (usrp-users), else the subject-grouped conversations (Enron has no such headers).
/// So that the subject cannot give the answer away, subjects are left out of this run's keyword
/// index and out of the embedded texts: both rankers see sender and body only.
enum RecallEvaluation {
    struct Query {
        var text: String
        var relevant: Set<Int64>
    }

    static func run(mbox: String, workRoot: URL, modelDirectory: URL, maxQueries: Int = 400) throws {
        guard FileManager.default.fileExists(atPath: mbox) else { throw BenchError("\(mbox) not found (make corpora)") }
        var linkedByHeaders = true
        let dir = workRoot.appendingPathComponent("recall-\((mbox as NSString).lastPathComponent)")
        let store = try MailStore(directory: DataDirectory(url: dir))
        if try store.statistics().emails == 0 {
            _ = try ImportPipeline(store: store, accountName: "eval").run(path: mbox)
        }
        var queries = try labelledQueries(store: store, maxQueries: maxQueries, requireHeaders: true)
        if queries.isEmpty {
            linkedByHeaders = false
            queries = try labelledQueries(store: store, maxQueries: maxQueries, requireHeaders: false)
        }

        // Keyword index without subjects.
        let ftsURL = dir.appendingPathComponent("eval-fts.sqlite")
        try? FileManager.default.removeItem(at: ftsURL)
        let fts = try DatabaseQueue(path: ftsURL.path)
        try fts.write { db in
            try db.execute(sql: """
                CREATE VIRTUAL TABLE eval_fts USING fts5(body, sender_name, sender_email, tokenize='unicode61 remove_diacritics 2')
                """)
            let rows = try store.database.read { try Row.fetchAll($0, sql: "SELECT id, bodyPlain, fromName, fromEmail FROM emails") }
            for r in rows {
                try db.execute(sql: "INSERT INTO eval_fts (rowid, body, sender_name, sender_email) VALUES (?, ?, ?, ?)",
                               arguments: [r["id"], r["bodyPlain"], r["fromName"] ?? "", r["fromEmail"] ?? ""])
            }
        }

        // Embeddings of sender + body, cached between runs.
        let embedder = try MiniLMEmbedder(modelDirectory: modelDirectory)
        let vectors = try bodyEmbeddings(store: store, embedder: embedder, cache: dir.appendingPathComponent("eval-embeddings.bin"))

        var keywordRecall = 0.0, semanticRecall = 0.0, hybridRecall = 0.0
        let merger = RRFMerger()
        for q in queries {
            let keyword: [Int64] = try fts.read { db in
                guard let match = FTS5QueryBuilder.matchExpression(for: q.text) else { return [] }
                return try Int64.fetchAll(db, sql: """
                    SELECT rowid FROM eval_fts WHERE eval_fts MATCH ? ORDER BY bm25(eval_fts, 1.0, 5.0, 5.0) LIMIT 200
                    """, arguments: [match])
            }
            let queryVector = try embedder.embed([q.text])[0]
            let semantic = vectors.search(queryVector, k: 50).map(\.emailId)
            let hybrid = merger.merge(keyword: keyword, semantic: semantic).map(\.emailId)
            keywordRecall += recall(keyword, q.relevant)
            semanticRecall += recall(semantic, q.relevant)
            hybridRecall += recall(hybrid, q.relevant)
        }
        let n = Double(queries.count)
        let emails = try store.statistics().emails
        report(String(format: "Recall@20 on %@ (%d emails, %d thread queries, threads %@; subjects hidden from both rankers):",
                      (mbox as NSString).lastPathComponent, emails, queries.count,
                      linkedByHeaders ? "from References/In-Reply-To" : "grouped by subject"))
        report(String(format: "  keyword-only %.3f   semantic-only %.3f   hybrid (RRF k=60, semantic ×1.5) %.3f",
                      keywordRecall / n, semanticRecall / n, hybridRecall / n))
    }

    /// |top 20 ∩ relevant| / min(|relevant|, 20).
    static func recall(_ ranking: [Int64], _ relevant: Set<Int64>) -> Double {
        let hits = ranking.prefix(20).filter(relevant.contains).count
        return Double(hits) / Double(min(relevant.count, 20))
    }

    /// Threads of two or more messages linked by References/In-Reply-To, with the root's subject.
    static func labelledQueries(store: MailStore, maxQueries: Int, requireHeaders: Bool) throws -> [Query] {
        try store.database.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT threadId, id, subject, inReplyTo, "references" FROM emails
                WHERE threadId IN (SELECT threadId FROM emails GROUP BY threadId HAVING COUNT(*) >= 2)
                ORDER BY threadId, sortDate, id
                """)
            var byThread: [Int64: [Row]] = [:]
            var order: [Int64] = []
            for r in rows {
                let t: Int64 = r["threadId"]
                if byThread[t] == nil { order.append(t) }
                byThread[t, default: []].append(r)
            }
            var queries: [Query] = []
            for t in order {
                let members = byThread[t]!
                // With headers: only threads really linked by them (not by the subject fallback).
                if requireHeaders {
                    guard members.dropFirst().contains(where: { ($0["inReplyTo"] as String?) != nil }) else { continue }
                }
                // The topic, without the list tag the normaliser keeps ("[USRP-users] B210 issue").
                var subject = Substring(SubjectNormalizer.normalize(members[0]["subject"]))
                if subject.first == "[", let close = subject.firstIndex(of: "]") {
                    subject = subject[subject.index(after: close)...].drop(while: \.isWhitespace)
                }
                guard subject.split(separator: " ").count >= 2 else { continue }
                queries.append(Query(text: String(subject), relevant: Set(members.map { $0["id"] as Int64 })))
                if queries.count >= maxQueries { break }
            }
            return queries
        }
    }

    static func bodyEmbeddings(store: MailStore, embedder: MiniLMEmbedder, cache: URL) throws -> VectorSearchEngine {
        let engine = VectorSearchEngine()
        let rows = try store.database.read { db in
            try Row.fetchAll(db, sql: "SELECT id, fromName, substr(bodyPlain, 1, 2000) AS body FROM emails ORDER BY id")
        }
        let ids = rows.map { $0["id"] as Int64 }
        if let data = try? Data(contentsOf: cache), data.count == ids.count * 384 * 4 {
            data.withUnsafeBytes { raw in
                let floats = raw.bindMemory(to: Float.self)
                engine.upsert(ids.enumerated().map { i, id in (emailId: id, vector: Array(floats[i * 384..<(i + 1) * 384])) })
            }
            return engine
        }
        let texts = rows.map { [($0["fromName"] as String?) ?? "", $0["body"] as String].filter { !$0.isEmpty }.joined(separator: "\n") }
        var all: [Float] = []
        let start = Date()
        for chunk in stride(from: 0, to: texts.count, by: 64) {
            let batch = Array(texts[chunk..<min(texts.count, chunk + 64)])
            for v in try embedder.embed(batch) { all += v }
            let done = min(texts.count, chunk + 64)
            FileHandle.standardError.write(Data(String(format: "\rembedding %d/%d (%.1f docs/s)", done, texts.count,
                                                       Double(done) / Date().timeIntervalSince(start)).utf8))
        }
        FileHandle.standardError.write(Data("\n".utf8))
        try all.withUnsafeBufferPointer { Data(buffer: $0) }.write(to: cache)
        engine.upsert(ids.enumerated().map { i, id in (emailId: id, vector: Array(all[i * 384..<(i + 1) * 384])) })
        return engine
    }
}
