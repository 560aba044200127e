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

    /// How many of these sources name a file that is not there (the message file, or the mbox of
    /// `path@offset`; each file looked at once). An mbox that changed since the import is not
    /// noticed here: only when the message is read.
    static func countMissing(_ sourceRefs: [String?]) -> Int {
        var exists: [String: Bool] = [:]
        func isFile(_ path: String) -> Bool {
            if let known = exists[path] { return known }
            var isDirectory: ObjCBool = false
            let found = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
            exists[path] = found
            return found
        }
        var missing = 0
        for sourceRef in sourceRefs {
            guard let sourceRef, !sourceRef.isEmpty else { missing += 1; continue }
            // An mbox's messages share its path: looked at once for all of them.
            if let at = sourceRef.lastIndex(of: "@"), let offset = Int(sourceRef[sourceRef.index(after: at)...]), offset >= 0,
               isFile(String(sourceRef[..<at])) {
                continue
            }
            if !isFile(sourceRef) { missing += 1 }
        }
        return missing
    }

    private static func gone(_ emailId: Int64, _ path: String) -> ServiceError {
        ServiceError(.unavailable, "the source of email \(emailId), \(path), is gone",
                     hint: "the original is read from the file it was imported from; restore it or import the mail again")
    }
}
