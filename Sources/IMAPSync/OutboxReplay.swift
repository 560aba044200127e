import Foundation
import IMAPClient
import IMAPProtocol
import MailModel
import MailSearchKit

/// What one replay of an account's outbox did.
public struct OutboxReplaySummary: Sendable, Codable, Hashable {
    public var account: String
    /// Operations applied on the server (or found already applied).
    public var applied = 0
    /// Flag changes the server had overruled (changed there since): its flags were kept.
    public var conflicts = 0
    /// Operations the server refused (tried again later, up to `SyncOptions.outboxMaxAttempts`).
    public var refused = 0
    /// Operations given up (their folder's UIDVALIDITY changed, or refused too often).
    public var dropped = 0
}

/// One replay at a time per account in this process (the outbox runner and a sync pass).
actor OutboxLocks {
    static let shared = OutboxLocks()
    private var busy = Set<Int64>()
    private var waiting: [Int64: [CheckedContinuation<Void, Never>]] = [:]

    func acquire(_ account: Int64) async {
        if busy.insert(account).inserted { return }
        await withCheckedContinuation { waiting[account, default: []].append($0) }
    }

    func release(_ account: Int64) {
        if var queue = waiting[account], !queue.isEmpty {
            let next = queue.removeFirst()
            waiting[account] = queue
            next.resume()  // the account stays busy, now for the next waiter
        } else {
            busy.remove(account)
        }
    }
}

extension IMAPSyncEngine {
    /// Writes the account's queued mailbox actions back to the server now, on a connection of
    /// its own (`mailsearch mark … --now`); throws when the server cannot be reached.
    public func replayOutbox() async throws -> OutboxReplaySummary {
        let connection = try await openSession(showInStatus: false)
        do {
            let summary = try await replayOutbox(connection)
            await connection.logout()
            return summary
        } catch {
            await connection.close()
            throw Self.syncError(error, account: account.name, settings: settings)
        }
    }

    /// Replays the outbox whenever it holds operations: at once when an action of this process
    /// queues some (`MailSearchService.outboxQueued`), else checked every `outboxPollInterval`
    /// (what another process queued); after a failed connection or an operation the server
    /// refused, waits 1, 2, 4 … seconds (at most `errorRetryInterval`) before trying again.
    /// The runner keeps its session open between replays (`OutboxSession`). Returns when the
    /// task is cancelled.
    func watchOutbox() async {
        // What a one-shot command beside this process queues wakes it too.
        service.outboxQueued.listenToOtherProcesses()
        var failures = 0
        var session = OutboxSession()
        while !Task.isCancelled {
            // Read before the queue is looked at: an action queued while a replay runs wakes the next wait.
            let signalled = service.outboxQueued.current
            if (try? await service.mailbox.hasPendingOutbox(accountId: account.id)) == true {
                do {
                    let summary = try await replay(keeping: &session)
                    // An operation the server refused waits 1, 2, 4 s before its next attempt.
                    failures = summary.refused > 0 ? failures + 1 : 0
                    if failures > 0 {
                        let backoff = min(Self.seconds(options.errorRetryInterval), pow(2, Double(min(failures - 1, 16))))
                        do { try await Task.sleep(for: .seconds(backoff)) } catch { break }
                        continue
                    }
                } catch {
                    if Task.isCancelled { break }
                    failures += 1
                    let backoff = min(Self.seconds(options.errorRetryInterval), pow(2, Double(min(failures - 1, 16))))
                    do { try await Task.sleep(for: .seconds(backoff)) } catch { break }
                    continue
                }
            }
            if let idle = session.idleSince, ContinuousClock.now - idle >= options.outboxSessionIdle {
                await session.end()
            }
            await service.outboxQueued.wait(after: signalled, upTo: options.outboxPollInterval)
        }
        await session.end()
    }

    /// The outbox runner's own IMAP session, kept open between replays so that writing an action
    /// back is its commands alone, not a TCP, TLS and login handshake each time; logged out after
    /// `outboxSessionIdle` without use.
    struct OutboxSession {
        var connection: IMAPConnection?
        var idleSince: ContinuousClock.Instant?

        mutating func end() async {
            if let connection { await connection.logout() }
            connection = nil
            idleSince = nil
        }
    }

    /// One replay on the kept session (opened when there is none). A kept session that fails —
    /// the server dropped it while it idled, or restarted — is closed and the replay tried once
    /// on a new one; a new one that fails is the error.
    private func replay(keeping session: inout OutboxSession) async throws -> OutboxReplaySummary {
        while true {
            let reused = session.connection != nil
            let connection: IMAPConnection
            if let kept = session.connection {
                connection = kept
            } else {
                do {
                    connection = try await openSession(showInStatus: false)
                } catch {
                    throw Self.syncError(error, account: account.name, settings: settings)
                }
            }
            session.connection = connection
            session.idleSince = nil
            do {
                let summary = try await replayOutbox(connection)
                session.idleSince = .now
                return summary
            } catch {
                session.connection = nil
                await connection.close()
                if reused, !Task.isCancelled { continue }
                throw Self.syncError(error, account: account.name, settings: settings)
            }
        }
    }

    /// Replays every pending operation of the account, in the order queued, on an open session.
    /// Each one is marked done in the transaction that records its result; each is harmless to
    /// repeat (a STORE of flags the message has, a move or expunge of a UID that is gone), so a
    /// replay cut off anywhere is simply run again.
    func replayOutbox(_ connection: IMAPConnection) async throws -> OutboxReplaySummary {
        let locks = OutboxLocks.shared
        await locks.acquire(account.id)
        do {
            let summary = try await replayLocked(connection)
            await locks.release(account.id)
            return summary
        } catch {
            await locks.release(account.id)
            throw error
        }
    }

    private func replayLocked(_ connection: IMAPConnection) async throws -> OutboxReplaySummary {
        let mailbox = service.mailbox
        var summary = OutboxReplaySummary(account: account.name)
        let operations = try await mailbox.pendingOutbox(accountId: account.id)
        guard !operations.isEmpty else { return summary }
        var selected: (mailbox: [UInt8], uidValidity: UInt32?)?
        replay: for queued in operations {
            try Task.checkCancellation()
            let result: OutboxResult
            // A flag change or move queued behind a move of the same message follows it to where
            // it went; a move of a message no longer anywhere known is done (a delete for good
            // queued after it expunges it from where it was).
            var op = queued
            if op.kind != .expunge {
                guard let current = try await mailbox.retargetOutbox(op) else {
                    try await mailbox.finishOutbox(op, .nothingToDo, now: options.now())
                    summary.applied += 1
                    continue
                }
                op = current
                if op.kind == .move, op.folderId == op.targetFolderId {
                    try await mailbox.finishOutbox(op, .nothingToDo, now: options.now())
                    summary.applied += 1
                    continue
                }
            }
            do {
                if selected?.mailbox != op.mailbox {
                    selected = nil
                    let condStore = extensions(connection).condStore
                    let response = try await connection.run(.select(IMAPMailboxName(raw: op.mailbox), condStore ? .condStore : .plain))
                    selected = (op.mailbox, Self.uidValidity(response))
                }
                if op.uid == 0 {
                    // Moved here before, its UID here unknown: found by its Message-ID, or gone.
                    guard let uid = try await relocated(op, connection) else {
                        try await mailbox.finishOutbox(op, .nothingToDo, now: options.now())
                        summary.applied += 1
                        continue replay
                    }
                    op.uid = uid
                    op.uidValidity = selected?.uidValidity
                    op.relocated = true
                }
                if let expected = op.uidValidity, let now = selected?.uidValidity, expected != now,
                   let uid = try await relocated(op, connection) {
                    // The folder's UIDVALIDITY changed since the action: its UIDs mean nothing now, but
                    // the message is found by its Message-ID, and the user's action still holds.
                    op.uid = uid
                    op.uidValidity = now
                    op.relocated = true
                }
                // Not found in a folder whose UIDVALIDITY changed: a move may have happened already
                // (a replay that died after the command): it is looked for in the target.
                let lost = op.uidValidity != nil && selected?.uidValidity != nil && op.uidValidity != selected?.uidValidity
                if lost { op.relocated = true }  // its row here is found by its email, not by a UID of the old numbering
                if lost, op.kind != .move {
                    result = .dropped("the folder's UIDVALIDITY changed since the action and the message was not found in it by "
                                      + "its Message-ID; the next sync shows the server's state")
                } else if try await !mailbox.claimOutbox(op) {
                    // A newer action on the message superseded it while this replay ran: never sent.
                    continue replay
                } else {
                    try options.outboxFault?(op, .beforeCommand)
                    switch op.kind {
                    case .store: result = try await storeFlags(op, connection)
                    case .move:
                        var examined = false
                        result = try await move(op, connection, absentFromSource: lost, examinedTarget: &examined)
                        if examined { selected = nil }
                    case .expunge: result = try await expunge(op, connection)
                    case .labels: result = try await storeLabels(op, connection)
                    }
                }
            } catch let error as IMAPClientError where error.kind == .commandFailed {
                // The server refused this operation (a folder it will not open, a name it rejects):
                // it is tried again after a wait, before the ones queued after it, up to
                // `outboxMaxAttempts` times; then it has failed and the others go on.
                selected = nil
                result = .refused(error.description, maxAttempts: options.outboxMaxAttempts)
            }
            try options.outboxFault?(op, .beforeRecord)
            try await mailbox.finishOutbox(op, result, now: options.now())
            // Another client moved it away or expunged it before this move arrived: gone here too,
            // at once, until a sync finds it where it is.
            if case .movedAway = result, let emailId = op.emailId {
                _ = try await mailbox.deleteIfOrphaned(emailId: emailId)
            }
            switch result {
            case .stored, .moved, .movedAway, .expunged, .labelled, .nothingToDo: summary.applied += 1
            case .conflict: summary.conflicts += 1
            case .refused:
                summary.refused += 1
                // Tried again after a wait, before anything queued after it (the order is kept),
                // unless that was its last attempt.
                if queued.attempts + 1 < options.outboxMaxAttempts { break replay }
            case .dropped: summary.dropped += 1
            }
        }
        try await mailbox.pruneOutbox(before: options.now().addingTimeInterval(-30 * 86_400))
        return summary
    }

    /// The UID of an operation's message in the selected folder, found by its Message-ID (exactly
    /// one match): for a folder whose UIDVALIDITY changed, or a copy whose UID was never learnt (0).
    private func relocated(_ op: OutboxOperation, _ connection: IMAPConnection) async throws -> UInt32? {
        guard let messageId = try await messageId(of: op) else { return nil }
        let found = try await searchUIDs(connection, [.header("Message-ID", "<\(messageId)>")])
        return found.count == 1 ? found.first : nil
    }

    /// The Message-ID to look an operation's message up by (queued with it, else the email's).
    private func messageId(of op: OutboxOperation) async throws -> String? {
        if let own = OutboxOperation.searchable(messageId: op.messageId) { return own }
        guard let emailId = op.emailId else { return nil }
        return try await service.mailbox.serverMessageId(emailId: emailId)
    }

    /// UID STORE ±FLAGS, UNCHANGEDSINCE the message's last known MODSEQ when the server has
    /// CONDSTORE. MODIFIED means the message changed on the server since: when its read or
    /// starred flag is no longer what was last seen, the server's flags win (they are fetched and
    /// kept, as IMAP clients resolve that conflict); when they are (another flag, a keyword
    /// changed), the STORE is sent again against the new MODSEQ.
    /// A copy found by its Message-ID (`relocated`) has no flags this client saw to compare with:
    /// the user's change is stored as it is, and the server's flags after it are recorded.
    private func storeFlags(_ op: OutboxOperation, _ connection: IMAPConnection) async throws -> OutboxResult {
        let mailbox = service.mailbox
        let set = IMAPSequenceSet(numbers: [op.uid])
        let seen = op.relocated ? nil : try await mailbox.imapFlags(folderId: op.folderId, uid: op.uid)
        let condStore = extensions(connection).condStore && seen != nil
        var since = condStore ? try await mailbox.knownModSeq(folderId: op.folderId, uid: op.uid) : nil
        var flags = seen ?? MessageFlags(isRead: false, isStarred: false, isDraft: false)
        var modSeq: UInt64?
        for (operation, change) in [(IMAPStoreOperation.add, op.add), (.remove, op.remove)] {
            var list: [IMAPFlag] = []
            if change.isRead { list.append(.seen) }
            if change.isStarred { list.append(.flagged) }
            guard !list.isEmpty else { continue }
            var retried = false
            while true {
                let response = try await connection.run(.uidStore(set, operation, list, silent: since == nil, unchangedSince: since))
                if case .other("MODIFIED", _)? = response.status.code {
                    let (server, serverModSeq) = try await serverFlags(op.uid, connection)
                    let on = operation == .add
                    let applied = server.map { (!change.isRead || $0.isRead == on) && (!change.isStarred || $0.isStarred == on) } ?? false
                    // A replay that died after taking it may have stored it: the change since the
                    // MODSEQ known may be its own. The flag as the user wants it: done. Not: another
                    // client changed it after that store, or the store never left; the later is taken
                    // to be the other client's, which wins (the user's last action may be there).
                    if op.started, applied, let server {
                        flags = server
                        since = serverModSeq
                        if let serverModSeq { modSeq = max(modSeq ?? 0, serverModSeq) }
                        break
                    }
                    // (Unless the message was moved here by this client since the folder's sync: then the
                    // MODSEQ known is the folder's, older than the message here, and MODIFIED says nothing.)
                    if op.started, try await !mailbox.movedHereSinceSync(folderId: op.folderId, uid: op.uid) {
                        return .conflict(serverFlags: server, modSeq: serverModSeq)
                    }
                    // Only the flags this operation changes count: a flag the server changed that
                    // the user did not touch comes with the next sync, and the user's change stands.
                    if let server, let serverModSeq, !retried,
                       !change.isRead || server.isRead == flags.isRead, !change.isStarred || server.isStarred == flags.isStarred {
                        since = serverModSeq
                        retried = true
                        continue
                    }
                    return .conflict(serverFlags: server, modSeq: serverModSeq)
                }
                for case .fetch(let fetch) in response.untagged where fetch.uid == op.uid || fetch.uid == nil {
                    if let m = fetch.modSeq { modSeq = max(modSeq ?? 0, m) }
                }
                break
            }
            let on = operation == .add
            if change.isRead { flags.isRead = on }
            if change.isStarred { flags.isStarred = on }
            if let modSeq { since = modSeq }
        }
        if op.relocated, case (let server?, _) = try await serverFlags(op.uid, connection) {
            return .stored(flags: server, modSeq: nil)
        }
        return .stored(flags: flags, modSeq: modSeq)
    }

    /// The server's flags of a UID now, with its MODSEQ under CONDSTORE.
    private func serverFlags(_ uid: UInt32, _ connection: IMAPConnection) async throws -> (MessageFlags?, UInt64?) {
        let items: [IMAPFetchAttribute] = extensions(connection).condStore ? [.uid, .flags, .modSeq] : [.uid, .flags]
        let response = try await connection.run(.uidFetch(IMAPSequenceSet(numbers: [uid]), items))
        for case .fetch(let fetch) in response.untagged where fetch.uid == uid {
            if let flags = fetch.flags { return (Self.messageFlags(flags), fetch.modSeq) }
        }
        return (nil, nil)
    }

    /// UID MOVE when the server has MOVE, else UID COPY, \Deleted and (UID) EXPUNGE. A UID no
    /// longer in the source means the move happened (before a crash, or by another client): done.
    /// A message already marked \Deleted was copied by an interrupted replay: only the expunge is left.
    /// `absentFromSource`: the message is known not to be in the source (not found by its
    /// Message-ID there): only where it went is looked up.
    private func move(_ op: OutboxOperation, _ connection: IMAPConnection, absentFromSource: Bool = false,
                      examinedTarget: inout Bool) async throws -> OutboxResult {
        let set = IMAPSequenceSet(numbers: [op.uid])
        guard let targetPath = op.targetPath else { return .dropped("no target folder") }
        let target: IMAPMailboxName
        if let id = op.targetFolderId, let raw = try await service.mailbox.imapMailbox(folderId: id) {
            target = IMAPMailboxName(raw: raw)
        } else {
            // A folder the server did not list at the last sync (the "Archive" or "Trash" made for
            // the action): created first, as Thunderbird creates its Archives folder.
            target = IMAPMailboxName(targetPath)
            do { _ = try await connection.run(.create(target)) } catch let error as IMAPClientError where error.kind == .commandFailed {}
        }
        let present = absentFromSource ? [] : try await searchUIDs(connection, [.uid(set)])
        guard present.contains(op.uid) else {
            // Moved already: by a replay whose process died before it recorded the result, or by
            // another client. Where it went is looked up, so that an action queued behind this one
            // (moved back before the first move was recorded) finds the message.
            examinedTarget = true
            return try await located(op, in: target, movedNow: false, connection)
        }
        let caps = connection.capabilities
        var response: IMAPCommandResponse
        if caps.contains(.move), options.useMove {
            response = try await connection.run(.uidMove(set, target))
        } else {
            let alreadyCopied = try await searchUIDs(connection, [.uid(set), .deleted]).contains(op.uid)
            response = IMAPCommandResponse(untagged: [], status: IMAPStatusResponse(status: .ok, code: nil, text: ""))
            if !alreadyCopied {
                response = try await connection.run(.uidCopy(set, target))
                _ = try await connection.run(.uidStore(set, .add, [.deleted], silent: true))
            }
            _ = try await connection.run(caps.contains(.uidPlus) ? .uidExpunge(set) : .expunge)
        }
        var codes = [response.status.code]
        for case .status(let status) in response.untagged { codes.append(status.code) }
        for case .copyUID(let validity, let source, let destination)? in codes {
            let sources = source.ranges.flatMap { Array($0) }
            let destinations = destination.ranges.flatMap { Array($0) }
            if let i = sources.firstIndex(of: op.uid), i < destinations.count {
                return .moved(targetUIDValidity: validity, targetUID: destinations[i])
            }
        }
        examinedTarget = true
        return try await located(op, in: target, movedNow: true, connection)
    }

    /// A moved message's UID in the target when the server did not say it (no COPYUID, or the move
    /// was made before): looked up by Message-ID there. Nil UID when it is not found exactly once;
    /// `movedAway` when a message this command did not move is not there either.
    /// Leaves the target selected (read-only).
    private func located(_ op: OutboxOperation, in target: IMAPMailboxName, movedNow: Bool,
                         _ connection: IMAPConnection) async throws -> OutboxResult {
        guard let messageId = try await messageId(of: op) else { return .moved(targetUIDValidity: nil, targetUID: nil) }
        let response: IMAPCommandResponse
        do {
            response = try await connection.run(.examine(target, .plain))
        } catch let error as IMAPClientError where error.kind == .commandFailed {
            return .moved(targetUIDValidity: nil, targetUID: nil)
        }
        let found = try await searchUIDs(connection, [.header("Message-ID", "<\(messageId)>")])
        if found.isEmpty, !movedNow { return .movedAway }
        guard found.count == 1, let uid = found.first else { return .moved(targetUIDValidity: nil, targetUID: nil) }
        return .moved(targetUIDValidity: Self.uidValidity(response), targetUID: uid)
    }

    /// Gmail's archive and move: UID STORE +X-GM-LABELS (the target's label), then -X-GM-LABELS
    /// (`\Inbox`) on the message's copy in All Mail. Both are harmless to repeat. A server that no
    /// longer offers X-GM-EXT-1 cannot take them: dropped, the next sync shows its state.
    private func storeLabels(_ op: OutboxOperation, _ connection: IMAPConnection) async throws -> OutboxResult {
        guard connection.capabilities.contains(.gmailExtensions) else {
            return .dropped("the server no longer offers Gmail's labels (X-GM-EXT-1); the next sync shows the server's state")
        }
        let set = IMAPSequenceSet(numbers: [op.uid])
        if !op.addLabels.isEmpty { _ = try await connection.run(.uidStoreGmailLabels(set, .add, op.addLabels)) }
        if !op.removeLabels.isEmpty { _ = try await connection.run(.uidStoreGmailLabels(set, .remove, op.removeLabels)) }
        return .labelled
    }

    /// A delete for good: \Deleted, then UID EXPUNGE (UIDPLUS) or EXPUNGE.
    private func expunge(_ op: OutboxOperation, _ connection: IMAPConnection) async throws -> OutboxResult {
        let set = IMAPSequenceSet(numbers: [op.uid])
        guard try await searchUIDs(connection, [.uid(set)]).contains(op.uid) else { return .expunged }
        _ = try await connection.run(.uidStore(set, .add, [.deleted], silent: true))
        _ = try await connection.run(connection.capabilities.contains(.uidPlus) ? .uidExpunge(set) : .expunge)
        return .expunged
    }

    private static func uidValidity(_ response: IMAPCommandResponse) -> UInt32? {
        var codes = [response.status.code]
        for case .status(let status) in response.untagged { codes.append(status.code) }
        for case .uidValidity(let v)? in codes { return v }
        return nil
    }
}
