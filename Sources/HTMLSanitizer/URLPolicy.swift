/// Decides what a URL in untrusted HTML is, the way a browser's URL parser would read its scheme.
///
/// gumbo has already decoded character references (`jav&#x09;ascript:` is `jav\tascript:` here).
/// A browser then strips leading and trailing C0 controls and spaces and removes every tab, CR and
/// LF anywhere before it reads the scheme; `clean` does the same, and additionally removes every
/// other C0/C1 control character and zero-width/bidi formatting character, so that what is checked
/// is exactly what is written out. A URL whose scheme is not literally at its start (after that
/// cleaning) is treated as relative, and relative URLs are never kept: they would resolve against
/// the MailSearch page itself.
enum URLPolicy {
    enum Kind: Equatable {
        /// http(s), or protocol-relative `//host/…` (given as `https:`).
        case remote(url: String, host: String)
        case mailto(String)
        /// `cid:` reference, percent-decoded.
        case contentID(String)
        /// `data:image/(png|gif|jpeg|webp)…`
        case dataImage(String)
        /// Anything else: javascript:, vbscript:, data:text/html, file:, relative, empty, …
        case rejected
    }

    static func classify(_ raw: String) -> Kind {
        let url = clean(raw)
        guard !url.isEmpty else { return .rejected }
        if url.hasPrefix("//") {
            let withScheme = "https:" + url
            guard let host = host(of: withScheme) else { return .rejected }
            return .remote(url: withScheme, host: host)
        }
        guard let scheme = scheme(of: url) else { return .rejected }
        switch scheme {
        case "http", "https":
            guard let host = host(of: url) else { return .rejected }
            return .remote(url: url, host: host)
        case "mailto":
            return .mailto(url)
        case "cid":
            let reference = String(url.dropFirst(4))
            guard !reference.isEmpty else { return .rejected }
            return .contentID(percentDecoded(reference))
        case "data":
            return isSafeDataImage(url) ? .dataImage(url) : .rejected
        default:
            return .rejected
        }
    }

    /// The URL as a browser would read it, minus every control and invisible formatting character.
    static func clean(_ raw: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in raw.unicodeScalars where !isStripped(scalar) {
            scalars.append(scalar)
        }
        var result = Substring(String(scalars))
        while let first = result.first, first == " " { result = result.dropFirst() }
        while let last = result.last, last == " " { result = result.dropLast() }
        return String(result)
    }

    private static func isStripped(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x20 || (0x7F...0x9F).contains(value) { return true }
        switch value {
        case 0x00AD, 0x034F, 0x061C, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180E, 0x3164, 0xFEFF, 0xFFA0: return true
        case 0x200B...0x200F, 0x202A...0x202E, 0x2060...0x206F, 0xFFF0...0xFFFB: return true
        default: return false
        }
    }

    /// The lower-cased scheme when `url` starts with `ALPHA *(ALPHA / DIGIT / "+" / "-" / ".") ":"`.
    static func scheme(of url: String) -> String? {
        var scheme = ""
        for (index, character) in url.unicodeScalars.enumerated() {
            if character == ":" { return index == 0 ? nil : scheme.lowercased() }
            let isLetter = ("a"..."z").contains(character) || ("A"..."Z").contains(character)
            let isOther = ("0"..."9").contains(character) || character == "+" || character == "-" || character == "."
            guard isLetter || (index > 0 && isOther) else { return nil }
            scheme.unicodeScalars.append(character)
        }
        return nil
    }

    /// The lower-cased host of an absolute http(s) URL (userinfo and port removed, trailing dot
    /// dropped); nil when it has none. Browsers read `\` as `/` in these URLs; so does this.
    static func host(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":") else { return nil }
        var rest = Substring(String(url[url.index(after: colon)...].map { $0 == "\\" ? "/" : $0 }))
        while rest.hasPrefix("/") { rest = rest.dropFirst() }
        let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        var authority = rest[..<end]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host: Substring
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            host = authority[...close]
        } else if let port = authority.firstIndex(of: ":") {
            host = authority[..<port]
        } else {
            host = authority
        }
        while host.hasSuffix(".") { host = host.dropLast() }
        let result = percentDecoded(String(host)).lowercased()
        return result.isEmpty ? nil : result
    }

    /// `data:image/png`, `gif`, `jpeg` (or `jpg`), `webp`, with optional parameters and `;base64`.
    /// Not SVG: an SVG image is a document of its own.
    private static func isSafeDataImage(_ url: String) -> Bool {
        guard let comma = url.firstIndex(of: ",") else { return false }
        let header = url[url.index(url.startIndex, offsetBy: 5)..<comma].lowercased()
        let mediaType = header.split(separator: ";", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return ["image/png", "image/gif", "image/jpeg", "image/jpg", "image/webp"].contains(mediaType)
    }

    static func percentDecoded(_ text: String) -> String {
        guard text.contains("%") else { return text }
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "%"), iterator.count >= 2,
               let high = hexValue(iterator[iterator.startIndex]),
               let low = hexValue(iterator[iterator.startIndex + 1]) {
                bytes.append(high << 4 | low)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
