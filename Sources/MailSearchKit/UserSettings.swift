import Embedding
import Foundation
import MailModel

/// The settings a person changes on the page that the server itself applies (001 §5.8), kept in
/// `settings.json` in the data directory. What only the page uses (the theme, hidden categories) is
/// kept in the browser.
public struct UserSettings: Sendable, Codable, Equatable {
    /// Seconds between Send and the SMTP transaction (0, 5, 10, 15 or 30 on the page; 0…300 allowed).
    public var undoSeconds: Int?

    public init(undoSeconds: Int? = nil) {
        self.undoSeconds = undoSeconds
    }

    public static let fileName = "settings.json"

    /// The settings of a data directory (none yet: all nil); a file that cannot be read counts as none.
    public static func load(from directory: DataDirectory) -> UserSettings {
        guard let data = try? Data(contentsOf: directory.url.appendingPathComponent(fileName)),
              let settings = try? JSONDecoder().decode(UserSettings.self, from: data) else { return UserSettings() }
        return settings
    }

    /// Written whole, atomically.
    public func save(to directory: DataDirectory) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: directory.url.appendingPathComponent(Self.fileName), options: .atomic)
    }
}

extension MailSearchService {
    /// Changes the undo window now and keeps it for the next start.
    public func setUndoSeconds(_ seconds: Int) throws {
        guard (0...300).contains(seconds) else { throw ServiceError.invalid("the undo delay must be 0 to 300 seconds") }
        guard !configuration.readOnly else { throw ServiceError(.unavailable, "the mailbox is open read-only") }
        var settings = UserSettings.load(from: configuration.dataDirectory)
        settings.undoSeconds = seconds
        try settings.save(to: configuration.dataDirectory)
        sending.undoWindow = TimeInterval(seconds)
    }

    /// Deletes the embedding model's files (semantic search stops until it is downloaded again; the
    /// stored vectors stay, so nothing is embedded twice).
    public func removeModel() throws {
        guard !configuration.readOnly else { throw ServiceError(.unavailable, "the mailbox is open read-only") }
        try core.removeModel()
    }
}

extension ServiceCore {
    func removeModel() throws {
        guard !modelInstallation.state.running else { throw ServiceError(.conflict, "the model is being downloaded") }
        try ModelStore(directory: modelDirectory, model: model).remove()
        semantic.dropEncoder()
        state.changed()
    }
}
