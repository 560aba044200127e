import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Turns bytes in a declared MIME charset into a `String`, best effort.
///
/// UTF-8, US-ASCII, ISO-8859-1 and windows-1252 are decoded in Swift (the common case, and fast);
/// every other charset goes through iconv. Unknown or lying charsets never lose the text:
/// the declared charset is tried first, then UTF-8, then windows-1252.
///
/// A `CharsetDecoder` value keeps the iconv descriptors it opened, so reuse one value for the
/// parts of one message. It is not `Sendable`: each parse or each thread owns its own.
public final class CharsetDecoder {
    private var converters: [String: iconv_t?] = [:]

    /// Creates a decoder with an empty descriptor cache.
    public init() {}

    deinit {
        for case let cd? in converters.values { iconv_close(cd) }
    }

    /// Decodes `bytes` declared as `charset` (nil or empty: undeclared). `exact` is false when the
    /// charset was unknown, or when the bytes were not valid in it and a fallback or replacement was used.
    public static func decode(_ bytes: [UInt8], charset: String?) -> (text: String, exact: Bool) {
        let decoder = CharsetDecoder()
        return decoder.decode(bytes, charset: charset)
    }

    /// Decodes `bytes` declared as `charset`, reusing this decoder's iconv descriptors.
    public func decode(_ bytes: [UInt8], charset: String?) -> (text: String, exact: Bool) {
        let label = CharsetDecoder.normalizedLabel(charset)
        if bytes.isEmpty { return ("", true) }
        switch label {
        case "", "utf-8", "utf8", "unicode-1-1-utf-8", "x-unknown", "unknown", "default", "unknown-8bit", "x-user-defined":
            let exactLabel = !label.isEmpty && label != "utf-8" && label != "utf8" ? false : true
            let r = CharsetDecoder.decodeUTF8OrFallback(bytes)
            return (r.text, r.exact && exactLabel)
        case "us-ascii", "ascii", "ansi_x3.4-1968", "ansi_x3.4-1986", "iso646-us", "us", "iso-ir-6", "cp367", "ibm367",
             "iso_646.irv:1991", "646", "7bit", "8bit":
            if CharsetDecoder.isASCII(bytes) { return (CharsetDecoder.asciiString(bytes), true) }
            let r = CharsetDecoder.decodeUTF8OrFallback(bytes)
            return (r.text, false)
        case "iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "latin-1", "l1", "cp819", "ibm819", "iso-ir-100",
             "iso_8859-1:1987", "csisolatin1", "windows-1252", "cp1252", "x-cp1252", "ms-ansi", "iso8859_1":
            if CharsetDecoder.isASCII(bytes) { return (CharsetDecoder.asciiString(bytes), true) }
            return (CharsetDecoder.windows1252(bytes), true)
        default:
            break
        }
        if CharsetDecoder.isASCII(bytes) && !CharsetDecoder.isASCIIIncompatible(label) {
            return (CharsetDecoder.asciiString(bytes), CharsetDecoder.iconvName(for: label).map { converter(for: $0) != nil } ?? false)
        }
        guard let name = CharsetDecoder.iconvName(for: label), let cd = converter(for: name) else {
            let r = CharsetDecoder.decodeUTF8OrFallback(bytes)
            return (r.text, false)
        }
        let (out, errors) = CharsetDecoder.convert(bytes, with: cd)
        if errors == 0 { return (String(decoding: out, as: UTF8.self), true) }
        // The declared charset lied: prefer valid UTF-8, else keep the lossy conversion if it mostly
        // worked, else windows-1252.
        if CharsetDecoder.validateUTF8(bytes).valid { return (String(decoding: bytes, as: UTF8.self), false) }
        if errors * 20 < bytes.count { return (String(decoding: out, as: UTF8.self), false) }
        return (CharsetDecoder.windows1252(bytes), false)
    }

    private func converter(for name: String) -> iconv_t? {
        if let cached = converters[name] { return cached }
        let cd = iconv_open("UTF-8", name)
        let result: iconv_t? = (cd == nil || cd == iconv_t(bitPattern: -1)) ? nil : cd
        converters[name] = result
        return result
    }

    /// Runs iconv over all of `bytes`; undecodable bytes become U+FFFD and are counted.
    private static func convert(_ bytes: [UInt8], with cd: iconv_t) -> ([UInt8], Int) {
        _ = iconv(cd, nil, nil, nil, nil)  // reset shift state
        var output = [UInt8](repeating: 0, count: max(64, bytes.count * 4 + 16))
        var errors = 0
        var produced = 0
        bytes.withUnsafeBufferPointer { inBuf in
            var inPtr = UnsafeMutablePointer<CChar>(mutating: UnsafeRawPointer(inBuf.baseAddress!).assumingMemoryBound(to: CChar.self))
            var inLeft = inBuf.count
            while true {
                let outCount = output.count
                let status: Int32 = output.withUnsafeMutableBufferPointer { outBuf -> Int32 in
                    var outPtr: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(outBuf.baseAddress! + produced)
                        .assumingMemoryBound(to: CChar.self)
                    var outLeft = outCount - produced
                    var inOpt: UnsafeMutablePointer<CChar>? = inPtr
                    let r = iconv(cd, &inOpt, &inLeft, &outPtr, &outLeft)
                    inPtr = inOpt!
                    produced = outCount - outLeft
                    return r == -1 ? errno : 0
                }
                if status == 0 {
                    // Flush any pending shift sequence.
                    _ = output.withUnsafeMutableBufferPointer { outBuf -> Int in
                        var outPtr: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(outBuf.baseAddress! + produced)
                            .assumingMemoryBound(to: CChar.self)
                        var outLeft = outCount - produced
                        let r = iconv(cd, nil, nil, &outPtr, &outLeft)
                        produced = outCount - outLeft
                        return r
                    }
                    break
                }
                if status == E2BIG {
                    output.append(contentsOf: [UInt8](repeating: 0, count: output.count))
                    continue
                }
                // EILSEQ or EINVAL: skip one byte, emit U+FFFD.
                errors += 1
                if inLeft == 0 { break }
                inPtr += 1
                inLeft -= 1
                if output.count - produced < 3 { output.append(contentsOf: [UInt8](repeating: 0, count: 64)) }
                output[produced] = 0xEF; output[produced + 1] = 0xBF; output[produced + 2] = 0xBD
                produced += 3
                _ = iconv(cd, nil, nil, nil, nil)
                if inLeft == 0 { break }
            }
        }
        output.removeSubrange(produced...)
        return (output, errors)
    }

    // MARK: - Labels

    /// Lower-cased, trimmed charset label without quotes or an RFC 2231 `*language` suffix.
    static func normalizedLabel(_ charset: String?) -> String {
        guard let charset, !charset.isEmpty else { return "" }
        var out: [UInt8] = []
        out.reserveCapacity(16)
        for c in charset.utf8 {
            if c == UInt8(ascii: "*") { break }  // RFC 2231 language suffix
            if c <= 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") { continue }
            out.append(c >= 0x41 && c <= 0x5A ? c | 0x20 : c)
            if out.count > 64 { break }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func isASCIIIncompatible(_ label: String) -> Bool {
        label.hasPrefix("utf-16") || label.hasPrefix("utf-32") || label.hasPrefix("ucs-") || label.hasPrefix("utf-7")
            || label == "utf16" || label == "utf32" || label == "unicode" || label == "utf7" || label.hasPrefix("iso-2022")
            || label.hasPrefix("iso2022") || label.hasPrefix("csiso2022") || label.hasPrefix("hz")
    }

    /// The iconv name for a normalized label, or nil when the label is not something we can hand to iconv.
    static func iconvName(for label: String) -> String? {
        switch label {
        case "gb2312", "gbk", "x-gbk", "cp936", "ms936", "windows-936", "euc-cn", "euccn", "x-euc-cn", "gb18030", "csgb2312",
             "chinese", "iso-ir-58", "gb_2312-80":
            return "GB18030"
        case "big5", "x-big5", "csbig5", "cn-big5", "big-5", "cp950":
            return "BIG5"
        case "big5-hkscs", "big5hkscs":
            return "BIG5-HKSCS"
        case "shift_jis", "shift-jis", "sjis", "x-sjis", "ms_kanji", "csshiftjis", "windows-31j", "cp932", "ms932", "x-ms-cp932":
            return "CP932"
        case "euc-jp", "eucjp", "x-euc-jp", "cseucpkdfmtjapanese":
            return "EUC-JP"
        case "iso-2022-jp", "csiso2022jp", "iso2022jp", "iso-2022-jp-1", "iso-2022-jp-2", "iso-2022-jp-3":
            return "ISO-2022-JP-2"
        case "euc-kr", "euckr", "ks_c_5601-1987", "ks_c_5601", "ksc5601", "cseuckr", "korean", "windows-949", "cp949", "uhc",
             "ks_c_5601-1989", "iso-ir-149":
            return "CP949"
        case "iso-2022-kr": return "ISO-2022-KR"
        case "koi8-r", "koi8r", "cskoi8r", "koi": return "KOI8-R"
        case "koi8-u", "koi8u": return "KOI8-U"
        case "tis-620", "tis620", "windows-874", "cp874", "iso-8859-11": return "CP874"
        case "utf-7", "utf7", "unicode-1-1-utf-7": return "UTF-7"
        case "utf-16", "utf16", "unicode": return "UTF-16"
        case "utf-16le": return "UTF-16LE"
        case "utf-16be": return "UTF-16BE"
        case "utf-32", "utf32": return "UTF-32"
        case "utf-32le": return "UTF-32LE"
        case "utf-32be": return "UTF-32BE"
        case "macintosh", "mac", "x-mac-roman", "macroman": return "MACINTOSH"
        default: break
        }
        // iso-8859-N in its many spellings: iso8859-2, iso_8859-2, iso-8859-2:1987, latin2, l2 ...
        var rest = Substring(label)
        for prefix in ["iso-8859-", "iso8859-", "iso_8859-", "iso8859_", "iso-8859_", "iso8859"] where rest.hasPrefix(prefix) {
            rest = rest.dropFirst(prefix.count)
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            if let n = Int(digits), (1...16).contains(n), n != 12 { return "ISO-8859-\(n)" }
            return nil
        }
        let latins = ["latin2": 2, "l2": 2, "latin3": 3, "l3": 3, "latin4": 4, "l4": 4, "cyrillic": 5, "arabic": 6,
                      "greek": 7, "hebrew": 8, "latin5": 9, "l5": 9, "latin6": 10, "l6": 10, "latin7": 13, "latin8": 14,
                      "latin9": 15, "l9": 15, "latin-9": 15, "latin10": 16]
        if let n = latins[label] { return "ISO-8859-\(n)" }
        for prefix in ["windows-", "cp-", "cp", "x-cp", "win-", "win", "ms-"] where rest.hasPrefix(prefix) {
            let digits = rest.dropFirst(prefix.count)
            if let n = Int(digits), (1250...1258).contains(n) { return "CP\(n)" }
            if let n = Int(digits), [437, 850, 852, 855, 857, 860, 861, 862, 863, 865, 866, 869].contains(n) { return "CP\(n)" }
            return nil
        }
        // Anything else made of label characters: let iconv try it.
        if label.count <= 40, label.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E || $0 == 0x3A }) {
            return label.uppercased()
        }
        return nil
    }

    // MARK: - Fast paths

    static func isASCII(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buf in
            var acc: UInt8 = 0
            for b in buf { acc |= b }
            return acc < 0x80
        }
    }

    static func asciiString(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// UTF-8 when valid; otherwise windows-1252 when the bytes contain no valid multi-byte sequence,
    /// else UTF-8 with replacement characters.
    static func decodeUTF8OrFallback(_ bytes: [UInt8]) -> (text: String, exact: Bool) {
        let v = validateUTF8(bytes)
        if v.valid { return (String(decoding: bytes, as: UTF8.self), true) }
        if v.multibyte == 0 || v.invalid > v.multibyte { return (windows1252(bytes), false) }
        return (String(decoding: bytes, as: UTF8.self), false)
    }

    /// Validates UTF-8, counting well-formed multi-byte sequences and invalid bytes.
    static func validateUTF8(_ bytes: [UInt8]) -> (valid: Bool, multibyte: Int, invalid: Int) {
        bytes.withUnsafeBufferPointer { buf -> (Bool, Int, Int) in
            var i = 0
            let n = buf.count
            var multi = 0
            var bad = 0
            while i < n {
                let b = buf[i]
                if b < 0x80 { i += 1; continue }
                var need = 0
                var minCp: UInt32 = 0
                var cp: UInt32 = 0
                if b & 0xE0 == 0xC0 { need = 1; cp = UInt32(b & 0x1F); minCp = 0x80 }
                else if b & 0xF0 == 0xE0 { need = 2; cp = UInt32(b & 0x0F); minCp = 0x800 }
                else if b & 0xF8 == 0xF0 { need = 3; cp = UInt32(b & 0x07); minCp = 0x10000 }
                else { bad += 1; i += 1; continue }
                if i + need >= n { bad += 1; i += 1; continue }
                var ok = true
                var j = 1
                while j <= need {
                    let c = buf[i + j]
                    if c & 0xC0 != 0x80 { ok = false; break }
                    cp = (cp << 6) | UInt32(c & 0x3F)
                    j += 1
                }
                if ok && cp >= minCp && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF) {
                    multi += 1
                    i += need + 1
                } else {
                    bad += 1
                    i += 1
                }
            }
            return (bad == 0, multi, bad)
        }
    }

    private static let cp1252High: [UInt16] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
        0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
    ]

    /// windows-1252 (a superset of ISO-8859-1's printable range), as WHATWG decodes `iso-8859-1` too.
    static func windows1252(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count + bytes.count / 4)
        for b in bytes {
            if b < 0x80 { out.append(b); continue }
            let cp: UInt32 = b < 0xA0 ? UInt32(cp1252High[Int(b - 0x80)]) : UInt32(b)
            appendUTF8(cp, to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the UTF-8 encoding of a scalar value (invalid values become U+FFFD).
    static func appendUTF8(_ value: UInt32, to out: inout [UInt8]) {
        var cp = value
        if cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) { cp = 0xFFFD }
        if cp < 0x80 {
            out.append(UInt8(cp))
        } else if cp < 0x800 {
            out.append(UInt8(0xC0 | (cp >> 6)))
            out.append(UInt8(0x80 | (cp & 0x3F)))
        } else if cp < 0x10000 {
            out.append(UInt8(0xE0 | (cp >> 12)))
            out.append(UInt8(0x80 | ((cp >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (cp & 0x3F)))
        } else {
            out.append(UInt8(0xF0 | (cp >> 18)))
            out.append(UInt8(0x80 | ((cp >> 12) & 0x3F)))
            out.append(UInt8(0x80 | ((cp >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (cp & 0x3F)))
        }
    }
}
