/// What a server offers in its EHLO reply (RFC 5321 §4.1.1.1): every line after the first is a
/// keyword and its parameters.
public struct SMTPCapabilities: Hashable, Sendable {
    /// Every keyword, upper-cased, with its parameters as sent.
    public var keywords: [String: [String]]

    public init(keywords: [String: [String]] = [:]) {
        self.keywords = keywords
    }

    /// The capabilities of an EHLO reply (its first line is the server's name and greeting).
    public init(ehloReply reply: SMTPReply) {
        var keywords: [String: [String]] = [:]
        for line in reply.lines.dropFirst() {
            var words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard !words.isEmpty else { continue }
            var keyword = words.removeFirst().uppercased()
            // Old servers: `AUTH=LOGIN PLAIN`.
            if keyword.hasPrefix("AUTH=") {
                words.insert(String(keyword.dropFirst(5)), at: 0)
                keyword = "AUTH"
            }
            keywords[keyword, default: []].append(contentsOf: words)
        }
        self.keywords = keywords
    }

    public func contains(_ keyword: String) -> Bool { keywords[keyword.uppercased()] != nil }

    /// SIZE (RFC 1870): the largest message the server takes, in bytes; nil when it names no
    /// limit (SIZE without a number, or `SIZE 0`) or does not offer SIZE.
    public var maximumSize: Int? {
        guard let value = keywords["SIZE"]?.first, let size = Int(value), size > 0 else { return nil }
        return size
    }

    public var supportsSize: Bool { contains("SIZE") }
    public var supports8BitMIME: Bool { contains("8BITMIME") }
    public var supportsSMTPUTF8: Bool { contains("SMTPUTF8") }
    public var supportsStartTLS: Bool { contains("STARTTLS") }
    public var supportsPipelining: Bool { contains("PIPELINING") }
    public var supportsEnhancedStatusCodes: Bool { contains("ENHANCEDSTATUSCODES") }

    /// SASL mechanisms of AUTH, upper-cased (`PLAIN`, `LOGIN`, `XOAUTH2`).
    public var authMechanisms: Set<String> {
        Set((keywords["AUTH"] ?? []).map { $0.uppercased() })
    }
}
