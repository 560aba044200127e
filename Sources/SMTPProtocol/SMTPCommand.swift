/// BODY= of MAIL FROM (RFC 6152): what the message's bytes need.
public enum SMTPBodyType: String, Sendable, Hashable {
    case sevenBit = "7BIT"
    case eightBitMIME = "8BITMIME"
}

/// The commands of a client session (RFC 5321, 3207, 4954, 1870, 6152, 6531). `encoded()` writes
/// one line ending in CRLF and refuses any argument that could end it early or add a command.
public enum SMTPCommand: Sendable, Hashable, CustomStringConvertible {
    /// `domain` is the client's name: a domain or an address literal (`[127.0.0.1]`).
    case ehlo(domain: String)
    case helo(domain: String)
    case startTLS
    /// `AUTH MECHANISM [initial-response]`; the response is base64 (`=` for an empty one, RFC 4954).
    case auth(mechanism: String, initialResponse: String?)
    /// A line answering a 334 challenge: base64, or `*` to cancel.
    case authResponse(String)
    /// `MAIL FROM:<address>` with SIZE= (when the server offers SIZE), BODY= and SMTPUTF8 as asked.
    case mailFrom(SMTPAddress, size: Int?, body: SMTPBodyType?, smtpUTF8: Bool)
    case rcptTo(SMTPAddress)
    case data
    case rset
    case noop
    case quit

    /// The command's name for messages and logs: never an argument (no addresses, no credentials).
    public var description: String {
        switch self {
        case .ehlo: return "EHLO"
        case .helo: return "HELO"
        case .startTLS: return "STARTTLS"
        case .auth(let mechanism, _): return "AUTH \(mechanism.uppercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })"
        case .authResponse: return "AUTH (response)"
        case .mailFrom: return "MAIL FROM"
        case .rcptTo: return "RCPT TO"
        case .data: return "DATA"
        case .rset: return "RSET"
        case .noop: return "NOOP"
        case .quit: return "QUIT"
        }
    }

    /// The command line, CRLF included.
    public func encoded() throws(SMTPEncodingError) -> [UInt8] {
        let line: String
        switch self {
        case .ehlo(let domain):
            try Self.checkClientName(domain)
            line = "EHLO \(domain)"
        case .helo(let domain):
            try Self.checkClientName(domain)
            line = "HELO \(domain)"
        case .startTLS:
            line = "STARTTLS"
        case .auth(let mechanism, let initialResponse):
            guard !mechanism.isEmpty, mechanism.utf8.count <= 20,
                  mechanism.utf8.allSatisfy({ Self.isMechanismByte($0) })
            else {
                throw SMTPEncodingError(kind: .invalidArgument, message: "\"\(mechanism.prefix(20))\" is not a SASL mechanism name")
            }
            if let initialResponse {
                try Self.checkBase64(initialResponse, allowEquals: true)
                line = "AUTH \(mechanism.uppercased()) \(initialResponse.isEmpty ? "=" : initialResponse)"
            } else {
                line = "AUTH \(mechanism.uppercased())"
            }
        case .authResponse(let response):
            if response != "*" { try Self.checkBase64(response, allowEquals: false) }
            line = response
        case .mailFrom(let address, let size, let body, let smtpUTF8):
            var text = "MAIL FROM:<\(address.address)>"
            if let size {
                guard size >= 0 else { throw SMTPEncodingError(kind: .invalidArgument, message: "SIZE must not be negative") }
                text += " SIZE=\(size)"
            }
            if let body { text += " BODY=\(body.rawValue)" }
            if smtpUTF8 { text += " SMTPUTF8" }
            line = text
        case .rcptTo(let address):
            line = "RCPT TO:<\(address.address)>"
        case .data: line = "DATA"
        case .rset: line = "RSET"
        case .noop: line = "NOOP"
        case .quit: line = "QUIT"
        }
        // SMTPAddress never holds a control character; this is the last guard for every argument.
        guard !line.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw SMTPEncodingError(kind: .lineBreakOrControl, message: "cannot send \(description): an argument contains a line break or control character")
        }
        return Array(line.utf8) + [13, 10]
    }

    private static func isMechanismByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }

    private static func checkClientName(_ name: String) throws(SMTPEncodingError) {
        guard !name.isEmpty, name.utf8.count <= 255,
              name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: ">") })
        else {
            throw SMTPEncodingError(kind: .invalidArgument, message: "the client name for EHLO must be a domain or an address literal like [127.0.0.1]")
        }
    }

    private static func checkBase64(_ text: String, allowEquals: Bool) throws(SMTPEncodingError) {
        if allowEquals && text == "=" { return }
        guard text.utf8.allSatisfy({ Base64.isAlphabetByte($0) || $0 == UInt8(ascii: "=") }) else {
            throw SMTPEncodingError(kind: .invalidArgument, message: "a SASL response must be base64")
        }
    }
}
