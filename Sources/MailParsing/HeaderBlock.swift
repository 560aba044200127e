/// One header field as found in the bytes: its name's position and its unfolded, undecoded value.
struct RawHeader {
    var nameStart: Int
    var nameEnd: Int
    var value: [UInt8]
}

/// Splits an RFC 5322 header block into fields and finds where the body starts.
///
/// Lines end with CRLF, LF or a bare CR. Folded lines (starting with space or tab) are unfolded by
/// removing the line break only. The block ends at the first empty line. A line that is neither a
/// field nor a continuation ends the header block early with a "missing-header-body-separator" defect
/// (the line becomes the body's first line), except an mbox `From ` line at the very start, which is skipped.
struct HeaderBlock {
    var fields: [RawHeader] = []
    var bodyStart: Int = 0
    /// The `From ` line at the start, when present (without its line ending).
    var fromLine: Range<Int>? = nil

    static let maxFields = 10_000

    init(_ b: UnsafeBufferPointer<UInt8>, start: Int, end: Int, defects: inout [MIMEDefect]) {
        var p = start
        var current: RawHeader? = nil
        var first = true
        bodyStart = end
        func flush() {
            if var h = current {
                while let l = h.value.last, l == 0x20 || l == 0x09 { h.value.removeLast() }
                if fields.count < HeaderBlock.maxFields { fields.append(h) }
                current = nil
            }
        }
        while p < end {
            let (e, next) = LineBreaks.line(in: b, from: p, end: end)
            if e == p {
                // Empty line: end of the header block.
                flush()
                bodyStart = next
                return
            }
            let c = b[p]
            if c == 0x20 || c == 0x09 {
                if current != nil {
                    current!.value.append(contentsOf: UnsafeBufferPointer(rebasing: b[p..<e]))
                } else if first {
                    // Leading whitespace before any field: tolerate (some tools indent the first line).
                    var q = p
                    while q < e && (b[q] == 0x20 || b[q] == 0x09) { q += 1 }
                    if q == e {
                        // A whitespace-only line first: treat as the separator.
                        bodyStart = next
                        return
                    }
                    defects.append(MIMEDefect(code: "first-line-is-continuation", detail: "header block starts with folded line"))
                    bodyStart = p
                    return
                } else {
                    defects.append(MIMEDefect(code: "malformed-header", detail: "continuation line without a field"))
                }
            } else {
                var colon = p
                while colon < e && b[colon] != UInt8(ascii: ":") { colon += 1 }
                var nameEnd = colon
                while nameEnd > p && (b[nameEnd - 1] == 0x20 || b[nameEnd - 1] == 0x09) { nameEnd -= 1 }
                var valid = colon < e && nameEnd > p
                if valid {
                    for k in p..<nameEnd where b[k] < 33 || b[k] > 126 { valid = false; break }
                }
                if valid {
                    flush()
                    var v = colon + 1
                    while v < e && (b[v] == 0x20 || b[v] == 0x09) { v += 1 }
                    current = RawHeader(nameStart: p, nameEnd: nameEnd, value: Array(UnsafeBufferPointer(rebasing: b[v..<e])))
                } else if first && e - p >= 5 && b[p] == UInt8(ascii: "F") && b[p + 1] == UInt8(ascii: "r")
                            && b[p + 2] == UInt8(ascii: "o") && b[p + 3] == UInt8(ascii: "m") && b[p + 4] == 0x20 {
                    fromLine = p..<e
                } else if first && e - p >= 6 && b[p] == UInt8(ascii: ">") && b[p + 1] == UInt8(ascii: "F") {
                    // Quoted ">From " line at the very start: skip.
                } else {
                    flush()
                    defects.append(MIMEDefect(code: "missing-header-body-separator", detail: "non-header line in header block"))
                    bodyStart = p
                    return
                }
            }
            first = false
            p = next
        }
        flush()
        bodyStart = end
    }

    /// True when field `h`'s name equals `lowerName` (ASCII, lower case) ignoring case.
    @inline(__always)
    static func name(_ h: RawHeader, in b: UnsafeBufferPointer<UInt8>, is lowerName: StaticString) -> Bool {
        let len = h.nameEnd - h.nameStart
        guard len == lowerName.utf8CodeUnitCount else { return false }
        let p = lowerName.utf8Start
        for k in 0..<len {
            var c = b[h.nameStart + k]
            if c >= 0x41 && c <= 0x5A { c |= 0x20 }
            if c != p[k] { return false }
        }
        return true
    }

    /// The first field named `lowerName`.
    func first(_ lowerName: StaticString, in b: UnsafeBufferPointer<UInt8>) -> RawHeader? {
        for h in fields where HeaderBlock.name(h, in: b, is: lowerName) { return h }
        return nil
    }
}
