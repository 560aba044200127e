import Foundation

/// A seeded generator of realistic synthetic mail for the demo, test fixtures and benchmarks.
///
/// Messages come in date order, lazily: a million of them never sit in memory at once.
/// The same configuration gives byte-identical messages on every platform.
public struct DemoCorpusGenerator: Sendable, Sequence {
    public let configuration: DemoCorpusConfiguration
    let setup: CorpusSetup

    public init(configuration: DemoCorpusConfiguration = DemoCorpusConfiguration()) {
        self.configuration = configuration
        setup = CorpusSetup(configuration)
    }

    public func makeIterator() -> DemoCorpusIterator {
        DemoCorpusIterator(setup: setup)
    }

    /// The messages, oldest first, generated as they are read.
    public func messages() -> some Sequence<GeneratedMessage> {
        self
    }

    public var underestimatedCount: Int { setup.count }

    /// Writes the corpus as one mboxrd file, Gmail Takeout style: a `From ` separator line per
    /// message, `X-GM-THRID` and `X-Gmail-Labels` headers first, body lines matching `^>*From `
    /// quoted with one more `>`.
    ///
    /// - Parameter progress: called with the number of messages written so far, every 1,000
    ///   messages and once at the end.
    /// - Returns: the number of messages written.
    @discardableResult
    public func writeMbox(to url: URL, progress: ((Int) -> Void)? = nil) throws -> Int {
        let writer = try MboxFileWriter(url: url)
        var written = 0
        for message in self {
            try writer.write(message, threadId: DemoRandom.hash(setup.seed ^ 0x7468_7264, UInt64(message.threadKey)))
            written += 1
            if written % 1_000 == 0 { progress?(written) }
        }
        try writer.close()
        progress?(written)
        return written
    }

    /// Writes the corpus as a Maildir++ tree: the Inbox in `cur`/`new` at the top, and the
    /// folders `.Sent`, `.Archive`, `.Projects`, `.Receipts`, each with `cur`, `new`, `tmp` and a
    /// `maildirfolder` file. Unread mail sits in `new`; the rest in `cur` with `:2,` flags
    /// (`F` starred, `S` seen).
    ///
    /// - Returns: the number of messages written (one file per message).
    @discardableResult
    public func writeMaildir(to url: URL) throws -> Int {
        let writer = try MaildirWriter(root: url)
        var written = 0
        for message in self {
            try writer.write(message, seed: setup.seed)
            written += 1
        }
        return written
    }
}
