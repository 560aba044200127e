/// Line splitting shared by the header and MIME scanners: CRLF, LF and a bare CR all end a line.
enum LineBreaks {
    /// The end of the line that starts at `start` (before its break) and where the next line starts.
    @inline(__always)
    static func line(in b: UnsafeBufferPointer<UInt8>, from start: Int, end: Int) -> (contentEnd: Int, next: Int) {
        var e = start
        while e < end && b[e] != 0x0A && b[e] != 0x0D { e += 1 }
        var next = e
        if next < end {
            if b[next] == 0x0D && next + 1 < end && b[next + 1] == 0x0A { next += 2 } else { next += 1 }
        }
        return (e, next)
    }
}
