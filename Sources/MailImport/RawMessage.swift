import Foundation
import MailStore
import MailModel

/// One message as read from a source, before parsing.
struct RawMessage: Sendable {
    var bytes: [UInt8]
    var folders: [FolderSpec]
    /// Flags from a Maildir file name, when the source is a Maildir.
    var maildirFlags: MaildirFlags?
    /// The mbox From_ line date, when the source is an mbox.
    var fromLineDate: Date?
    /// The file holding the message (for its modification time, the last date fallback).
    var filePath: String?
    /// Human-readable provenance: a path, or `path@offset` inside an mbox.
    var sourceRef: String
}

/// Read/starred/draft flags from a Maildir file name (`:2,FRS`).
struct MaildirFlags: Sendable {
    var seen: Bool
    var flagged: Bool
    var draft: Bool
}
