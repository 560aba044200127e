import Foundation
import MailParsing

#if canImport(Glibc)
import Glibc
#endif

/// What reading one attachment's text gave.
public struct AttachmentTextResult: Sendable, Equatable {
    public enum Status: String, Sendable, Codable {
        /// The whole text was read.
        case ok
        /// Text was read, but not all of it (`detail` says how much).
        case truncated
        /// A kind that has no text to read (an image, an executable): not a failure.
        case unsupported
        /// Not read on purpose (`detail`: a zip bomb, an XML with entities, too large).
        case refused
        /// The reader failed (`detail`: the program's message or how it ended).
        case failed
        /// The reader ran out of time (wall clock or CPU) and was stopped.
        case timedOut = "timed-out"
    }

    public var status: Status
    public var text: String
    public var detail: String?

    public init(status: Status, text: String = "", detail: String? = nil) {
        self.status = status
        self.text = text
        self.detail = detail
    }

    /// Whether this is a problem to count and show (refused, failed, timed out).
    public var isProblem: Bool { status == .refused || status == .failed || status == .timedOut }
}

/// Reads the text of an attachment in a separate, limited process, so that a hostile or broken
/// file costs that attachment and nothing else: the child (`mailsearch-full extract-attachment`)
/// runs under `prlimit` (CPU seconds, address space), without a network where the system allows
/// it (`unshare -rn`), and is killed past a wall-clock limit; what it prints is read up to a cap.
/// PDF goes through poppler's `pdftotext`, ZIP containers (DOCX, XLSX, PPTX, OpenDocument,
/// archives) through `unzip`, each member read up to a cap (a zip bomb is refused when it
/// expands past it); XML is read without its DTD (`AttachmentText`).
public struct AttachmentTextExtractor: Sendable {
    public struct Limits: Sendable {
        public var cpuSeconds = 10
        public var memoryBytes = 1 << 30
        public var wallSeconds: TimeInterval = 30
        /// The most text kept per attachment.
        public var outputBytes = 2 << 20
        /// Larger attachments are refused unread.
        public var inputBytes = 100 << 20
        /// The most a ZIP member may expand to before it is refused as a bomb.
        public var memberBytes = 64 << 20
        /// PDF pages read (`pdftotext -l`); more is said as truncated.
        public var pdfPages = 2_000
        public init() {}
    }

    /// The executable with the `extract-attachment` command (mailsearch-full).
    public let executable: String
    public let limits: Limits

    public init(executable: String, limits: Limits = Limits()) {
        self.executable = executable
        self.limits = limits
    }

    /// The running process's own executable (`/proc/self/exe`), when it is mailsearch-full.
    public static func currentExecutable() -> String? {
        guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        return (path as NSString).lastPathComponent.hasPrefix("mailsearch") ? path : nil
    }

    /// Whether the system lets an unprivileged process drop its network (`unshare -rn`), once per process.
    static let canDropNetwork: Bool = {
        let result = runProcess("/usr/bin/unshare", ["-rn", "true"], outputLimit: 1_024, wallSeconds: 5)
        return result.exitStatus == 0
    }()

    /// Reads the text of one attachment.
    public func extract(kind: AttachmentKind, content: [UInt8], mimeType: String? = nil) -> AttachmentTextResult {
        if kind == .unsupported { return AttachmentTextResult(status: .unsupported) }
        if content.count > limits.inputBytes {
            return AttachmentTextResult(status: .refused, detail: "\(content.count) bytes, over the \(Self.size(limits.inputBytes)) limit")
        }
        if content.isEmpty { return AttachmentTextResult(status: .ok) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-extract-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            return AttachmentTextResult(status: .failed, detail: "cannot make a temporary folder: \(error)")
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("input")
        guard FileManager.default.createFile(atPath: input.path, contents: Data(content)) else {
            return AttachmentTextResult(status: .failed, detail: "cannot write \(input.path)")
        }
        var arguments = ["--cpu=\(limits.cpuSeconds)", "--as=\(limits.memoryBytes)", "--", executable, "extract-attachment",
                         "--kind", kind.rawValue, "--output-limit", String(limits.outputBytes),
                         "--member-limit", String(limits.memberBytes), "--pdf-pages", String(limits.pdfPages), input.path]
        var program = "/usr/bin/prlimit"
        if Self.canDropNetwork {
            arguments = ["-rn", program] + arguments
            program = "/usr/bin/unshare"
        }
        let run = Self.runProcess(program, arguments, outputLimit: limits.outputBytes + 1,
                                  wallSeconds: limits.wallSeconds)
        return Self.result(of: run, limits: limits)
    }

    /// The child's report: its text on stdout, its status on stderr's last line (`status: NAME[: detail]`).
    static func result(of run: ProcessRun, limits: Limits) -> AttachmentTextResult {
        if run.timedOut {
            return AttachmentTextResult(status: .timedOut, detail: "stopped after \(Int(limits.wallSeconds)) s")
        }
        if run.outputCapped {
            return AttachmentTextResult(status: .truncated, text: text(run.output, upTo: limits.outputBytes),
                                        detail: "the first \(size(limits.outputBytes)) of text")
        }
        if run.signal == SIGXCPU || run.signal == SIGKILL {
            return AttachmentTextResult(status: .timedOut, detail: "stopped at the \(limits.cpuSeconds) s CPU limit")
        }
        let messages = String(decoding: run.error, as: UTF8.self).split(separator: "\n").map(String.init)
        let statusLine = messages.last(where: { $0.hasPrefix("status: ") })
        guard run.exitStatus == 0 else {
            let said = messages.filter { !$0.hasPrefix("status: ") }.suffix(2).joined(separator: "; ")
            if let statusLine, let parsed = parse(statusLine), parsed.status != .ok { return parsed }
            let how = run.signal.map { "ended by signal \($0)" } ?? "exit status \(run.exitStatus ?? -1)"
            return AttachmentTextResult(status: .failed, detail: said.isEmpty ? how : "\(how): \(said)")
        }
        var result = statusLine.flatMap(parse) ?? AttachmentTextResult(status: .ok)
        if run.output.count > limits.outputBytes {
            result.status = .truncated
            result.detail = "the first \(size(limits.outputBytes)) of text"
        }
        result.text = text(run.output, upTo: limits.outputBytes)
        return result
    }

    /// The first `limit` bytes of `bytes` as text, not ending inside a UTF-8 sequence.
    static func text(_ bytes: [UInt8], upTo limit: Int) -> String {
        guard bytes.count > limit else { return String(decoding: bytes, as: UTF8.self) }
        var end = limit
        while end > 0, bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return String(decoding: bytes[..<end], as: UTF8.self)
    }

    /// A byte count as people read it ("2 MB", "64 KB", "1000 bytes").
    static func size(_ bytes: Int) -> String {
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MB" }
        if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10) KB" }
        return "\(bytes) bytes"
    }

    private static func parse(_ line: String) -> AttachmentTextResult? {
        let parts = line.dropFirst("status: ".count).split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let name = parts.first, let status = AttachmentTextResult.Status(rawValue: name) else { return nil }
        return AttachmentTextResult(status: status, detail: parts.count > 1 ? parts[1] : nil)
    }

    // MARK: - The child

    /// `childExtract` for a kind named as `AttachmentKind`'s raw value; nil for an unknown name.
    public static func childExtract(kindName: String, path: String, outputLimit: Int, memberLimit: Int,
                                    pdfPages: Int) -> AttachmentTextResult? {
        guard let kind = AttachmentKind(rawValue: kindName) else { return nil }
        return childExtract(kind: kind, path: path, outputLimit: outputLimit, memberLimit: memberLimit, pdfPages: pdfPages)
    }

    /// The work of `extract-attachment`, in the limited child: the text of the file at `path`, and
    /// a status when it is not plainly `ok`. Runs `pdftotext` and `unzip` (which inherit the limits).
    public static func childExtract(kind: AttachmentKind, path: String, outputLimit: Int, memberLimit: Int,
                                    pdfPages: Int) -> AttachmentTextResult {
        func read() -> [UInt8]? { FileManager.default.contents(atPath: path).map { [UInt8]($0) } }
        switch kind {
        case .unsupported:
            return AttachmentTextResult(status: .unsupported)
        case .pdf:
            let run = runProcess("/usr/bin/pdftotext", ["-q", "-enc", "UTF-8", "-l", String(pdfPages), path, "-"],
                                 outputLimit: outputLimit + 1, wallSeconds: 3_600)
            if run.outputCapped {
                return AttachmentTextResult(status: .truncated, text: text(run.output, upTo: outputLimit),
                                            detail: "the first \(size(outputLimit)) of text")
            }
            if run.exitStatus != 0 {
                if run.launchFailed { return AttachmentTextResult(status: .failed, detail: "pdftotext is not installed (poppler-utils)") }
                let message = String(decoding: run.error, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                return AttachmentTextResult(status: .failed, detail: "pdftotext: " + (message.isEmpty ? "exit status \(run.exitStatus ?? -1)" : message))
            }
            var result = AttachmentTextResult(status: .ok, text: String(decoding: run.output, as: UTF8.self))
            let pages = pdfPageCount(path)
            if let pages, pages > pdfPages {
                result.status = .truncated
                result.detail = "the first \(pdfPages) of \(pages) pages"
            }
            return result
        case .docx, .xlsx, .pptx, .odf:
            return officeText(kind: kind, path: path, memberLimit: memberLimit)
        case .archive:
            let lister = path.hasSuffix(".zip") || isZip(path) ? ("/usr/bin/unzip", ["-Z1", path]) : ("/bin/tar", ["-tf", path])
            let run = runProcess(lister.0, lister.1, outputLimit: outputLimit + 1, wallSeconds: 3_600)
            guard run.exitStatus == 0 else {
                return AttachmentTextResult(status: .failed, detail: "cannot list the archive's members")
            }
            return AttachmentTextResult(status: .ok, text: String(decoding: run.output, as: UTF8.self))
        case .rtf:
            guard let bytes = read() else { return AttachmentTextResult(status: .failed, detail: "cannot read \(path)") }
            return AttachmentTextResult(status: .ok, text: AttachmentText.rtfText(bytes))
        case .html:
            guard let bytes = read() else { return AttachmentTextResult(status: .failed, detail: "cannot read \(path)") }
            return AttachmentTextResult(status: .ok, text: HTMLTextExtractor.plainText(from: AttachmentText.plainText(bytes)))
        case .text:
            guard let bytes = read() else { return AttachmentTextResult(status: .failed, detail: "cannot read \(path)") }
            return AttachmentTextResult(status: .ok, text: AttachmentText.plainText(bytes))
        case .calendar:
            guard let bytes = read() else { return AttachmentTextResult(status: .failed, detail: "cannot read \(path)") }
            return AttachmentTextResult(status: .ok, text: AttachmentText.calendarText(bytes))
        case .message:
            guard let bytes = read() else { return AttachmentTextResult(status: .failed, detail: "cannot read \(path)") }
            return messageText(bytes, depth: 0, memberLimit: memberLimit)
        }
    }

    /// A forwarded message: its subject, sender and text, and the text of its own attachments that
    /// need no program (two levels down).
    private static func messageText(_ bytes: [UInt8], depth: Int, memberLimit: Int) -> AttachmentTextResult {
        let parsed = MIMEParser.parse(bytes)
        var parts = [parsed.subject, parsed.from.map { [$0.name, $0.address].compactMap { $0 }.joined(separator: " ") }.joined(separator: ", "),
                     parsed.textBody]
        for (attachment, content) in MIMEParser.attachmentContents(bytes) {
            parts.append(attachment.filename ?? "")
            switch AttachmentKind.of(mimeType: attachment.mimeType, filename: attachment.filename) {
            case .text: parts.append(AttachmentText.plainText(content))
            case .html: parts.append(HTMLTextExtractor.plainText(from: AttachmentText.plainText(content)))
            case .calendar: parts.append(AttachmentText.calendarText(content))
            case .rtf: parts.append(AttachmentText.rtfText(content))
            case .message where depth < 2: parts.append(messageText(content, depth: depth + 1, memberLimit: memberLimit).text)
            default: break
            }
        }
        return AttachmentTextResult(status: .ok, text: parts.filter { !$0.isEmpty }.joined(separator: "\n"))
    }

    private static func isZip(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return handle.readData(ofLength: 4) == Data([0x50, 0x4B, 0x03, 0x04])
    }

    /// The page count pdftotext's sibling pdfinfo reports, or nil.
    private static func pdfPageCount(_ path: String) -> Int? {
        let run = runProcess("/usr/bin/pdfinfo", [path], outputLimit: 64 << 10, wallSeconds: 3_600)
        guard run.exitStatus == 0 else { return nil }
        for line in String(decoding: run.output, as: UTF8.self).split(separator: "\n") where line.hasPrefix("Pages:") {
            return Int(line.dropFirst("Pages:".count).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    /// The members of an office document that hold its text, read with `unzip -p` one by one, each
    /// refused past `memberLimit` bytes (a zip bomb), then made text (`AttachmentText.officeXMLText`).
    private static func officeText(kind: AttachmentKind, path: String, memberLimit: Int) -> AttachmentTextResult {
        let list = runProcess("/usr/bin/unzip", ["-Z1", path], outputLimit: 1 << 20, wallSeconds: 3_600)
        guard list.exitStatus == 0 else {
            if list.launchFailed { return AttachmentTextResult(status: .failed, detail: "unzip is not installed") }
            return AttachmentTextResult(status: .failed, detail: "not a readable ZIP container")
        }
        let members = String(decoding: list.output, as: UTF8.self).split(separator: "\n").map(String.init)
        func numbered(_ prefix: String, _ suffix: String) -> [String] {
            members.filter { $0.hasPrefix(prefix) && $0.hasSuffix(suffix) }.sorted {
                (Int($0.dropFirst(prefix.count).dropLast(suffix.count)) ?? 0) < (Int($1.dropFirst(prefix.count).dropLast(suffix.count)) ?? 0)
            }
        }
        let wanted: [String]
        switch kind {
        case .docx: wanted = ["word/document.xml"] + members.filter { $0.hasPrefix("word/footnotes") || $0.hasPrefix("word/endnotes") }
        case .xlsx: wanted = ["xl/sharedStrings.xml"] + numbered("xl/worksheets/sheet", ".xml")
        case .pptx: wanted = numbered("ppt/slides/slide", ".xml") + numbered("ppt/notesSlides/notesSlide", ".xml")
        default: wanted = ["content.xml"]
        }
        var texts: [String] = []
        for member in wanted where members.contains(member) {
            let run = runProcess("/usr/bin/unzip", ["-p", path, member], outputLimit: memberLimit + 1, wallSeconds: 3_600)
            if run.output.count > memberLimit {
                return AttachmentTextResult(status: .refused, detail: "\(member) expands past \(size(memberLimit)) (a zip bomb?)")
            }
            guard run.exitStatus == 0 else {
                return AttachmentTextResult(status: .failed, detail: "cannot unpack \(member)")
            }
            do {
                texts.append(try AttachmentText.officeXMLText(run.output))
            } catch {
                return AttachmentTextResult(status: .refused, detail: "\(member): \(error)")
            }
        }
        if texts.isEmpty { return AttachmentTextResult(status: .failed, detail: "no text member in the container") }
        return AttachmentTextResult(status: .ok, text: texts.joined(separator: "\n"))
    }

    // MARK: - Processes

    struct ProcessRun {
        var output: [UInt8] = []
        var error: [UInt8] = []
        var exitStatus: Int32?
        var signal: Int32?
        var timedOut = false
        var launchFailed = false
        /// The output reached its limit and the process was stopped there.
        var outputCapped = false
    }

    /// Runs `program` in a process group of its own (`posix_spawn`: signals unblocked and at their
    /// defaults, whatever the calling thread blocks), reading its output up to `outputLimit` bytes
    /// and its errors up to 64 KB; the whole group (its own children too) is killed when the
    /// output reaches the limit or `wallSeconds` pass. Waits with `waitpid`, so it works on any thread.
    private static let spawnLock = NSLock()

    static func runProcess(_ program: String, _ arguments: [String], outputLimit: Int,
                           wallSeconds: TimeInterval) -> ProcessRun {
        var run = ProcessRun()
        var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
        // The pipes are made close-on-exec, and made and handed to the child under one lock: a child
        // another thread spawns meanwhile must not hold them open (its reader would wait for it).
        spawnLock.lock()
        var locked = true
        defer { if locked { spawnLock.unlock() } }
        guard pipe(&outPipe) == 0 else { run.launchFailed = true; run.exitStatus = 127; return run }
        guard pipe(&errPipe) == 0 else {
            close(outPipe[0]); close(outPipe[1])
            run.launchFailed = true; run.exitStatus = 127
            return run
        }
        for fd in outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        for fd in outPipe + errPipe { posix_spawn_file_actions_addclose(&actions, fd) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        sigdelset(&allSignals, SIGKILL)
        sigdelset(&allSignals, SIGSTOP)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, program, &actions, &attributes, argv, environ)
        close(outPipe[1])
        close(errPipe[1])
        spawnLock.unlock()
        locked = false
        defer { close(outPipe[0]); close(errPipe[0]) }
        guard spawned == 0 else {
            run.launchFailed = true
            run.exitStatus = 127
            return run
        }
        let deadline = Date().addingTimeInterval(wallSeconds)
        var open = [outPipe[0], errPipe[0]]
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var killed = false
        while !open.isEmpty {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 {
                run.timedOut = true
                break
            }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&fds, nfds_t(fds.count), Int32(min(remaining, 1) * 1_000) + 1)
            if ready < 0 && errno != EINTR { break }
            for entry in fds where entry.revents != 0 {
                let count = read(entry.fd, &buffer, buffer.count)
                if count <= 0 {
                    open.removeAll { $0 == entry.fd }
                    continue
                }
                if entry.fd == outPipe[0] {
                    run.output.append(contentsOf: buffer[0..<count])
                    if run.output.count >= outputLimit {
                        run.outputCapped = true
                        killed = true
                    }
                } else if run.error.count < 64 << 10 {
                    run.error.append(contentsOf: buffer[0..<min(count, (64 << 10) - run.error.count)])
                }
            }
            if killed { break }
        }
        if run.timedOut || killed { kill(-pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        if status & 0x7F == 0 {
            run.exitStatus = (status >> 8) & 0xFF
        } else {
            run.signal = status & 0x7F
        }
        // Whatever the group left behind (a reader it started) goes with it.
        kill(-pid, SIGKILL)
        return run
    }
}
