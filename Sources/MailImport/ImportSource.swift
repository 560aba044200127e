import Foundation
import MailParsing
import MailStore

/// What `mailsearch import PATH` was pointed at.
public enum ImportSourceKind: String, Sendable, Codable {
    /// A single mbox file (mboxo or mboxrd).
    case mbox
    /// A Maildir or Maildir++ tree (cur/new, `.Sub.folders`).
    case maildir
    /// A directory tree of one-message-per-file files (the Enron layout); mbox files inside it are read as mboxes.
    case directory
    /// A single message file (.eml).
    case singleMessage
}

/// Errors that stop an import before it starts.
public enum ImportError: Error, CustomStringConvertible {
    case notFound(String)
    case unreadable(String, String)

    public var description: String {
        switch self {
        case .notFound(let path):
            return "nothing to import at \(path): no such file or directory. Give an mbox file, a Maildir, or a folder of .eml files."
        case .unreadable(let path, let reason):
            return "cannot read \(path): \(reason)"
        }
    }
}

/// Finds and reads the messages of a source, in a stable order (sorted paths, file offsets),
/// so that an interrupted import re-run visits messages in the same order.
struct ImportSource {
    let root: URL
    let kind: ImportSourceKind
    /// The folder given with `--folder`, overriding the layout's folders.
    let folderOverride: String?
    /// Files (and their sizes) that make up the source, in order.
    let files: [(path: String, size: Int64, maildirFolder: String?)]

    static func detect(path: String, folderOverride: String?) throws -> ImportSource {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir) else { throw ImportError.notFound(path) }
        if !isDir.boolValue {
            let size = fileSize(url.path)
            let kind: ImportSourceKind = looksLikeMbox(url.path) ? .mbox : .singleMessage
            return ImportSource(root: url, kind: kind, folderOverride: folderOverride, files: [(url.path, size, nil)])
        }
        let maildirs = findMaildirs(root: url)
        if !maildirs.isEmpty {
            var files: [(String, Int64, String?)] = []
            for (dir, folder) in maildirs {
                for sub in ["cur", "new"] {
                    let d = dir.appendingPathComponent(sub)
                    let names = ((try? FileManager.default.contentsOfDirectory(atPath: d.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
                    for name in names {
                        let p = d.appendingPathComponent(name).path
                        files.append((p, fileSize(p), folder))
                    }
                }
            }
            return ImportSource(root: url, kind: .maildir, folderOverride: folderOverride, files: files)
        }
        guard let walker = FileManager.default.enumerator(atPath: url.path) else { throw ImportError.unreadable(path, "cannot list the directory") }
        var entries: [(rel: String, key: [UInt8], size: Int64)] = []
        while let rel = walker.nextObject() as? String {
            let attributes = walker.fileAttributes
            let type = attributes?[.type] as? FileAttributeType
            if (rel as NSString).lastPathComponent.hasPrefix(".") {
                if type == .typeDirectory { walker.skipDescendants() }
                continue
            }
            if type == .typeRegular {
                entries.append((rel, Array(rel.utf8), (attributes?[.size] as? NSNumber)?.int64Value ?? 0))
            }
        }
        // Natural order ("2" before "10"), so an import visits files the same way every time.
        entries.sort { Self.naturalLess($0.key, $1.key) }
        let prefix = url.path.hasSuffix("/") ? url.path : url.path + "/"
        let files: [(String, Int64, String?)] = entries.map { (prefix + $0.rel, $0.size, nil) }
        return ImportSource(root: url, kind: .directory, folderOverride: folderOverride, files: files)
    }

    var totalBytes: Int64 { files.reduce(0) { $0 + $1.size } }

    /// The number of messages when known up front (one per file), else nil (mbox).
    var knownMessageCount: Int? { kind == .mbox ? nil : files.count }

    /// Calls `body` with each raw message in order, and the byte position reached.
    func forEachMessage(_ body: (RawMessage, _ bytesDone: Int64) throws -> Bool) throws {
        var done: Int64 = 0
        for file in files {
            switch kind {
            case .mbox:
                guard try readMbox(file.path, base: done, body) else { return }
            case .maildir:
                let bytes = try readFile(file.path)
                let name = (file.path as NSString).lastPathComponent
                let info = MaildirInfo.parse(filename: name)
                let folderName = folderOverride ?? file.maildirFolder ?? "INBOX"
                let raw = RawMessage(
                    bytes: bytes, folders: [FolderSpec(path: folderName)],
                    maildirFlags: MaildirFlags(seen: info.seen, flagged: info.flagged, draft: info.draft),
                    fromLineDate: nil, filePath: file.path, sourceRef: file.path)
                done += file.size
                guard try body(raw, done) else { return }
            case .singleMessage, .directory:
                let bytes = try readFile(file.path)
                if kind == .directory && bytes.starts(with: Self.mboxMagic) {
                    // An mbox inside a tree of messages: read it as an mbox.
                    guard try readMbox(file.path, base: done, body) else { return }
                    done += file.size
                    continue
                }
                let raw = RawMessage(
                    bytes: bytes, folders: [FolderSpec(path: folderOverride ?? folderForFile(file.path))],
                    maildirFlags: nil, fromLineDate: nil, filePath: file.path, sourceRef: file.path)
                done += file.size
                guard try body(raw, done) else { return }
            }
        }
    }

    private func readMbox(_ path: String, base: Int64, _ body: (RawMessage, Int64) throws -> Bool) throws -> Bool {
        let reader: MboxReader
        do { reader = try MboxReader(path: path) } catch { throw ImportError.unreadable(path, "\(error)") }
        let folder = folderOverride ?? mboxFolderName(path)
        for message in reader {
            let raw = RawMessage(
                bytes: message.bytes, folders: [FolderSpec(path: folder)], maildirFlags: nil,
                fromLineDate: message.fromLineDate, filePath: path, sourceRef: "\(path)@\(message.offset)")
            guard try body(raw, base + Int64(message.endOffset)) else { return false }
        }
        return true
    }

    /// The directory of a file relative to the import root ("dean-c/inbox"), or the root's name.
    private func folderForFile(_ path: String) -> String {
        if kind == .singleMessage { return "Inbox" }
        let dir = (path as NSString).deletingLastPathComponent
        let rootPath = root.path
        if dir.count > rootPath.count, dir.hasPrefix(rootPath) {
            return String(dir.dropFirst(rootPath.count + 1))
        }
        return root.lastPathComponent
    }

    private func mboxFolderName(_ path: String) -> String {
        if kind == .directory {
            let rootPath = root.path
            let rel = path.hasPrefix(rootPath + "/") ? String(path.dropFirst(rootPath.count + 1)) : (path as NSString).lastPathComponent
            return (rel as NSString).deletingPathExtension
        }
        let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        return name.isEmpty ? "Inbox" : name
    }

    private func readFile(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ImportError.unreadable(path, "the file could not be read")
        }
        return [UInt8](data)
    }

    static func fileSize(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
    }

    static let mboxMagic: [UInt8] = Array("From ".utf8)

    /// Compares byte strings with runs of digits compared by value ("2" < "10").
    static func naturalLess(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var i = 0, j = 0
        func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
        while i < a.count && j < b.count {
            if isDigit(a[i]) && isDigit(b[j]) {
                var i2 = i, j2 = j
                while i2 < a.count && a[i2] == 0x30 { i2 += 1 }
                while j2 < b.count && b[j2] == 0x30 { j2 += 1 }
                var ie = i2, je = j2
                while ie < a.count && isDigit(a[ie]) { ie += 1 }
                while je < b.count && isDigit(b[je]) { je += 1 }
                if ie - i2 != je - j2 { return ie - i2 < je - j2 }
                for k in 0..<(ie - i2) where a[i2 + k] != b[j2 + k] { return a[i2 + k] < b[j2 + k] }
                if ie - i != je - j { return ie - i < je - j }
                i = ie; j = je
            } else {
                if a[i] != b[j] { return a[i] < b[j] }
                i += 1; j += 1
            }
        }
        return a.count - i < b.count - j
    }

    static func looksLikeMbox(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 5)) ?? Data()
        return head == Data("From ".utf8)
    }

    /// Directories that hold `cur`/`new`, with their folder names (Maildir++: `.Sent.2024` → "Sent/2024").
    static func findMaildirs(root: URL) -> [(URL, String)] {
        let fm = FileManager.default
        func isMaildir(_ url: URL) -> Bool {
            var d: ObjCBool = false
            return (fm.fileExists(atPath: url.appendingPathComponent("cur").path, isDirectory: &d) && d.boolValue)
                || (fm.fileExists(atPath: url.appendingPathComponent("new").path, isDirectory: &d) && d.boolValue)
        }
        var result: [(URL, String)] = []
        func visit(_ url: URL, relative: String, depth: Int) {
            if isMaildir(url) {
                result.append((url, relative.isEmpty ? "INBOX" : relative))
            }
            guard depth < 8, let names = try? fm.contentsOfDirectory(atPath: url.path) else { return }
            for name in names.sorted() where !["cur", "new", "tmp"].contains(name) {
                let child = url.appendingPathComponent(name)
                var d: ObjCBool = false
                guard fm.fileExists(atPath: child.path, isDirectory: &d), d.boolValue else { continue }
                var childName = name
                if childName.hasPrefix(".") {
                    // Maildir++ folder: ".Sent.2024" → "Sent/2024".
                    childName = String(childName.dropFirst()).replacingOccurrences(of: ".", with: "/")
                    guard !childName.isEmpty else { continue }
                }
                visit(child, relative: relative.isEmpty ? childName : relative + "/" + childName, depth: depth + 1)
            }
        }
        visit(root, relative: "", depth: 0)
        return result
    }
}
