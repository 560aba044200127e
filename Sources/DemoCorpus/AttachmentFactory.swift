/// Small deterministic attachment contents whose first bytes match their file type.
enum AttachmentFactory {
    struct Attachment {
        var fileName: [UInt8]
        var contentType: StaticString
        var data: [UInt8]
    }

    static func make(fileName: [UInt8], rng: inout DemoRandom) -> Attachment {
        let lower = fileName.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
        if lower.ends(with: ".pdf") {
            return Attachment(fileName: fileName, contentType: "application/pdf", data: pdf(title: fileName, rng: &rng))
        } else if lower.ends(with: ".png") {
            return Attachment(fileName: fileName, contentType: "image/png", data: png(rng: &rng))
        } else if lower.ends(with: ".docx") {
            return Attachment(fileName: fileName,
                              contentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
                              data: zipLike(entry: "word/document.xml", rng: &rng))
        } else if lower.ends(with: ".xlsx") {
            return Attachment(fileName: fileName,
                              contentType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                              data: zipLike(entry: "xl/workbook.xml", rng: &rng))
        }
        return Attachment(fileName: fileName, contentType: "application/octet-stream", data: noise(200, rng: &rng))
    }

    /// A one-page PDF 1.4 whose page shows the file name.
    static func pdf(title: [UInt8], rng: inout DemoRandom) -> [UInt8] {
        var text: [UInt8] = []
        for byte in title where byte >= 32 && byte < 127 && byte != 40 && byte != 41 && byte != 92 { text.append(byte) }
        var stream: [UInt8] = []
        stream.append("BT /F1 18 Tf 72 720 Td (")
        stream.append(contentsOf: text)
        stream.append(") Tj ET\nBT /F1 10 Tf 72 690 Td (Reference ")
        stream.appendHex(rng.next(), digits: 12)
        stream.append(") Tj ET\n")
        var out: [UInt8] = []
        out.append("%PDF-1.4\n%\u{E2}\u{E3}\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n")
        out.append("2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n")
        out.append("3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R ")
        out.append("/Resources << /Font << /F1 5 0 R >> >> >>\nendobj\n4 0 obj\n<< /Length ")
        out.appendDecimal(stream.count)
        out.append(" >>\nstream\n")
        out.append(contentsOf: stream)
        out.append("endstream\nendobj\n5 0 obj\n<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>\nendobj\n")
        out.append("trailer\n<< /Size 6 /Root 1 0 R >>\n%%EOF\n")
        return out
    }

    /// A valid 16×16 greyscale PNG (stored deflate blocks) with a pseudo-random gradient.
    static func png(rng: inout DemoRandom) -> [UInt8] {
        let size = 16
        var raw: [UInt8] = []
        let base = UInt8(truncatingIfNeeded: rng.next())
        for y in 0..<size {
            raw.append(0)
            for x in 0..<size { raw.append(base &+ UInt8(x * 8 + y * 4)) }
        }
        var zlib: [UInt8] = [0x78, 0x01, 0x01]
        zlib.append(UInt8(raw.count & 0xFF)); zlib.append(UInt8(raw.count >> 8))
        zlib.append(UInt8(~raw.count & 0xFF)); zlib.append(UInt8((~raw.count >> 8) & 0xFF))
        zlib.append(contentsOf: raw)
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw { a = (a + UInt32(byte)) % 65_521; b = (b + a) % 65_521 }
        appendBigEndian(b << 16 | a, to: &zlib)

        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header: [UInt8] = []
        appendBigEndian(UInt32(size), to: &header)
        appendBigEndian(UInt32(size), to: &header)
        header.append(contentsOf: [8, 0, 0, 0, 0])
        appendChunk("IHDR", header, to: &out)
        appendChunk("IDAT", zlib, to: &out)
        appendChunk("IEND", [], to: &out)
        return out
    }

    /// Bytes that start like a ZIP archive (as Office files do), then pseudo-random content.
    static func zipLike(entry: StaticString, rng: inout DemoRandom) -> [UInt8] {
        var out: [UInt8] = [0x50, 0x4B, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00, 0x08, 0x00]
        out.append(contentsOf: noise(16, rng: &rng))
        out.append(entry)
        out.append(contentsOf: noise(rng.between(220, 520), rng: &rng))
        return out
    }

    static func noise(_ count: Int, rng: inout DemoRandom) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count + 8)
        while out.count < count {
            var value = rng.next()
            for _ in 0..<8 {
                out.append(UInt8(truncatingIfNeeded: value))
                value >>= 8
            }
        }
        out.removeLast(out.count - count)
        return out
    }

    private static func appendBigEndian(_ value: UInt32, to out: inout [UInt8]) {
        out.append(UInt8(value >> 24)); out.append(UInt8((value >> 16) & 0xFF))
        out.append(UInt8((value >> 8) & 0xFF)); out.append(UInt8(value & 0xFF))
    }

    private static func appendChunk(_ type: StaticString, _ data: [UInt8], to out: inout [UInt8]) {
        appendBigEndian(UInt32(data.count), to: &out)
        var typed: [UInt8] = []
        typed.append(type)
        typed.append(contentsOf: data)
        out.append(contentsOf: typed)
        appendBigEndian(crc32(typed), to: &out)
    }

    private static let crcTable: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}

extension Array where Element == UInt8 {
    func ends(with suffix: StaticString) -> Bool {
        suffix.withUTF8Buffer { tail in
            count >= tail.count && zip(self[(count - tail.count)...], tail).allSatisfy { $0 == $1 }
        }
    }
}
