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
                              data: officeDocument(title: fileName, spreadsheet: false, rng: &rng))
        } else if lower.ends(with: ".xlsx") {
            return Attachment(fileName: fileName,
                              contentType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                              data: officeDocument(title: fileName, spreadsheet: true, rng: &rng))
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

    /// A real (if minimal) Office file: a ZIP archive, stored without compression, of the one
    /// member that holds the text — `word/document.xml` or `xl/sharedStrings.xml` — with the file's
    /// name and a reference number as its two paragraphs or cells. Readers find that text.
    static func officeDocument(title: [UInt8], spreadsheet: Bool, rng: inout DemoRandom) -> [UInt8] {
        var name: [UInt8] = []
        for byte in title.split(separator: UInt8(ascii: ".")).dropLast().joined(separator: [UInt8(ascii: ".")]) {
            switch byte {
            case UInt8(ascii: "&"): name.append("&amp;")
            case UInt8(ascii: "<"): name.append("&lt;")
            case UInt8(ascii: ">"): name.append("&gt;")
            default: name.append(byte)
            }
        }
        var reference: [UInt8] = []
        reference.append("Reference ")
        reference.appendHex(rng.next(), digits: 12)
        var xml: [UInt8] = []
        xml.append("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n")
        if spreadsheet {
            xml.append("<sst xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" count=\"2\" uniqueCount=\"2\">")
            for cell in [name, reference] {
                xml.append("<si><t>"); xml.append(contentsOf: cell); xml.append("</t></si>")
            }
            xml.append("</sst>")
        } else {
            xml.append("<w:document xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\"><w:body>")
            for paragraph in [name, reference] {
                xml.append("<w:p><w:r><w:t>"); xml.append(contentsOf: paragraph); xml.append("</w:t></w:r></w:p>")
            }
            xml.append("</w:body></w:document>")
        }
        var member: [UInt8] = []
        member.append(spreadsheet ? "xl/sharedStrings.xml" : "word/document.xml")
        return storedZip(member: member, data: xml)
    }

    /// A ZIP archive of one member stored as it is: local header, data, central directory, end record.
    static func storedZip(member: [UInt8], data: [UInt8]) -> [UInt8] {
        func le16(_ v: Int, _ out: inout [UInt8]) { out.append(UInt8(v & 0xFF)); out.append(UInt8((v >> 8) & 0xFF)) }
        func le32(_ v: UInt32, _ out: inout [UInt8]) { for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8((v >> UInt32(shift)) & 0xFF)) } }
        let crc = crc32(data)
        // Version 2.0, no flags, stored, a fixed date (1 January 2024): the same bytes every run.
        func common(_ out: inout [UInt8]) {
            le16(20, &out); le16(0, &out); le16(0, &out); le16(0, &out); le16(0x5821, &out)
            le32(crc, &out); le32(UInt32(data.count), &out); le32(UInt32(data.count), &out)
            le16(member.count, &out); le16(0, &out)
        }
        var out: [UInt8] = [0x50, 0x4B, 0x03, 0x04]
        common(&out)
        out.append(contentsOf: member)
        out.append(contentsOf: data)
        let directoryStart = out.count
        out.append(contentsOf: [0x50, 0x4B, 0x01, 0x02])
        le16(20, &out)  // made by
        common(&out)
        le16(0, &out); le16(0, &out); le16(0, &out); le32(0, &out); le32(0, &out)  // comment, disk, attributes, offset
        out.append(contentsOf: member)
        let directorySize = out.count - directoryStart
        out.append(contentsOf: [0x50, 0x4B, 0x05, 0x06])
        le16(0, &out); le16(0, &out); le16(1, &out); le16(1, &out)
        le32(UInt32(directorySize), &out); le32(UInt32(directoryStart), &out); le16(0, &out)
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
