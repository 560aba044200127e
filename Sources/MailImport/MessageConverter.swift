import Categorization
import Foundation
import MailModel
import MailParsing
import MailStore

/// Turns a parsed message and its provenance into an `IncomingEmail`: identity, flags,
/// folders (Gmail Takeout labels included), dates with their fallbacks.
enum MessageConverter {
    /// Parses and converts one message; fails only when there is nothing to parse.
    static func incoming(_ raw: RawMessage) -> Result<IncomingEmail, ImportFailure> {
        if raw.bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            return .failure(ImportFailure(source: raw.sourceRef, reason: "empty message"))
        }
        let parsed = MIMEParser.parse(raw.bytes, fallbackDate: raw.fromLineDate)
        if parsed.headers.isEmpty && parsed.textBody.isEmpty {
            return .failure(ImportFailure(source: raw.sourceRef, reason: "no header and no readable body"))
        }
        return .success(convert(parsed, raw: raw))
    }

    static func convert(_ parsed: ParsedMessage, raw: RawMessage) -> IncomingEmail {
        let messageId: String
        let synthetic: Bool
        if let id = parsed.messageId, !id.isEmpty {
            messageId = id
            synthetic = false
        } else {
            messageId = "sha-\(ContentHash.hex(raw.bytes))@content.mailsearch"
            synthetic = true
        }

        var isRead = true
        var isStarred = false
        var isDraft = false
        var category = AICategory.uncategorized
        var folders = raw.folders

        if let flags = raw.maildirFlags {
            isRead = flags.seen
            isStarred = flags.flagged
            isDraft = flags.draft
        } else {
            // mbox Status/X-Status (mutt, Thunderbird): R = read, O = old; F = flagged, D = draft.
            if let status = parsed.header("Status") { isRead = status.contains("R") }
            if let xStatus = parsed.header("X-Status") {
                isStarred = xStatus.contains("F")
                isDraft = xStatus.contains("T") || xStatus.contains("D")
            }
        }

        if let labelsHeader = parsed.header("X-Gmail-Labels") {
            var labelFolders: [FolderSpec] = []
            for label in splitLabels(labelsHeader) {
                let lower = label.lowercased()
                if lower == "unread" { isRead = false; continue }
                if lower == "opened" { continue }
                if lower == "starred" { isStarred = true }
                if lower == "draft" || lower == "drafts" { isDraft = true }
                if lower.hasPrefix("category ") {
                    let name = String(lower.dropFirst("category ".count))
                    category = name == "personal" ? .primary : (AICategory(rawValue: name) ?? category)
                    continue
                }
                let path = lower == "archived" ? "Archive" : label
                labelFolders.append(FolderSpec(path: path))
            }
            if !labelsHeader.lowercased().contains("unread") { isRead = true }
            if !labelFolders.isEmpty, raw.folders.allSatisfy({ $0.path == raw.folders.first?.path }) {
                folders = labelFolders
            }
        }

        var dateSent = parsed.date
        var dateReceived = parsed.receivedDate
        if dateSent == nil {
            dateSent = raw.fromLineDate ?? fileDate(raw.filePath)
        }
        if dateReceived == nil { dateReceived = raw.fromLineDate }

        let signals = CategorySignalReader.signals(of: parsed)
        var provisional: CategoryDecision?
        if category == .uncategorized {
            provisional = provisionalDecision(parsed, signals: signals)
            category = provisional?.category ?? category
        }

        let email = Email(
            accountId: 0, messageId: messageId, messageIdIsSynthetic: synthetic,
            inReplyTo: parsed.inReplyTo.last, references: parsed.references,
            from: (parsed.from.first ?? parsed.sender).map(address),
            to: parsed.to.map(address), cc: parsed.cc.map(address), bcc: parsed.bcc.map(address),
            replyTo: parsed.replyTo.map(address), subject: parsed.subject, bodyPlain: parsed.textBody,
            bodyHTML: parsed.htmlBody, snippet: parsed.snippet, dateSent: dateSent, dateReceived: dateReceived,
            isRead: isRead, isStarred: isStarred, isDraft: isDraft, category: category,
            sizeBytes: raw.bytes.count, hasAttachment: parsed.hasAttachment,
            attachments: parsed.attachments.map {
                Attachment(filename: $0.filename, mimeType: $0.mimeType, sizeBytes: $0.size,
                           contentId: $0.contentId, isInline: $0.isInline)
            })
        return IncomingEmail(email: email, folders: folders, sourceRef: raw.sourceRef,
                             defects: parsed.defects.map(\.description),
                             categorySignals: signals, provisionalDecision: provisional)
    }

    /// The rules' decision for a new message, from what the categoriser will read of its stored row
    /// (the sender, the counts of recipients, the subject, the body's start, reply headers,
    /// attachments, header signals), without the
    /// mailbox's lists, which only the categoriser knows. The row is written with its category and
    /// the decision beside it; the categoriser takes the decision up where the lists do not bear on
    /// it (`RuleCategorizer.categorize`) and rewrites the row only where it decides otherwise (list
    /// mail the mailbox shows, the user's choices for a sender, the classifier). An update of
    /// `category` rewrites the whole row, body and all: on an Enron import that was 1.5 s of CPU
    /// and 120 MB more through the WAL.
    static func provisionalDecision(_ parsed: ParsedMessage, signals: CategorySignals) -> CategoryDecision {
        let from = (parsed.from.first ?? parsed.sender).map(address)
        let input = CategorizationInput(
            emailId: 0, accountId: 0, from: from,
            toCount: parsed.to.count, ccCount: parsed.cc.count, subject: parsed.subject,
            bodyPrefix: RuleCategorizer.bodyPrefix(parsed.textBody),
            isReply: parsed.inReplyTo.last?.isEmpty == false || !parsed.references.isEmpty,
            hasAttachment: parsed.hasAttachment, signals: signals, embedding: nil,
            recipients: (parsed.to + parsed.cc).map { $0.address.lowercased() })
        return RuleCategorizer().decide(input)
    }

    private static func address(_ a: ParsedAddress) -> Address {
        Address(name: a.name?.isEmpty == false ? a.name : nil, email: a.address)
    }

    /// Gmail writes labels comma-separated, quoting labels that contain commas.
    static func splitLabels(_ header: String) -> [String] {
        var labels: [String] = []
        var current = ""
        var quoted = false
        for ch in header {
            if ch == "\"" { quoted.toggle(); continue }
            if ch == "," && !quoted {
                let t = current.trimmingCharacters(in: .whitespaces)
                if !t.isEmpty { labels.append(t) }
                current = ""
            } else {
                current.append(ch)
            }
        }
        let t = current.trimmingCharacters(in: .whitespaces)
        if !t.isEmpty { labels.append(t) }
        return labels
    }

    private static func fileDate(_ path: String?) -> Date? {
        guard let path else { return nil }
        return (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }
}
