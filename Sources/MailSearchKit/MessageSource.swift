import Foundation
import MailParsing

/// The original bytes of a stored message, read again from where it was imported from (the store
/// keeps text and metadata, not the raw message): a message file, or `path@offset` in an mbox.
enum MessageSource {
    static func rawBytes(emailId: Int64, sourceRef: String?) throws -> [UInt8] {
        guard let sourceRef, !sourceRef.isEmpty else {
            throw ServiceError(.unavailable, "email \(emailId) has no recorded source",
                               hint: "it was stored without a source file; re-import it from its mailbox to keep the original")
        }
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: sourceRef, isDirectory: &isDirectory), !isDirectory.boolValue {
            guard let data = manager.contents(atPath: sourceRef) else {
                throw ServiceError(.unavailable, "cannot read \(sourceRef), the source of email \(emailId)",
                                   hint: "check the file's permissions")
            }
            return [UInt8](data)
        }
        if let at = sourceRef.lastIndex(of: "@"), let offset = Int(sourceRef[sourceRef.index(after: at)...]), offset >= 0 {
            let path = String(sourceRef[..<at])
            guard manager.fileExists(atPath: path) else { throw gone(emailId, path) }
            do {
                var iterator = try MboxReader(path: path, startOffset: offset).makeIterator()
                if let message = iterator.next(), message.offset == offset { return message.bytes }
            } catch {
                throw ServiceError(.unavailable, "cannot read the mbox \(path), the source of email \(emailId): \(error)")
            }
            throw ServiceError(.unavailable, "the mbox \(path) no longer has the message of email \(emailId) at byte \(offset)",
                               hint: "the file changed since the import; import it again")
        }
        throw gone(emailId, sourceRef)
    }

    private static func gone(_ emailId: Int64, _ path: String) -> ServiceError {
        ServiceError(.unavailable, "the source of email \(emailId), \(path), is gone",
                     hint: "the original is read from the file it was imported from; restore it or import the mail again")
    }
}
