import Foundation

/// Writes commands as bytes, with tags `A1`, `A2`… and IMAP's quoting rules.
///
/// Strings go out as an atom when every byte is an atom character, else as a quoted string when
/// every byte is printable ASCII other than `"` and `\`, else as a literal: a literal carries any
/// bytes (CR, LF, 8-bit) verbatim, with no escaping for a server to get wrong, so no user input —
/// a password, a mailbox name — can end or alter a command. NUL, which no IMAP string may hold,
/// is refused. Literals are non-synchronising (`{N+}`) when the server offers LITERAL+ (or
/// LITERAL- and N ≤ 4096, RFC 7888), else synchronising: the command is cut after `{N}` and the
/// caller waits for `+` (see `IMAPEncodedCommand`).
public struct IMAPCommandEncoder: Sendable {
    /// What the server offers; decides literal style and SASL-IR. Update it after STARTTLS and
    /// after authentication, when servers announce more.
    public var capabilities: Set<IMAPCapability>
    public let tagPrefix: String
    private var counter: UInt64 = 0

    public init(capabilities: Set<IMAPCapability> = [], tagPrefix: String = "A") {
        self.capabilities = capabilities
        self.tagPrefix = tagPrefix
    }

    /// Ends IDLE (RFC 2177): not a command, no tag.
    public static let idleDone: [UInt8] = Array("DONE\r\n".utf8)
    /// An empty answer to a continuation request (XOAUTH2's error challenge).
    public static let emptyResponse: [UInt8] = Array("\r\n".utf8)
    /// OAUTHBEARER's answer to the error challenge (RFC 7628 §3.2.3): a lone ^A, in base64.
    public static let oauthBearerErrorResponse: [UInt8] = Array("AQ==\r\n".utf8)

    /// The tag the next command will get.
    public var nextTag: String { "\(tagPrefix)\(counter + 1)" }

    /// Writes `command` with the next tag. The tag is used up only when writing succeeds.
    public mutating func encode(_ command: IMAPCommand) throws(IMAPEncodingError) -> IMAPEncodedCommand {
        let tag = nextTag
        var w = Writer(literalStyle: literalStyle)
        w.text(tag + " ")
        let name = try write(command, into: &w)
        w.text("\r\n")
        counter += 1
        return IMAPEncodedCommand(tag: tag, name: name, parts: w.parts)
    }

    private var literalStyle: Writer.LiteralStyle {
        if capabilities.contains(.literalPlus) { return .nonSynchronizing(limit: .max) }
        if capabilities.contains(.literalMinus) { return .nonSynchronizing(limit: 4096) }
        return .synchronizing
    }

    /// Writes the command after its tag; returns its name.
    private func write(_ command: IMAPCommand, into w: inout Writer) throws(IMAPEncodingError) -> String {
        switch command {
        case .capability: w.text("CAPABILITY"); return "CAPABILITY"
        case .noop: w.text("NOOP"); return "NOOP"
        case .logout: w.text("LOGOUT"); return "LOGOUT"
        case .startTLS: w.text("STARTTLS"); return "STARTTLS"
        case .idle: w.text("IDLE"); return "IDLE"
        case .unselect: w.text("UNSELECT"); return "UNSELECT"
        case .close: w.text("CLOSE"); return "CLOSE"
        case .expunge: w.text("EXPUNGE"); return "EXPUNGE"
        case .uidExpunge(let set):
            w.text("UID EXPUNGE " + (try sequenceSet(set, field: "UID EXPUNGE UIDs")))
            return "UID EXPUNGE"
        case .uidCopy(let set, let mailbox), .uidMove(let set, let mailbox):
            let name = if case .uidMove = command { "UID MOVE" } else { "UID COPY" }
            w.text(name + " " + (try sequenceSet(set, field: "\(name) UIDs")) + " ")
            try w.astring(mailbox.raw, field: "\(name) mailbox")
            return name
        case .create(let mailbox):
            w.text("CREATE ")
            try w.astring(mailbox.raw, field: "CREATE mailbox")
            return "CREATE"

        case .id(let fields):
            w.text("ID ")
            guard let fields, !fields.isEmpty else { w.text("NIL"); return "ID" }
            w.text("(")
            for (i, key) in fields.keys.sorted().enumerated() {
                if i > 0 { w.text(" ") }
                try w.string(Array(key.utf8), field: "ID field name")
                w.text(" ")
                try w.string(Array((fields[key] ?? "").utf8), field: "ID field value")
            }
            w.text(")")
            return "ID"

        case .login(let username, let password):
            guard !capabilities.contains(.loginDisabled) else {
                throw IMAPEncodingError(kind: .invalidArgument, field: "LOGIN",
                                        message: "the server refuses LOGIN on this connection (LOGINDISABLED); start TLS first")
            }
            w.text("LOGIN ")
            try w.astring(Array(username.utf8), field: "LOGIN user name")
            w.text(" ")
            try w.astring(Array(password.utf8), field: "LOGIN password")
            return "LOGIN"

        case .authenticatePlain(let username, let password):
            for (value, field) in [(username, "user name"), (password, "password")] where value.utf8.contains(0) {
                throw IMAPEncodingError(kind: .nulByte, field: "AUTHENTICATE PLAIN \(field)",
                                        message: "it holds a NUL byte, PLAIN's separator")
            }
            let response = Data([0] + Array(username.utf8) + [0] + Array(password.utf8)).base64EncodedString()
            saslInitialResponse("PLAIN", response, into: &w)
            return "AUTHENTICATE"

        case .authenticateXOAuth2(let username, let accessToken):
            for (value, field) in [(username, "user name"), (accessToken, "access token")]
            where value.utf8.contains(where: { $0 == 0x01 || $0 == 0 || $0 == 0x0D || $0 == 0x0A }) {
                throw IMAPEncodingError(kind: .invalidArgument, field: "AUTHENTICATE XOAUTH2 \(field)",
                                        message: "it holds a control byte (\\x01, NUL, CR or LF) that XOAUTH2 uses as a separator")
            }
            let response = Data("user=\(username)\u{01}auth=Bearer \(accessToken)\u{01}\u{01}".utf8).base64EncodedString()
            saslInitialResponse("XOAUTH2", response, into: &w)
            return "AUTHENTICATE"

        case .authenticateOAuthBearer(let username, let accessToken, let host, let port):
            for (value, field) in [(username, "user name"), (accessToken, "access token"), (host ?? "", "host")]
            where value.utf8.contains(where: { $0 == 0x01 || $0 == 0 || $0 == 0x0D || $0 == 0x0A }) {
                throw IMAPEncodingError(kind: .invalidArgument, field: "AUTHENTICATE OAUTHBEARER \(field)",
                                        message: "it holds a control byte (\\x01, NUL, CR or LF) that OAUTHBEARER uses as a separator")
            }
            // The GS2 header's authzid is a saslname (RFC 5801): "=" and "," escaped as =3D and =2C.
            let authzid = username.replacingOccurrences(of: "=", with: "=3D").replacingOccurrences(of: ",", with: "=2C")
            var message = "n,a=\(authzid),\u{01}"
            if let host, !host.isEmpty { message += "host=\(host)\u{01}" }
            if let port { message += "port=\(port)\u{01}" }
            message += "auth=Bearer \(accessToken)\u{01}\u{01}"
            saslInitialResponse("OAUTHBEARER", Data(message.utf8).base64EncodedString(), into: &w)
            return "AUTHENTICATE"

        case .enable(let extensions):
            guard !extensions.isEmpty else {
                throw IMAPEncodingError(kind: .invalidArgument, field: "ENABLE", message: "no extension named")
            }
            w.text("ENABLE")
            for capability in extensions {
                w.text(" ")
                try w.atom(capability.rawValue, field: "ENABLE extension")
            }
            return "ENABLE"

        case .list(let reference, let pattern, let returning):
            w.text("LIST ")
            try w.string(reference.raw, field: "LIST reference")
            w.text(" ")
            try w.string(ModifiedUTF7.encode(pattern), field: "LIST pattern")
            if !returning.isEmpty {
                w.text(" RETURN (")
                for (i, option) in returning.enumerated() {
                    if i > 0 { w.text(" ") }
                    switch option {
                    case .specialUse: w.text("SPECIAL-USE")
                    case .subscribed: w.text("SUBSCRIBED")
                    case .children: w.text("CHILDREN")
                    case .status(let items): try statusItems(items, command: "LIST RETURN STATUS", into: &w, prefix: "STATUS ")
                    }
                }
                w.text(")")
            }
            return "LIST"

        case .select(let mailbox, let option), .examine(let mailbox, let option):
            let name: String
            if case .select = command { name = "SELECT" } else { name = "EXAMINE" }
            w.text(name + " ")
            try w.astring(mailbox.raw, field: "\(name) mailbox")
            switch option {
            case .plain: break
            case .condStore: w.text(" (CONDSTORE)")
            case .qresync(let uidValidity, let modSeq, let knownUIDs):
                guard uidValidity != 0, modSeq != 0 else {
                    throw IMAPEncodingError(kind: .invalidArgument, field: "\(name) QRESYNC",
                                            message: "UIDVALIDITY and the mod-sequence must not be 0")
                }
                w.text(" (QRESYNC (\(uidValidity) \(modSeq)")
                if let knownUIDs { w.text(" " + (try sequenceSet(knownUIDs, field: "\(name) QRESYNC known UIDs"))) }
                w.text("))")
            }
            return name

        case .status(let mailbox, let items):
            w.text("STATUS ")
            try w.astring(mailbox.raw, field: "STATUS mailbox")
            w.text(" ")
            try statusItems(items, command: "STATUS", into: &w, prefix: "")
            return "STATUS"

        case .uidSearch(let keys, let returning):
            w.text("UID SEARCH")
            if let returning {
                w.text(" RETURN (" + returning.map(\.rawValue).joined(separator: " ") + ")")
            }
            for key in keys.isEmpty ? [.all] : keys {
                w.text(" " + (try searchKey(key)))
            }
            return "UID SEARCH"

        case .uidFetch(let set, let attributes, let changedSince, let vanished):
            guard !attributes.isEmpty else {
                throw IMAPEncodingError(kind: .invalidArgument, field: "UID FETCH", message: "no item to fetch")
            }
            w.text("UID FETCH " + (try sequenceSet(set, field: "UID FETCH UIDs")) + " (")
            w.text(try attributes.map { (a) throws(IMAPEncodingError) in try fetchAttribute(a) }.joined(separator: " "))
            w.text(")")
            if let changedSince {
                w.text(" (CHANGEDSINCE \(changedSince)\(vanished ? " VANISHED" : ""))")
            } else if vanished {
                throw IMAPEncodingError(kind: .invalidArgument, field: "UID FETCH VANISHED",
                                        message: "VANISHED needs CHANGEDSINCE (RFC 7162 §3.2.6)")
            }
            return "UID FETCH"

        case .uidStore(let set, let operation, let flags, let silent, let unchangedSince):
            w.text("UID STORE " + (try sequenceSet(set, field: "UID STORE UIDs")))
            if let unchangedSince { w.text(" (UNCHANGEDSINCE \(unchangedSince))") }
            let sign = switch operation { case .add: "+"; case .remove: "-"; case .replace: "" }
            w.text(" \(sign)FLAGS\(silent ? ".SILENT" : "") ")
            try flagList(flags, field: "UID STORE flag", into: &w)
            return "UID STORE"

        case .uidStoreGmailLabels(let set, let operation, let labels, let silent):
            guard !labels.isEmpty else {
                throw IMAPEncodingError(kind: .invalidArgument, field: "UID STORE X-GM-LABELS", message: "no label named")
            }
            w.text("UID STORE " + (try sequenceSet(set, field: "UID STORE UIDs")))
            let sign = switch operation { case .add: "+"; case .remove: "-"; case .replace: "" }
            w.text(" \(sign)X-GM-LABELS\(silent ? ".SILENT" : "") (")
            for (i, label) in labels.enumerated() {
                if i > 0 { w.text(" ") }
                if label.hasPrefix("\\"), label.count > 1, label.utf8.dropFirst().allSatisfy(Writer.isAtomChar) {
                    w.text(label)
                } else {
                    guard !label.isEmpty else {
                        throw IMAPEncodingError(kind: .invalidArgument, field: "X-GM-LABELS label", message: "a label has no name")
                    }
                    try w.astring(ModifiedUTF7.encode(label), field: "X-GM-LABELS label")
                }
            }
            w.text(")")
            return "UID STORE"

        case .append(let mailbox, let flags, let date, let message):
            w.text("APPEND ")
            try w.astring(mailbox.raw, field: "APPEND mailbox")
            if !flags.isEmpty {
                w.text(" ")
                try flagList(flags, field: "APPEND flag", into: &w)
            }
            if let date { w.text(" \"\(IMAPDateTime.format(date))\"") }
            w.text(" ")
            guard !message.contains(0) else {
                throw IMAPEncodingError(kind: .nulByte, field: "APPEND message", message: "it holds a NUL byte, which a literal cannot carry")
            }
            w.literal(message)
            return "APPEND"
        }
    }

    /// `AUTHENTICATE MECH response` with SASL-IR, else `AUTHENTICATE MECH`, wait, `response`.
    private func saslInitialResponse(_ mechanism: String, _ response: String, into w: inout Writer) {
        w.text("AUTHENTICATE \(mechanism)")
        if capabilities.contains(.saslIR) {
            w.text(" " + response)
        } else {
            w.text("\r\n")
            w.waitForContinuation()
            w.text(response)
        }
    }

    private func statusItems(_ items: [IMAPStatusItem], command: String, into w: inout Writer, prefix: String) throws(IMAPEncodingError) {
        guard !items.isEmpty else {
            throw IMAPEncodingError(kind: .invalidArgument, field: command, message: "no status item named")
        }
        w.text(prefix + "(" + items.map(\.rawValue).joined(separator: " ") + ")")
    }

    private func flagList(_ flags: [IMAPFlag], field: String, into w: inout Writer) throws(IMAPEncodingError) {
        w.text("(")
        for (i, flag) in flags.enumerated() {
            if i > 0 { w.text(" ") }
            let name = flag.rawValue.hasPrefix("\\") ? String(flag.rawValue.dropFirst()) : flag.rawValue
            try Writer.checkAtom(name, field: field)
            w.text(flag.rawValue)
        }
        w.text(")")
    }

    private func sequenceSet(_ set: IMAPSequenceSet, field: String) throws(IMAPEncodingError) -> String {
        guard !set.isEmpty else { throw IMAPEncodingError(kind: .invalidArgument, field: field, message: "the set is empty") }
        guard !set.ranges.contains(where: { $0.lowerBound == 0 }) else {
            throw IMAPEncodingError(kind: .invalidArgument, field: field, message: "0 is not a message number or UID")
        }
        return set.description
    }

    private func searchKey(_ key: IMAPSearchKey) throws(IMAPEncodingError) -> String {
        switch key {
        case .all: return "ALL"
        case .since(let date): return "SINCE \(date)"
        case .before(let date): return "BEFORE \(date)"
        case .uid(let set): return "UID " + (try sequenceSet(set, field: "UID SEARCH UID"))
        case .modSeq(let modSeq): return "MODSEQ \(modSeq)"
        case .unseen: return "UNSEEN"
        case .deleted: return "DELETED"
        case .header(let name, let value):
            let printable: (String) -> Bool = { $0.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } }
            guard !name.isEmpty, printable(name), printable(value), !name.contains(where: { $0 == " " || $0 == ":" || $0 == "\"" }) else {
                throw IMAPEncodingError(kind: .invalidArgument, field: "SEARCH HEADER", message: "a header search takes a field name and printable ASCII")
            }
            let quoted = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            return "HEADER \(name) \"\(quoted)\""
        case .not(let inner): return "NOT " + (try searchKey(inner))
        case .or(let a, let b): return "OR \(try searchKey(a)) \(try searchKey(b))"
        case .and(let keys):
            return "(" + (try (keys.isEmpty ? [.all] : keys).map { (k) throws(IMAPEncodingError) in try searchKey(k) }.joined(separator: " ")) + ")"
        }
    }

    private func fetchAttribute(_ attribute: IMAPFetchAttribute) throws(IMAPEncodingError) -> String {
        switch attribute {
        case .uid: return "UID"
        case .flags: return "FLAGS"
        case .internalDate: return "INTERNALDATE"
        case .rfc822Size: return "RFC822.SIZE"
        case .modSeq: return "MODSEQ"
        case .envelope: return "ENVELOPE"
        case .bodyStructure: return "BODYSTRUCTURE"
        case .gmailMessageID: return "X-GM-MSGID"
        case .gmailThreadID: return "X-GM-THRID"
        case .gmailLabels: return "X-GM-LABELS"
        case .body(let section, let peek, let partial):
            // A section is protocol text the caller writes, never user input: refuse anything
            // that could close the brackets early or end the line.
            guard section.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "]") && $0 != UInt8(ascii: "[") }) else {
                throw IMAPEncodingError(kind: .invalidAtom, field: "UID FETCH section",
                                        message: "a section may hold only printable ASCII without brackets")
            }
            let origin = partial.map { "<\($0.origin).\($0.count)>" } ?? ""
            return "BODY\(peek ? ".PEEK" : "")[\(section)]\(origin)"
        }
    }
}

/// Collects a command's bytes into parts, choosing atom, quoted string or literal per value.
private struct Writer {
    enum LiteralStyle {
        case synchronizing
        /// `{N+}` for literals of at most `limit` bytes, synchronising above.
        case nonSynchronizing(limit: Int)
    }

    let literalStyle: LiteralStyle
    var parts: [[UInt8]] = [[]]

    init(literalStyle: LiteralStyle) {
        self.literalStyle = literalStyle
    }

    mutating func text(_ s: String) {
        parts[parts.count - 1].append(contentsOf: s.utf8)
    }

    mutating func waitForContinuation() {
        parts.append([])
    }

    /// RFC 3501 ATOM-CHAR: printable ASCII but `(){ %*"\]`.
    static func isAtomChar(_ b: UInt8) -> Bool {
        guard b > 0x20, b < 0x7F else { return false }
        return !"(){%*\"\\]".utf8.contains(b)
    }

    static func checkAtom(_ value: String, field: String) throws(IMAPEncodingError) {
        guard !value.isEmpty, value.utf8.allSatisfy(isAtomChar) else {
            throw IMAPEncodingError(kind: .invalidAtom, field: field, message: "it must be a non-empty run of atom characters")
        }
    }

    mutating func atom(_ value: String, field: String) throws(IMAPEncodingError) {
        try Self.checkAtom(value, field: field)
        text(value)
    }

    /// An atom when safe, else a string.
    mutating func astring(_ bytes: [UInt8], field: String) throws(IMAPEncodingError) {
        if !bytes.isEmpty, bytes.allSatisfy(Self.isAtomChar) {
            parts[parts.count - 1].append(contentsOf: bytes)
        } else {
            try string(bytes, field: field)
        }
    }

    /// A quoted string when safe (printable ASCII without `"` and `\`, not too long), else a literal.
    mutating func string(_ bytes: [UInt8], field: String) throws(IMAPEncodingError) {
        guard !bytes.contains(0) else {
            throw IMAPEncodingError(kind: .nulByte, field: field, message: "it holds a NUL byte, which no IMAP string can carry")
        }
        if bytes.count <= 1024, bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            parts[parts.count - 1].append(UInt8(ascii: "\""))
            parts[parts.count - 1].append(contentsOf: bytes)
            parts[parts.count - 1].append(UInt8(ascii: "\""))
        } else {
            literal(bytes)
        }
    }

    mutating func literal(_ bytes: [UInt8]) {
        switch literalStyle {
        case .nonSynchronizing(let limit) where bytes.count <= limit:
            text("{\(bytes.count)+}\r\n")
        default:
            text("{\(bytes.count)}\r\n")
            waitForContinuation()
        }
        parts[parts.count - 1].append(contentsOf: bytes)
    }
}
