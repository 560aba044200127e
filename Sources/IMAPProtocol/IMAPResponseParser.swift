/// Reads one framed server response (from `IMAPResponseFramer`) into an `IMAPResponse`.
///
/// The parser is total over its input: it returns a value or throws `IMAPParseError` with the
/// offset where reading stopped, for any bytes, in time linear in their length and with list
/// nesting bounded. It is lenient where servers are known to stray and the meaning is clear
/// (extra spaces, lower-case keywords, flags and bracketed names as bare atoms, `+` without
/// text), and keeps whatever it does not model: unknown responses as `.unknown`, unknown
/// response codes as `.other`, unknown FETCH items as generic values. It throws only when the
/// grammar is truly broken: no tag, an unbalanced list, a literal longer than the response,
/// a number where none is, a UID that does not fit in 32 bits.
public enum IMAPResponseParser {
    /// Parses one response. A trailing CRLF, if the bytes still have one, is ignored.
    public static func parse(_ bytes: [UInt8]) throws(IMAPParseError) -> IMAPResponse {
        var end = bytes.count
        if end > 0, bytes[end - 1] == UInt8(ascii: "\n") { end -= 1 }
        if end > 0, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        var r = IMAPByteReader(bytes, to: end)
        guard let first = r.peek else { throw r.error("empty response") }
        switch first {
        case UInt8(ascii: "+"):
            r.advance()
            _ = r.consume(UInt8(ascii: " "))
            return .continuation(r.readRest())
        case UInt8(ascii: "*"):
            r.advance()
            try r.requireSpace("after '*'")
            return .untagged(try untagged(&r, raw: bytes))
        default:
            let tag = r.readAtomBytes(stoppingAt: UInt8(ascii: "+"))
            guard !tag.isEmpty, r.peek == UInt8(ascii: " ") else { throw r.error("expected a tag, '*' or '+' to start the response") }
            try r.requireSpace("after the tag")
            let statusStart = r.position
            let word = try r.readAtom("OK, NO or BAD after the tag").uppercased()
            guard let status = IMAPStatusResponse.Status(rawValue: word), status == .ok || status == .no || status == .bad else {
                throw IMAPParseError(offset: statusStart, message: "a tagged response must be OK, NO or BAD")
            }
            return .tagged(tag: String(decoding: tag, as: UTF8.self), try statusResponse(status, &r))
        }
    }

    // MARK: Untagged responses

    private static func untagged(_ r: inout IMAPByteReader, raw: [UInt8]) throws(IMAPParseError) -> IMAPUntaggedResponse {
        if r.nextIsDigit {
            let number = try r.readNumber32("a message number")
            try r.requireSpace("after the message number")
            let name = try r.readAtom("a response name after the message number").uppercased()
            let response: IMAPUntaggedResponse
            switch name {
            case "EXISTS": response = .exists(number)
            case "RECENT": response = .recent(number)
            case "EXPUNGE": response = .expunge(number)
            case "FETCH":
                try r.requireSpace("after FETCH")
                response = .fetch(IMAPFetchResponse(sequenceNumber: number, items: try fetchItems(&r)))
            default: return .unknown(name: name, raw: raw)
            }
            try r.finish("the \(name) response")
            return response
        }
        let name = try r.readAtom("a response name after '*'").uppercased()
        let response: IMAPUntaggedResponse
        switch name {
        case "OK", "NO", "BAD", "PREAUTH", "BYE":
            guard let status = IMAPStatusResponse.Status(rawValue: name) else { return .unknown(name: name, raw: raw) }
            return .status(try statusResponse(status, &r))
        case "CAPABILITY":
            response = .capability(capabilities(&r))
        case "ENABLED":
            response = .enabled(capabilities(&r))
        case "LIST", "LSUB":
            try r.requireSpace("after \(name)")
            let entry = try listEntry(&r)
            response = name == "LIST" ? .list(entry) : .lsub(entry)
        case "STATUS":
            try r.requireSpace("after STATUS")
            response = .mailboxStatus(try mailboxStatus(&r))
        case "SEARCH":
            response = try search(&r)
        case "ESEARCH":
            response = .esearch(try esearch(&r))
        case "FLAGS":
            try r.requireSpace("after FLAGS")
            response = .flags(try r.readFlagList())
        case "VANISHED":
            try r.requireSpace("after VANISHED")
            var earlier = false
            if r.peek == UInt8(ascii: "(") {
                var words: [String] = []
                try r.readList("VANISHED's modifiers") { (r: inout IMAPByteReader) throws(IMAPParseError) in
                    words.append(try r.readAtom("a modifier").uppercased())
                }
                earlier = words.contains("EARLIER")
                try r.requireSpace("after (EARLIER)")
            }
            response = .vanished(earlier: earlier, uids: try r.readSequenceSet("the vanished UIDs"))
        case "ID":
            try r.requireSpace("after ID")
            response = .id(try idFields(&r))
        default:
            return .unknown(name: name, raw: raw)
        }
        try r.finish("the \(name) response")
        return response
    }

    /// The rest of `OK`/`NO`/`BAD`/`PREAUTH`/`BYE`: `[code] text`, both optional.
    private static func statusResponse(_ status: IMAPStatusResponse.Status, _ r: inout IMAPByteReader) throws(IMAPParseError) -> IMAPStatusResponse {
        r.skipSpaces()
        var code: IMAPResponseCode?
        if r.peek == UInt8(ascii: "["), let close = r.bytes[r.position..<r.end].firstIndex(of: UInt8(ascii: "]")) {
            code = responseCode(r.bytes, from: r.position + 1, to: close)
            r.position = close + 1
            r.skipSpaces()
        }
        return IMAPStatusResponse(status: status, code: code, text: r.readRest())
    }

    /// The code between `[` and `]`. Never throws: a code whose arguments do not have the
    /// expected shape is kept as `.other` with its text.
    private static func responseCode(_ bytes: [UInt8], from start: Int, to end: Int) -> IMAPResponseCode {
        var r = IMAPByteReader(bytes, from: start, to: end)
        let name = String(decoding: r.readAtomBytes(), as: UTF8.self).uppercased()
        r.skipSpaces()
        let argumentsStart = r.position
        let arguments = r.atEnd ? nil : String(decoding: bytes[argumentsStart..<end], as: UTF8.self)
        do throws(IMAPParseError) {
            let code: IMAPResponseCode
            switch name {
            case "ALERT": return .alert
            case "READ-ONLY": return .readOnly
            case "READ-WRITE": return .readWrite
            case "TRYCREATE": return .tryCreate
            case "CLOSED": return .closed
            case "NOMODSEQ": return .noModSeq
            case "PARSE": return .parse
            case "CAPABILITY": return .capability(capabilities(&r))
            case "PERMANENTFLAGS": code = .permanentFlags(try r.readFlagList())
            case "UIDNEXT": code = .uidNext(try r.readNumber32("UIDNEXT"))
            case "UIDVALIDITY": code = .uidValidity(try r.readNumber32("UIDVALIDITY"))
            case "UNSEEN": code = .unseen(try r.readNumber32("UNSEEN"))
            case "HIGHESTMODSEQ": code = .highestModSeq(try r.readNumber64("HIGHESTMODSEQ"))
            case "APPENDUID":
                let validity = try r.readNonZeroNumber32("APPENDUID's UIDVALIDITY")
                try r.requireSpace("in APPENDUID")
                code = .appendUID(uidValidity: validity, uids: try r.readSequenceSet("APPENDUID's UIDs"))
            case "COPYUID":
                let validity = try r.readNonZeroNumber32("COPYUID's UIDVALIDITY")
                try r.requireSpace("in COPYUID")
                let source = try r.readSequenceSet("COPYUID's source UIDs")
                try r.requireSpace("in COPYUID")
                code = .copyUID(uidValidity: validity, source: source, destination: try r.readSequenceSet("COPYUID's UIDs"))
            default:
                return .other(name: name, arguments: arguments)
            }
            try r.finish("the response code")
            return code
        } catch {
            return .other(name: name, arguments: arguments)
        }
    }

    private static func capabilities(_ r: inout IMAPByteReader) -> [IMAPCapability] {
        var result: [IMAPCapability] = []
        r.skipSpaces()
        while !r.atEnd {
            let word = r.readAtomBytes()
            if word.isEmpty {
                r.advance()  // a stray '(' or quote: skipped, the rest still counts
            } else {
                result.append(IMAPCapability(String(decoding: word, as: UTF8.self)))
            }
            r.skipSpaces()
        }
        return result
    }

    /// `(attributes) delimiter mailbox [extended data]`.
    private static func listEntry(_ r: inout IMAPByteReader) throws(IMAPParseError) -> IMAPListEntry {
        var attributes: [IMAPMailboxAttribute] = []
        try r.readList("the mailbox attributes") { (r: inout IMAPByteReader) throws(IMAPParseError) in
            attributes.append(IMAPMailboxAttribute(try r.readAtom("a mailbox attribute")))
        }
        try r.requireSpace("after the mailbox attributes")
        var delimiter: Character?
        if !r.consumeNIL() {
            let bytes = try r.readString()
            delimiter = String(decoding: bytes, as: UTF8.self).first
        }
        try r.requireSpace("after the hierarchy delimiter")
        let mailbox = IMAPMailboxName(raw: try r.readAString("a mailbox name"))
        var extended: [IMAPValue] = []
        r.skipSpaces()
        while !r.atEnd {
            extended.append(try r.readValue())
            r.skipSpaces()
        }
        return IMAPListEntry(attributes: attributes, delimiter: delimiter, mailbox: mailbox, extendedData: extended)
    }

    /// `mailbox (NAME value …)`.
    private static func mailboxStatus(_ r: inout IMAPByteReader) throws(IMAPParseError) -> IMAPMailboxStatus {
        var status = IMAPMailboxStatus(mailbox: IMAPMailboxName(raw: try r.readAString("a mailbox name")))
        r.skipSpaces()
        try r.readList("the status items") { (r: inout IMAPByteReader) throws(IMAPParseError) in
            let name = try r.readAtom("a status item").uppercased()
            try r.requireSpace("after \(name)")
            guard r.nextIsDigit else {
                _ = try r.readValue()  // an item of a shape we do not know: skipped
                return
            }
            let start = r.position
            let value = try r.readNumber64(name)
            func small() throws(IMAPParseError) -> UInt32 {
                guard let v = UInt32(exactly: value) else { throw IMAPParseError(offset: start, message: "\(name) is larger than 4294967295") }
                return v
            }
            switch name {
            case "MESSAGES": status.messages = try small()
            case "RECENT": status.recent = try small()
            case "UIDNEXT": status.uidNext = try small()
            case "UIDVALIDITY": status.uidValidity = try small()
            case "UNSEEN": status.unseen = try small()
            case "HIGHESTMODSEQ": status.highestModSeq = value
            case "SIZE": status.size = value
            default: status.other[name] = value
            }
        }
        return status
    }

    /// `* SEARCH 2 84 882 (MODSEQ 917162500)`.
    private static func search(_ r: inout IMAPByteReader) throws(IMAPParseError) -> IMAPUntaggedResponse {
        var numbers: [UInt32] = []
        var modSeq: UInt64?
        r.skipSpaces()
        while !r.atEnd {
            if r.peek == UInt8(ascii: "(") {
                try r.readList("the search modifier") { (r: inout IMAPByteReader) throws(IMAPParseError) in
                    let name = try r.readAtom("MODSEQ").uppercased()
                    try r.requireSpace("after \(name)")
                    let value = try r.readNumber64(name)
                    if name == "MODSEQ" { modSeq = value }
                }
            } else {
                numbers.append(try r.readNumber32("a message number"))
            }
            guard r.atEnd || r.peek == UInt8(ascii: " ") else { throw r.error("expected a space between search results") }
            r.skipSpaces()
        }
        return .search(numbers, highestModSeq: modSeq)
    }

    /// `[(TAG "A3")] [UID] (NAME value)*`.
    private static func esearch(_ r: inout IMAPByteReader) throws(IMAPParseError) -> IMAPESearchResponse {
        var result = IMAPESearchResponse()
        r.skipSpaces()
        if r.peek == UInt8(ascii: "(") {
            var correlator: [IMAPValue] = []
            try r.readList("the search correlator") { (r: inout IMAPByteReader) throws(IMAPParseError) in correlator.append(try r.readValue()) }
            if correlator.count == 2, correlator[0].text?.uppercased() == "TAG" { result.tag = correlator[1].text }
            r.skipSpaces()
        }
        while !r.atEnd {
            let name = try r.readAtom("search return data").uppercased()
            if name == "UID" {
                result.isUID = true
            } else {
                try r.requireSpace("after \(name)")
                switch name {
                case "MIN": result.min = try r.readNumber32("MIN")
                case "MAX": result.max = try r.readNumber32("MAX")
                case "COUNT": result.count = try r.readNumber32("COUNT")
                case "ALL": result.all = try r.readSequenceSet("ALL")
                case "MODSEQ": result.modSeq = try r.readNumber64("MODSEQ")
                default: result.other[name] = try r.readValue()
                }
            }
            guard r.atEnd || r.peek == UInt8(ascii: " ") else { throw r.error("expected a space between search return data") }
            r.skipSpaces()
        }
        return result
    }

    /// `NIL` or `("name" "Dovecot" "version" NIL …)`.
    private static func idFields(_ r: inout IMAPByteReader) throws(IMAPParseError) -> [String: String]? {
        if r.consumeNIL() { return nil }
        var values: [IMAPValue] = []
        try r.readList("the ID fields") { (r: inout IMAPByteReader) throws(IMAPParseError) in values.append(try r.readValue()) }
        var fields: [String: String] = [:]
        var i = 0
        while i + 1 < values.count {
            if let key = values[i].text, let value = values[i + 1].text { fields[key] = value }
            i += 2
        }
        return fields
    }

    // MARK: FETCH

    private static func fetchItems(_ r: inout IMAPByteReader) throws(IMAPParseError) -> [IMAPFetchItem] {
        var items: [IMAPFetchItem] = []
        try r.readList("the FETCH items") { (r: inout IMAPByteReader) throws(IMAPParseError) in
            items.append(try fetchItem(&r))
        }
        return items
    }

    private static func fetchItem(_ r: inout IMAPByteReader) throws(IMAPParseError) -> IMAPFetchItem {
        let nameStart = r.position
        let base = try r.readAtom("a FETCH item name", stoppingAt: UInt8(ascii: "[")).uppercased()
        var section: String?
        var origin: UInt32?
        if r.peek == UInt8(ascii: "[") {
            guard let close = r.bytes[r.position..<r.end].firstIndex(of: UInt8(ascii: "]")) else {
                throw r.error("unterminated section of \(base): missing ']'")
            }
            section = String(decoding: r.bytes[(r.position + 1)..<close], as: UTF8.self)
            r.position = close + 1
            if r.consume(UInt8(ascii: "<")) {
                origin = try r.readNumber32("the partial fetch's origin")
                try r.expect(UInt8(ascii: ">"), "'>' closing the origin")
            }
        }
        let fullName = String(decoding: r.bytes[nameStart..<r.position], as: UTF8.self).uppercased()
        try r.requireSpace("after \(base)")
        if let section, base == "BODY" || base == "BINARY" {
            return .body(section: section, origin: origin, data: try nstringOrLiteral8(&r))
        }
        guard section == nil else { return .other(name: fullName, value: try r.readValue()) }
        switch base {
        case "UID": return .uid(try r.readNonZeroNumber32("UID"))
        case "FLAGS": return .flags(try r.readFlagList())
        case "RFC822.SIZE": return .rfc822Size(try r.readNumber64("RFC822.SIZE"))
        case "MODSEQ":
            var modSeq: UInt64?
            try r.readList("MODSEQ") { (r: inout IMAPByteReader) throws(IMAPParseError) in
                guard modSeq == nil else { throw r.error("MODSEQ holds more than one value") }
                modSeq = try r.readNumber64("MODSEQ")
            }
            guard let modSeq else { throw r.error("MODSEQ holds no value") }
            return .modSeq(modSeq)
        case "INTERNALDATE":
            let value = try r.readValue()
            if case .string(let text) = value, let date = IMAPDateTime.parse(text) { return .internalDate(date) }
            return .other(name: base, value: value)
        case "RFC822": return .body(section: "", origin: nil, data: try nstringOrLiteral8(&r))
        case "RFC822.HEADER": return .body(section: "HEADER", origin: nil, data: try nstringOrLiteral8(&r))
        case "RFC822.TEXT": return .body(section: "TEXT", origin: nil, data: try nstringOrLiteral8(&r))
        case "X-GM-MSGID": return .gmailMessageID(try r.readNumber64("X-GM-MSGID"))
        case "X-GM-THRID": return .gmailThreadID(try r.readNumber64("X-GM-THRID"))
        case "X-GM-LABELS":
            var labels: [String] = []
            try r.readList("X-GM-LABELS") { (r: inout IMAPByteReader) throws(IMAPParseError) in
                let raw = try r.readAString("a label")
                labels.append(ModifiedUTF7.decode(raw) ?? String(decoding: raw, as: UTF8.self))
            }
            return .gmailLabels(labels)
        default:
            return .other(name: base, value: try r.readValue())
        }
    }

    private static func nstringOrLiteral8(_ r: inout IMAPByteReader) throws(IMAPParseError) -> [UInt8]? {
        if r.consumeNIL() { return nil }
        if r.peek == UInt8(ascii: "~") { return try r.readLiteral() }
        return try r.readString()
    }
}
