/// RFC 3463 enhanced status code (`5.1.1`), read from the start of a reply's text when the server
/// offers ENHANCEDSTATUSCODES.
public struct SMTPEnhancedStatusCode: Hashable, Sendable, CustomStringConvertible {
    /// 2 (success), 4 (persistent transient failure) or 5 (permanent failure).
    public var statusClass: Int
    public var subject: Int
    public var detail: Int

    public init(statusClass: Int, subject: Int, detail: Int) {
        self.statusClass = statusClass
        self.subject = subject
        self.detail = detail
    }

    /// `class.subject.detail` at the start of `text`, followed by a space or the end; nil otherwise.
    /// RFC 3463: class 2, 4 or 5; subject up to 3 digits, detail up to 3 digits.
    public static func prefix(of text: Substring) -> (code: SMTPEnhancedStatusCode, rest: Substring)? {
        let parts = text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = parts.first else { return nil }
        let numbers = first.split(separator: ".", omittingEmptySubsequences: false)
        guard numbers.count == 3,
              numbers.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let statusClass = Int(numbers[0]), [2, 4, 5].contains(statusClass), numbers[0].count == 1,
              let subject = Int(numbers[1]), let detail = Int(numbers[2])
        else { return nil }
        let rest = parts.count > 1 ? parts[1] : Substring("")
        return (SMTPEnhancedStatusCode(statusClass: statusClass, subject: subject, detail: detail), rest)
    }

    public var description: String { "\(statusClass).\(subject).\(detail)" }
}

/// One SMTP reply (RFC 5321 §4.2): a three-digit code and one or more lines of text. A multi-line
/// reply (`250-…` lines then `250 …`) is one reply.
public struct SMTPReply: Hashable, Sendable, CustomStringConvertible {
    /// The three-digit reply code: 2xx done, 3xx go on (354 after DATA, 334 in AUTH), 4xx try
    /// again later, 5xx refused.
    public var code: Int
    /// The text of each line after the code and its separator, enhanced status code included
    /// (the server's words, as sent; non-UTF-8 bytes replaced).
    public var lines: [String]

    public init(code: Int, lines: [String]) {
        self.code = code
        self.lines = lines.isEmpty ? [""] : lines
    }

    public var isPositiveCompletion: Bool { (200..<300).contains(code) }
    public var isPositiveIntermediate: Bool { (300..<400).contains(code) }
    public var isTransientFailure: Bool { (400..<500).contains(code) }
    public var isPermanentFailure: Bool { (500..<600).contains(code) }

    /// The enhanced status code of the first line, when it starts with one.
    public var enhancedCode: SMTPEnhancedStatusCode? {
        SMTPEnhancedStatusCode.prefix(of: Substring(lines[0]))?.code
    }

    /// The text without the enhanced status code, lines joined by a space: for messages.
    public var text: String {
        lines.map { line in
            SMTPEnhancedStatusCode.prefix(of: Substring(line)).map { String($0.rest) } ?? line
        }.joined(separator: " ")
    }

    /// `550 5.1.1 <x@y>: Recipient address rejected` — the reply on one line, for messages.
    public var description: String {
        "\(code) \(lines.joined(separator: " "))"
    }
}
