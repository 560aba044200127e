import Foundation

/// What kind of document an attachment is, for reading its text (`AttachmentText`).
public enum AttachmentKind: String, Sendable, CaseIterable {
    case pdf, docx, xlsx, pptx, odf, rtf, html, text, calendar, message, archive
    /// Images, audio, video, executables, unknown binary: no text is read.
    case unsupported

    /// The kind from the MIME type and, when that is generic (application/octet-stream), the
    /// filename's extension.
    public static func of(mimeType: String, filename: String?) -> AttachmentKind {
        let type = mimeType.lowercased()
        let ext = filename.map { ($0 as NSString).pathExtension.lowercased() } ?? ""
        switch type {
        case "application/pdf", "application/x-pdf": return .pdf
        case "application/vnd.openxmlformats-officedocument.wordprocessingml.document": return .docx
        case "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": return .xlsx
        case "application/vnd.openxmlformats-officedocument.presentationml.presentation": return .pptx
        case "application/vnd.oasis.opendocument.text", "application/vnd.oasis.opendocument.spreadsheet",
             "application/vnd.oasis.opendocument.presentation": return .odf
        case "application/rtf", "text/rtf", "text/richtext": return .rtf
        case "text/html", "application/xhtml+xml": return .html
        case "text/calendar", "application/ics": return .calendar
        case "message/rfc822": return .message
        case "application/zip", "application/x-zip-compressed", "application/x-tar", "application/gzip",
             "application/x-gzip", "application/x-compressed-tar": return .archive
        default: break
        }
        switch ext {
        case "pdf": return .pdf
        case "docx", "docm", "dotx": return .docx
        case "xlsx", "xlsm": return .xlsx
        case "pptx", "ppsx": return .pptx
        case "odt", "ods", "odp": return .odf
        case "rtf": return .rtf
        case "html", "htm", "xhtml": return .html
        case "ics", "ical", "vcs": return .calendar
        case "eml": return .message
        case "zip", "tar", "tgz", "gz": return .archive
        case "txt", "text", "csv", "tsv", "md", "markdown", "log", "json", "xml", "yaml", "yml", "ini", "cfg", "conf",
             "patch", "diff", "c", "h", "py", "swift", "sh", "js", "css", "sql", "tex", "rst", "vcf":
            return .text
        default: break
        }
        if type.hasPrefix("text/") { return .text }
        return .unsupported
    }
}

/// The readable text of documents, without running anything: the XML of office documents (no
/// DTD is ever read, so no entity expands), RTF, calendar invitations, plain text and HTML.
/// Formats that need a program (PDF, ZIP containers) are read by `AttachmentTextExtractor` in a
/// limited child process, which calls these on what the programs give it.
public enum AttachmentText {
    /// Why a document's text was not read.
    public struct Refusal: Error, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// The text of office XML (WordprocessingML, SpreadsheetML shared strings, PresentationML,
    /// OpenDocument content): character data, a line break after each paragraph, row or slide
    /// element. Refuses XML with a document type declaration (entity expansion: "billion laughs").
    /// In SpreadsheetML sheets a `<v>` of a shared-string cell (an index) is left out.
    public static func officeXMLText(_ bytes: [UInt8]) throws -> String {
        if containsDTD(bytes) { throw Refusal("the XML declares a document type (entities), which is never expanded") }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count / 4)
        var i = 0
        let n = bytes.count
        var skipValue = false  // inside <v> of a cell with t="s"
        var sharedCell = false
        var inValue = false
        while i < n {
            let b = bytes[i]
            if b == UInt8(ascii: "<") {
                guard let close = bytes[i...].firstIndex(of: UInt8(ascii: ">")) else { break }
                let tag = bytes[(i + 1)..<close]
                let isEnd = tag.first == UInt8(ascii: "/")
                let nameBytes = tag.drop(while: { $0 == UInt8(ascii: "/") }).prefix(while: { $0 != 0x20 && $0 != UInt8(ascii: "/") && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D })
                let name = String(decoding: nameBytes, as: UTF8.self)
                let local = name.split(separator: ":").last.map(String.init) ?? name
                if !isEnd && local == "c" {
                    sharedCell = contains(tag, Array("t=\"s\"".utf8))
                }
                if local == "v" {
                    inValue = !isEnd
                    skipValue = !isEnd && sharedCell
                    if isEnd, out.last != 0x0A, out.last != 0x20 { out.append(0x20) }
                }
                if isEnd, paragraphElements.contains(local) {
                    if out.last != 0x0A { out.append(0x0A) }
                } else if !isEnd, local == "tab" || local == "br" || local == "s" {
                    out.append(0x20)
                }
                i = close + 1
                continue
            }
            if inValue && skipValue { i += 1; continue }
            if b == UInt8(ascii: "&") {
                if let (decoded, length) = entity(bytes, at: i) {
                    out.append(contentsOf: decoded)
                    i += length
                    continue
                }
            }
            out.append(b)
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Elements after which a line ends (paragraphs, headings, table rows, list items, slides).
    private static let paragraphElements: Set<String> = ["p", "h", "tr", "row", "si", "list-item", "sld", "table-row", "txBody"]

    private static func containsDTD(_ bytes: [UInt8]) -> Bool {
        contains(bytes[...], Array("<!DOCTYPE".utf8)) || contains(bytes[...], Array("<!ENTITY".utf8))
    }

    /// Whether `pattern` occurs in `bytes`.
    static func contains(_ bytes: ArraySlice<UInt8>, _ pattern: [UInt8]) -> Bool {
        guard let first = pattern.first, bytes.count >= pattern.count else { return false }
        var i = bytes.startIndex
        let last = bytes.endIndex - pattern.count
        while i <= last {
            if bytes[i] == first {
                var k = 1
                while k < pattern.count && bytes[i + k] == pattern[k] { k += 1 }
                if k == pattern.count { return true }
            }
            i += 1
        }
        return false
    }

    /// The predefined entities and numeric character references; nil for anything else.
    private static func entity(_ bytes: [UInt8], at start: Int) -> ([UInt8], Int)? {
        guard let semicolon = bytes[start..<min(bytes.count, start + 12)].firstIndex(of: UInt8(ascii: ";")) else { return nil }
        let body = String(decoding: bytes[(start + 1)..<semicolon], as: UTF8.self)
        let length = semicolon - start + 1
        switch body {
        case "amp": return (Array("&".utf8), length)
        case "lt": return (Array("<".utf8), length)
        case "gt": return (Array(">".utf8), length)
        case "quot": return (Array("\"".utf8), length)
        case "apos": return (Array("'".utf8), length)
        default: break
        }
        guard body.hasPrefix("#") else { return nil }
        let digits = body.dropFirst()
        let value = digits.hasPrefix("x") || digits.hasPrefix("X") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
        guard let value, let scalar = Unicode.Scalar(value) else { return nil }
        return (Array(String(Character(scalar)).utf8), length)
    }

    /// The text of an RTF document: control words dropped (`\par` and `\line` end lines), `\'hh`
    /// as Windows-1252, `\uN` as Unicode, and the groups that hold no text (font and colour tables,
    /// style sheets, pictures, `{\*…}` destinations) skipped.
    public static func rtfText(_ bytes: [UInt8]) -> String {
        var out = String.UnicodeScalarView()
        var i = 0
        let n = bytes.count
        var depth = 0
        var skipDepth: Int?
        var skipAfterUnicode = 0
        var unicodeSkip = 1
        while i < n {
            let b = bytes[i]
            if b == UInt8(ascii: "{") { depth += 1; i += 1; continue }
            if b == UInt8(ascii: "}") {
                if let s = skipDepth, depth <= s { skipDepth = nil }
                depth -= 1
                i += 1
                continue
            }
            if b == UInt8(ascii: "\\") && i + 1 < n {
                let c = bytes[i + 1]
                if c == UInt8(ascii: "'") && i + 3 < n {
                    if skipDepth == nil, skipAfterUnicode == 0,
                       let v = UInt8(String(decoding: bytes[(i + 2)...(i + 3)], as: UTF8.self), radix: 16) {
                        out.append(contentsOf: CharsetDecoder.decode([v], charset: "windows-1252").text.unicodeScalars)
                    } else if skipAfterUnicode > 0 { skipAfterUnicode -= 1 }
                    i += 4
                    continue
                }
                if c == UInt8(ascii: "*") { if skipDepth == nil { skipDepth = depth }; i += 2; continue }
                if !(isLetter(c)) {
                    // A control symbol: \\ \{ \} are text, \~ a space, others dropped.
                    if skipDepth == nil, c == UInt8(ascii: "\\") || c == UInt8(ascii: "{") || c == UInt8(ascii: "}") {
                        out.append(Unicode.Scalar(c))
                    } else if skipDepth == nil, c == UInt8(ascii: "~") {
                        out.append(" ")
                    }
                    i += 2
                    continue
                }
                var j = i + 1
                while j < n, isLetter(bytes[j]) { j += 1 }
                let word = String(decoding: bytes[(i + 1)..<j], as: UTF8.self)
                var k = j
                if k < n, bytes[k] == UInt8(ascii: "-") { k += 1 }
                while k < n, bytes[k] >= 0x30 && bytes[k] <= 0x39 { k += 1 }
                let parameter = Int(String(decoding: bytes[j..<k], as: UTF8.self))
                if k < n, bytes[k] == 0x20 { k += 1 }
                i = k
                guard skipDepth == nil else { continue }
                switch word {
                case "par", "line", "row", "sect", "page": out.append("\n")
                case "tab", "cell": out.append(" ")
                case "uc": unicodeSkip = max(0, parameter ?? 1)
                case "u":
                    if let p = parameter, let scalar = Unicode.Scalar(UInt32(p < 0 ? p + 65_536 : p)) { out.append(scalar) }
                    skipAfterUnicode = unicodeSkip
                case "fonttbl", "colortbl", "stylesheet", "info", "pict", "header", "footer", "object", "listtable",
                     "listoverridetable", "rsidtbl", "generator", "themedata", "datastore", "latentstyles":
                    skipDepth = depth
                default: break
                }
                continue
            }
            if b == 0x0A || b == 0x0D { i += 1; continue }
            if skipDepth == nil {
                if skipAfterUnicode > 0 { skipAfterUnicode -= 1 } else if b < 0x80 { out.append(Unicode.Scalar(b)) }
            }
            i += 1
        }
        return String(out)
    }

    private static func isLetter(_ b: UInt8) -> Bool { (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) }

    /// What a person reads in a calendar invitation: each event's summary, place, time, organizer,
    /// attendees and description (RFC 5545 lines unfolded, text unescaped).
    public static func calendarText(_ bytes: [UInt8]) -> String {
        let raw = CharsetDecoder.decode(bytes, charset: "utf-8").text
        var lines: [String] = []
        // Split on the scalars: "\r\n" is one Character, which a split on "\n" would not see.
        for lineScalars in raw.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = String(String.UnicodeScalarView(lineScalars))
            if line.unicodeScalars.last == "\r" { line = String(String.UnicodeScalarView(line.unicodeScalars.dropLast())) }
            if (line.hasPrefix(" ") || line.hasPrefix("\t")), !lines.isEmpty {
                lines[lines.count - 1] += line.dropFirst()
            } else {
                lines.append(line)
            }
        }
        var out: [String] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let head = line[..<colon]
            let name = head.split(separator: ";").first.map { $0.uppercased() } ?? ""
            var value = String(line[line.index(after: colon)...])
            switch name {
            case "SUMMARY", "LOCATION", "DESCRIPTION", "COMMENT":
                value = value.replacingOccurrences(of: "\\n", with: "\n").replacingOccurrences(of: "\\N", with: "\n")
                    .replacingOccurrences(of: "\\,", with: ",").replacingOccurrences(of: "\\;", with: ";")
                    .replacingOccurrences(of: "\\\\", with: "\\")
                out.append(value)
            case "DTSTART", "DTEND":
                out.append(value)
            case "ORGANIZER", "ATTENDEE":
                if let cn = head.range(of: "CN=", options: .caseInsensitive) {
                    let name = head[cn.upperBound...].prefix { $0 != ";" }.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                    out.append(name)
                }
                out.append(value.replacingOccurrences(of: "mailto:", with: "", options: .caseInsensitive))
            default: break
            }
        }
        return out.joined(separator: "\n")
    }

    /// Plain text in its declared charset, else UTF-8, else Windows-1252.
    public static func plainText(_ bytes: [UInt8], charset: String? = nil) -> String {
        CharsetDecoder.decode(bytes, charset: charset ?? "utf-8").text
    }
}
