import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Lists the message files of a directory source.
///
/// Every regular file of the tree whose name does not start with "." is a message (or an mbox),
/// except inside Maildir folders. A directory with a `cur` or `new` directory is a Maildir folder:
/// its messages are the files of `cur` and `new` (with the Maildir's flags); its `tmp` holds
/// deliveries in progress and is not read; the files beside them are read when they start like a
/// message (a header field or an mbox From_ line: .eml files saved there) and are otherwise the
/// Maildir's bookkeeping (`dovecot-uidlist`, `maildirfolder`, `dovecot.index`, …). Its other
/// subdirectories are walked like any other: `.Sent.2024` (Maildir++) is the folder "Sent/2024",
/// the rest keep their names. So a Maildir-like folder somewhere inside a tree of .eml files
/// changes how that folder's `cur` and `new` are read, never whether the rest of the tree is.
///
/// Symbolic links are followed; a directory reached twice (a link loop) is read once. What cannot
/// be read — a folder that cannot be listed, a link to nothing — is recorded in `unreadable` with
/// its path and the system's reason, and the walk goes on.
struct TreeWalk {
    typealias File = (path: String, size: Int64, maildirFolder: String?)

    let root: URL
    /// Files outside Maildir folders, in natural order of their paths ("2" before "10").
    private(set) var treeFiles: [File] = []
    /// Messages of Maildir folders: folder by folder (a folder before its subfolders, names
    /// sorted), `cur` before `new`, file names sorted.
    private(set) var maildirFiles: [File] = []
    private(set) var unreadable: [ImportFailure] = []
    private var visited: Set<DirectoryKey> = []

    init(root: URL) {
        self.root = root
    }

    /// Walks the tree; throws only when the root itself cannot be listed.
    mutating func run() throws {
        let names: [String]
        switch Self.list(root.path) {
        case .success(let list): names = list
        case .failure(let error): throw ImportError.unreadable(root.path, error.reason)
        }
        if case .directory(let key) = Self.entry(root.path) { visited.insert(key) }
        visit(root.path, folder: "", names: names)
        let prefixLength = root.path.utf8.count + 1
        var keyed = treeFiles.map { (key: Array($0.path.utf8.dropFirst(prefixLength)), file: $0) }
        keyed.sort { ImportSource.naturalLess($0.key, $1.key) }
        treeFiles = keyed.map(\.file)
    }

    private mutating func visit(_ path: String, folder: String, names: [String]) {
        let isMaildir = ["cur", "new"].contains { names.contains($0) && Self.isDirectory(path + "/" + $0) }
        if isMaildir {
            for sub in ["cur", "new"] where names.contains(sub) {
                readMaildirFolder(path + "/" + sub, folder: folder.isEmpty ? "INBOX" : folder)
            }
        }
        for name in names.sorted() {
            if isMaildir && (name == "cur" || name == "new" || name == "tmp") { continue }
            let hidden = name.hasPrefix(".")
            let childPath = path + "/" + name
            switch Self.entry(childPath) {
            case .file(let size):
                if !hidden && (!isMaildir || Self.startsLikeAMessage(childPath)) { treeFiles.append((childPath, size, nil)) }
            case .directory(let key):
                // Hidden folders are skipped, except Maildir++ folders (".Sent.2024" → "Sent/2024").
                var childName = name
                if hidden {
                    guard isMaildir else { continue }
                    childName = String(name.dropFirst()).replacingOccurrences(of: ".", with: "/")
                    guard !childName.isEmpty else { continue }
                }
                guard visited.insert(key).inserted else { continue }
                switch Self.list(childPath) {
                case .success(let list):
                    visit(childPath, folder: folder.isEmpty ? childName : folder + "/" + childName, names: list)
                case .failure(let error):
                    unreadable.append(ImportFailure(source: childPath, reason: "cannot list this folder: \(error.reason)"))
                }
            case .unreadable(let reason):
                if !hidden { unreadable.append(ImportFailure(source: childPath, reason: reason)) }
            case .other:
                continue
            }
        }
    }

    /// The messages of a Maildir's `cur` or `new`.
    private mutating func readMaildirFolder(_ path: String, folder: String) {
        let names: [String]
        switch Self.list(path) {
        case .success(let list): names = list
        case .failure(let error):
            unreadable.append(ImportFailure(source: path, reason: "cannot list this Maildir folder: \(error.reason)"))
            return
        }
        for name in names.sorted() where !name.hasPrefix(".") {
            let file = path + "/" + name
            switch Self.entry(file) {
            case .file(let size): maildirFiles.append((file, size, folder))
            case .directory: unreadable.append(ImportFailure(source: file, reason: "a folder inside a Maildir's cur or new, where only message files belong"))
            case .unreadable(let reason): unreadable.append(ImportFailure(source: file, reason: reason))
            case .other: unreadable.append(ImportFailure(source: file, reason: "not a regular file"))
            }
        }
    }

    // MARK: File system

    struct DirectoryKey: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    enum Entry {
        case file(size: Int64)
        case directory(DirectoryKey)
        /// Sockets, FIFOs, devices: not mail.
        case other
        case unreadable(String)
    }

    struct ListError: Error {
        var reason: String
    }

    /// What `path` is, following symbolic links.
    static func entry(_ path: String) -> Entry {
        var st = stat()
        guard stat(path, &st) == 0 else {
            let reason = String(cString: strerror(errno))
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) {
                return .unreadable("a symbolic link to \(target), which cannot be read: \(reason)")
            }
            return .unreadable("cannot read it: \(reason)")
        }
        switch st.st_mode & S_IFMT {
        case S_IFREG: return .file(size: Int64(st.st_size))
        case S_IFDIR: return .directory(DirectoryKey(device: UInt64(st.st_dev), inode: UInt64(st.st_ino)))
        default: return .other
        }
    }

    /// True when the file's first line is a header field (`Name:`) or an mbox From_ line. A file
    /// that cannot be opened counts as a message, so that reading it reports the reason.
    static func startsLikeAMessage(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return true }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 256)) ?? Data())
        if head.starts(with: ImportSource.mboxMagic) { return true }
        // RFC 5322 field name: printable ASCII except the colon, then a colon.
        let name = head.prefix(while: { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") })
        return !name.isEmpty && name.count < head.count && head[name.count] == UInt8(ascii: ":")
    }

    static func isDirectory(_ path: String) -> Bool {
        if case .directory = entry(path) { return true }
        return false
    }

    /// The names in a directory (without "." and ".."), or why it cannot be listed.
    static func list(_ path: String) -> Result<[String], ListError> {
        guard let dir = opendir(path) else {
            var reason = String(cString: strerror(errno))
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) {
                reason += " (a symbolic link to \(target))"
            }
            return .failure(ListError(reason: reason))
        }
        defer { closedir(dir) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(dir) else {
                if errno != 0 { return .failure(ListError(reason: String(cString: strerror(errno)))) }
                return .success(names)
            }
            let name = withUnsafePointer(to: entry.pointee.d_name) { tuple in
                tuple.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: tuple.pointee)) {
                    String(cString: $0)
                }
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }
}
