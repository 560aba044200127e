import Foundation
import MailModel
import MailParsing
internal import MailStore

/// What an export writes (`mailsearch export`, `GET /api/export`).
public enum ExportFormat: String, Sendable, Codable, CaseIterable {
    /// The messages as received, byte for byte, in one mboxrd file that `mailsearch import` (and
    /// mutt, Thunderbird…) reads back. Flags and folders are not in it: they are in `jsonl`.
    case mbox
    /// Every email's metadata, one JSON object a line (`EmailExportLine`).
    case jsonl

    public var contentType: String { self == .mbox ? "application/mbox" : "application/x-ndjson" }
}

/// One line of the JSONL export.
public struct EmailExportLine: Codable, Sendable, Hashable {
    public var emailId: Int64
    public var messageId: String
    public var threadId: Int64?
    public var accountId: Int64
    public var folders: [String]
    public var date: Date?
    public var from: String?
    public var subject: String
    public var hasAttachment: Bool
    public var isRead: Bool
    public var category: String

    public init(_ email: Email, folders: [String]) {
        emailId = email.id
        messageId = email.messageId
        threadId = email.threadId
        accountId = email.accountId
        self.folders = folders
        date = email.date
        from = email.from?.email
        subject = email.subject
        hasAttachment = email.hasAttachment
        isRead = email.isRead
        category = email.category.rawValue
    }

    /// The fields, for `--help`.
    public static let fieldNames = "emailId, messageId, threadId, accountId, folders, date, from, subject, hasAttachment, isRead, category"

    /// Sorted keys, unescaped slashes, ISO-8601 dates: as `--json` writes.
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}

/// What an export wrote.
public struct ExportSummary: Sendable, Codable, Hashable {
    /// Emails written (messages in an mbox, lines in JSONL).
    public var emails: Int
    /// mbox: emails left out because their original message could not be read (the file it was
    /// imported from is gone or changed); their metadata is still in the JSONL export.
    public var missingOriginals: Int
    public var bytes: Int64
}

/// An export checked and ready to run (`MailboxService.prepareExport`): the account found and
/// the emails counted, before anything is written, so that a front end can refuse or announce it
/// (a server's status and headers go out before the first byte).
public struct MailExport: Sendable {
    public let format: ExportFormat
    /// The account exported; nil: every account.
    public let account: Account?
    /// The emails there were when it was prepared.
    public let emails: Int
    /// mbox: of those, the emails whose original message file was gone when it was prepared (the
    /// export leaves them out, and may find more whose file changed).
    public let missingOriginals: Int
    let core: ServiceCore

    /// `mailsearch-NAME-2024-05-01.mbox` (`all-mail` for every account); the account's name as
    /// typed: a front end sanitizes it for its own use.
    public func suggestedFilename(today: Date = Date()) -> String {
        let day = ISO8601DateFormatter.string(from: today, timeZone: .current, formatOptions: [.withFullDate])
        return "mailsearch-\(account?.name ?? "all-mail")-\(day).\(format.rawValue)"
    }

    /// Writes the export to `write` in chunks of about `chunkBytes` (one message at least), each
    /// awaited before the next is read: a mailbox of any size, with one chunk and one message in
    /// memory. Pages of emails are read in their own transactions, in id order, so that a long
    /// export keeps no read open. Stops when `write` throws (the client went away).
    @discardableResult
    public func run(chunkBytes: Int = 256 << 10, write: ([UInt8]) async throws -> Void) async throws -> ExportSummary {
        var summary = ExportSummary(emails: 0, missingOriginals: 0, bytes: 0)
        var after: Int64 = 0
        let accountId = account?.id
        let format = format
        let core = core
        while true {
            let page = try await core.pool.run { [after] in try core.store.emailsPage(after: after, accountId: accountId, limit: 200) }
            guard let last = page.last else { break }
            after = last.email.id
            var index = 0
            while index < page.count {
                let chunk = try await core.pool.run { [index] in
                    Self.encode(page, from: index, format: format, upTo: chunkBytes)
                }
                index = chunk.next
                summary.emails += chunk.written
                summary.missingOriginals += chunk.missing
                guard !chunk.bytes.isEmpty else { continue }
                summary.bytes += Int64(chunk.bytes.count)
                try await write(chunk.bytes)
            }
        }
        return summary
    }

    /// The emails of `page` from `start` on, encoded until the chunk holds `limit` bytes.
    static func encode(_ page: [StoredEmail], from start: Int, format: ExportFormat, upTo limit: Int)
        -> (bytes: [UInt8], next: Int, written: Int, missing: Int) {
        var out: [UInt8] = []
        var index = start
        var written = 0
        var missing = 0
        let encoder = EmailExportLine.encoder()
        while index < page.count && (out.isEmpty || out.count < limit) {
            let stored = page[index]
            index += 1
            switch format {
            case .jsonl:
                // Our own Codable type: it always encodes.
                guard let line = try? encoder.encode(EmailExportLine(stored.email, folders: stored.folders)) else { continue }
                out.append(contentsOf: line)
                out.append(0x0A)
                written += 1
            case .mbox:
                guard let raw = try? MessageSource.rawBytes(emailId: stored.email.id, sourceRef: stored.sourceRef) else {
                    missing += 1
                    continue
                }
                MboxWriter.append(raw, sender: stored.email.from?.email, date: stored.email.dateReceived ?? stored.email.dateSent, to: &out)
                written += 1
            }
        }
        return (out, index, written, missing)
    }
}

extension MailboxService {
    /// Checks an export of `account` (nil: every account) and counts what it will hold; throws
    /// `notFound` for an account that does not exist. Nothing is written until `run`.
    public func prepareExport(_ format: ExportFormat, account name: String?) async throws -> MailExport {
        try await core.pool.run { [core] in
            let account = try name.map { try core.account(named: $0) }
            let sources = try core.store.sourceRefs(accountId: account?.id)
            let missing = format == .mbox ? MessageSource.countMissing(sources) : 0
            return MailExport(format: format, account: account, emails: sources.count, missingOriginals: missing, core: core)
        }
    }
}
