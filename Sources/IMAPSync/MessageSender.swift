import Foundation
import IMAPClient
import IMAPProtocol
import MailComposition
import MailImport
import MailModel
import MailSearchKit
import SMTPClient
import SMTPProtocol

/// The send queue's worker (spec 001 §5.5.2), run by `serve`: sends each queued message once its
/// undo window is over, over the account's SMTP server, then puts a copy in the account's Sent
/// folder (not on Gmail, which files sent mail itself), and keeps each draft's copy in the
/// Drafts folder current (APPEND with \Draft, the previous copy deleted by UID).
///
/// Exactly once: a message is claimed (`sending`) in a transaction, marked `handedOver` just
/// before its data's final dot is written, and `sent` in the transaction right after the server's
/// 250. A failure before the dot puts it back in the queue (offline, a 4xx: tried again after 2,
/// 4, 8 … seconds, at most `maximumRetryDelay`); a permanent refusal marks it failed with the
/// server's words. After a crash, `handedOver` means the server may have it: it is never sent
/// again, and says so (`MailStore.recoverSendQueue`).
public final class MessageSender: Sendable {
    public let service: MailSearchService
    /// How often the queue is looked at when nothing wakes the sender.
    public let pollInterval: Duration
    /// The longest wait between two attempts of a message that could not be sent.
    public let maximumRetryDelay: TimeInterval
    public let responseTimeout: Duration
    /// A draft's copy in the Drafts folder is made once the draft has not changed for this long.
    public let draftSettleTime: TimeInterval

    public init(service: MailSearchService, pollInterval: Duration = .milliseconds(200), maximumRetryDelay: TimeInterval = 60,
                responseTimeout: Duration = .seconds(60), draftSettleTime: TimeInterval = 3) {
        self.service = service
        self.draftSettleTime = draftSettleTime
        self.pollInterval = pollInterval
        self.maximumRetryDelay = maximumRetryDelay
        self.responseTimeout = responseTimeout
    }

    private var queue: ComposeService { service.compose }
    private var now: Date { service.configuration.now() }

    /// What a previous process left in the queue (see the type's comment), settled once before
    /// this process queues anything: `serve` calls it before it listens.
    @discardableResult
    public func recover() async throws -> (drafted: [Int64], retried: [Int64], uncertain: [Int64]) {
        try await queue.recoverSendQueue(now: now)
    }

    /// Sends and keeps the Drafts folders current until the task is cancelled (call `recover`
    /// first, once, when the process starts).
    public func run() async {
        service.sending.senderRunning = true
        defer { service.sending.senderRunning = false }
        await withTaskGroup(of: Void.self) { group in
            // Each SMTP server's SIZE, learnt at once so that a file too large for it is refused
            // when it is attached rather than when the message is sent.
            group.addTask { await self.learnSizes() }
            await self.loop()
            group.cancelAll()
        }
    }

    /// EHLO on each account's SMTP server (no login, nothing sent) for its SIZE; a server that
    /// cannot be reached now is asked again by the first message sent through it.
    func learnSizes() async {
        guard let accounts = try? await service.mailbox.imapAccounts() else { return }
        for (account, settings) in accounts where settings.smtpHost != nil {
            guard !Task.isCancelled, let configuration = try? Self.smtpConfiguration(settings, responseTimeout: .seconds(10)),
                  let connection = try? await SMTPConnection.connect(configuration) else { continue }
            service.sending.setMaximumSize(connection.capabilities.maximumSize, accountId: account.id)
            await connection.quit()
        }
    }

    private func loop() async {
        var folderWorkAfter: [Int64: Date] = [:]
        var folderFailures: [Int64: Int] = [:]
        while !Task.isCancelled {
            await sendDue()
            await syncServerCopies(after: &folderWorkAfter, failures: &folderFailures)
            do { try await Task.sleep(for: pollInterval) } catch { break }
        }
    }

    /// Sends every message due now, one after the other. Returns how many were sent. `retryNow`
    /// (`outgoing send`): messages waiting for another attempt go now, not at their retry time;
    /// each is tried once in this call. Once an account's server takes a message, the others of
    /// that account waiting for another attempt go at once too: the server is back, and nothing
    /// waits out a back-off meant for a server that was away.
    @discardableResult
    public func sendDue(retryNow: Bool = false) async -> Int {
        var sent = 0
        var tried = Set<Int64>()
        var reachable = Set<Int64>()
        while !Task.isCancelled {
            let claimed: Draft?
            do {
                claimed = try await queue.claimDueMessage(now: now, retryNow: retryNow, retryAccounts: reachable, tried: tried)
            } catch {
                service.sending.lastError = "cannot read the send queue: \(error)"
                return sent
            }
            guard let draft = claimed else { break }
            tried.insert(draft.id)
            if await deliver(draft) {
                sent += 1
                reachable.insert(draft.accountId)
            }
        }
        return sent
    }

    /// Sends one message now if it is queued or waiting (the CLI's `reply`/`forward` without a
    /// running server); true when the server accepted it. Its outcome is recorded as the
    /// background sender records it.
    public func sendNow(id: Int64) async throws -> Bool {
        guard let draft = try await queue.claimMessage(id: id) else { return false }
        return await deliver(draft)
    }

    // MARK: One message

    /// Sends one claimed message and records the outcome; true when the server accepted it.
    private func deliver(_ draft: Draft) async -> Bool {
        guard let (account, settings) = try? await service.mailbox.imapAccounts().first(where: { $0.account.id == draft.accountId }),
              settings.smtpHost != nil else {
            await fail(draft, "the account has no SMTP server (add it again with --smtp HOST)", retry: false)
            return false
        }
        let message: BuiltMessage
        do {
            message = try await queue.buildMessage(draft)
        } catch {
            await fail(draft, "\(error)", retry: false)
            return false
        }
        let configuration: SMTPClientConfiguration
        let authentication: SMTPAuthentication
        do {
            configuration = try Self.smtpConfiguration(settings, responseTimeout: responseTimeout)
            switch try await CredentialSource.authentication(account: account.name, settings: settings, secrets: service.secrets) {
            case .password(let user, let password): authentication = .password(user: user, password: password)
            case .oauth(let user, let token, _): authentication = .oauth(user: user, accessToken: token)
            }
        } catch {
            // A password command that failed may work later (a keyring unlocked): try again.
            await fail(draft, "\(error)", retry: true)
            return false
        }
        let queue = self.queue
        let id = draft.id
        var connection: SMTPConnection?
        do {
            let open = try await SMTPConnection.connect(configuration)
            connection = open
            service.sending.setMaximumSize(open.capabilities.maximumSize, accountId: draft.accountId)
            try await open.authenticate(authentication)
            let result = try await open.send(message: message.bytes, from: message.sender, to: message.recipients,
                                             requiresSMTPUTF8: message.requiresSMTPUTF8) {
                try await queue.markHandedOver(id: id)
            }
            // Committed before anything else: a crash from here on never sends it again. Should the
            // write itself fail, the message stays `handedOver` (never sent again) and nothing
            // below may put it back in the queue.
            let gmail = Self.isGmail(settings)
            do {
                try await queue.markSent(id: id, reply: result.finalReply.description,
                                   refused: result.rejected.map { "\($0.recipient.address): \($0.reply.description)" },
                                   sentCopy: gmail ? "skipped" : "pending", now: now)
            } catch {
                service.sending.lastError = "message \(id) was sent (\(result.finalReply.description)), but that could not be recorded: \(error)"
                await open.quit()
                return true
            }
            service.sending.lastError = nil
            await open.quit()
            if !gmail { await copyToSent(id: id, bytes: message.bytes, account: account, settings: settings) }
            return true
        } catch {
            // Every error of the block is an SMTPClientError (the send's typed throws).
            if let connection { await connection.close() }
            let handedOver = (try? await queue.queuedMessage(id: id))?.state == .handedOver
            if handedOver && !error.kind.isRefusal {
                await fail(draft, "the connection to \(configuration.endpoint) ended after the message was handed over, before the server's answer: "
                     + "it may have been sent, so it is not sent again (\(error.description)); check the recipient, and send a copy if it did not arrive",
                     retry: false)
                return false
            }
            // A refused login is tried once more before the message fails: a server restarting, or its
            // authentication service for a moment, refuses the right password too; a wrong one is refused again.
            let transient = Self.isTransient(error) || (error.kind == .authenticationFailed && draft.attempts < 2)
            // A refused OAuth token (expired early, revoked): a new one now, for that next attempt.
            if error.kind == .authenticationFailed, settings.oauth != nil, case .oauth(_, let refused, _) = authentication {
                _ = try? await CredentialSource.authentication(account: account.name, settings: settings, secrets: service.secrets,
                                                               refusedToken: refused)
            }
            if transient { service.sending.lastError = error.description }
            await fail(draft, error.description, retry: transient)
            return false
        }
    }

    private func fail(_ draft: Draft, _ error: String, retry: Bool) async {
        let delay = min(maximumRetryDelay, pow(2, Double(min(max(draft.attempts, 1), 16))))
        try? await queue.markNotSent(id: draft.id, error: error, retryAt: retry ? now.addingTimeInterval(delay) : nil, now: now)
    }

    /// Offline, a dropped connection, a timeout, or a 4xx reply: worth another attempt.
    static func isTransient(_ error: SMTPClientError) -> Bool {
        switch error.kind {
        case .connectionFailed, .timedOut, .connectionClosed, .cancelled: return true
        case .senderRejected, .messageRejected, .commandFailed: return error.reply?.isTransientFailure ?? false
        case .recipientsRejected: return error.rejected.allSatisfy { $0.reply.isTransientFailure }
        default: return false
        }
    }

    /// Gmail files what its SMTP server sends in Sent itself: a second copy would be a duplicate.
    public static func isGmail(_ settings: IMAPAccountSettings) -> Bool {
        let hosts = [settings.host, settings.smtpHost ?? ""].map { $0.lowercased() }
        return hosts.contains { $0.hasSuffix("gmail.com") || $0.hasSuffix("googlemail.com") }
    }

    /// The account's SMTP server as `send --account` reaches it.
    public static func smtpConfiguration(_ settings: IMAPAccountSettings, responseTimeout: Duration = .seconds(60)) throws -> SMTPClientConfiguration {
        guard let host = settings.smtpHost else { throw SyncError(.server, "the account has no SMTP server") }
        let security = settings.smtpSecurity.flatMap(SMTPSecurity.init(rawValue:)) ?? (settings.smtpPort == 465 ? .tls : .startTLS)
        return SMTPClientConfiguration(host: host, port: settings.smtpPort ?? security.defaultPort, security: security,
                                       caFile: settings.caFile, responseTimeout: responseTimeout)
    }

    // MARK: Sent and Drafts folders

    /// APPENDs a sent message to the account's \Sent folder (a "Sent" is made when there is none),
    /// unless a copy with its Message-ID is there already (an interrupted earlier copy).
    private func copyToSent(id: Int64, bytes: [UInt8], account: Account, settings: IMAPAccountSettings) async {
        do {
            let messageId = try await queue.queuedMessage(id: id)?.messageId ?? ""
            let folder = try await Self.appendToSent(bytes: bytes, messageId: messageId, account: account, settings: settings,
                                                     service: service)
            try await queue.setSentCopy(id: id, "done")
            // The sent message in the local mailbox at once, in its account's Sent folder (as read and
            // searchable as the rest), instead of at the account's next full sync pass — which then finds
            // it by its Message-ID and only links its UID. Best effort: on a failure that pass brings it.
            try? await service.mailbox.fileSentMessage(bytes, folder: folder, accountId: account.id, date: now)
        } catch {
            try? await queue.setSentCopy(id: id, "pending", error: "sent, but not yet copied to the Sent folder: \(error)")
        }
    }

    /// Appends a sent message to the account's Sent folder (its \Sent-role folder, else one of the
    /// usual names, else a new "Sent"), unless a message with its Message-ID (without angle
    /// brackets) is there already. For `serve`'s queue and the one-shot `mailsearch send`; not for
    /// Gmail, which files what it sends itself (`isGmail`).
    /// Returns the folder's name.
    @discardableResult
    public static func appendToSent(bytes: [UInt8], messageId: String, account: Account, settings: IMAPAccountSettings,
                                    service: MailSearchService) async throws -> String {
        let engine = IMAPSyncEngine(service: service, account: account, settings: settings)
        let connection = try await engine.openSession(showInStatus: false)
        do {
            let sent = try await folder(.sent, named: ["Sent", "Sent Items", "Sent Messages"], create: "Sent", connection)
            _ = try await connection.run(.examine(sent))
            let present = messageId.isEmpty ? [] : try await engine.searchUIDs(connection, [.header("Message-ID", "<\(messageId)>")])
            if present.isEmpty {
                _ = try await connection.run(.append(sent, flags: [.seen], date: nil, message: bytes))
            }
            await connection.logout()
            return sent.name
        } catch {
            await connection.close()
            throw error
        }
    }

    /// The work on the servers' folders (Sent copies still to make, drafts to save or remove),
    /// per account, with a growing wait after an account's server could not be reached.
    private func syncServerCopies(after: inout [Int64: Date], failures: inout [Int64: Int]) async {
        let work: (upload: [Draft], remove: [Draft])
        let sentCopies: [Draft]
        let accounts: [(account: Account, settings: IMAPAccountSettings)]
        do {
            work = try await queue.draftCopiesToSync()
            sentCopies = try await queue.pendingSentCopies()
            accounts = try await service.mailbox.imapAccounts()
        } catch {
            return
        }
        // A draft being typed changes every few seconds: its copy is made once it rests.
        let upload = work.upload.filter { now.timeIntervalSince($0.updatedAt) >= draftSettleTime }
        let due = Set((upload + work.remove + sentCopies).map(\.accountId)).filter { after[$0].map { $0 <= now } ?? true }
        for accountId in due.sorted() {
            guard let (account, settings) = accounts.first(where: { $0.account.id == accountId }) else { continue }
            do {
                try await syncServerCopies(account: account, settings: settings,
                                           upload: upload.filter { $0.accountId == accountId },
                                           remove: work.remove.filter { $0.accountId == accountId },
                                           sentCopies: sentCopies.filter { $0.accountId == accountId })
                failures[accountId] = nil
                after[accountId] = nil
            } catch {
                let count = (failures[accountId] ?? 0) + 1
                failures[accountId] = count
                after[accountId] = now.addingTimeInterval(min(maximumRetryDelay, pow(2, Double(min(count, 16)))))
            }
        }
    }

    private func syncServerCopies(account: Account, settings: IMAPAccountSettings, upload: [Draft], remove: [Draft],
                                  sentCopies: [Draft]) async throws {
        let engine = IMAPSyncEngine(service: service, account: account, settings: settings)
        let connection = try await engine.openSession(showInStatus: false)
        do {
            for draft in sentCopies {
                let message = try await queue.buildMessage(draft, date: draft.sentAt)
                let sent = try await Self.folder(.sent, named: ["Sent", "Sent Items", "Sent Messages"], create: "Sent", connection)
                _ = try await connection.run(.examine(sent))
                if try await engine.searchUIDs(connection, [.header("Message-ID", "<\(draft.messageId)>")]).isEmpty {
                    _ = try await connection.run(.append(sent, flags: [.seen], date: draft.sentAt, message: message.bytes))
                }
                try await queue.setSentCopy(id: draft.id, "done")
            }
            if !upload.isEmpty || !remove.isEmpty {
                let drafts = try await Self.folder(.drafts, named: ["Drafts", "Draft"], create: "Drafts", connection)
                for draft in upload {
                    let message = try await queue.buildMessage(draft, forDraftsFolder: true, date: draft.updatedAt)
                    let response = try await connection.run(.append(drafts, flags: [.draft, .seen], date: nil, message: message.bytes))
                    var codes = [response.status.code]
                    for case .status(let status) in response.untagged { codes.append(status.code) }
                    var validity: UInt32?
                    var uid: UInt32?
                    for case .appendUID(let v, let uids)? in codes {
                        validity = v
                        uid = uids.ranges.first?.lowerBound
                    }
                    // The previous copy goes once the new one is safely there.
                    try await deleteCopy(draft, engine: engine, connection: connection)
                    if try await !queue.recordDraftCopy(id: draft.id, version: draft.version, mailbox: drafts.raw, uidValidity: validity, uid: uid) {
                        // Deleted while the copy was on its way: the copy goes too.
                        var gone = draft
                        gone.draftMailbox = drafts.raw
                        gone.draftUidValidity = validity
                        gone.draftUid = uid
                        try await deleteCopy(gone, engine: engine, connection: connection)
                    }
                }
                for draft in remove {
                    try await deleteCopy(draft, engine: engine, connection: connection)
                    try await queue.forgetDraftCopy(id: draft.id)
                }
            }
            await connection.logout()
        } catch {
            await connection.close()
            throw error
        }
    }

    /// STORE \Deleted and UID EXPUNGE of a draft's previous copy (same folder and UIDVALIDITY
    /// only; without UIDPLUS the copy is only marked \Deleted: a plain EXPUNGE could remove
    /// another client's deleted mail).
    private func deleteCopy(_ draft: Draft, engine: IMAPSyncEngine, connection: IMAPConnection) async throws {
        guard let mailbox = draft.draftMailbox, let uid = draft.draftUid else { return }
        let response = try await connection.run(.select(IMAPMailboxName(raw: mailbox), .plain))
        var codes = [response.status.code]
        for case .status(let status) in response.untagged { codes.append(status.code) }
        var validity: UInt32?
        for case .uidValidity(let v)? in codes { validity = v }
        guard validity == nil || draft.draftUidValidity == nil || validity == draft.draftUidValidity else { return }
        let set = IMAPSequenceSet(numbers: [uid])
        guard try await engine.searchUIDs(connection, [.uid(set)]).contains(uid) else { return }
        _ = try await connection.run(.uidStore(set, .add, [.deleted], silent: true))
        if connection.capabilities.contains(.uidPlus) {
            _ = try await connection.run(.uidExpunge(set))
        }
    }

    /// The folder with this SPECIAL-USE role, else one of these names, else a new one.
    static func folder(_ role: IMAPSpecialUse, named names: [String], create: String, _ connection: IMAPConnection) async throws -> IMAPMailboxName {
        let caps = connection.capabilities
        let returning: [IMAPListReturnOption] = caps.contains(.listExtended) && caps.contains(.specialUse) ? [.specialUse] : []
        let response = try await connection.run(.list(pattern: "*", returning: returning))
        var entries: [IMAPListEntry] = []
        for case .list(let entry) in response.untagged where entry.isSelectable { entries.append(entry) }
        if let found = entries.first(where: { $0.specialUse == role }) { return found.mailbox }
        for name in names {
            if let found = entries.first(where: { $0.mailbox.name.caseInsensitiveCompare(name) == .orderedSame }) { return found.mailbox }
        }
        let mailbox = IMAPMailboxName(create)
        _ = try await connection.run(.create(mailbox))
        return mailbox
    }
}

extension SMTPClientError.Kind {
    /// The server answered the transaction (a refusal), as opposed to the connection failing.
    var isRefusal: Bool {
        [.senderRejected, .recipientsRejected, .messageRejected, .messageTooLarge, .unsupported].contains(self)
    }
}
