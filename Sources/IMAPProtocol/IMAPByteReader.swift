/// A cursor over one framed response with IMAP's lexical rules: atoms, numbers, quoted strings,
/// literals, NIL, lists. Every read either advances or throws, and `end` bounds every loop, so no
/// input can make it spin; list nesting is bounded by `maxDepth`.
struct IMAPByteReader {
    /// Deeper lists are refused (a BODYSTRUCTURE of a sane message nests a few levels).
    static let maxDepth = 100

    let bytes: [UInt8]
    var position: Int
    /// Index just past the last byte this reader may read (a response code's reader stops at `]`).
    var end: Int
    private var depth = 0

    init(_ bytes: [UInt8], from start: Int = 0, to end: Int? = nil) {
        self.bytes = bytes
        self.position = start
        self.end = Swift.min(end ?? bytes.count, bytes.count)
    }

    var atEnd: Bool { position >= end }

    var peek: UInt8? { position < end ? bytes[position] : nil }

    func error(_ message: String) -> IMAPParseError {
        IMAPParseError(offset: position, message: message)
    }

    mutating func advance() {
        position += 1
    }

    /// Consumes `byte` when it comes next.
    mutating func consume(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        position += 1
        return true
    }

    mutating func expect(_ byte: UInt8, _ what: String) throws(IMAPParseError) {
        guard consume(byte) else { throw error("expected \(what)") }
    }

    /// Skips any run of spaces (servers sometimes send two, or a trailing one).
    mutating func skipSpaces() {
        while peek == UInt8(ascii: " ") { position += 1 }
    }

    mutating func requireSpace(_ context: String) throws(IMAPParseError) {
        guard peek == UInt8(ascii: " ") else { throw error("expected a space \(context)") }
        skipSpaces()
    }

    /// Only spaces may be left.
    mutating func finish(_ context: String) throws(IMAPParseError) {
        skipSpaces()
        guard atEnd else { throw error("unexpected bytes after \(context)") }
    }

    /// The rest, as text (UTF-8, invalid bytes replaced).
    mutating func readRest() -> String {
        let text = String(decoding: bytes[Swift.min(position, end)..<end], as: UTF8.self)
        position = end
        return text
    }

    // MARK: Atoms and numbers

    /// Bytes an atom read from a server may hold: anything visible but `(`, `)`, `{`, `"`.
    /// Wider than RFC 3501's ATOM-CHAR on purpose: it takes flags (`\Seen`), astrings with
    /// brackets (`[Gmail]/Sent`), list wildcards and 8-bit names, which real servers send bare.
    static func isAtomByte(_ b: UInt8) -> Bool {
        switch b {
        case 0...0x20, 0x7F, UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "{"), UInt8(ascii: "\""): return false
        default: return true
        }
    }

    mutating func readAtomBytes(stoppingAt stop: UInt8? = nil) -> ArraySlice<UInt8> {
        let start = position
        while let b = peek, Self.isAtomByte(b), b != stop { position += 1 }
        return bytes[start..<position]
    }

    mutating func readAtom(_ what: String, stoppingAt stop: UInt8? = nil) throws(IMAPParseError) -> String {
        let atom = readAtomBytes(stoppingAt: stop)
        guard !atom.isEmpty else { throw error("expected \(what)") }
        return String(decoding: atom, as: UTF8.self)
    }

    var nextIsDigit: Bool {
        guard let b = peek else { return false }
        return b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")
    }

    mutating func readNumber64(_ what: String) throws(IMAPParseError) -> UInt64 {
        guard nextIsDigit else { throw error("expected \(what) (a number)") }
        var value: UInt64 = 0
        while nextIsDigit, let b = peek {
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(b - UInt8(ascii: "0")))
            guard !o1, !o2 else { throw error("\(what) is larger than 64 bits") }
            value = sum
            position += 1
        }
        return value
    }

    mutating func readNumber32(_ what: String) throws(IMAPParseError) -> UInt32 {
        let start = position
        let value = try readNumber64(what)
        guard let small = UInt32(exactly: value) else {
            throw IMAPParseError(offset: start, message: "\(what) is larger than 4294967295")
        }
        return small
    }

    mutating func readNonZeroNumber32(_ what: String) throws(IMAPParseError) -> UInt32 {
        let start = position
        let value = try readNumber32(what)
        guard value != 0 else { throw IMAPParseError(offset: start, message: "\(what) is 0") }
        return value
    }

    // MARK: Strings

    /// A quoted string, unescaped. A backslash before any byte stands for that byte (RFC 3501
    /// allows only `\\` and `\"`; others are taken as meant).
    mutating func readQuoted() throws(IMAPParseError) -> [UInt8] {
        try expect(UInt8(ascii: "\""), "a quoted string")
        var out: [UInt8] = []
        while let b = peek {
            position += 1
            switch b {
            case UInt8(ascii: "\""):
                return out
            case UInt8(ascii: "\\"):
                guard let escaped = peek else { break }
                out.append(escaped)
                position += 1
            case UInt8(ascii: "\r"), UInt8(ascii: "\n"):
                throw error("line end inside a quoted string")
            default:
                out.append(b)
            }
        }
        throw error("unterminated quoted string")
    }

    /// `{N}` CRLF and N bytes (also `{N+}`, and BINARY's `~{N}`).
    mutating func readLiteral() throws(IMAPParseError) -> [UInt8] {
        _ = consume(UInt8(ascii: "~"))
        try expect(UInt8(ascii: "{"), "a literal")
        let lengthStart = position
        let announced = try readNumber64("the literal's length")
        _ = consume(UInt8(ascii: "+"))
        try expect(UInt8(ascii: "}"), "'}' closing the literal's length")
        _ = consume(UInt8(ascii: "\r"))
        try expect(UInt8(ascii: "\n"), "a line end after the literal's length")
        guard announced <= UInt64(end - position) else {
            throw IMAPParseError(offset: lengthStart, message: "a literal of \(announced) bytes runs past the end of the response")
        }
        let start = position
        position += Int(announced)
        return Array(bytes[start..<position])
    }

    var nextIsString: Bool {
        peek == UInt8(ascii: "\"") || peek == UInt8(ascii: "{") || peek == UInt8(ascii: "~")
    }

    mutating func readString() throws(IMAPParseError) -> [UInt8] {
        peek == UInt8(ascii: "\"") ? try readQuoted() : try readLiteral()
    }

    /// NIL, or true when the next word is NIL (matched case-insensitively, as a whole atom).
    mutating func consumeNIL() -> Bool {
        guard position + 3 <= end,
              bytes[position] | 0x20 == UInt8(ascii: "n"),
              bytes[position + 1] | 0x20 == UInt8(ascii: "i"),
              bytes[position + 2] | 0x20 == UInt8(ascii: "l"),
              position + 3 == end || !Self.isAtomByte(bytes[position + 3])
        else { return false }
        position += 3
        return true
    }

    mutating func readNString() throws(IMAPParseError) -> [UInt8]? {
        if consumeNIL() { return nil }
        return try readString()
    }

    /// An atom, a quoted string or a literal.
    mutating func readAString(_ what: String) throws(IMAPParseError) -> [UInt8] {
        if nextIsString { return try readString() }
        let atom = readAtomBytes()
        guard !atom.isEmpty else { throw error("expected \(what)") }
        return Array(atom)
    }

    // MARK: Lists and values

    /// `( item SP item … )`, calling `item` for each; tolerates extra spaces.
    mutating func readList(_ what: String, _ item: (inout IMAPByteReader) throws(IMAPParseError) -> Void) throws(IMAPParseError) {
        try expect(UInt8(ascii: "("), "'(' opening \(what)")
        depth += 1
        guard depth <= Self.maxDepth else { throw error("lists nested deeper than \(Self.maxDepth)") }
        skipSpaces()
        while !consume(UInt8(ascii: ")")) {
            guard !atEnd else { throw error("unterminated \(what): missing ')'") }
            let before = position
            try item(&self)
            guard position > before else { throw error("unexpected byte in \(what)") }
            skipSpaces()
        }
        depth -= 1
    }

    /// Any value of the generic syntax.
    mutating func readValue() throws(IMAPParseError) -> IMAPValue {
        guard let b = peek else { throw error("expected a value") }
        switch b {
        case UInt8(ascii: "("):
            var items: [IMAPValue] = []
            try readList("a list") { (r: inout IMAPByteReader) throws(IMAPParseError) in items.append(try r.readValue()) }
            return .list(items)
        case UInt8(ascii: "\""), UInt8(ascii: "{"):
            return .string(try readString())
        case UInt8(ascii: "~") where position + 1 < end && bytes[position + 1] == UInt8(ascii: "{"):
            return .string(try readLiteral())
        default:
            if consumeNIL() { return .nil }
            return .atom(try readAtomWithSection("a value"))
        }
    }

    /// An atom that may carry a bracketed section with spaces in it (`BODY[HEADER.FIELDS (TO)]`)
    /// and a partial origin (`<0>`); the section ends at the first `]`.
    mutating func readAtomWithSection(_ what: String) throws(IMAPParseError) -> String {
        let start = position
        while let b = peek {
            if b == UInt8(ascii: "[") {
                guard let close = bytes[position..<end].firstIndex(of: UInt8(ascii: "]")) else {
                    throw error("unterminated section: missing ']'")
                }
                position = close + 1
            } else if Self.isAtomByte(b) {
                position += 1
            } else {
                break
            }
        }
        guard position > start else { throw error("expected \(what)") }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// `( flag SP flag … )`.
    mutating func readFlagList() throws(IMAPParseError) -> [IMAPFlag] {
        var flags: [IMAPFlag] = []
        try readList("a flag list") { (r: inout IMAPByteReader) throws(IMAPParseError) in
            flags.append(IMAPFlag(try r.readAtom("a flag")))
        }
        return flags
    }

    /// `1:5,7,9:*` (a `*` is `IMAPSequenceSet.last`; reversed ranges are put in order).
    mutating func readSequenceSet(_ what: String) throws(IMAPParseError) -> IMAPSequenceSet {
        var ranges: [ClosedRange<UInt32>] = []
        repeat {
            let first = try readSequenceBound(what)
            var second = first
            if consume(UInt8(ascii: ":")) { second = try readSequenceBound(what) }
            ranges.append(Swift.min(first, second)...Swift.max(first, second))
        } while consume(UInt8(ascii: ","))
        return IMAPSequenceSet(ranges)
    }

    private mutating func readSequenceBound(_ what: String) throws(IMAPParseError) -> UInt32 {
        if consume(UInt8(ascii: "*")) { return IMAPSequenceSet.last }
        return try readNonZeroNumber32("a number in \(what)")
    }
}
