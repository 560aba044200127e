import Foundation
import SMTPProtocol

/// Header field values that cannot break the header block: no CR or LF ever comes from the
/// caller's text (control characters become spaces), non-ASCII text goes as RFC 2047 encoded
/// words, and long fields are folded at spaces before 78 characters where they can be.
enum HeaderEncoder {
    /// `Name: value` folded, with CRLF at the end.
    static func field(_ name: String, _ value: String) -> String {
        fold("\(name): \(value)") + "\r\n"
    }

    /// Folds at spaces so that lines stay under 78 characters where a space allows (RFC 5322 §2.2.3).
    static func fold(_ line: String) -> String {
        guard line.utf8.count > 78 else { return line }
        var out = ""
        var current = ""
        for (index, word) in line.split(separator: " ", omittingEmptySubsequences: false).enumerated() {
            if index == 0 {
                current = String(word)
            } else if index > 1, current.utf8.count + 1 + word.utf8.count > 78, !current.trimming(" ").isEmpty {
                // (Never right after the field name: `Subject:` stays on the line of its first word.)
                out += current + "\r\n"
                current = " " + word
            } else {
                current += " " + word
            }
        }
        return out + current
    }

    /// The text with every control character (CR and LF included) as a space.
    static func sanitized(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { scalar in
            scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value) ? " " : scalar
        }))
    }

    /// Unstructured text (Subject): as is when it is printable ASCII that folding can keep under
    /// SMTP's line limit, else encoded words (which can always be folded).
    static func unstructured(_ text: String) -> String {
        let clean = sanitized(text)
        if clean.unicodeScalars.allSatisfy({ $0.isASCII }) && !clean.contains("=?")
            && !clean.split(separator: " ").contains(where: { $0.utf8.count > 900 }) {
            return clean
        }
        return encodedWords(clean)
    }

    /// RFC 2047 `=?UTF-8?B?…?=` words of at most 75 characters, separated by spaces (which
    /// decoders drop between adjacent encoded words), never splitting a character.
    static func encodedWords(_ text: String) -> String {
        // An encoded word may have 75 characters; 42 bytes (56 base64 characters, 68 in all) keep a first
        // word after `Reply-To: ` under 78 too.
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in text {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > 42, !chunk.isEmpty {
                words.append("=?UTF-8?B?\(Base64.encode(chunk))?=")
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty || words.isEmpty { words.append("=?UTF-8?B?\(Base64.encode(chunk))?=") }
        return words.joined(separator: " ")
    }

    private static let phraseSpecials: Set<Character> = ["(", ")", "<", ">", "[", "]", ":", ";", "@", "\\", ",", ".", "\""]

    /// A display name: an atom phrase when it can be, a quoted string when it has specials,
    /// encoded words when it has non-ASCII characters.
    static func displayName(_ name: String) -> String {
        let clean = sanitized(name).trimming(" ")
        if !clean.unicodeScalars.allSatisfy({ $0.isASCII }) || clean.contains("=?") { return encodedWords(clean) }
        if clean.contains(where: { phraseSpecials.contains($0) }) {
            return "\"" + clean.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        return clean
    }

    static func mailbox(_ mailbox: MailboxAddress) -> String {
        guard let name = mailbox.name, !sanitized(name).trimming(" ").isEmpty else {
            return mailbox.address.address
        }
        return "\(displayName(name)) <\(mailbox.address.address)>"
    }

    static func addressList(_ list: [MailboxAddress]) -> String {
        list.map(mailbox).joined(separator: ", ")
    }

    /// A MIME parameter `name="value"`, or RFC 2231 `name*=UTF-8''percent-encoded` when the value
    /// is not printable ASCII (with an ASCII fallback first for old readers of `filename`).
    static func parameter(_ name: String, _ value: String) -> String {
        let clean = sanitized(value)
        if clean.unicodeScalars.allSatisfy({ $0.isASCII }) {
            return "\(name)=\"\(clean.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\""))\""
        }
        var encoded = ""
        let hex = Array("0123456789ABCDEF")
        for byte in clean.utf8 {
            let c = Character(UnicodeScalar(byte))
            if byte < 0x80, c.isLetter || c.isNumber || "!#$&+-.^_`|~".contains(c) {
                encoded.append(c)
            } else {
                encoded += "%\(hex[Int(byte >> 4)])\(hex[Int(byte & 15)])"
            }
        }
        return "\(name)*=UTF-8''\(encoded)"
    }
}

extension String {
    func trimming(_ set: Character) -> String {
        var s = Substring(self)
        while s.first == set { s = s.dropFirst() }
        while s.last == set { s = s.dropLast() }
        return String(s)
    }
}
