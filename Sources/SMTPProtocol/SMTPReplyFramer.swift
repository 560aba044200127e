/// Cuts the server's byte stream into replies, whatever the reads' chunking: lines end in CRLF (a
/// bare LF is accepted too), a line `250-…` continues the reply and `250 …` (or `250`) ends it.
/// Limits bound memory against a hostile server; the first error is sticky.
public struct SMTPReplyFramer: Sendable {
    /// The longest line accepted, in bytes (RFC 5321 allows 512; servers' EHLO lines stay far below).
    public var maximumLineLength: Int
    /// The most lines one reply may have.
    public var maximumLines: Int

    private var buffer: [UInt8] = []
    private var start = 0
    private var pendingCode: Int?
    private var pendingLines: [String] = []
    private var failure: SMTPProtocolError?

    public init(maximumLineLength: Int = 4096, maximumLines: Int = 512) {
        self.maximumLineLength = maximumLineLength
        self.maximumLines = maximumLines
    }

    /// Bytes received but not yet part of a returned reply.
    public var bufferedByteCount: Int { buffer.count - start }

    public mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// Forgets everything buffered (after STARTTLS: what came in clear after the 220 is never read).
    public mutating func reset() {
        buffer = []
        start = 0
        pendingCode = nil
        pendingLines = []
    }

    /// The next complete reply, nil when more bytes are needed.
    public mutating func nextReply() throws(SMTPProtocolError) -> SMTPReply? {
        if let failure { throw failure }
        do {
            return try readReply()
        } catch {
            failure = error
            throw error
        }
    }

    private mutating func readReply() throws(SMTPProtocolError) -> SMTPReply? {
        while true {
            guard let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) else {
                if buffer.count - start > maximumLineLength {
                    throw SMTPProtocolError(kind: .tooLong, message: "a reply line is longer than \(maximumLineLength) bytes")
                }
                compact()
                return nil
            }
            var end = newline
            if end > start, buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            let line = buffer[start..<end]
            start = newline + 1
            guard line.count <= maximumLineLength else {
                throw SMTPProtocolError(kind: .tooLong, message: "a reply line is longer than \(maximumLineLength) bytes")
            }
            let (code, isLast, text) = try Self.split(line)
            if let pendingCode, pendingCode != code {
                throw SMTPProtocolError(kind: .inconsistentCode,
                                        message: "a multi-line reply changed its code from \(pendingCode) to \(code)")
            }
            pendingCode = code
            pendingLines.append(text)
            if pendingLines.count > maximumLines {
                throw SMTPProtocolError(kind: .tooLong, message: "a reply has more than \(maximumLines) lines")
            }
            if isLast {
                let reply = SMTPReply(code: code, lines: pendingLines)
                pendingCode = nil
                pendingLines = []
                compact()
                return reply
            }
        }
    }

    private mutating func compact() {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
    }

    /// `250-text` → (250, false, "text"); `250 text` and `250` → last lines.
    static func split(_ line: ArraySlice<UInt8>) throws(SMTPProtocolError) -> (code: Int, isLast: Bool, text: String) {
        let bytes = Array(line)
        guard bytes.count >= 3, bytes[0...2].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              (UInt8(ascii: "2")...UInt8(ascii: "5")).contains(bytes[0])
        else {
            throw SMTPProtocolError(kind: .malformedLine, message: "the server sent a line that is not an SMTP reply: \"\(excerpt(bytes))\"")
        }
        let code = Int(bytes[0] - 48) * 100 + Int(bytes[1] - 48) * 10 + Int(bytes[2] - 48)
        if bytes.count == 3 { return (code, true, "") }
        switch bytes[3] {
        case UInt8(ascii: " "): return (code, true, String(decoding: bytes[4...], as: UTF8.self))
        case UInt8(ascii: "-"): return (code, false, String(decoding: bytes[4...], as: UTF8.self))
        default:
            throw SMTPProtocolError(kind: .malformedLine, message: "the server sent a line that is not an SMTP reply: \"\(excerpt(bytes))\"")
        }
    }

    /// At most 60 printable ASCII characters of a line, for an error message.
    static func excerpt(_ bytes: [UInt8]) -> String {
        String(bytes.prefix(60).map { (0x20..<0x7F).contains($0) ? Character(UnicodeScalar($0)) : "?" })
    }
}
