import Foundation

/// The local copies of messages fetched from a server (`messages/ACCOUNT/…` in the data
/// directory): the store keeps text and metadata, and raw messages, attachments and inline
/// images are read back from these files, as they are from the files an import read. Removed
/// with their email, and all of an account's with the account.
public struct MessageArchive: Sendable {
    public let root: URL

    public init(root: URL) {
        self.root = root
    }

    /// Writes a message's bytes under the account (named by `key`, e.g. a content hash) and
    /// returns the file's path. Written to a temporary name first, then renamed: a file at the
    /// final path is always whole.
    public func store(_ bytes: [UInt8], accountId: Int64, key: String) throws -> String {
        let directory = root.appendingPathComponent(String(accountId)).appendingPathComponent(String(key.prefix(2)))
        let url = directory.appendingPathComponent(key + ".eml")
        if FileManager.default.fileExists(atPath: url.path) { return url.path }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let temporary = directory.appendingPathComponent(".\(key).\(UUID().uuidString).tmp")
        try Data(bytes).write(to: temporary)
        if rename(temporary.path, url.path) != 0 {
            let error = errno
            try? FileManager.default.removeItem(at: temporary)
            throw ServiceError(.unavailable, "cannot store a fetched message in \(directory.path): \(String(cString: strerror(error)))",
                               hint: "check the data directory's free space and permissions")
        }
        return url.path
    }

    /// True when `path` is a file of this archive (and not, say, a file an import read).
    public func holds(_ path: String) -> Bool {
        path.hasPrefix(root.path + "/")
    }

    /// Removes one copy; a copy already gone is fine.
    public func remove(_ path: String) {
        guard holds(path) else { return }
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Removes every copy of an account's messages.
    func removeAccount(_ accountId: Int64) throws {
        let directory = root.appendingPathComponent(String(accountId))
        guard FileManager.default.fileExists(atPath: directory.path) else { return }
        do {
            try FileManager.default.removeItem(at: directory)
        } catch {
            throw ServiceError(.unavailable, "the account's mail is deleted, but its message copies in \(directory.path) could not be removed: \(error)",
                               hint: "remove that folder by hand")
        }
    }
}
