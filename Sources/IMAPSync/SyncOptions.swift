import Foundation
import MailModel

/// How a sync runs. The defaults suit a real server; tests shorten the waits and switch
/// extensions off to walk the other paths.
public struct SyncOptions: Sendable {
    /// Messages per `UID FETCH … BODY.PEEK[]` (fewer when they are large: see `maxBatchBytes`).
    public var batchSize: Int = 250
    /// Bytes of messages per body fetch, by their RFC822.SIZE when known.
    public var maxBatchBytes: Int = 24 << 20
    /// Messages per header fetch (the Message-IDs that tell which messages are already stored).
    public var headerBatchSize: Int = 2_000
    /// Use QRESYNC (RFC 7162) when the server offers it: expunges and flag changes since the
    /// last sync come with SELECT.
    public var useQResync = true
    /// Use CONDSTORE when offered: only flags changed since the last sync are fetched, and an
    /// unchanged folder is skipped after one SELECT.
    public var useCondStore = true
    /// Use MOVE (RFC 6851) for mailbox actions when offered, else COPY, \Deleted and EXPUNGE.
    public var useMove = true
    /// Waits before each retry after a dropped or failed connection (spec 001 §5.2.3: three
    /// retries with exponential backoff, then the error is shown).
    public var retryDelays: [Duration] = [.seconds(1), .seconds(2), .seconds(4)]
    /// How long one IDLE lasts before it is re-issued (RFC 2177: servers may drop a client idle
    /// for 30 minutes).
    public var idleDuration: Duration = .seconds(25 * 60)
    /// While watching: how often every folder, not only INBOX, is synced again.
    public var fullPassInterval: Duration = .seconds(5 * 60)
    /// While watching: the wait after a pass that failed every retry, before trying again.
    public var errorRetryInterval: Duration = .seconds(60)
    /// While watching: how often the outbox of mailbox actions is checked for new operations
    /// (this process's and those another process, such as `mailsearch mark`, queued).
    public var outboxPollInterval: Duration = .seconds(1)
    /// While watching: how long the outbox runner keeps its session open without an operation
    /// to write (then it logs out, and logs in again for the next one).
    public var outboxSessionIdle: Duration = .seconds(5 * 60)
    /// Times the server may refuse an outbox operation before it is given up (`failed`, shown in
    /// the status): the first try and three retries, 1, 2 and 4 s apart (spec 001 §5.2.3).
    public var outboxMaxAttempts = 4
    /// Seconds of silence the client allows while a command runs.
    public var responseTimeout: Duration = .seconds(120)
    /// For tests of crashes: called with each outbox operation just before its command goes to
    /// the server (`.beforeCommand`) and once the server answered, before the result is recorded
    /// (`.beforeRecord`). An error thrown here ends the replay there, as a process killed at that
    /// point would (nothing more is written).
    public var outboxFault: (@Sendable (OutboxOperation, OutboxFaultPoint) throws -> Void)?
    /// For tests of races: called each time the watcher is about to open INBOX and IDLE on it,
    /// after a pass or a sync of INBOX (mail a test delivers here arrives in that gap).
    public var beforeListening: (@Sendable () throws -> Void)?
    /// The clock the sync window counts back from.
    public var now: @Sendable () -> Date = Date.init

    public init() {}
}

/// Where in the replay of one outbox operation `SyncOptions.outboxFault` is called.
public enum OutboxFaultPoint: Sendable {
    case beforeCommand, beforeRecord
}
