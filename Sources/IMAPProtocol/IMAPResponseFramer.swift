/// Cuts the server's byte stream into complete responses, whatever the chunking of its reads.
///
/// A response is a line ending in CRLF; a line ending in a literal's announcement `{N}` (or
/// `{N+}`, `~{N}`) continues after the CRLF with exactly N raw bytes and then more line, as often
/// as literals follow. Continuation requests (`+ …`) never carry literals, so a `+` line always
/// ends at its CRLF: otherwise a server text ending in `{5}` would make the client wait for bytes
/// the server will never send. A bare LF is accepted as a line end too.
///
/// Everything is bounded: a literal larger than `Limits.maxLiteralSize` is refused from its
/// announcement (before a byte of it is buffered), a line that grows past `maxLineLength` and a
/// response past `maxResponseSize` are refused as they arrive. A refusal is sticky: the stream
/// cannot be resynchronised, so every later call throws the same error. Each byte is examined a
/// bounded number of times, so no input makes the framer loop.
///
/// ```swift
/// var framer = IMAPResponseFramer()
/// framer.append(chunk)
/// while let response = try framer.nextResponse() {
///     handle(try IMAPResponseParser.parse(response))
/// }
/// ```
public struct IMAPResponseFramer: Sendable {
    public struct Limits: Sendable, Hashable {
        /// The largest literal accepted: bodies come as literals, so this bounds a message's
        /// size. Default: 64 MB.
        public var maxLiteralSize: Int = 64 << 20
        /// The longest line outside literals, without its CRLF. Default: 1 MB (a FETCH line
        /// with hundreds of Gmail labels stays far below).
        public var maxLineLength: Int = 1 << 20
        /// The most bytes one response may hold, lines and literals together. Default: 96 MB.
        public var maxResponseSize: Int = 96 << 20

        public init() {}

        public init(maxLiteralSize: Int, maxLineLength: Int, maxResponseSize: Int) {
            self.maxLiteralSize = maxLiteralSize
            self.maxLineLength = maxLineLength
            self.maxResponseSize = maxResponseSize
        }
    }

    public let limits: Limits

    private var buffer: [UInt8] = []
    /// First byte of the response being framed.
    private var start = 0
    /// First byte of the current line (the response's start, or just past a literal).
    private var lineStart = 0
    /// Bytes of the current line before this index hold no LF.
    private var scanned = 0
    /// While a literal is being received: the index just past its last byte.
    private var literalEnd: Int?
    /// Stream offset of `buffer[0]`, for error messages.
    private var discarded = 0
    private var failure: IMAPFramingError?

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Bytes received and not yet returned as part of a response.
    public var bufferedByteCount: Int { buffer.count - start }

    /// Adds bytes as they came from the connection.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// The next complete response without its final line end, or nil when more bytes are needed.
    /// Throws `IMAPFramingError` when a limit is crossed, then on every later call.
    public mutating func nextResponse() throws(IMAPFramingError) -> [UInt8]? {
        if let failure { throw failure }
        while true {
            if let end = literalEnd {
                guard buffer.count >= end else { return nil }
                literalEnd = nil
                lineStart = end
                scanned = end
            }
            guard let lf = buffer[scanned...].firstIndex(of: Self.lf) else {
                scanned = buffer.count
                // A CR last may be half of the line end: counted as the complete line would count it,
                // so that where the reads split never changes what is refused.
                let pending = buffer.last == Self.cr ? buffer.count - 1 : buffer.count
                if pending - lineStart > limits.maxLineLength {
                    throw fail(.lineTooLong, "a line grew past \(limits.maxLineLength) bytes without a line end")
                }
                if pending - start > limits.maxResponseSize {
                    throw fail(.responseTooLarge, "the response grew past \(limits.maxResponseSize) bytes")
                }
                return nil
            }
            let contentEnd = lf > lineStart && buffer[lf - 1] == Self.cr ? lf - 1 : lf
            if contentEnd - lineStart > limits.maxLineLength {
                throw fail(.lineTooLong, "a line of \(contentEnd - lineStart) bytes is longer than \(limits.maxLineLength)")
            }
            if contentEnd - start > limits.maxResponseSize {
                throw fail(.responseTooLarge, "the response grew past \(limits.maxResponseSize) bytes")
            }
            if buffer[start] != UInt8(ascii: "+"), let length = try literalLength(endingAt: contentEnd) {
                if length > limits.maxResponseSize - (lf + 1 - start) {
                    throw fail(.responseTooLarge, "the response would hold more than \(limits.maxResponseSize) bytes")
                }
                literalEnd = lf + 1 + length
                continue
            }
            let frame = Array(buffer[start..<contentEnd])
            start = lf + 1
            lineStart = start
            scanned = start
            compact()
            // Blank lines between responses carry nothing; some servers send one after a literal.
            if frame.isEmpty { continue }
            return frame
        }
    }

    private static let lf = UInt8(ascii: "\n")
    private static let cr = UInt8(ascii: "\r")

    /// When the line `lineStart..<end` ends with `{digits}` or `{digits+}`: the literal's length.
    private mutating func literalLength(endingAt end: Int) throws(IMAPFramingError) -> Int? {
        guard end - lineStart >= 3, buffer[end - 1] == UInt8(ascii: "}") else { return nil }
        var i = end - 2
        if buffer[i] == UInt8(ascii: "+") { i -= 1 }
        let digitsEnd = i + 1
        while i >= lineStart, buffer[i] >= UInt8(ascii: "0"), buffer[i] <= UInt8(ascii: "9") { i -= 1 }
        guard i >= lineStart, buffer[i] == UInt8(ascii: "{"), i + 1 < digitsEnd else { return nil }
        var length = 0
        for digit in buffer[(i + 1)..<digitsEnd] {
            // Checked before the multiplication: `{99999999999999999999}` must not overflow.
            let next = length <= (Int.max - 9) / 10 ? length * 10 + Int(digit - UInt8(ascii: "0")) : Int.max
            length = next
            if length > limits.maxLiteralSize {
                throw fail(.literalTooLarge, "a literal announced more than \(limits.maxLiteralSize) bytes, the limit")
            }
        }
        return length
    }

    private mutating func fail(_ kind: IMAPFramingError.Kind, _ message: String) -> IMAPFramingError {
        let error = IMAPFramingError(kind: kind, streamOffset: discarded + start, message: message)
        failure = error
        buffer = []
        start = 0
        lineStart = 0
        scanned = 0
        literalEnd = nil
        return error
    }

    /// Drops returned bytes once they are most of the buffer, so a long session's buffer stays
    /// the size of one response and each byte is moved at most a few times.
    private mutating func compact() {
        if start == buffer.count {
            discarded += start
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
            start = 0
        } else if start >= 4096, start >= buffer.count / 2 {
            discarded += start
            buffer.removeSubrange(0..<start)
            start = 0
        } else {
            return
        }
        lineStart = start
        scanned = start
    }
}
