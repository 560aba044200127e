import Foundation
import MailImport

/// What one pass over an account's folders did (`sync --json` prints it).
public struct SyncSummary: Sendable, Codable, Hashable {
    public var account: String
    /// Folders the server has that were synced.
    public var folders = 0
    /// Folders skipped after one SELECT because nothing changed in them (CONDSTORE).
    public var unchangedFolders = 0
    /// Message bodies fetched.
    public var fetched = 0
    /// Emails new to the store.
    public var newEmails = 0
    /// Server messages that were emails already stored (the same message in another folder,
    /// or again after a UIDVALIDITY change): linked, not stored twice.
    public var linked = 0
    /// Emails whose read, starred or draft state changed on the server.
    public var flagChanges = 0
    /// Gmail: emails whose labels (folder links) changed on the server.
    public var labelChanges = 0
    /// Server messages gone from a folder (expunged or moved).
    public var removedFromFolders = 0
    /// Emails deleted locally because the server has them in no folder any more.
    public var deletedEmails = 0
    /// How the changes of already synced folders were found: QRESYNC (SELECT reports expunges
    /// and flag changes), CONDSTORE (flags changed since the last sync, UIDs compared), or by
    /// comparing every UID and flag (a server with neither).
    public var foldersByQResync = 0
    public var foldersByCondStore = 0
    public var foldersByFullComparison = 0
    /// A folder the server listed but would not open, and what it said.
    public struct SkippedFolder: Sendable, Codable, Hashable {
        public var folder: String
        public var reason: String
    }

    /// Folders the server listed but refused to open this pass (tried again next pass).
    public var skippedFolders: [SkippedFolder] = []
    /// Folders whose UIDVALIDITY changed, and were matched again.
    public var revalidatedFolders = 0
    /// Messages that could not be stored (no header and no readable body), with the reason.
    public var failures: [ImportFailure] = []
    /// The account's mail was threaded again in date order, because this pass stored mail out of
    /// that order (newest first): its conversations are those of mail arriving in order.
    public var rethreaded = false
    public var seconds: Double = 0

    public init(account: String) {
        self.account = account
    }
}
