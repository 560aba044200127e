import Foundation
import IMAPClient
import IMAPProtocol
import MailImport
import MailModel
import MailSearchKit

/// Syncs one IMAP account into the mailbox through the service (spec 001 §5.2), so that mail,
/// FTS5 rows, embeddings and the in-memory vectors stay consistent while searches run.
///
/// A pass: connect, log in, list the folders, then per folder (INBOX first): SELECT, compare
/// UIDVALIDITY, skip the folder when CONDSTORE says nothing changed, else learn what the server
/// expunged (QRESYNC's VANISHED, or the UIDs it still has), which flags changed (QRESYNC,
/// CHANGEDSINCE, or all flags), and which messages of the sync window are new; new messages are
/// fetched newest first in batches, each batch stored and indexed before the next (searchable at
/// once), their Message-IDs read first when the account may already hold them (another folder,
/// a UIDVALIDITY change: one email with several folder links, never a copy). Every batch is
/// committed on its own, and a folder's UIDNEXT is saved only when the folder is done, so a pass
/// killed or cut off at any point resumes where it stopped, with no duplicate and no gap.
public final class IMAPSyncEngine: Sendable {
    public let service: MailSearchService
    public let account: Account
    public let settings: IMAPAccountSettings
    public let options: SyncOptions
    /// Where this engine says how its account's sync stands (shared by the engines of a process).
    public let board: SyncStatusBoard

    /// - Parameter board: where the sync's state goes; `engines(service:)` gives all its engines one,
    ///   registered with the service. An engine made alone keeps its own (unless given one).
    public init(service: MailSearchService, account: Account, settings: IMAPAccountSettings, options: SyncOptions = SyncOptions(),
                board: SyncStatusBoard = SyncStatusBoard()) {
        self.service = service
        self.account = account
        self.settings = settings
        self.options = options
        self.board = board
    }
    private var mailbox: MailboxService { service.mailbox }

    // MARK: Passes

    /// One pass over every folder, with retries after a failed connection (three, with
    /// exponential backoff); the last error is thrown and shown in the status.
    public func sync() async throws -> SyncSummary {
        try await withRetries { connection in
            try await self.pass(connection)
        }
    }

    /// Syncs, then listens: IDLE on INBOX (new mail searchable within seconds of its delivery),
    /// re-issued before the server's 30 minutes; every `fullPassInterval` all folders again.
    /// A connection that drops is opened again (with the retries of `sync`); after a pass that
    /// failed every retry, the error stays in the status and the next attempt comes after
    /// `errorRetryInterval`. Beside it, the outbox of mailbox actions is written back on a
    /// connection of its own, as soon as an action queues operations (`watchOutbox`). Returns when the
    /// task is cancelled.
    public func watch() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.watchOutbox() }
            await self.watchServer()
            group.cancelAll()
        }
        // Stopped (not cancelled): the account must sign in again, and its status keeps saying so.
        if Task.isCancelled { board.update(account.name) { $0.state = .idle; $0.folder = nil } }
    }

    /// Passes and IDLE, again after errors, until the task is cancelled.
    private func watchServer() async {
        while !Task.isCancelled {
            do {
                try await withRetries { connection in
                    _ = try await self.pass(connection)
                    try await self.listen(connection)
                }
            } catch is CancellationError {
                break
            } catch {
                if Task.isCancelled { break }
                // A signed-in account whose grant is gone: trying again cannot mend it (and would ask the
                // provider for tokens over and over). It waits for "Sign in again", which restarts it.
                if settings.oauth != nil, let failure = error as? SyncError, failure.kind == .authentication {
                    board.update(account.name) { $0.nextAttempt = nil }
                    break
                }
                let next = options.now().addingTimeInterval(Self.seconds(options.errorRetryInterval))
                board.update(account.name) { $0.nextAttempt = next }
                do { try await Task.sleep(for: options.errorRetryInterval) } catch { break }
            }
        }
    }

    /// IDLE on INBOX until something changes there, then sync it; a whole pass now and then.
    private func listen(_ connection: IMAPConnection) async throws {
        var lastFullPass = ContinuousClock.now
        var inbox = try await listFolders(connection).first { $0.mailbox.isInbox }
        inbox?.status = nil  // what LIST-STATUS said is stale by the time IDLE wakes
        var syncedForAMiss = false  // the last round synced INBOX because of what its EXAMINE showed
        while !Task.isCancelled {
            let untilFullPass = options.fullPassInterval - (ContinuousClock.now - lastFullPass)
            if untilFullPass <= .zero {
                _ = try await pass(connection)
                lastFullPass = .now
                continue
            }
            guard let inbox, connection.capabilities.contains(.idle) else {
                try await Task.sleep(for: untilFullPass)
                continue
            }
            try options.beforeListening?()
            // What arrived between the pass and this EXAMINE is in the EXAMINE's counts, and IDLE
            // reports only what changes after it: compare them with what was synced first.
            let examined = Self.selected(try await connection.run(.examine(inbox.mailbox, extensions(connection).condStore ? .condStore : .plain)))
            var local = try await mailbox.imapFolderStates(accountId: account.id).first { $0.path == inbox.path }
            // (Once: a folder whose state a sync cannot settle, with no UIDNEXT say, still IDLEs.)
            let missed = !syncedForAMiss && Self.missedSinceSync(examined, local: local)
            syncedForAMiss = missed
            if !missed {
                board.update(account.name) { $0.state = .listening; $0.folder = nil }
                let events = try await connection.idle(for: min(options.idleDuration, untilFullPass)) { response in
                    Self.changesFolder(response)
                }
                guard events.contains(where: Self.changesFolder) else { continue }
                local = try await mailbox.imapFolderStates(accountId: account.id).first { $0.path == inbox.path }
            }
            var summary = SyncSummary(account: account.name)
            let started = ContinuousClock.now
            var order = try await passState()
            try await syncFolder(inbox, local: local, connection: connection, summary: &summary, order: &order)
            try await finishPass(summary: &summary, order: order, started: started)
        }
    }

    /// Opens a session and runs `body`, again after a failed connection (never after a refused
    /// password, an untrusted certificate or missing credentials, which waiting does not mend).
    private func withRetries<T: Sendable>(_ body: (IMAPConnection) async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            var connection: IMAPConnection?
            do {
                let open = try await openSession()
                connection = open
                let result = try await body(open)
                await open.logout()
                return result
            } catch {
                if let connection { await connection.close() }
                if error is CancellationError || Task.isCancelled { throw CancellationError() }
                let failure = Self.syncError(error, account: account.name, settings: settings)
                board.update(account.name) {
                    $0.state = .error
                    $0.lastError = failure.description
                }
                guard failure.kind == .connection, attempt < options.retryDelays.count else { throw failure }
                let delay = options.retryDelays[attempt]
                attempt += 1
                board.update(account.name) { $0.nextAttempt = options.now().addingTimeInterval(Self.seconds(delay)) }
                try await Task.sleep(for: delay)
            }
        }
    }

    func openSession(showInStatus: Bool = true) async throws -> IMAPConnection {
        if showInStatus { board.update(account.name) { $0.state = .connecting; $0.nextAttempt = nil } }
        guard let security = IMAPSecurity(rawValue: settings.security) else {
            throw SyncError(.server, "account \"\(account.name)\" has an unknown connection security \"\(settings.security)\"")
        }
        let configuration = IMAPClientConfiguration(
            host: settings.host, port: settings.port, security: security, caFile: settings.caFile,
            responseTimeout: options.responseTimeout)
        var authentication = try await CredentialSource.authentication(account: account.name, settings: settings, secrets: service.secrets)
        var connection = try await IMAPConnection.connect(configuration)
        do {
            if showInStatus { board.update(account.name) { $0.state = .authenticating } }
            do {
                try await connection.login(authentication)
            } catch let error as IMAPClientError where error.kind == .authenticationFailed && settings.oauth != nil {
                // The token expired early or was revoked (the TokenRefresh state): one refresh, one more try.
                await connection.close()
                guard case .oauth(_, let refused, _) = authentication else { throw error }
                authentication = try await CredentialSource.authentication(account: account.name, settings: settings, secrets: service.secrets,
                                                                           refusedToken: refused)
                connection = try await IMAPConnection.connect(configuration)
                try await connection.login(authentication)
            }
            if options.useQResync, connection.capabilities.contains(.qresync), connection.capabilities.contains(.enable) {
                _ = try await connection.run(.enable([.qresync]))
            }
            return connection
        } catch {
            await connection.close()
            throw error
        }
    }

    /// Whether this session may use QRESYNC / CONDSTORE (offered and not switched off).
    func extensions(_ connection: IMAPConnection) -> (qresync: Bool, condStore: Bool) {
        let caps = connection.capabilities
        let qresync = options.useQResync && caps.contains(.qresync) && caps.contains(.enable)
        let condStore = options.useCondStore && (caps.contains(.condStore) || qresync)
        return (qresync, condStore)
    }

    // MARK: One pass

    private func pass(_ connection: IMAPConnection) async throws -> SyncSummary {
        let started = ContinuousClock.now
        var summary = SyncSummary(account: account.name)
        board.update(account.name) {
            $0.state = .syncingFolders
            $0.messagesDone = 0
            $0.messagesTotal = nil
            $0.messagesPerSecond = nil
        }
        // Mail stored before the pass that it finds in no folder of the server goes at its end.
        let storedBefore = try await mailbox.passStart(accountId: account.id).largestEmailId
        // The user's actions first: a pass must not bring back what they moved or deleted.
        _ = try await replayOutbox(connection)
        let folders = try await listFolders(connection)
        // Folders the server no longer has: their messages leave them (and go, if in no other).
        let listed = Set(folders.map(\.path))
        var states: [String: IMAPFolderState] = [:]
        for state in try await mailbox.imapFolderStates(accountId: account.id) {
            guard listed.contains(state.path) else {
                summary.deletedEmails += try await mailbox.removeIMAPFolder(folderId: state.folderId)
                continue
            }
            states[state.path] = state
        }
        var order = try await passState()
        for folder in folders {
            try Task.checkCancellation()
            try await syncFolder(folder, local: states[folder.path], connection: connection, summary: &summary, order: &order)
        }
        // An email that is in no folder of the server any more, and has no action of the user still
        // to write, is gone there (expunged or moved away by another client while an action of
        // this one was on its way, which then found nothing): it goes here too. Only after a pass
        // that read every folder, and only mail stored before it began.
        if summary.skippedFolders.isEmpty, let storedBefore {
            // A synced folder an email is linked to here but not there, with nothing of the email's
            // waiting in the outbox, is not its folder (the server says where mail is).
            summary.deletedEmails += try await mailbox.sweepAfterPass(accountId: account.id, upTo: storedBefore)
        }
        // The server's flags are the truth: an email whose server copies all have the same read and
        // starred flags shows them (a copy linked again by its Message-ID, after a UIDVALIDITY change
        // or a move by another client, brings its own), unless the user's change of a flag still
        // waits in the outbox. An email whose copies disagree keeps its flags.
        summary.flagChanges += try await mailbox.takeServerFlags(accountId: account.id)
        try await mailbox.setLastSyncDate(accountId: account.id, options.now())
        try await finishPass(summary: &summary, order: order, started: started)
        return summary
    }

    private func passState() async throws -> PassState {
        let start = try await mailbox.passStart(accountId: account.id)
        return PassState(newest: start.newest, accountHadMail: start.hadMail)
    }

    private func finishPass(summary: inout SyncSummary, order: PassState, started: ContinuousClock.Instant) async throws {
        // Mail stored out of date order (newest first, folder by folder) is threaded again as if
        // it had arrived in order: the conversations do not depend on the order of fetching.
        if order.outOfOrder {
            board.update(account.name) {
                $0.state = .indexing
                $0.folder = nil
                $0.messagesTotal = nil
                $0.messagesPerSecond = nil
            }
            try await mailbox.rethreadInDateOrder(accountId: account.id, after: order.wholeAccount ? nil : order.late)
            summary.rethreaded = true
        }
        summary.seconds = Self.seconds(ContinuousClock.now - started)
        let now = options.now()
        board.update(account.name) {
            $0.state = .idle
            $0.folder = nil
            $0.lastSync = now
            $0.lastError = nil
            $0.nextAttempt = nil
        }
        if summary.newEmails > 0 { service.embedPendingInBackground() }
    }

    /// The selectable folders, INBOX first. On Gmail (X-GM-EXT-1) only All Mail, Spam and Trash
    /// are read: every other label is a view of All Mail, and labels become folder links.
    private func listFolders(_ connection: IMAPConnection) async throws -> [ServerFolder] {
        let caps = connection.capabilities
        var returning: [IMAPListReturnOption] = caps.contains(.listExtended) && caps.contains(.specialUse) ? [.specialUse] : []
        // LIST-STATUS (RFC 5819): every folder's UIDVALIDITY, UIDNEXT and HIGHESTMODSEQ with the
        // list, so that a folder where nothing moved needs no SELECT at all.
        if caps.contains(.listExtended), caps.contains(.listStatus) {
            returning.append(.status(extensions(connection).condStore ? [.uidValidity, .uidNext, .highestModSeq] : [.uidValidity, .uidNext]))
        }
        let response = try await connection.run(.list(pattern: "*", returning: returning))
        var statuses: [[UInt8]: IMAPMailboxStatus] = [:]
        for case .mailboxStatus(let status) in response.untagged { statuses[status.mailbox.raw] = status }
        var folders: [ServerFolder] = []
        var seen = Set<String>()
        for case .list(let entry) in response.untagged where entry.isSelectable {
            var folder = ServerFolder(entry)
            folder.status = statuses[entry.mailbox.raw]
            if seen.insert(folder.path).inserted { folders.append(folder) }
        }
        if caps.contains(.gmailExtensions), folders.contains(where: { $0.specialUse == .all }) {
            // The folders of the labels \Sent, \Draft and \Starred (gmailFolderMap), never synced themselves.
            for folder in folders where [.sent, .drafts, .flagged].contains(folder.specialUse) {
                _ = try await mailbox.ensureFolder(accountId: account.id, path: folder.path, name: folder.path, type: folder.type)
            }
            folders = folders.filter { [.all, .junk, .trash].contains($0.specialUse) }
        }
        if !folders.contains(where: { $0.mailbox.isInbox }), !caps.contains(.gmailExtensions) {
            throw SyncError(.server, "the server \(settings.host) lists no INBOX for \(settings.username)")
        }
        return folders.sorted { a, b in
            if a.mailbox.isInbox != b.mailbox.isInbox { return a.mailbox.isInbox }
            return a.path < b.path
        }
    }

    // MARK: One folder

    private struct Selected {
        var uidValidity: UInt32?
        var uidNext: UInt32?
        var highestModSeq: UInt64?
        var vanished: [UInt32] = []
        var flagChanges: [UInt32: MessageFlags] = [:]
    }

    private func syncFolder(_ folder: ServerFolder, local: IMAPFolderState?, connection: IMAPConnection,
                            summary: inout SyncSummary, order: inout PassState) async throws {
        let (qresync, condStore) = extensions(connection)
        // LIST-STATUS said nothing moved since the last complete sync (same UIDVALIDITY, UIDNEXT
        // and HIGHESTMODSEQ): nothing to ask.
        if let local, let status = folder.status, let m = local.highestModSeq, condStore,
           status.uidValidity == local.uidValidity, status.uidNext == local.uidNext, status.highestModSeq == m {
            summary.folders += 1
            summary.unchangedFolders += 1
            return
        }
        let folderId: Int64
        if let known = local?.folderId {
            folderId = known
        } else {
            folderId = try await mailbox.ensureFolder(accountId: account.id, path: folder.path, name: folder.path, type: folder.type)
        }
        var known = try await mailbox.imapMessages(folderId: folderId)
        board.update(account.name) { $0.state = .syncingFolders; $0.folder = folder.path }

        // SELECT (EXAMINE: read-only, so nothing we do marks mail read or changes \Recent).
        var option = IMAPSelectOption.plain
        var usedQResync = false
        if qresync, let v = local?.uidValidity, let m = local?.highestModSeq, !known.isEmpty {
            option = .qresync(uidValidity: v, modSeq: m, knownUIDs: nil)
            usedQResync = true
        } else if condStore {
            option = .condStore
        }
        let selected: Selected
        do {
            selected = Self.selected(try await connection.run(.examine(folder.mailbox, option)))
        } catch let error as IMAPClientError where error.kind == .commandFailed {
            // The server will not open this folder (deleted since LIST, no permission): the others
            // still sync, and the folder is tried again next pass.
            summary.skippedFolders.append(SyncSummary.SkippedFolder(folder: folder.path, reason: error.serverText ?? error.message))
            return
        }
        guard let uidValidity = selected.uidValidity else {
            throw SyncError(.server, "the server \(settings.host) gave no UIDVALIDITY for the folder \(folder.path)")
        }

        var revalidated = false
        if let old = local?.uidValidity, old != uidValidity {
            // The old UIDs mean nothing now: match the folder again by Message-ID (no email is
            // stored twice, and nothing that is still there is lost).
            try await mailbox.forgetAllIMAPMessages(folderId: folderId)
            known = [:]
            revalidated = true
            usedQResync = false
            summary.revalidatedFolders += 1
        }
        summary.folders += 1

        // Unchanged since the last complete sync: one SELECT was enough.
        if !revalidated, let m = local?.highestModSeq, m == selected.highestModSeq,
           local?.uidNext != nil, local?.uidNext == selected.uidNext {
            summary.unchangedFolders += 1
            return
        }

        // What the server expunged.
        var gone: [UInt32] = []
        var serverUIDs: Set<UInt32>?
        if usedQResync {
            gone = selected.vanished.filter { known[$0] != nil }
        } else if !known.isEmpty || revalidated {
            let all = try await searchUIDs(connection, [.all])
            serverUIDs = all
            gone = known.keys.filter { !all.contains($0) }
        }

        // Flags changed on the server (read elsewhere, starred on the phone): a UID whose flags
        // differ from those last seen changes its email.
        var flagChanges: [UInt32: MessageFlags] = [:]
        // Gmail: a message's labels (its folders) change like its flags, and bump its MODSEQ.
        let gmail = connection.capabilities.contains(.gmailExtensions)
        var labelsByUID: [UInt32: [String]] = [:]
        if usedQResync {
            flagChanges = selected.flagChanges
            summary.foldersByQResync += 1
        } else if !known.isEmpty {
            let since = condStore ? local?.highestModSeq : nil
            if since != nil { summary.foldersByCondStore += 1 } else { summary.foldersByFullComparison += 1 }
            let items: [IMAPFetchAttribute] = gmail ? [.uid, .flags, .gmailLabels] : [.uid, .flags]
            let response = try await connection.run(.uidFetch(IMAPSequenceSet.from(1), items, changedSince: since))
            for case .fetch(let fetch) in response.untagged {
                guard let uid = fetch.uid else { continue }
                if let flags = fetch.flags { flagChanges[uid] = Self.messageFlags(flags) }
                if gmail, let labels = fetch.gmailLabels { labelsByUID[uid] = labels }
            }
        }
        if !labelsByUID.isEmpty {
            let map = try await gmailFolderMap()
            var changes: [(emailId: Int64, folders: [FolderSpec])] = []
            for (uid, labels) in labelsByUID {
                guard let link = known[uid] else { continue }
                changes.append((link.emailId, Self.labelFolders(labels, map: map).folders))
            }
            summary.labelChanges += try await mailbox.replaceLabelLinks(accountId: account.id, changes)
        }
        var byEmail: [Int64: MessageFlags] = [:]
        var byUID: [UInt32: MessageFlags] = [:]
        for (uid, flags) in flagChanges {
            guard let link = known[uid], link.flags != flags else { continue }
            byEmail[link.emailId] = flags
            byUID[uid] = flags
        }
        summary.flagChanges += try await mailbox.applyServerFlags(folderId: folderId, byUID: byUID, byEmail: byEmail)

        // Expunged messages leave the folder (and the store, when in no other folder).
        if !gone.isEmpty {
            summary.deletedEmails += try await mailbox.forgetIMAPMessages(folderId: folderId, uids: gone)
            summary.removedFromFolders += gone.count
            for uid in gone { known[uid] = nil }
        }

        // New messages: those of the sync window that are not known yet, newest first. After a
        // UIDVALIDITY change every UID is matched by Message-ID, so that mail outside the window
        // keeps its folder link; only unknown mail inside the window is fetched.
        let window = try await searchUIDs(connection, windowKeys())
        var candidates = window
        if revalidated {
            let all = if let serverUIDs { serverUIDs } else { try await searchUIDs(connection, [.all]) }
            candidates.formUnion(all)
        }
        let new = candidates.subtracting(known.keys).sorted(by: >)
        if !new.isEmpty {
            try await fetchNew(new, window: window, folder: folder, folderId: folderId, connection: connection,
                               summary: &summary, order: &order)
        }
        if revalidated {
            summary.deletedEmails += try await mailbox.pruneUnmappedFolderLinks(folderId: folderId)
        }
        try await mailbox.saveIMAPFolderState(IMAPFolderState(
            folderId: folderId, path: folder.path, mailbox: folder.mailbox.raw, uidValidity: uidValidity,
            uidNext: selected.uidNext, highestModSeq: condStore ? selected.highestModSeq : nil, lastSyncDate: options.now()))
    }

    /// `SINCE` the window's first day, or every message.
    private func windowKeys() -> [IMAPSearchKey] {
        guard let days = settings.syncWindowDays else { return [.all] }
        let start = options.now().addingTimeInterval(-Double(days) * 86_400)
        return [.since(IMAPCalendarDate(start))]
    }

    func searchUIDs(_ connection: IMAPConnection, _ keys: [IMAPSearchKey]) async throws -> Set<UInt32> {
        let esearch = connection.capabilities.contains(.esearch)
        let response = try await connection.run(.uidSearch(keys, returning: esearch ? [.all] : nil))
        var uids = Set<UInt32>()
        for item in response.untagged {
            switch item {
            case .search(let numbers, _):
                uids.formUnion(numbers)
            case .esearch(let e):
                for range in e.all?.ranges ?? [] where range.upperBound != IMAPSequenceSet.last {
                    uids.formUnion(range)
                }
            default:
                break
            }
        }
        return uids
    }

    // MARK: Fetching

    /// A message the header fetch found, waiting for its body.
    private struct Pending {
        var uid: UInt32
        var size: Int
    }

    private func fetchNew(_ uids: [UInt32], window: Set<UInt32>, folder: ServerFolder, folderId: Int64,
                          connection: IMAPConnection, summary: inout SyncSummary, order: inout PassState) async throws {
        let gmail = connection.capabilities.contains(.gmailExtensions)
        var done = 0
        let total = uids.count
        let started = ContinuousClock.now
        func progress(_ state: SyncStatus.State) {
            let elapsed = Self.seconds(ContinuousClock.now - started)
            board.update(account.name) {
                $0.state = state
                $0.folder = folder.path
                $0.messagesDone = done
                $0.messagesTotal = total
                $0.messagesPerSecond = elapsed > 0 ? Double(done) / elapsed : nil
            }
        }

        // Headers first when the account may hold some of these already: their Message-IDs say
        // which are stored (linked, not fetched again).
        var toFetch: [Pending]
        // (Not in a first sync: an empty account holds none, and fetching Message-IDs of mail that
        // is all new costs a second request per folder.)
        if order.accountHadMail || gmail {
            progress(.syncingHeaders)
            toFetch = []
            for chunk in uids.chunked(options.headerBatchSize) {
                var items: [IMAPFetchAttribute] = [.uid, .flags, .rfc822Size, .body(section: "HEADER.FIELDS (MESSAGE-ID)")]
                if gmail { items += [.gmailMessageID, .gmailThreadID] }
                let response = try await connection.run(.uidFetch(IMAPSequenceSet(numbers: chunk), items))
                var headers: [(uid: UInt32, messageId: String?, gmailId: UInt64?, gmailThread: UInt64?, flags: MessageFlags, size: Int)] = []
                for case .fetch(let fetch) in response.untagged {
                    guard let uid = fetch.uid else { continue }
                    let header = fetch.body(section: "HEADER.FIELDS (MESSAGE-ID)") ?? []
                    headers.append((uid, header.isEmpty ? nil : FetchedMessage.messageId(headerBytes: header), fetch.gmailMessageID,
                                    fetch.gmailThreadID, Self.messageFlags(fetch.flags ?? []), Int(fetch.size ?? 0)))
                }
                let byMessageId = try await mailbox.emailIds(accountId: account.id, messageIds: headers.compactMap(\.messageId))
                let byGmailId = gmail ? try await mailbox.emailIds(accountId: account.id, gmailMessageIds: headers.compactMap(\.gmailId)) : [:]
                // A stored email keeps its flags for now (as an import keeps the first copy's): the
                // end of the pass makes them the server's where its copies agree.
                var links: [IMAPMessageLink] = []
                for h in headers {
                    if let emailId = h.gmailId.flatMap({ byGmailId[$0] }) ?? h.messageId.flatMap({ byMessageId[$0] }) {
                        links.append(IMAPMessageLink(uid: h.uid, emailId: emailId, flags: h.flags, gmailMessageId: h.gmailId,
                                                     gmailThreadId: h.gmailThread))
                    } else if window.contains(h.uid) {
                        toFetch.append(Pending(uid: h.uid, size: h.size))
                    }
                }
                try await mailbox.recordIMAPMessages(folderId: folderId, links)
                summary.linked += links.count
                done += links.count
                progress(.syncingHeaders)
            }
            toFetch.sort { $0.uid > $1.uid }
        } else {
            toFetch = uids.map { Pending(uid: $0, size: 0) }
        }

        // Bodies, newest first, in batches bounded by count and size; each batch stored and
        // indexed in its turn, while the next one is on its way (one fetch ahead, so the network
        // and the parsing overlap; at most two batches in memory).
        var batches: [[UInt32]] = []
        var start = 0
        while start < toFetch.count {
            var end = start
            var bytes = 0
            while end < toFetch.count, end - start < options.batchSize, end == start || bytes + toFetch[end].size <= options.maxBatchBytes {
                bytes += toFetch[end].size
                end += 1
            }
            batches.append(toFetch[start..<end].map(\.uid))
            start = end
        }
        let items: [IMAPFetchAttribute] = [.uid, .flags, .internalDate, .message]
            + (gmail ? [.gmailMessageID, .gmailThreadID, .gmailLabels] : [])
        @Sendable func fetch(_ uids: [UInt32]) async throws -> [IMAPFetchResponse] {
            let response = try await connection.run(.uidFetch(IMAPSequenceSet(numbers: uids), items))
            var fetched: [IMAPFetchResponse] = []
            for case .fetch(let fetch) in response.untagged where fetch.uid != nil && fetch.body() != nil {
                fetched.append(fetch)
            }
            return fetched
        }
        guard let first = batches.first else { return }
        let gmailFolders = gmail ? try await gmailFolderMap() : nil
        progress(.syncingBodies)
        var fetched = try await fetch(first)
        for (i, batch) in batches.enumerated() {
            try Task.checkCancellation()
            async let next: [IMAPFetchResponse]? = i + 1 < batches.count ? fetch(batches[i + 1]) : nil
            progress(.indexing)
            let stored = try await storeBatch(fetched, folder: folder, folderId: folderId, gmailFolders: gmailFolders)
            summary.fetched += fetched.count
            summary.newEmails += stored.inserted.count
            summary.linked += stored.duplicates
            summary.failures += stored.failures
            for (id, date) in stored.inserted { order.stored(id, date: date) }
            done += batch.count
            progress(.syncingBodies)
            fetched = try await next ?? []
        }
    }

    /// Hands a fetched batch to the mailbox: each message with its folder (and, on Gmail, its
    /// labels' folders and category), flags and UID.
    private func storeBatch(_ fetched: [IMAPFetchResponse], folder: ServerFolder, folderId: Int64,
                            gmailFolders: [String: FolderSpec]?) async throws -> StoredFetch {
        let ownFolder = FolderSpec(path: folder.path, name: folder.path, type: folder.type)
        let messages = fetched.map { fetch in
            var folders = [ownFolder]
            var labelCategory: AICategory?
            if let gmailFolders {
                let labels = Self.labelFolders(fetch.gmailLabels ?? [], map: gmailFolders)
                folders += labels.folders
                labelCategory = labels.category
            }
            return FetchedServerMessage(uid: fetch.uid!, bytes: fetch.body() ?? [], folders: folders, flags: Self.messageFlags(fetch.flags ?? []),
                                        internalDate: fetch.internalDate, labelCategory: labelCategory,
                                        gmailMessageId: fetch.gmailMessageID, gmailThreadId: fetch.gmailThreadID)
        }
        return try await mailbox.storeFetched(messages, accountId: account.id, folderId: folderId)
    }

    /// Gmail's system labels as the account's folders (`\Inbox` → INBOX, `\Sent` → the folder
    /// with \Sent); user labels are folders of their own name.
    private func gmailFolderMap() async throws -> [String: FolderSpec] {
        var map: [String: FolderSpec] = ["\\Inbox": FolderSpec(path: "INBOX", name: "INBOX", type: .inbox)]
        for folder in try await mailbox.folders(accountId: account.id) {
            let label: String? = switch folder.folderType {
            case .sent: "\\Sent"
            case .drafts: "\\Draft"
            case .starred: "\\Starred"
            default: nil
            }
            if let label { map[label] = FolderSpec(path: folder.path, name: folder.name, type: folder.folderType) }
        }
        return map
    }

    /// Gmail labels as folders (`\Inbox` and the system labels with a folder through `map`, a
    /// user's label as the folder of its name) and the category a category label names (Gmail's
    /// category labels are categories, not folders).
    static func labelFolders(_ labels: [String], map: [String: FolderSpec]) -> (folders: [FolderSpec], category: AICategory?) {
        var folders: [FolderSpec] = []
        var category: AICategory?
        for label in labels {
            if let named = CategorySignals.category(ofLabel: label) {
                category = named
            } else if let spec = map[label] ?? (label.hasPrefix("\\") ? nil : FolderSpec(path: label)) {
                folders.append(spec)
            }
        }
        return (folders, category)
    }

    // MARK: Helpers

    /// An untagged response during IDLE that means the folder changed.
    private static func changesFolder(_ response: IMAPUntaggedResponse) -> Bool {
        switch response {
        case .exists, .expunge, .vanished, .fetch: return true
        default: return false
        }
    }

    /// The folder as just selected differs from the last complete sync of it: mail arrived,
    /// went or changed since, before IDLE could report it.
    private static func missedSinceSync(_ selected: Selected, local: IMAPFolderState?) -> Bool {
        guard let local else { return true }
        if selected.uidValidity != local.uidValidity { return true }
        if let now = selected.uidNext, now != local.uidNext { return true }
        if let now = selected.highestModSeq, let then = local.highestModSeq, now != then { return true }
        return false
    }

    private static func selected(_ response: IMAPCommandResponse) -> Selected {
        var s = Selected()
        func read(_ code: IMAPResponseCode?) {
            switch code {
            case .uidValidity(let v)?: s.uidValidity = v
            case .uidNext(let v)?: s.uidNext = v
            case .highestModSeq(let v)?: s.highestModSeq = v
            default: break
            }
        }
        for item in response.untagged {
            switch item {
            case .status(let status): read(status.code)
            case .vanished(_, let uids):
                for range in uids.ranges where range.upperBound != IMAPSequenceSet.last { s.vanished.append(contentsOf: range) }
            case .fetch(let fetch):
                if let uid = fetch.uid, let flags = fetch.flags { s.flagChanges[uid] = messageFlags(flags) }
            default: break
            }
        }
        read(response.status.code)
        return s
    }

    static func messageFlags(_ flags: [IMAPFlag]) -> MessageFlags {
        MessageFlags(isRead: flags.contains(.seen), isStarred: flags.contains(.flagged), isDraft: flags.contains(.draft))
    }

    static func seconds(_ duration: Duration) -> Double {
        let (s, attoseconds) = duration.components
        return Double(s) + Double(attoseconds) / 1e18
    }

    /// The error a user sees for a failure of the client, the credentials or the store.
    static func syncError(_ error: any Error, account: String, settings: IMAPAccountSettings) -> SyncError {
        if let error = error as? SyncError { return error }
        let server = "\(settings.host):\(settings.port)"
        guard let client = error as? IMAPClientError else {
            return SyncError(.storage, "syncing account \"\(account)\" failed: \(error)")
        }
        switch client.kind {
        case .authenticationFailed:
            return SyncError(.authentication, "the server \(server) refused the login of \(settings.username) for account \"\(account)\"" +
                             (client.serverText.map { ": \($0)" } ?? ""),
                             hint: "check the user name and what the password command or variable gives")
        case .certificateRejected:
            return SyncError(.certificate, "the certificate of \(server) is not trusted: \(client.message)",
                             hint: "if the server uses its own CA, add the account with --ca-file pointing at that CA's certificate")
        case .commandFailed, .protocolViolation:
            return SyncError(.server, "the server \(server) failed a request of account \"\(account)\": \(client.message)")
        case .cancelled:
            return SyncError(.connection, "the sync of account \"\(account)\" was cancelled")
        default:
            return SyncError(.connection, "account \"\(account)\": \(client.message)",
                             hint: "check the host, port and network; the sync tries again")
        }
    }
}

/// What a pass started with, and which emails it stored out of date order (older than mail
/// stored before them): their conversations are threaded again in date order. Past
/// `wholeAccountLimit` of them (an initial sync), the whole account is, in one go.
struct PassState {
    static let wholeAccountLimit = 2_000
    /// The account held mail when the pass began (else no new message can be a stored one).
    let accountHadMail: Bool
    private var newest: Double?
    private(set) var late: [Int64] = []

    init(newest: Double?, accountHadMail: Bool) {
        self.newest = newest
        self.accountHadMail = accountHadMail
    }

    var outOfOrder: Bool { !late.isEmpty }
    var wholeAccount: Bool { late.count > Self.wholeAccountLimit }

    mutating func stored(_ id: Int64, date: Double?) {
        guard let date else { return }
        if let newest, date < newest { late.append(id) }
        newest = Swift.max(newest ?? date, date)
    }
}

extension Array {
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: Swift.max(1, size)).map { self[$0..<Swift.min($0 + size, count)] }
    }
}

extension IMAPSyncEngine {
    /// An engine for each IMAP account of the mailbox (or the one named), in account order, all
    /// writing one board, which the service's status shows.
    public static func engines(service: MailSearchService, accountNamed name: String? = nil,
                               options: SyncOptions = SyncOptions()) async throws -> [IMAPSyncEngine] {
        let accounts = try await service.mailbox.imapAccounts().filter { name == nil || $0.account.name == name }
        let board = SyncStatusBoard()
        service.register(syncStatus: board)
        return accounts.map { IMAPSyncEngine(service: service, account: $0.account, settings: $0.settings, options: options, board: board) }
    }
}
