/// A mailbox for the envelope (`MAIL FROM:<…>`, `RCPT TO:<…>`) and for headers: `local@domain`,
/// checked so that it can never end a command line or a header field. CR, LF, NUL and every other
/// control character are refused, as are spaces and angle brackets outside a quoted local part.
public struct SMTPAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address as given (`alice@example.org`), without angle brackets.
    public let address: String
    public let localPart: String
    public let domain: String

    /// Checks `text` (surrounding spaces and one pair of angle brackets are removed first).
    public init(_ text: String) throws(SMTPEncodingError) {
        var trimmed = Substring(text)
        while let first = trimmed.first, first == " " { trimmed = trimmed.dropFirst() }
        while let last = trimmed.last, last == " " { trimmed = trimmed.dropLast() }
        if trimmed.hasPrefix("<") && trimmed.hasSuffix(">") && trimmed.count >= 2 {
            trimmed = trimmed.dropFirst().dropLast()
        }
        let value = String(trimmed)
        if let bad = value.unicodeScalars.first(where: { $0.value < 0x20 || $0.value == 0x7F || (0x80...0x9F).contains($0.value) }) {
            let name = bad == "\r" ? "a carriage return" : bad == "\n" ? "a line feed" : bad == "\0" ? "a NUL byte" : "a control character"
            throw SMTPEncodingError(kind: .lineBreakOrControl, message: "the address \(Self.shown(value)) contains \(name)")
        }
        guard let at = Self.separatorIndex(value) else {
            throw SMTPEncodingError(kind: .invalidAddress, message: "\(Self.shown(value)) is not an email address (local@domain)")
        }
        let local = String(value[..<at])
        let domain = String(value[value.index(after: at)...])
        guard !local.isEmpty, local.utf8.count <= 64 else {
            throw SMTPEncodingError(kind: .invalidAddress, message: "the part before @ of \(Self.shown(value)) must have 1 to 64 bytes")
        }
        guard Self.isValidLocalPart(local) else {
            throw SMTPEncodingError(kind: .invalidAddress,
                                    message: "the part before @ of \(Self.shown(value)) has characters an address cannot have unquoted (spaces, <>()[],;:\\\")")
        }
        guard Self.isValidDomain(domain) else {
            throw SMTPEncodingError(kind: .invalidAddress, message: "\(Self.shown(domain)) in \(Self.shown(value)) is not a domain name or an address literal")
        }
        self.address = value
        self.localPart = local
        self.domain = domain
    }

    /// True when the address has non-ASCII characters: the server must offer SMTPUTF8 (RFC 6531).
    public var requiresSMTPUTF8: Bool { !address.utf8.allSatisfy { $0 < 0x80 } }

    public var description: String { address }

    /// The last `@` outside a quoted local part.
    private static func separatorIndex(_ value: String) -> String.Index? {
        var inQuotes = false
        var escaped = false
        var found: String.Index?
        for index in value.indices {
            let c = value[index]
            if escaped { escaped = false; continue }
            if inQuotes && c == "\\" { escaped = true; continue }
            if c == "\"" { inQuotes.toggle(); continue }
            if c == "@" && !inQuotes { found = index }
        }
        return found
    }

    private static let atomSpecials: Set<Character> = ["(", ")", "<", ">", "[", "]", ":", ";", "@", "\\", ",", "\"", " "]

    private static func isValidLocalPart(_ local: String) -> Bool {
        if local.hasPrefix("\"") && local.hasSuffix("\"") && local.count >= 2 {
            // Quoted: any printable character, `"` and `\` escaped.
            var escaped = false
            for c in local.dropFirst().dropLast() {
                if escaped { escaped = false; continue }
                if c == "\\" { escaped = true; continue }
                if c == "\"" { return false }
            }
            return !escaped
        }
        // Dot-atom: atoms of atext separated by single dots.
        guard !local.hasPrefix("."), !local.hasSuffix("."), !local.contains("..") else { return false }
        return !local.contains(where: { atomSpecials.contains($0) })
    }

    private static func isValidDomain(_ domain: String) -> Bool {
        guard !domain.isEmpty, domain.utf8.count <= 255 else { return false }
        if domain.hasPrefix("[") && domain.hasSuffix("]") {
            // Address literal: [192.0.2.1] or [IPv6:…]; printable, no brackets or backslash inside.
            let inner = domain.dropFirst().dropLast()
            return !inner.isEmpty && !inner.contains(where: { $0 == "[" || $0 == "]" || $0 == "\\" || $0 == " " })
        }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.unicodeScalars.allSatisfy { scalar in
                    scalar.value >= 0x80 || (scalar.properties.isASCIIHexDigit || ("a"..."z").contains(scalar)
                        || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "-")
                }
        }
    }

    /// A value for an error message: quoted, control characters shown as escapes, at most 80 characters.
    public static func shown(_ value: String) -> String {
        var out = ""
        for scalar in value.unicodeScalars.prefix(80) {
            switch scalar {
            case "\r": out += "\\r"
            case "\n": out += "\\n"
            case "\0": out += "\\0"
            default:
                out += scalar.value < 0x20 || scalar.value == 0x7F ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
            }
        }
        return "\"\(out)\(value.unicodeScalars.count > 80 ? "…" : "")\""
    }
}
