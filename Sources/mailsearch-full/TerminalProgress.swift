import Foundation

/// A progress bar on standard error with rate and ETA; plain lines every few seconds when
/// standard error is not a terminal; silent when disabled. Called from one thread at a time (the
/// service reports progress from its worker thread, in order).
final class TerminalProgress: @unchecked Sendable {
    private let label: String
    private let unit: String
    private let enabled: Bool
    private let isTTY = isatty(STDERR_FILENO) != 0
    private var lastPrint = Date.distantPast
    private var lastLineLength = 0
    /// The last report when it was not printed (plain lines are printed every few seconds): the
    /// end prints it, so that a log ends with where the work ended, not where it was last printed.
    private var unprinted: (done: Int, total: Int?, fraction: Double?, elapsed: TimeInterval)?

    init(label: String, unit: String, enabled: Bool = true) {
        self.label = label
        self.unit = unit
        self.enabled = enabled
    }

    /// Reports `done` of `total` (units), with `fraction` (0…1) used for the bar and ETA when given.
    func update(done: Int, total: Int?, fraction: Double?, elapsed: TimeInterval, force: Bool = false) {
        guard enabled else { return }
        let now = Date()
        let interval: TimeInterval = isTTY ? 0.1 : 5
        guard force || now.timeIntervalSince(lastPrint) >= interval else {
            unprinted = (done, total, fraction, elapsed)
            return
        }
        unprinted = nil
        lastPrint = now
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        var eta = ""
        if let f = fraction, f > 0.001, f < 1 {
            eta = " ETA " + Self.duration(elapsed / f - elapsed)
        }
        let count = total.map { "\(done)/\($0)" } ?? "\(done)"
        let rateText = String(format: "%.0f %@/s", rate, unit)
        if isTTY {
            let width = 28
            let filled = Int((fraction ?? 0) * Double(width))
            let bar = String(repeating: "█", count: min(width, filled)) + String(repeating: "░", count: max(0, width - filled))
            let pct = fraction.map { String(format: "%3.0f%%", $0 * 100) } ?? "    "
            let line = "\(label) \(bar) \(pct) \(count) \(unit)  \(rateText)\(eta)"
            let pad = String(repeating: " ", count: max(0, lastLineLength - line.count))
            FileHandle.standardError.write(Data(("\r" + line + pad).utf8))
            lastLineLength = line.count
        } else {
            FileHandle.standardError.write(Data("\(label): \(count) \(unit), \(rateText)\(eta)\n".utf8))
        }
    }

    /// Ends the bar's line; without a terminal, prints the last report if it was not.
    func finish() {
        guard enabled else { return }
        if !isTTY, let last = unprinted {
            update(done: last.done, total: last.total, fraction: last.fraction, elapsed: last.elapsed, force: true)
        }
        guard isTTY, lastLineLength > 0 else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }

    static func duration(_ seconds: TimeInterval) -> String {
        let s = Int(seconds.rounded())
        if s >= 3600 { return "\(s / 3600)h\(String(format: "%02d", (s % 3600) / 60))m" }
        if s >= 60 { return "\(s / 60)m\(String(format: "%02d", s % 60))s" }
        return "\(s)s"
    }
}
