import Foundation

/// Writes messages as files of a Maildir++ tree.
struct MaildirWriter {
    static let folders = ["", ".Sent", ".Archive", ".Projects", ".Receipts"]
    let root: URL

    init(root: URL) throws {
        self.root = root
        let manager = FileManager.default
        for folder in Self.folders {
            let base = folder.isEmpty ? root : root.appendingPathComponent(folder, isDirectory: true)
            for sub in ["cur", "new", "tmp"] {
                try manager.createDirectory(at: base.appendingPathComponent(sub, isDirectory: true),
                                            withIntermediateDirectories: true)
            }
            if !folder.isEmpty {
                let marker = base.appendingPathComponent("maildirfolder")
                guard manager.createFile(atPath: marker.path, contents: Data()) else {
                    throw DemoCorpusError.cannotCreate(marker)
                }
            }
        }
    }

    /// The folder of a message: the Inbox (""), Sent, or for archived mail its custom label's
    /// folder if it has one, else Archive.
    static func folder(for labels: [String]) -> String {
        switch labels.first {
        case "Inbox": return ""
        case "Sent": return ".Sent"
        default:
            if labels.contains("Projects") { return ".Projects" }
            if labels.contains("Receipts") { return ".Receipts" }
            return ".Archive"
        }
    }

    /// The file name: `<unix time>.M<index>P<seed>.mailsearch-demo` plus `:2,<flags>` in `cur`.
    static func fileName(for message: GeneratedMessage, seed: UInt64) -> (subfolder: String, name: String) {
        let starred = message.labels.contains("Starred")
        var name = "\(Int64(message.date.timeIntervalSince1970)).M\(message.index)P\(seed).mailsearch-demo"
        if !message.isRead && !starred { return ("new", name) }
        name += ":2,"
        if starred { name += "F" }
        if message.isRead { name += "S" }
        return ("cur", name)
    }

    func write(_ message: GeneratedMessage, seed: UInt64) throws {
        let folder = Self.folder(for: message.labels)
        let (subfolder, name) = Self.fileName(for: message, seed: seed)
        var url = folder.isEmpty ? root : root.appendingPathComponent(folder, isDirectory: true)
        url = url.appendingPathComponent(subfolder, isDirectory: true).appendingPathComponent(name)
        // stdio rather than Data.write, which syncs every file to disk: ten times slower here.
        guard let file = fopen(url.path, "wb") else { throw DemoCorpusError.cannotCreate(url) }
        let written = message.raw.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        let closed = fclose(file)
        if written != message.raw.count || closed != 0 { throw DemoCorpusError.cannotWrite(url) }
    }
}
