/// A parsed structured MIME header value such as Content-Type or Content-Disposition:
/// the main value (`text/plain`, `attachment`) and its parameters.
///
/// Parameters follow RFC 2045 and RFC 2231: quoted strings with escapes, continuations
/// (`name*0=`, `name*1=`), extended values (`name*=charset'lang'%XX`, `name*0*=`), and, for
/// compatibility with common mailers, RFC 2047 encoded words and raw UTF-8 or Latin-1 in values.
public struct MIMEHeaderValue: Sendable, Hashable {
    /// The main value, lower-cased, comments and whitespace removed ("" when absent).
    public var value: String
    /// Parameters by lower-cased name, fully decoded.
    public var parameters: [String: String]
    /// True when a parameter could not be parsed cleanly.
    public var malformed: Bool

    /// Parses a header value.
    public init(_ text: String) {
        self.init(bytes: Array(text.utf8), decoder: CharsetDecoder())
    }

    init(bytes b: [UInt8], decoder: CharsetDecoder) {
        value = ""
        parameters = [:]
        malformed = false
        let n = b.count
        var i = 0
        // Main value: up to the first ';' outside comments.
        var main: [UInt8] = []
        var comment = 0
        while i < n {
            let c = b[i]
            if comment > 0 {
                if c == UInt8(ascii: "(") { comment += 1 } else if c == UInt8(ascii: ")") { comment -= 1 }
            } else if c == UInt8(ascii: "(") {
                comment = 1
            } else if c == UInt8(ascii: ";") {
                break
            } else if c > 0x20 && c != UInt8(ascii: "\"") {
                main.append(c >= 0x41 && c <= 0x5A ? c | 0x20 : c)
            }
            i += 1
        }
        value = String(decoding: main, as: UTF8.self)

        // Parameters.
        struct Section { var index: Int; var bytes: [UInt8]; var extended: Bool }
        var sections: [String: [Section]] = [:]
        var simple: [String: [UInt8]] = [:]
        var order: [String] = []
        while i < n {
            // Skip ';' and whitespace.
            while i < n && (b[i] == UInt8(ascii: ";") || b[i] <= 0x20) { i += 1 }
            if i >= n { break }
            if b[i] == UInt8(ascii: "(") {
                var depth = 0
                while i < n {
                    if b[i] == UInt8(ascii: "(") { depth += 1 } else if b[i] == UInt8(ascii: ")") { depth -= 1; if depth == 0 { i += 1; break } }
                    i += 1
                }
                continue
            }
            // Name up to '='.
            var name: [UInt8] = []
            while i < n && b[i] != UInt8(ascii: "=") && b[i] != UInt8(ascii: ";") {
                if b[i] > 0x20 { name.append(b[i] >= 0x41 && b[i] <= 0x5A ? b[i] | 0x20 : b[i]) }
                i += 1
            }
            if i >= n || b[i] == UInt8(ascii: ";") { malformed = true; continue }
            i += 1  // '='
            while i < n && (b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0D || b[i] == 0x0A) { i += 1 }
            var val: [UInt8] = []
            if i < n && b[i] == UInt8(ascii: "\"") {
                i += 1
                var closed = false
                while i < n {
                    let c = b[i]
                    if c == UInt8(ascii: "\\") && i + 1 < n { val.append(b[i + 1]); i += 2; continue }
                    if c == UInt8(ascii: "\"") { closed = true; i += 1; break }
                    if c != 0x0D && c != 0x0A { val.append(c) }
                    i += 1
                }
                if !closed { malformed = true }
                // Ignore junk after the closing quote up to ';'.
                while i < n && b[i] != UInt8(ascii: ";") { i += 1 }
            } else {
                while i < n && b[i] != UInt8(ascii: ";") { val.append(b[i]); i += 1 }
                while let l = val.last, l <= 0x20 { val.removeLast() }
            }
            guard !name.isEmpty else { malformed = true; continue }
            var key = String(decoding: name, as: UTF8.self)
            if let star = name.firstIndex(of: UInt8(ascii: "*")) {
                // RFC 2231: name*, name*N, name*N*
                let base = String(decoding: name[..<star], as: UTF8.self)
                let rest = name[(star + 1)...]
                var extended = false
                var index = 0
                if rest.isEmpty {
                    extended = true
                } else {
                    var digits = rest[...]
                    if digits.last == UInt8(ascii: "*") { extended = true; digits = digits.dropLast() }
                    if let v = Int(String(decoding: digits, as: UTF8.self)), v >= 0, v < 1000 { index = v } else { malformed = true; continue }
                }
                key = base
                if sections[key] == nil { order.append(key) }
                if (sections[key]?.count ?? 0) < 256 {
                    sections[key, default: []].append(Section(index: index, bytes: val, extended: extended))
                }
            } else if simple[key] == nil {
                simple[key] = val
                order.append(key)
            }
        }
        for key in order {
            if let secs = sections[key] {
                let sorted = secs.sorted { $0.index < $1.index }
                var charset: String? = nil
                var raw: [UInt8] = []
                for (k, s) in sorted.enumerated() {
                    var bytes = s.bytes
                    if s.extended {
                        if k == 0 {
                            // charset'language'value
                            let parts = bytes.split(separator: UInt8(ascii: "'"), maxSplits: 2, omittingEmptySubsequences: false)
                            if parts.count == 3 {
                                charset = String(decoding: parts[0], as: UTF8.self)
                                bytes = Array(parts[2])
                            }
                        }
                        bytes = MIMEHeaderValue.percentDecode(bytes)
                    }
                    raw.append(contentsOf: bytes)
                }
                let text = charset.map { decoder.decode(raw, charset: $0).text } ?? CharsetDecoder.decodeUTF8OrFallback(raw).text
                parameters[key] = text
            } else if let v = simple[key], parameters[key] == nil {
                var text = CharsetDecoder.isASCII(v) ? String(decoding: v, as: UTF8.self) : CharsetDecoder.decodeUTF8OrFallback(v).text
                text = EncodedWordDecoder.decode(text, using: decoder)
                parameters[key] = text
            }
        }
    }

    static func percentDecode(_ b: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var i = 0
        while i < b.count {
            if b[i] == UInt8(ascii: "%"), i + 2 < b.count, let h = TransferDecoder.hexValue(b[i + 1]), let l = TransferDecoder.hexValue(b[i + 2]) {
                out.append(h << 4 | l)
                i += 3
            } else {
                out.append(b[i])
                i += 1
            }
        }
        return out
    }
}
