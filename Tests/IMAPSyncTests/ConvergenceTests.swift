import Foundation
import GRDB
@testable import IMAPSync
import MailModel
@testable import MailSearchKit
import MailStore
import XCTest

/// Random histories of one IMAP mailbox against a real Dovecot, checked against a model of what the
/// user and another client did (README, "Last action wins"). A history mixes the user's actions
/// (on emails and whole conversations, undo included), another client's changes on the server
/// (flags, moves, expunges, new mail), write-backs and syncs, a replay whose process dies before a
/// command or between the command and its local commit, the server killed and started again, and a
/// folder's UIDVALIDITY reset. After it the server is started, synced twice, and then:
/// - the server and the mailbox agree: the same messages, each in the same folder with the same
///   read and starred flags, no message twice on the server, nothing left in the outbox, and a
///   third sync fetches nothing;
/// - each message ends as the model says: the user's last choice, unless another client changed
///   the same thing later, or earlier without a sync in between that showed it to the user (then
///   the server's; a message another client moved is a new copy, whose flags are the server's).
/// A failing history is shrunk (steps taken out while it still fails) and printed with its seed.
///
/// `MAILSEARCH_HISTORIES` (default 100: about 3 minutes of `make test`, ~1,500 steps) and
/// `MAILSEARCH_HISTORY_SEED` (default fixed; `make soak` runs 5,000 with a new seed) set the run.
final class ConvergenceTests: DovecotTestCase {
    override class var workPrefix: String { "convergence" }

    func testRandomHistoriesEndWithTheServerTheMailboxAndTheModelAgreeing() async throws {
        let environment = ProcessInfo.processInfo.environment
        let count = environment["MAILSEARCH_HISTORIES"].flatMap { Int($0) } ?? 100
        let seed = environment["MAILSEARCH_HISTORY_SEED"].flatMap { UInt64($0) } ?? 20_261_126
        // MAILSEARCH_HISTORY_FROM=N runs histories N… of the seed (the earlier ones generated, not run).
        let from = max(1, environment["MAILSEARCH_HISTORY_FROM"].flatMap { Int($0) } ?? 1)
        var generator = HistoryGenerator(seed: seed)
        let runner = try HistoryRunner(server: server, work: work)
        let started = Date()
        var steps = 0
        var kinds: [String: Int] = [:]
        for n in 0..<count {
            let history = generator.history()
            if n + 1 < from { continue }
            steps += history.count
            for step in history { kinds[step.kind, default: 0] += 1 }
            guard let failure = try await runner.run(history) else {
                if (n + 1) % 250 == 0, n + 1 < count {
                    print("Convergence: \(n + 1) of \(count) histories (seed \(seed)), 0 divergences so far, "
                          + "\(String(format: "%.0f", Date().timeIntervalSince(started))) s")
                }
                continue
            }
            let (shortest, why) = try await runner.shrink(history, failure: failure)
            XCTFail("""
                history \(n + 1) of \(count) (MAILSEARCH_HISTORY_SEED=\(seed) MAILSEARCH_HISTORY_FROM=\(n + 1) \
                MAILSEARCH_HISTORIES=\(n + 1) repeat it) diverged: \(failure)
                shortest failing history, \(shortest.count) of \(history.count) steps (\(why)):
                \(shortest.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n"))
                """)
            return
        }
        let seconds = Date().timeIntervalSince(started)
        let tally = kinds.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        let ran = max(0, count - from + 1)
        print("Convergence: \(ran) histories (seed \(seed)\(from > 1 ? ", from \(from)" : "")), \(steps) steps, 0 divergences, "
              + "\(runner.crashes) replays killed, \(String(format: "%.1f", seconds)) s "
              + "(\(String(format: "%.0f", seconds * 1000 / Double(max(ran, 1)))) ms a history); steps: \(tally)")
    }
}

// MARK: Histories

/// One thing that happens in a history. Messages are numbered in the order they reach the server
/// (0–3 at the start: 0 and 1 one conversation in INBOX, 1 starred, 2 read, 3 in Projects).
enum HistoryStep: CustomStringConvertible, Sendable {
    enum Target: Sendable { case email(Int), conversation(Int) }
    /// The user's action on an email or a whole conversation.
    case act(MailboxAction, Target)
    /// The user undoes their last change of a message (the opposite flag, or back to the folder).
    case undo(Int)
    /// Another client sets a flag (`\Seen`, `\Flagged`) of a message to the opposite of what it is.
    case serverFlip(Int, String)
    /// Another client moves a message to a folder.
    case serverMove(Int, String)
    /// Another client deletes a message for good.
    case serverExpunge(Int)
    /// New mail arrives in INBOX.
    case newMail
    /// The outbox is written back (`mark … --now`).
    case replay
    /// A sync (which writes the outbox back first).
    case sync
    /// A write-back whose process dies at its nth operation, before the command or after it (before
    /// the local commit); the next step runs in a new process.
    case crash(Int, OutboxFaultPoint)
    /// The server is killed, and later started again.
    case serverDown, serverUp
    /// A folder's UIDVALIDITY changes (the server rebuilt its index).
    case uidValidityReset(String)

    var kind: String {
        switch self {
        case .act(_, .email): "act"
        case .act(_, .conversation): "act-conversation"
        case .undo: "undo"
        case .serverFlip: "server-flag"
        case .serverMove: "server-move"
        case .serverExpunge: "server-expunge"
        case .newMail: "new-mail"
        case .replay: "replay"
        case .sync: "sync"
        case .crash: "crash"
        case .serverDown: "server-down"
        case .serverUp: "server-up"
        case .uidValidityReset: "uidvalidity"
        }
    }

    var description: String {
        switch self {
        case .act(let action, .email(let k)):
            if case .move(let folder) = action { return "user: move m\(k) to \(folder)" }
            return "user: \(action.name) m\(k)"
        case .act(let action, .conversation(let k)):
            if case .move(let folder) = action { return "user: move the conversation of m\(k) to \(folder)" }
            return "user: \(action.name) the conversation of m\(k)"
        case .undo(let k): return "user: undo the last change of m\(k)"
        case .serverFlip(let k, let flag): return "other client: flip \(flag) of m\(k)"
        case .serverMove(let k, let folder): return "other client: move m\(k) to \(folder)"
        case .serverExpunge(let k): return "other client: expunge m\(k)"
        case .newMail: return "new mail arrives in INBOX"
        case .replay: return "outbox written back"
        case .sync: return "sync"
        case .crash(let n, let point):
            return "write-back killed at its operation \(n) (counted round the queue) \(point == .beforeCommand ? "before the command" : "after the command, before the local commit")"
        case .serverDown: return "server killed"
        case .serverUp: return "server started"
        case .uidValidityReset(let folder): return "UIDVALIDITY of \(folder) reset"
        }
    }
}

/// Random histories from one seed (SplitMix64).
struct HistoryGenerator {
    private var state: UInt64
    static let folders = ["INBOX", "Archive", "Projects", "Trash"]

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    mutating func history() -> [HistoryStep] {
        var steps: [HistoryStep] = []
        var messages = 4
        var up = true
        for _ in 0..<(6 + below(19)) {
            let roll = below(100)
            let k = below(messages)
            switch roll {
            case ..<30:
                let actions: [MailboxAction] = [.markRead, .markUnread, .star, .unstar, .archive, .delete,
                                                .move(to: Self.folders[below(Self.folders.count)])]
                let action = actions[below(actions.count)]
                steps.append(.act(action, below(4) == 0 ? .conversation(k) : .email(k)))
            case ..<35: steps.append(.undo(k))
            case ..<45 where up: steps.append(.serverFlip(k, below(2) == 0 ? "\\Seen" : "\\Flagged"))
            case ..<50 where up: steps.append(.serverMove(k, Self.folders[below(3)]))
            case ..<53 where up: steps.append(.serverExpunge(k))
            case ..<58 where up:
                steps.append(.newMail)
                messages += 1
            case ..<70: steps.append(.replay)
            case ..<82: steps.append(.sync)
            case ..<89: steps.append(.crash(1 + below(3), below(2) == 0 ? .beforeCommand : .beforeRecord))
            case ..<95 where !up:
                steps.append(.serverUp)
                up = true
            case ..<93:
                steps.append(.serverDown)
                up = false
            case ..<95: steps.append(.uidValidityReset(below(2) == 0 ? "INBOX" : "Archive"))
            default: steps.append(below(2) == 0 ? .sync : .replay)
            }
        }
        return steps
    }
}

// MARK: The model

/// What one message's folder ("gone" once deleted for good), read flag or star should end as.
struct ModelAttribute<Value: Equatable & Sendable>: Sendable {
    /// The user's last choice, and the step it was made at (-1: how the message started).
    var user: Value
    var userStep: Int {
        didSet { userSteps.append(userStep) }
    }
    /// Every step the user changed it at.
    var userSteps: [Int] = []
    /// Another client's last change and its step; `serverValue` nil: whatever the server has (a
    /// message another client moved is a new copy there).
    var serverStep: Int?
    var serverValue: Value?
    /// Every step another client changed it at (for a flag: each a flip).
    var serverSteps: [Int] = []

    /// A flag another client flipped an even number of times since the last sync before the user's
    /// change is where the client last saw it: nothing on the server tells that it changed (the
    /// ABA case), and the user's change goes through. Either value then holds.
    func flippedBack(syncs: [Int]) -> Bool {
        let base = syncs.filter { $0 < userStep }.max() ?? -1
        let flips = serverSteps.filter { $0 > base }.count
        return flips > 0 && flips % 2 == 0
    }

    enum Expected { case value(Value), either(Value, Value), serversValue }

    /// The last change wins; a change the user made without having seen (no sync between) an
    /// earlier change of the same thing by another client loses to it. A write-back between them
    /// may have shown it (a conflict it resolved brings the server's value): then either holds.
    func expected(syncs: [Int], replays: [Int]) -> Expected {
        guard let serverStep else { return .value(user) }
        let between = { (steps: [Int]) in serverStep < userStep && steps.contains { $0 > serverStep && $0 < userStep } }
        if between(syncs) { return .value(user) }
        guard let serverValue else { return .serversValue }
        return between(replays) ? .either(user, serverValue) : .value(serverValue)
    }
}

struct MessageModel: Sendable {
    var folder: ModelAttribute<String>
    var read: ModelAttribute<Bool>
    var starred: ModelAttribute<Bool>
    /// Every step another client changed the message at (any flag, its folder).
    var serverChanges: [Int] = []

    /// A user's change, a write-back killed after it, and another client's change of the message
    /// that this client had not seen when the user acted (after its last sync before the change):
    /// whether the killed write-back stored it cannot be told from the server (the MODSEQ moved
    /// either way). The killed change may be the user's last, or an earlier one since that sync
    /// that a later change of the same flag followed: the replay cannot tell whether the server's
    /// value is its own or the other client's (README, "Last action wins"). Either value holds.
    func uncertain<Value: Equatable & Sendable>(_ attribute: ModelAttribute<Value>, crashes: [Int], syncs: [Int]) -> Bool {
        let seen = syncs.filter { $0 < attribute.userStep }.max() ?? -1
        let unsynced = attribute.userSteps.filter { $0 > seen }
        return crashes.contains { crash in unsynced.contains { $0 < crash } } && serverChanges.contains { $0 > seen }
    }
}

/// What is in a mailbox for one message: its folders and flags.
struct MessageState: Equatable, CustomStringConvertible {
    var folders: [String]
    var read: Bool
    var starred: Bool
    var description: String { "\(folders.joined(separator: "+"))\(read ? " read" : "")\(starred ? " starred" : "")" }
}

// MARK: Running a history

final class HistoryRunner: @unchecked Sendable {
    let server: DovecotServer
    let work: URL
    private var runs = 0
    private(set) var crashes = 0

    struct InjectedCrash: Error {}

    /// Counts the operations a crashing write-back reaches.
    final class FaultCounter: @unchecked Sendable {
        let lock = NSLock()
        var seen = 0
        var fired = false
        let at: Int
        let point: OutboxFaultPoint
        init(at: Int, point: OutboxFaultPoint) {
            self.at = at
            self.point = point
        }
        func check(_ point: OutboxFaultPoint) throws {
            try lock.withLock {
                if point == .beforeCommand { seen += 1 }
                if seen == at, point == self.point {
                    fired = true
                    throw InjectedCrash()
                }
            }
        }
    }

    init(server: DovecotServer, work: URL) throws {
        self.server = server
        self.work = work
        try server.createMailbox(mailbox: "Projects")
    }

    func options(fault: FaultCounter? = nil) -> SyncOptions {
        var options = SyncOptions()
        options.retryDelays = [.milliseconds(50)]
        options.errorRetryInterval = .milliseconds(200)
        options.responseTimeout = .seconds(20)
        options.outboxMaxAttempts = 4
        options.now = { Date(timeIntervalSince1970: 1_795_000_000) }
        if let fault { options.outboxFault = { _, point in try fault.check(point) } }
        return options
    }

    /// The state of one run: the process (service and engine) and what the model knows.
    final class Run {
        let tag: String
        let directory: URL
        var service: MailSearchService!
        var engine: IMAPSyncEngine!
        var up = true
        var model: [Int: MessageModel] = [:]
        var syncs: [Int] = []
        /// Steps whose write-back was killed.
        var crashes: [Int] = []
        /// Steps that wrote the outbox back (a sync does too), done or not.
        var replays: [Int] = []
        /// Per message, the change an undo reverses: a flag's earlier value, or the earlier folder.
        var undo: [Int: MailboxAction] = [:]
        var messages = 0
        var uidValidity: UInt32 = 0

        init(tag: String, directory: URL) {
            self.tag = tag
            self.directory = directory
        }

        func messageId(_ k: Int) -> String { "\(tag)\(k)@example.com" }
    }

    /// Runs a history from an empty server mailbox and a new data directory; nil when everything
    /// agrees, else what diverged.
    func run(_ steps: [HistoryStep]) async throws -> String? {
        runs += 1
        let run = Run(tag: "h\(runs)-", directory: work.appendingPathComponent("run-\(runs)"))
        defer {
            run.service?.shutdown()
            try? FileManager.default.removeItem(at: run.directory)
        }
        try resetServer()
        let initial: [(String, [String])] = [("INBOX", []), ("INBOX", ["\\Flagged"]), ("INBOX", ["\\Seen"]), ("Projects", [])]
        for (k, (mailbox, flags)) in initial.enumerated() {
            try server.append(mailbox: mailbox, message: IMAPSyncTests.message(k, tag: run.tag, inReplyTo: k == 1 ? 0 : nil),
                              flags: flags)
            run.model[k] = MessageModel(folder: .init(user: mailbox, userStep: -1), read: .init(user: flags.contains("\\Seen"), userStep: -1),
                                        starred: .init(user: flags.contains("\\Flagged"), userStep: -1))
        }
        run.messages = initial.count
        try open(run)
        _ = try await run.engine.sync()
        for (index, step) in steps.enumerated() {
            do {
                try await perform(step, at: index, run)
            } catch {
                return "step \(index + 1) (\(step)) threw \(error)"
            }
        }
        return try await settle(run, after: steps.count)
    }

    private func open(_ run: Run, fault: FaultCounter? = nil) throws {
        run.service = try MailSearchService(configuration: .init(
            dataDirectory: DataDirectory(url: run.directory), modelDirectory: work.appendingPathComponent("no-model"),
            backgroundEmbedding: false, now: { Date(timeIntervalSince1970: 1_795_000_000) }))
        let settings = IMAPAccountSettings(host: server.host, port: server.tlsPort, security: "tls", username: "alice",
                                           passwordCommand: "printf '%s\\n' 'alice-password'", caFile: server.caFile, syncWindowDays: nil)
        let account = try run.service.store.findAccount(named: "work")
            ?? run.service.store.addIMAPAccount(named: "work", email: "alice@example.com", settings: settings)
        run.engine = IMAPSyncEngine(service: run.service, account: account, settings: settings, options: options(fault: fault))
    }

    /// The process dies: the service is dropped with whatever it had not committed, and a new one
    /// opens the same data directory.
    private func restartProcess(_ run: Run) throws {
        run.service.shutdown()
        try open(run)
    }

    private func resetServer() throws {
        _ = try server.doveadm(["expunge", "-u", "alice", "mailbox", "*", "all"])
    }

    // MARK: Steps

    private func perform(_ step: HistoryStep, at index: Int, _ run: Run) async throws {
        switch step {
        case .act(let action, let target):
            try await act(action, target, at: index, run)
        case .undo(let k):
            guard let action = run.undo[k] else { return }
            try await act(action, .email(k), at: index, run)
        case .serverFlip(let k, let flag):
            guard run.up, let copy = try serverState(run)[run.messageId(k)]?.first else { return }
            let on = flag == "\\Seen" ? copy.flags.contains("\\Seen") : copy.flags.contains("\\Flagged")
            _ = try server.doveadm(["flags", on ? "remove" : "add", "-u", "alice", flag, "mailbox", copy.mailbox, "uid", "\(copy.uid)"])
            guard var message = run.model[k] else { return }
            message.serverChanges.append(index)
            if flag == "\\Seen" {
                message.read.serverStep = index
                message.read.serverValue = !on
                message.read.serverSteps.append(index)
            } else {
                message.starred.serverStep = index
                message.starred.serverValue = !on
                message.starred.serverSteps.append(index)
            }
            run.model[k] = message
        case .serverMove(let k, let folder):
            guard run.up, let copy = try serverState(run)[run.messageId(k)]?.first, copy.mailbox != folder else { return }
            _ = try server.doveadm(["move", "-u", "alice", folder, "mailbox", copy.mailbox, "uid", "\(copy.uid)"])
            guard var message = run.model[k] else { return }
            message.serverChanges.append(index)
            message.folder.serverStep = index
            message.folder.serverValue = folder
            // The moved message is a new copy (a new UID): its flags are what the server has.
            for keyPath in [\MessageModel.read, \MessageModel.starred] {
                message[keyPath: keyPath].serverStep = index
                message[keyPath: keyPath].serverValue = nil
            }
            run.model[k] = message
        case .serverExpunge(let k):
            guard run.up, let copy = try serverState(run)[run.messageId(k)]?.first else { return }
            _ = try server.doveadm(["expunge", "-u", "alice", "mailbox", copy.mailbox, "uid", "\(copy.uid)"])
            run.model[k]?.folder.serverStep = index
            run.model[k]?.folder.serverValue = "gone"
        case .newMail:
            guard run.up else { return }
            let k = run.messages
            run.messages += 1
            try server.append(mailbox: "INBOX", message: IMAPSyncTests.message(k, tag: run.tag, subject: "New \(k)"))
            run.model[k] = MessageModel(folder: .init(user: "INBOX", userStep: index), read: .init(user: false, userStep: index),
                                        starred: .init(user: false, userStep: index))
        case .replay:
            run.replays.append(index)
            _ = try? await run.engine.replayOutbox()
        case .sync:
            run.replays.append(index)
            if (try? await run.engine.sync()) != nil { run.syncs.append(index) }
        case .crash(let n, let point):
            run.replays.append(index)
            // The nth of the operations waiting (counted round), so that most such steps kill one.
            let waiting = try run.service.store.pendingOutbox(accountId: run.engine.account.id).count
            let counter = FaultCounter(at: waiting == 0 ? n : 1 + (n - 1) % waiting, point: point)
            let crashing = IMAPSyncEngine(service: run.service, account: run.engine.account, settings: run.engine.settings,
                                          options: options(fault: counter))
            _ = try? await crashing.replayOutbox()
            // Died at the operation (the error comes back wrapped as a sync error): a new process.
            // Else the queue was shorter, or the server is down.
            if counter.lock.withLock({ counter.fired }) {
                crashes += 1
                run.crashes.append(index)
                try restartProcess(run)
            }
        case .serverDown:
            guard run.up else { return }
            try server.kill()
            run.up = false
        case .serverUp:
            guard !run.up else { return }
            try server.restart()
            run.up = true
        case .uidValidityReset(let folder):
            guard run.up else { return }
            let current = try server.status(mailbox: folder)["uidvalidity"] as? Int ?? 1
            try server.setUIDValidity(mailbox: folder, value: UInt32(current + 1000))
        }
    }

    /// The user's action, as the page or the CLI takes it: skipped when the message is not in
    /// the mailbox (not synced yet, or gone); the model learns each email it changed.
    private func act(_ action: MailboxAction, _ target: HistoryStep.Target, at index: Int, _ run: Run) async throws {
        let k: Int
        switch target {
        case .email(let n), .conversation(let n): k = n
        }
        let store = run.service.store
        guard let emailId = try store.emailIds(accountId: run.engine.account.id, messageIds: [run.messageId(k)])[run.messageId(k)] else { return }
        var before: [Int64: MessageState] = [:]
        var ids = [emailId]
        if case .conversation = target, let thread = try store.email(id: emailId)?.email.threadId {
            ids = try store.emailIds(threadId: thread)
        }
        var numbers: [Int64: Int] = [:]
        for id in ids {
            before[id] = try localState(run, emailId: id)
            numbers[id] = try number(of: id, run)
        }
        let result: ActionResult
        do {
            if case .conversation = target, let thread = try store.email(id: emailId)?.email.threadId {
                result = try await run.service.mailbox.perform(action, threadId: thread)
            } else {
                result = try await run.service.mailbox.perform(action, emailIds: [emailId])
            }
        } catch let error as ServiceError where error.kind == .notFound {
            return  // a folder the account does not have yet
        }
        for id in result.changed {
            guard let old = before[id], let k = numbers[id] else { continue }
            let new = try localState(run, emailId: id)
            guard var message = run.model[k] else { continue }
            if old.read != new?.read, let new {
                message.read.user = new.read
                message.read.userStep = index
                run.undo[k] = new.read ? .markUnread : .markRead
            }
            if old.starred != new?.starred, let new {
                message.starred.user = new.starred
                message.starred.userStep = index
                run.undo[k] = new.starred ? .unstar : .star
            }
            if old.folders != new?.folders {
                message.folder.user = new?.folders.joined(separator: "+") ?? "gone"
                message.folder.userStep = index
                run.undo[k] = new == nil ? nil : .move(to: old.folders.first ?? "INBOX")
            }
            run.model[k] = message
        }
    }

    private func number(of emailId: Int64, _ run: Run) throws -> Int? {
        guard let id = try run.service.store.email(id: emailId)?.email.messageId else { return nil }
        return Self.number(messageId: id, tag: run.tag)
    }

    static func number(messageId: String, tag: String) -> Int? {
        guard messageId.hasPrefix(tag), let at = messageId.firstIndex(of: "@") else { return nil }
        return Int(messageId[messageId.index(messageId.startIndex, offsetBy: tag.count)..<at])
    }

    private func localState(_ run: Run, emailId: Int64) throws -> MessageState? {
        guard let stored = try run.service.store.email(id: emailId) else { return nil }
        return MessageState(folders: stored.folders.sorted(), read: stored.email.isRead, starred: stored.email.isStarred)
    }

    // MARK: The end of a history

    struct ServerCopy {
        var mailbox: String
        var uid: Int
        var flags: Set<String>
    }

    /// Every copy of this run's messages on the server: Message-ID → copies.
    func serverState(_ run: Run) throws -> [String: [ServerCopy]] {
        let output = try server.doveadm(["fetch", "-u", "alice", "mailbox uid flags hdr.message-id", "mailbox", "*", "all"])
        var result: [String: [ServerCopy]] = [:]
        var copy = ServerCopy(mailbox: "", uid: 0, flags: [])
        for line in output.split(separator: "\n") {
            if line.hasPrefix("mailbox: ") {
                copy.mailbox = String(line.dropFirst(9))
            } else if line.hasPrefix("uid: ") {
                copy.uid = Int(line.dropFirst(5).trimmingCharacters(in: .whitespaces)) ?? 0
            } else if line.hasPrefix("flags:") {
                copy.flags = Set(line.dropFirst(6).split(separator: " ").map(String.init)).subtracting(["\\Recent"])
            } else if line.lowercased().hasPrefix("hdr.message-id:") {
                let id = line.drop { $0 != "<" }.dropFirst().prefix { $0 != ">" }
                guard id.hasPrefix(run.tag) else { continue }
                result[String(id), default: []].append(copy)
            }
        }
        return result
    }

    /// The server started, two syncs, then every check; nil when all agree.
    private func settle(_ run: Run, after count: Int) async throws -> String? {
        if !run.up {
            try server.restart()
            run.up = true
        }
        var synced = 0
        var lastError: (any Error)?
        for _ in 0..<4 where synced < 2 {
            do {
                _ = try await run.engine.sync()
                synced += 1
                run.syncs.append(count + synced)
            } catch {
                lastError = error
            }
        }
        guard synced == 2 else { return "the final syncs failed: \(String(describing: lastError))" }
        var problems: [String] = []
        let third = try await run.engine.sync()
        if third.fetched > 0 { problems.append("a third sync fetched \(third.fetched) messages again") }
        if let counts = try await run.service.mailbox.outboxStatus().first, counts.pending > 0 {
            problems.append("\(counts.pending) outbox operations still pending (last error: \(counts.lastError ?? "none"))")
        }

        let onServer = try serverState(run)
        var local: [String: MessageState] = [:]
        let rows = try run.service.store.database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT e.messageId, e.isRead, e.isStarred, (SELECT group_concat(f.path, '+') FROM
                    (SELECT f.path FROM email_folders ef JOIN folders f ON f.id = ef.folderId WHERE ef.emailId = e.id ORDER BY f.path) f) AS folders
                FROM emails e WHERE e.accountId = ?
                """, arguments: [run.engine.account.id])
        }
        for row in rows {
            let id: String = row["messageId"]
            guard id.hasPrefix(run.tag) else { continue }
            if local[id] != nil { problems.append("\(id) is stored twice here") }
            local[id] = MessageState(folders: ((row["folders"] as String?) ?? "").split(separator: "+").map(String.init),
                                     read: row["isRead"], starred: row["isStarred"])
        }
        for k in 0..<run.messages {
            let id = run.messageId(k)
            let copies = onServer[id] ?? []
            if copies.count > 1 { problems.append("m\(k) is on the server \(copies.count) times: \(copies.map(\.mailbox))") }
            let server = copies.first.map {
                MessageState(folders: [$0.mailbox], read: $0.flags.contains("\\Seen"), starred: $0.flags.contains("\\Flagged"))
            }
            let here = local[id]
            if server != here {
                problems.append("m\(k): server \(server?.description ?? "none"), here \(here?.description ?? "none")")
                continue
            }
            guard let model = run.model[k] else { continue }
            let folder = server?.folders.joined(separator: "+") ?? "gone"
            let folderAllowed: [String]? = switch model.folder.expected(syncs: run.syncs, replays: run.replays) {
            case .value(let value): [value]
            case .either(let a, let b): [a, b]
            case .serversValue: nil
            }
            if let folderAllowed, !folderAllowed.contains(folder) {
                problems.append("m\(k) should be \(folderAllowed.joined(separator: " or ")), is \(server?.description ?? "gone") on both sides")
                continue
            }
            guard let server else { continue }
            for (name, attribute, value) in [("read", model.read, server.read), ("starred", model.starred, server.starred)]
            where !model.uncertain(attribute, crashes: run.crashes, syncs: run.syncs)
                && !attribute.flippedBack(syncs: run.syncs) {
                let allowed: [Bool] = switch attribute.expected(syncs: run.syncs, replays: run.replays) {
                case .value(let v): [v]
                case .either(let a, let b): [a, b]
                case .serversValue: [true, false]
                }
                if !allowed.contains(value) {
                    problems.append("m\(k) should be \(allowed[0] ? "" : "not ")\(name), is \(server.description) on both sides")
                }
            }
        }
        return problems.isEmpty ? nil : problems.joined(separator: "; ")
    }

    // MARK: Shrinking

    /// Takes steps out while the history still fails (any divergence), until no single step can go;
    /// at most 150 more runs.
    func shrink(_ history: [HistoryStep], failure: String) async throws -> ([HistoryStep], String) {
        var current = history
        var why = failure
        var budget = 150
        var progress = true
        while progress, budget > 0 {
            progress = false
            var i = current.count - 1
            while i >= 0, budget > 0 {
                var candidate = current
                candidate.remove(at: i)
                budget -= 1
                if let failure = try await run(candidate) {
                    current = candidate
                    why = failure
                    progress = true
                }
                i -= 1
            }
        }
        return (current, why)
    }
}
