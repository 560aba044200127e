import Foundation
import MailImport
import MailModel
import MailParsing
internal import MailStore

/// What a pass over attachments not read yet did.
public struct AttachmentReadSummary: Sendable, Codable {
    /// Emails whose attachments were tried, and attachments tried.
    public var emails = 0
    public var attachments = 0
    /// Of those: read (whole or in part), no text to read (images…), refused/failed/stopped.
    public var read = 0
    public var unsupported = 0
    public var unreadable = 0
    public var seconds = 0.0
    /// The unreadable ones: "email ID, NAME: status: detail".
    public var problems: [String] = []
}

/// How far reading attachments has got (`stats`).
public struct AttachmentCounts: Sendable, Codable, Hashable {
    /// Attachments not read yet.
    public var pending: Int
    /// Read whole, read in part (a cap reached), with no text to read (images…), unreadable.
    public var read: Int
    public var truncated: Int
    public var unsupported: Int
    public var unreadable: Int
    /// Semantic search of their text, for the model in use: attachments whose passages are
    /// embedded, how many passages, how many of those attachments go on past their last passage
    /// (`AttachmentPassages.maxPassages`), and attachments with text still to embed.
    public var embedded: Int
    public var passages: Int
    public var embeddedInPart: Int
    public var toEmbed: Int
    /// The most passages embedded of one attachment.
    public var passageLimit = AttachmentPassages.maxPassages
}

extension ServiceCore {
    public func attachmentCounts() throws -> AttachmentCounts {
        let c = try store.attachmentTextCounts()
        let p = try store.passageCounts(model: model.name)
        return AttachmentCounts(pending: c.pending, read: c.read, truncated: c.truncated, unsupported: c.unsupported,
                                unreadable: c.unreadable, embedded: p.attachments, passages: p.passages,
                                embeddedInPart: p.truncated, toEmbed: try store.attachmentsWithoutPassagesCount(model: model.name))
    }

    /// The program that reads attachments in a limited child process: `MAILSEARCH_EXTRACT_EXECUTABLE`,
    /// else this process's own executable when it is mailsearch-full, else mailsearch-full beside it.
    static func attachmentReaderExecutable() -> String? {
        if let forced = ProcessInfo.processInfo.environment["MAILSEARCH_EXTRACT_EXECUTABLE"], !forced.isEmpty { return forced }
        if let current = AttachmentTextExtractor.currentExecutable() {
            if (current as NSString).lastPathComponent == "mailsearch-full" { return current }
            let beside = ((current as NSString).deletingLastPathComponent as NSString).appendingPathComponent("mailsearch-full")
            if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        }
        return nil
    }

    /// Reads the text of every attachment not read yet (at most `limit` emails' worth), each in a
    /// limited child process (`AttachmentTextExtractor`), as many at once as there are cores (the
    /// attachments of up to 50 emails and 64 MB at a time), stores it in mail.sqlite
    /// (`attachment_text`) and puts it in the keyword index, then (with background embedding) wakes the
    /// queue that embeds its passages. `progress(emails done, emails total)`.
    /// An attachment whose message can no longer be read is stored as failed, with the reason.
    public func readAttachments(limit: Int? = nil, progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in })
        async throws -> AttachmentReadSummary {
        guard let executable = Self.attachmentReaderExecutable() else {
            throw ServiceError(.unavailable, "cannot find mailsearch-full to read attachments with",
                               hint: "run the mailsearch binary built by `make release`, or set MAILSEARCH_EXTRACT_EXECUTABLE")
        }
        let store = self.store, index = self.index
        let outcome = try await pool.run {
            let extractor = AttachmentTextExtractor(executable: executable)
            let start = Date()
            var summary = AttachmentReadSummary()
            let total = min(limit ?? Int.max, try store.attachmentTextCounts().pendingEmails)
            var afterId: Int64 = 0
            progress(0, total)
            while summary.emails < total {
                let batch = try store.emailsWithPendingAttachments(afterId: afterId, limit: min(50, total - summary.emails))
                guard let last = batch.last else { break }
                afterId = last.emailId
                var rows: [(attachmentId: Int64, emailId: Int64, status: String, detail: String?, text: String)] = []
                // Each pending attachment of the batch, in order: its bytes to read, or what is already
                // known of it. They are read a group at a time (up to 64 MB), the results in the same order.
                struct Job: Sendable {
                    var kind: AttachmentKind = .unsupported
                    var content: [UInt8] = []
                    var known: AttachmentTextResult?
                }
                var results: [AttachmentTextResult] = []
                var group: [Job] = []
                var groupBytes = 0
                func readGroup() {
                    results += group.concurrentMap { job in job.known ?? extractor.extract(kind: job.kind, content: job.content) }
                    group.removeAll()
                    groupBytes = 0
                }
                for email in batch {
                    let contents: [(attachment: ParsedAttachment, content: [UInt8])]
                    var unreadableSource: String?
                    do {
                        contents = MIMEParser.attachmentContents(try MessageSource.rawBytes(emailId: email.emailId, sourceRef: email.sourceRef))
                    } catch {
                        contents = []
                        unreadableSource = "\(error)"
                    }
                    for pending in email.attachments {
                        if pending.position < contents.count, contents[pending.position].attachment.mimeType == pending.mimeType {
                            group.append(Job(kind: AttachmentKind.of(mimeType: pending.mimeType, filename: pending.filename),
                                             content: contents[pending.position].content))
                            groupBytes += contents[pending.position].content.count
                        } else {
                            group.append(Job(known: AttachmentTextResult(
                                status: .failed, detail: unreadableSource ?? "the message no longer holds this attachment")))
                        }
                    }
                    if groupBytes >= 64 << 20 { readGroup() }
                }
                readGroup()
                var next = 0
                for email in batch {
                    for pending in email.attachments {
                        let result = results[next]
                        next += 1
                        summary.attachments += 1
                        switch result.status {
                        case .ok, .truncated: summary.read += 1
                        case .unsupported: summary.unsupported += 1
                        default:
                            summary.unreadable += 1
                            summary.problems.append("email \(email.emailId), \(pending.filename ?? "(no name)"): \(result.status.rawValue)\(result.detail.map { ": " + $0 } ?? "")")
                        }
                        rows.append((pending.id, email.emailId, result.status.rawValue, result.detail, result.text))
                    }
                    summary.emails += 1
                    progress(summary.emails, total)
                }
                try index.updateAttachments(try store.saveAttachmentTexts(rows))
            }
            summary.seconds = Date().timeIntervalSince(start)
            return summary
        }
        // New text to search by meaning: the background queue embeds its passages (after any mail without a vector).
        if outcome.read > 0 { embedPendingInBackground() }
        return outcome
    }
}
