import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One message cut out of an mbox file.
public struct MboxMessage: Sendable {
    /// Byte offset of the message's `From ` line (or of its first byte when the file has no `From ` line).
    public var offset: Int
    /// Byte offset just past the message, where the next `From ` line starts (or the file ends).
    public var endOffset: Int
    /// The date on the `From ` line, when it has one.
    public var fromLineDate: Date?
    /// The message without its `From ` line and the separating blank line, mboxrd-unquoted.
    public var bytes: [UInt8]

    public init(offset: Int, endOffset: Int, fromLineDate: Date?, bytes: [UInt8]) {
        self.offset = offset
        self.endOffset = endOffset
        self.fromLineDate = fromLineDate
        self.bytes = bytes
    }
}

/// Why an mbox file could not be opened.
public struct MboxReaderError: Error, CustomStringConvertible, Sendable {
    public var path: String
    public var reason: String
    public var description: String { "cannot read mbox file \(path): \(reason). Check that the path names a readable file." }
}

/// Reads the messages of an mbox file in order, memory-mapping the file.
///
/// A message starts at a line beginning with `From ` that follows an empty line or the start of the
/// file; a `From ` line without the empty line before it also starts a message when it carries a
/// parseable date (files written without blank separators). Lines matching `>+From ` lose one `>`
/// (mboxrd). A file that does not start with `From ` yields its leading bytes as a first message.
/// Handles LF and CRLF files.
public struct MboxReader: Sequence {
    /// The file's bytes (memory-mapped when read from a path).
    public let data: Data
    /// Where iteration starts: 0, or the `endOffset` of a message already read.
    public let startOffset: Int

    /// Maps the file at `path`. Throws `MboxReaderError` when it cannot be opened or mapped.
    public init(path: String, startOffset: Int = 0) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw MboxReaderError(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw MboxReaderError(path: path, reason: String(cString: strerror(errno))) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw MboxReaderError(path: path, reason: "not a regular file") }
        let size = Int(st.st_size)
        if size == 0 {
            data = Data()
        } else {
            guard let p = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), p != MAP_FAILED else {
                throw MboxReaderError(path: path, reason: String(cString: strerror(errno)))
            }
            data = Data(bytesNoCopy: p, count: size, deallocator: .custom { ptr, len in munmap(ptr, len) })
        }
        self.startOffset = Swift.max(0, Swift.min(startOffset, size))
    }

    /// Reads messages from bytes already in memory.
    public init(data: Data, startOffset: Int = 0) {
        self.data = data
        self.startOffset = Swift.max(0, Swift.min(startOffset, data.count))
    }

    public func makeIterator() -> Iterator {
        Iterator(data: data, position: startOffset)
    }

    /// Yields the messages one by one.
    public struct Iterator: IteratorProtocol {
        let data: Data
        var position: Int

        public mutating func next() -> MboxMessage? {
            let start = position
            guard start < data.count else { return nil }
            let result: MboxMessage? = data.withUnsafeBytes { raw -> MboxMessage? in
                let b = raw.bindMemory(to: UInt8.self)
                return MboxReader.readMessage(b, at: start)
            }
            if let m = result { position = Swift.max(m.endOffset, start + 1) } else { position = data.count }
            return result
        }
    }

    @inline(__always)
    static func isFromLine(_ b: UnsafeBufferPointer<UInt8>, _ p: Int) -> Bool {
        p + 5 <= b.count && b[p] == UInt8(ascii: "F") && b[p + 1] == UInt8(ascii: "r") && b[p + 2] == UInt8(ascii: "o")
            && b[p + 3] == UInt8(ascii: "m") && b[p + 4] == 0x20
    }

    /// End of the line starting at `p` (before CR/LF) and the start of the next line.
    @inline(__always)
    static func line(_ b: UnsafeBufferPointer<UInt8>, _ p: Int) -> (end: Int, next: Int) {
        var e = p
        let n = b.count
        while e < n && b[e] != 0x0A { e += 1 }
        let next = e < n ? e + 1 : n
        if e > p && b[e - 1] == 0x0D { e -= 1 }
        return (e, next)
    }

    static func readMessage(_ b: UnsafeBufferPointer<UInt8>, at start: Int) -> MboxMessage? {
        let n = b.count
        var p = start
        // Skip blank lines before the first From_ line.
        while p < n {
            let l = line(b, p)
            if l.end != p { break }
            p = l.next
        }
        if p >= n { return nil }
        let offset = p
        var fromDate: Date? = nil
        var contentStart = p
        if isFromLine(b, p) {
            let l = line(b, p)
            fromDate = fromLineDate(UnsafeBufferPointer(rebasing: b[p..<l.end]))
            contentStart = l.next
        }
        // Find the next From_ line.
        var q = contentStart
        var prevEmpty = false
        var end = n
        while q < n {
            let l = line(b, q)
            if isFromLine(b, q) && q > contentStart {
                if prevEmpty || looksLikeFromLine(UnsafeBufferPointer(rebasing: b[q..<l.end])) {
                    end = q
                    break
                }
            }
            prevEmpty = l.end == q
            q = l.next
        }
        // Drop the blank separator line before the next From_ line.
        var contentEnd = end
        if contentEnd > contentStart && b[contentEnd - 1] == 0x0A {
            var k = contentEnd - 1
            if k > contentStart && b[k - 1] == 0x0D { k -= 1 }
            // Only when the line before is empty (message ends with "\n\n").
            if k > contentStart && b[k - 1] == 0x0A { contentEnd = k }
        }
        let bytes = unquote(b, contentStart..<Swift.max(contentStart, contentEnd))
        return MboxMessage(offset: offset, endOffset: end, fromLineDate: fromDate, bytes: bytes)
    }

    /// Copies `range`, removing one `>` from lines matching `>+From ` (mboxrd).
    static func unquote(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(range.count)
        var chunkStart = range.lowerBound
        var p = range.lowerBound
        let end = range.upperBound
        while p < end {
            if b[p] == UInt8(ascii: ">") {
                var k = p
                while k < end && b[k] == UInt8(ascii: ">") { k += 1 }
                if k + 5 <= end && isFromLine(b, k) {
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: b[chunkStart..<p]))
                    chunkStart = p + 1
                }
            }
            while p < end && b[p] != 0x0A { p += 1 }
            p += 1
        }
        if chunkStart < end { out.append(contentsOf: UnsafeBufferPointer(rebasing: b[chunkStart..<end])) }
        return out
    }

    /// A `From ` line not preceded by a blank line counts only when it has a time (two colons) and a date.
    static func looksLikeFromLine(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        var colons = 0
        for c in line where c == UInt8(ascii: ":") { colons += 1 }
        return colons >= 2 && fromLineDate(line) != nil
    }

    /// The date on a `From sender date` line, or nil.
    static func fromLineDate(_ line: UnsafeBufferPointer<UInt8>) -> Date? {
        guard line.count > 5 else { return nil }
        var p = 5
        while p < line.count && line[p] == 0x20 { p += 1 }
        while p < line.count && line[p] != 0x20 && line[p] != 0x09 { p += 1 }
        guard p < line.count else { return nil }
        return MailDateParser.parse(bytes: UnsafeBufferPointer(rebasing: line[p...]))
    }
}
