import Embedding
import Foundation
import MailModel
import MailStore
import SearchEngine

/// The token ids `embed-mailbox` embeds, for a peer runtime to encode the same inputs
/// (scripts/bench/onnx_peer.py, `make bench-embed-mailbox`).
///
///     mailsearch-bench tokens DIR OUT.jsonl
///
/// Every email of DIR without a vector of the model in use, in the order `EmbeddingIndexer` takes
/// them (newest first, `emailIdsWithoutEmbedding`), with the text it embeds (`EmbeddingText`,
/// `emailsWithoutEmbedding(ids:clean: true)`) tokenized by the encoder's own tokenizer, cut at the
/// model's document limit as `MiniLMEmbedder.embed` does: one `{"id": emailId, "ids": [...]}` a line,
/// `[CLS]` and `[SEP]` included. Reads DIR only: run it on the same fresh copy before embedding.
enum TokenDump {
    static func run(directory: URL, output: URL, model: EmbeddingModel, modelDirectory: URL) throws {
        let store = try MailStore(directory: DataDirectory(url: directory))
        let embedder = try MiniLMEmbedder(modelDirectory: modelDirectory, model: model)
        let (order, _) = try store.emailIdsWithoutEmbedding(model: model.name)
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        defer { try? handle.close() }
        var count = 0
        var tokens = 0
        var start = 0
        while start < order.count {
            let ids = order[start..<min(order.count, start + 512)]
            start += ids.count
            var lines = ""
            for work in try store.emailsWithoutEmbedding(ids: ids, model: model.name, clean: true) {
                let sequence = embedder.tokenize(work.text)
                tokens += sequence.count
                count += 1
                lines += "{\"id\":\(work.emailId),\"ids\":[\(sequence.map(String.init).joined(separator: ","))]}\n"
            }
            try handle.write(contentsOf: Data(lines.utf8))
        }
        report(String(format: "tokens: %d emails of %@ written to %@ in embedding order, %d tokens (mean %.1f a text, at most %d)",
                      count, directory.path, output.path, tokens, Double(tokens) / Double(max(1, count)),
                      embedder.tokenizer.maxLength))
    }
}
