import Foundation
import MailParsing
import MailStore
import MailModel

/// A message fetched from a server (IMAP) rather than read from a file: its bytes, the folders it
/// is in, the flags the server holds for it and its delivery date.
public struct FetchedMessage: Sendable {
    public var bytes: [UInt8]
    public var folders: [FolderSpec]
    public var flags: MessageFlags
    /// IMAP's INTERNALDATE: when the server received it (the date of last resort).
    public var internalDate: Date?
    /// Where the local copy of the bytes is kept (a file the service reads raw bytes back from).
    public var sourceRef: String

    public init(bytes: [UInt8], folders: [FolderSpec], flags: MessageFlags, internalDate: Date?, sourceRef: String) {
        self.bytes = bytes
        self.folders = folders
        self.flags = flags
        self.internalDate = internalDate
        self.sourceRef = sourceRef
    }

    /// The messages as the store takes them, parsed on every core: the same parsing, identity
    /// (Message-ID, else a content hash) and date fallbacks as an import of the same messages
    /// from a Maildir. A failure when the bytes hold neither a header nor a readable body.
    public static func incoming(_ messages: [FetchedMessage]) -> [Result<IncomingEmail, ImportFailure>] {
        ImportPipeline.parse(messages.map(\.raw))
    }

    private var raw: RawMessage {
        RawMessage(bytes: bytes, folders: folders,
                   maildirFlags: MaildirFlags(seen: flags.isRead, flagged: flags.isStarred, draft: flags.isDraft),
                   fromLineDate: internalDate, filePath: nil, sourceRef: sourceRef)
    }

    /// A name for the local copy of these bytes: the content hash also used as the identity of
    /// messages without a Message-ID.
    public static func contentKey(_ bytes: [UInt8]) -> String {
        ContentHash.hex(bytes)
    }

    /// The Message-ID a stored copy of this message would have: the header's, else the content
    /// hash `incoming()` gives it. From the header block alone when that is all there is.
    public static func messageId(headerBytes: [UInt8]) -> String? {
        let parsed = MIMEParser.parse(headerBytes + [0x0D, 0x0A])
        guard let id = parsed.messageId, !id.isEmpty else { return nil }
        return id
    }
}
