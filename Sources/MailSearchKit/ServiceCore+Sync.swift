import Foundation
import MailImport
import MailModel
internal import MailStore

/// The writes of a sync that are more than one store call (see `MailboxService+Sync`).
extension ServiceCore {
    func storeFetched(_ fetched: [FetchedServerMessage], accountId: Int64, folderId: Int64) throws -> StoredFetch {
        // A copy of each message first (its path is the email's source), then all parsed at once.
        let archive = messageArchive
        var messages: [FetchedMessage] = []
        messages.reserveCapacity(fetched.count)
        for message in fetched {
            let path = try archive.store(message.bytes, accountId: accountId, key: FetchedMessage.contentKey(message.bytes))
            messages.append(FetchedMessage(bytes: message.bytes, folders: message.folders, flags: message.flags,
                                           internalDate: message.internalDate, sourceRef: path))
        }
        var stored = StoredFetch()
        var batch: [IncomingEmail] = []
        var uidOf: [String: [FetchedServerMessage]] = [:]
        for (i, outcome) in FetchedMessage.incoming(messages).enumerated() {
            switch outcome {
            case .success(var incoming):
                if let category = fetched[i].labelCategory {
                    var signals = incoming.categorySignals ?? CategorySignals()
                    signals.labelCategory = category
                    incoming.categorySignals = signals
                    incoming.provisionalDecision = nil  // made from the signals before the label
                    incoming.email.category = category
                }
                batch.append(incoming)
                uidOf[incoming.email.messageId, default: []].append(fetched[i])
            case .failure(let failure):
                stored.failures.append(failure)
                archive.remove(messages[i].sourceRef)
            }
        }
        // Oldest first within the batch: mail of one batch arrives in date order.
        batch.sort { ($0.email.date ?? .distantFuture, $0.email.messageId) < ($1.email.date ?? .distantFuture, $1.email.messageId) }
        let result = try ingest(batch, accountId: accountId)
        stored.inserted = result.inserted.map { ($0.id, $0.date?.timeIntervalSince1970) }
        stored.duplicates = result.duplicates
        let ids = try store.emailIds(accountId: accountId, messageIds: Array(uidOf.keys))
        var links: [IMAPMessageLink] = []
        for (messageId, copies) in uidOf {
            guard let emailId = ids[messageId] else { continue }
            for copy in copies {
                links.append(IMAPMessageLink(uid: copy.uid, emailId: emailId, flags: copy.flags, gmailMessageId: copy.gmailMessageId,
                                             gmailThreadId: copy.gmailThreadId))
            }
        }
        // An email stored before keeps its flags for now, as in the header pass; this copy's are recorded.
        try store.recordIMAPMessages(folderId: folderId, links)
        mailChanged()
        // A copy of an email stored before, whose bytes differ from its source's, is no one's source.
        if result.duplicates > 0 {
            let sources = try store.sourceRefs(emailIds: Array(Set(ids.values)))
            for incoming in batch {
                guard let emailId = ids[incoming.email.messageId], let path = incoming.sourceRef,
                      sources[emailId] != path else { continue }
                archive.remove(path)
            }
        }
        return stored
    }

    func fileSentMessage(_ bytes: [UInt8], folder: String, accountId: Int64, date: Date) throws {
        let source = try messageArchive.store(bytes, accountId: accountId, key: FetchedMessage.contentKey(bytes))
        // The local Sent folder sync made (its path has the server's delimiter as `/`), else the name.
        let local = try store.folders(accountId: accountId).first { $0.folderType == .sent }
        let spec = local.map { FolderSpec(path: $0.path, name: $0.name, type: .sent) } ?? FolderSpec(path: folder, type: .sent)
        let message = FetchedMessage(bytes: bytes, folders: [spec], flags: MessageFlags(isRead: true, isStarred: false, isDraft: false),
                                     internalDate: date, sourceRef: source)
        guard case .success(let incoming) = FetchedMessage.incoming([message]).first else { return }
        _ = try ingest([incoming], accountId: accountId)
    }
}
