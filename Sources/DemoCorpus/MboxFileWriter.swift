import Foundation

/// Streams messages into an mboxrd file through a large buffer.
final class MboxFileWriter {
    private let handle: FileHandle
    private let url: URL
    private var buffer: [UInt8] = []
    private let flushThreshold = 4 << 20

    init(url: URL) throws {
        self.url = url
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw DemoCorpusError.cannotCreate(url)
        }
        handle = try FileHandle(forWritingTo: url)
        buffer.reserveCapacity(flushThreshold + 64 << 10)
    }

    func write(_ message: GeneratedMessage, threadId: UInt64) throws {
        buffer.append("From ")
        buffer.appendDecimal(Int(threadId >> 2))
        buffer.append("@xxx ")
        buffer.appendMboxDate(Int64(message.date.timeIntervalSince1970))
        buffer.append("\nX-GM-THRID: ")
        buffer.appendDecimal(Int(threadId >> 2))
        buffer.append("\nX-Gmail-Labels: ")
        for (i, label) in message.labels.enumerated() {
            if i > 0 { buffer.append(UInt8(ascii: ",")) }
            buffer.appendString(label)
        }
        buffer.append(10)
        Self.appendQuotingFromLines(message.raw, to: &buffer)
        if buffer.last != 10 { buffer.append(10) }
        buffer.append(10)
        if buffer.count >= flushThreshold { try flush() }
    }

    /// mboxrd: a line that matches `^>*From ` gets one more `>`.
    static func appendQuotingFromLines(_ raw: [UInt8], to out: inout [UInt8]) {
        raw.withUnsafeBufferPointer { bytes in
            var lineStart = 0
            let count = bytes.count
            while lineStart < count {
                var k = lineStart
                while k < count && bytes[k] == UInt8(ascii: ">") { k += 1 }
                if k + 5 <= count && bytes[k] == 70 && bytes[k + 1] == 114 && bytes[k + 2] == 111
                    && bytes[k + 3] == 109 && bytes[k + 4] == 32 {
                    out.append(UInt8(ascii: ">"))
                }
                var end = lineStart
                while end < count && bytes[end] != 10 { end += 1 }
                let lineEnd = end < count ? end + 1 : end
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[lineStart..<lineEnd]))
                lineStart = lineEnd
            }
        }
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        try handle.write(contentsOf: Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }

    func close() throws {
        try flush()
        try handle.close()
    }
}

/// Why writing a demo corpus failed.
public enum DemoCorpusError: Error, CustomStringConvertible {
    case cannotCreate(URL)
    case cannotWrite(URL)

    public var description: String {
        switch self {
        case .cannotCreate(let url):
            return "Cannot create \(url.path): check that the folder exists and is writable."
        case .cannotWrite(let url):
            return "Cannot write \(url.path): check the free disk space."
        }
    }
}
