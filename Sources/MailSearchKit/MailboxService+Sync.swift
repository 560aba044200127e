import Foundation
import MailImport
import MailModel
internal import MailStore

/// A message the sync engine fetched from a server folder, for `MailboxService.storeFetched`.
public struct FetchedServerMessage: Sendable {
    public var uid: UInt32
    /// The whole message (RFC 5322).
    public var bytes: [UInt8]
    /// The folder it was fetched from first, then the folders of its Gmail labels.
    public var folders: [FolderSpec]
    public var flags: MessageFlags
    public var internalDate: Date?
    /// The category its Gmail labels give it (`CATEGORY_SOCIAL`…), nil for none.
    public var labelCategory: AICategory?
    public var gmailMessageId: UInt64?
    public var gmailThreadId: UInt64?

    public init(uid: UInt32, bytes: [UInt8], folders: [FolderSpec], flags: MessageFlags, internalDate: Date?,
                labelCategory: AICategory? = nil, gmailMessageId: UInt64? = nil, gmailThreadId: UInt64? = nil) {
        self.uid = uid
        self.bytes = bytes
        self.folders = folders
        self.flags = flags
        self.internalDate = internalDate
        self.labelCategory = labelCategory
        self.gmailMessageId = gmailMessageId
        self.gmailThreadId = gmailThreadId
    }
}

/// What `storeFetched` did with a batch.
public struct StoredFetch: Sendable {
    /// The emails stored new, with their dates (seconds since 1970).
    public var inserted: [(id: Int64, date: Double?)] = []
    /// Messages that were stored already (the same Message-ID in the account): their UIDs are linked.
    public var duplicates = 0
    /// Messages that could not be read.
    public var failures: [ImportFailure] = []
}

/// Every write an IMAP sync and the outbox runner make, and the state they read: per-folder UID
/// state, the pass's closing sweeps, the outbox's claims and results. Each runs on the service's
/// pool; each that changes what a search or a reader sees bumps the generation here, and nowhere else.
extension MailboxService {
    // MARK: Folders and UID state

    /// The account's folders as stored.
    public func folders(accountId: Int64) async throws -> [Folder] {
        try await core.pool.run { [core] in try core.store.folders(accountId: accountId) }
    }

    /// The folder with this path, made when missing; its id.
    public func ensureFolder(accountId: Int64, path: String, name: String, type: FolderType) async throws -> Int64 {
        try await core.pool.run { [core] in try core.store.ensureFolder(accountId: accountId, path: path, name: name, type: type) }
    }

    /// What the sync engine knows of each of the account's server folders.
    public func imapFolderStates(accountId: Int64) async throws -> [IMAPFolderState] {
        try await core.pool.run { [core] in try core.store.imapFolderStates(accountId: accountId) }
    }

    /// Records a folder's state once it is synced to the end.
    public func saveIMAPFolderState(_ state: IMAPFolderState) async throws {
        try await core.pool.run { [core] in try core.store.saveIMAPFolderState(state) }
    }

    /// A folder the server no longer has: its messages leave it, and emails in no other folder go.
    /// Returns how many emails went.
    public func removeIMAPFolder(folderId: Int64) async throws -> Int {
        try await unlinking { try $0.deleteIMAPFolder(folderId: folderId) }
    }

    /// The server messages known in a folder, by UID.
    public func imapMessages(folderId: Int64) async throws -> [UInt32: IMAPMessageLink] {
        try await core.pool.run { [core] in try core.store.imapMessages(folderId: folderId) }
    }

    /// Records which UID of a folder is which email (and the flags the server had).
    public func recordIMAPMessages(folderId: Int64, _ links: [IMAPMessageLink]) async throws {
        try await core.pool.run { [core] in
            try core.store.recordIMAPMessages(folderId: folderId, links)
            core.mailChanged()
        }
    }

    /// Forgets every UID of a folder (its UIDVALIDITY changed): its mail is matched again by Message-ID.
    public func forgetAllIMAPMessages(folderId: Int64) async throws {
        try await core.pool.run { [core] in try core.store.forgetAllIMAPMessages(folderId: folderId) }
    }

    /// Messages the server expunged leave the folder; emails in no other folder go. Returns how many emails went.
    public func forgetIMAPMessages(folderId: Int64, uids: [UInt32]) async throws -> Int {
        try await unlinking { try $0.forgetIMAPMessages(folderId: folderId, uids: uids) }
    }

    /// After a folder was matched again by Message-ID: links to it that no UID backs go, and emails
    /// left in no folder with them. Returns how many emails went.
    public func pruneUnmappedFolderLinks(folderId: Int64) async throws -> Int {
        try await unlinking { try $0.pruneUnmappedFolderLinks(folderId: folderId) }
    }

    /// The flags the server has now: per UID (what was last seen) and per email (what it shows).
    /// Returns how many emails changed.
    public func applyServerFlags(folderId: Int64, byUID: [UInt32: MessageFlags], byEmail: [Int64: MessageFlags]) async throws -> Int {
        try await core.pool.run { [core] in
            try core.store.updateIMAPFlags(folderId: folderId, byUID)
            return try core.updateFlags(byEmail)
        }
    }

    /// Gmail: each email's label folders as the server has them now. Returns how many emails changed.
    public func replaceLabelLinks(accountId: Int64, _ labels: [(emailId: Int64, folders: [FolderSpec])]) async throws -> Int {
        try await core.pool.run { [core] in
            var changed = 0
            for item in labels where try core.store.replaceLabelLinks(accountId: accountId, emailId: item.emailId, labels: item.folders) {
                changed += 1
            }
            if changed > 0 { core.mailChanged() }
            return changed
        }
    }

    /// The account's emails with these Message-IDs.
    public func emailIds(accountId: Int64, messageIds: [String]) async throws -> [String: Int64] {
        try await core.pool.run { [core] in try core.store.emailIds(accountId: accountId, messageIds: messageIds) }
    }

    /// The account's emails Gmail knows by these X-GM-MSGIDs.
    public func emailIds(accountId: Int64, gmailMessageIds: [UInt64]) async throws -> [UInt64: Int64] {
        try await core.pool.run { [core] in try core.store.emailIds(accountId: accountId, gmailMessageIds: gmailMessageIds) }
    }

    /// Keeps a copy of each fetched message, parses them (on every core), stores and indexes the
    /// batch (one transaction; FTS5 now, embeddings in the background), then records which UID
    /// is which email. A copy whose email was stored before from other bytes is removed again.
    public func storeFetched(_ messages: [FetchedServerMessage], accountId: Int64, folderId: Int64) async throws -> StoredFetch {
        try await core.pool.run { [core] in try core.storeFetched(messages, accountId: accountId, folderId: folderId) }
    }

    /// Files a message just sent in the account's local Sent folder (`folder`: the server's name
    /// for it, used when sync has made none), read, at once.
    public func fileSentMessage(_ bytes: [UInt8], folder: String, accountId: Int64, date: Date) async throws {
        try await core.pool.run { [core] in try core.fileSentMessage(bytes, folder: folder, accountId: accountId, date: date) }
    }

    // MARK: A pass

    /// Where the account stood when a pass began: its newest email's date and whether it held any mail.
    public func passStart(accountId: Int64) async throws -> (newest: Double?, largestEmailId: Int64?, hadMail: Bool) {
        try await core.pool.run { [core] in
            (try core.store.newestDate(accountId: accountId), try core.store.largestEmailId(accountId: accountId),
             try core.store.emailCount(accountId: accountId) > 0)
        }
    }

    /// The end of a pass that read every folder: links to synced folders without a server copy
    /// (and nothing waiting in the outbox) go, then emails stored up to `upTo` that are in no
    /// folder of the server. Returns how many emails went.
    public func sweepAfterPass(accountId: Int64, upTo: Int64) async throws -> Int {
        try await core.pool.run { [core] in
            if try core.store.dropLinksWithoutServerCopy(accountId: accountId, upTo: upTo) > 0 { core.mailChanged() }
            let orphans = try core.store.emailsWithoutServerCopy(accountId: accountId, upTo: upTo)
            try core.delete(emailIds: orphans)
            return orphans.count
        }
    }

    /// Emails whose server copies agree on read and starred take those flags, unless the user's
    /// change waits in the outbox. Returns how many changed.
    public func takeServerFlags(accountId: Int64) async throws -> Int {
        try await core.pool.run { [core] in
            let changed = try core.store.takeServerFlags(accountId: accountId)
            if changed > 0 { core.mailChanged() }
            return changed
        }
    }

    public func setLastSyncDate(accountId: Int64, _ date: Date) async throws {
        try await core.pool.run { [core] in try core.store.setLastSyncDate(accountId: accountId, date) }
    }

    /// Threads an account's mail again as if it had arrived in date order (nil: the whole account).
    public func rethreadInDateOrder(accountId: Int64, after emailIds: [Int64]?) async throws {
        try await core.pool.run { [core] in try core.rethreadInDateOrder(accountId: accountId, after: emailIds) }
    }

    // MARK: The outbox

    /// The account's operations waiting, in the order queued.
    public func pendingOutbox(accountId: Int64) async throws -> [OutboxOperation] {
        try await core.pool.run { [core] in try core.store.pendingOutbox(accountId: accountId) }
    }

    /// The operation as it stands now (a newer action may have changed or superseded it: nil).
    public func retargetOutbox(_ op: OutboxOperation) async throws -> OutboxOperation? {
        try await core.pool.run { [core] in try core.store.retarget(op) }
    }

    /// Marks the operation running; false when it is no longer waiting.
    public func claimOutbox(_ op: OutboxOperation) async throws -> Bool {
        try await core.pool.run { [core] in try core.store.claimOutbox(op) }
    }

    /// Records how the operation ended (in one transaction with its local effect); true when mail changed here.
    @discardableResult
    public func finishOutbox(_ op: OutboxOperation, _ result: OutboxResult, now: Date) async throws -> Bool {
        try await core.pool.run { [core] in
            let changed = try core.store.finishOutbox(op, result, now: now)
            if changed { core.mailChanged() }
            return changed
        }
    }

    /// Deletes the email when it is in no folder this client knows of any more (another client
    /// moved it away); true when it went.
    public func deleteIfOrphaned(emailId: Int64) async throws -> Bool {
        try await core.pool.run { [core] in
            guard try core.store.orphaned(emailId: emailId) else { return false }
            try core.delete(emailIds: [emailId])
            return true
        }
    }

    /// Forgets operations that ended before `date`.
    public func pruneOutbox(before date: Date) async throws {
        try await core.pool.run { [core] in try core.store.pruneOutbox(before: date) }
    }

    /// The email's own Message-ID, when a server SEARCH can find it by it.
    public func serverMessageId(emailId: Int64) async throws -> String? {
        try await core.pool.run { [core] in try core.store.serverMessageId(emailId: emailId) }
    }

    /// The flags the server had for a UID when last seen.
    public func imapFlags(folderId: Int64, uid: UInt32) async throws -> MessageFlags? {
        try await core.pool.run { [core] in try core.store.imapFlags(folderId: folderId, uid: uid) }
    }

    /// The MODSEQ the flags of a UID were last seen at (CONDSTORE).
    public func knownModSeq(folderId: Int64, uid: UInt32) async throws -> UInt64? {
        try await core.pool.run { [core] in try core.store.knownModSeq(folderId: folderId, uid: uid) }
    }

    /// Whether this client moved the message into the folder since the folder's last sync.
    public func movedHereSinceSync(folderId: Int64, uid: UInt32) async throws -> Bool {
        try await core.pool.run { [core] in try core.store.movedHereSinceSync(folderId: folderId, uid: uid) }
    }

    /// The server's name for a folder (as on the wire).
    public func imapMailbox(folderId: Int64) async throws -> [UInt8]? {
        try await core.pool.run { [core] in try core.store.imapMailbox(folderId: folderId) }
    }

    /// Runs a store change that takes messages out of folders and returns the emails it left in
    /// none; those go everywhere. Returns how many went.
    private func unlinking(_ change: @escaping @Sendable (MailStore) throws -> [Int64]) async throws -> Int {
        try await core.pool.run { [core] in
            let orphans = try change(core.store)
            try core.delete(emailIds: orphans)
            core.mailChanged()
            return orphans.count
        }
    }
}
