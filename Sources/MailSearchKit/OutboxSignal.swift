import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Tells the outbox runners that a mailbox action queued server operations, so that they write
/// them back at once instead of at their next poll: those of this process directly, and those of
/// a `serve` running beside a one-shot command (`mailsearch mark …`) through a file in the data
/// directory that the action touches and the server watches (inotify; elsewhere the poll remains).
public final class OutboxSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var count: UInt64 = 0
    private var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]
    /// The file touched after queueing (nil: this process only).
    private let wakeFile: URL?
    private var listening = false
    private var stopped = false

    public init(wakeFile: URL? = nil) {
        self.wakeFile = wakeFile
    }

    /// Ends `listenToOtherProcesses` (within a second).
    public func stopListening() {
        lock.withLock { stopped = true }
    }

    /// Operations were queued here: this process's runners wake, and a server beside it.
    public func announce() {
        notify()
        guard let wakeFile else { return }
        // A write and close is what the listener waits for; losing it costs one poll, never data.
        let fd = open(wakeFile.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        if fd >= 0 {
            _ = write(fd, "1", 1)
            close(fd)
        }
    }

    /// Wakes this process's runners whenever another process announces (from now until the
    /// signal is released). Once per signal; a no-op where inotify is missing.
    public func listenToOtherProcesses() {
        #if os(Linux)
        guard let wakeFile else { return }
        let start = lock.withLock { () -> Bool in
            if listening { return false }
            listening = true
            return true
        }
        guard start else { return }
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { return }
        let directory = wakeFile.deletingLastPathComponent().path
        guard inotify_add_watch(fd, directory, UInt32(IN_CLOSE_WRITE | IN_MOVED_TO)) >= 0 else {
            close(fd)
            return
        }
        let name = wakeFile.lastPathComponent
        let thread = Thread { [weak self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while let signal = self, !signal.lock.withLock({ signal.stopped }) {
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 1000) > 0 else { continue }
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard count > 0 else { continue }
                // Events: struct inotify_event (wd, mask, cookie, len) then the name, NUL-padded.
                var offset = 0
                var woken = false
                while offset + 16 <= count {
                    let length = Int(buffer[offset + 12]) | Int(buffer[offset + 13]) << 8 | Int(buffer[offset + 14]) << 16 | Int(buffer[offset + 15]) << 24
                    let bytes = buffer[(offset + 16)..<min(count, offset + 16 + length)].prefix { $0 != 0 }
                    if String(decoding: bytes, as: UTF8.self) == name { woken = true }
                    offset += 16 + length
                }
                if woken { signal.notify() }
            }
            close(fd)
        }
        thread.name = "outbox wake"
        thread.start()
        #endif
    }

    /// How many times operations were queued so far: pass it to `wait(after:upTo:)`.
    public var current: UInt64 { lock.withLock { count } }

    /// Operations were queued: every waiter wakes.
    public func notify() {
        let woken = lock.withLock {
            count &+= 1
            let all = Array(waiters.values)
            waiters.removeAll()
            return all
        }
        for waiter in woken { waiter.resume() }
    }

    /// Returns when `notify` has been called since the count was `seen`, after `timeout`, or when
    /// the task is cancelled, whichever comes first.
    public func wait(after seen: UInt64, upTo timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.next(after: seen) }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }

    private func next(after seen: UInt64) async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = lock.withLock {
                    if count != seen || Task.isCancelled { return true }
                    waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = lock.withLock { waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}
