import XCTest
@testable import MailParsing

/// Runs the parser over the shared corpora (skipped when `corpora/` is not unpacked).
final class CorpusTests: XCTestCase {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let corpora = packageRoot.appendingPathComponent("corpora")

    private func corpus(_ path: String) throws -> URL {
        let url = Self.corpora.appendingPathComponent(path)
        guard FileManager.default.fileExists(atPath: url.path) else { throw XCTSkip("corpus \(path) not unpacked") }
        return url
    }

    private func files(under url: URL) -> [URL] {
        var out: [URL] = []
        let e = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.isRegularFileKey])
        while let f = e?.nextObject() as? URL {
            if (try? f.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true { out.append(f) }
        }
        return out.sorted { $0.path < $1.path }
    }

    func testEveryMimeKitTestFileParsesAndMalformedOnesReportDefects() throws {
        let root = try corpus("mimekit/mimekit-testdata/UnitTests/TestData")
        let all = files(under: root)
        XCTAssertGreaterThan(all.count, 10)
        var withDefects = 0
        for f in all {
            let bytes = [UInt8](try Data(contentsOf: f))
            let m = MIMEParser.parse(bytes)
            XCTAssertEqual(m.size, bytes.count)
            if !m.defects.isEmpty { withDefects += 1 }
            // Mbox-shaped test files go through the reader too.
            for msg in MboxReader(data: Data(bytes)).prefix(2_000) { _ = MIMEParser.parse(msg.bytes) }
        }
        XCTAssertGreaterThan(withDefects, 0, "the edge-case files should trip at least one defect")
    }

    func testAllUSRPUsersMessagesParseWithDatesAndSenders() throws {
        let url = try corpus("usrp-users.mbox")
        var count = 0, dated = 0, withFrom = 0, withText = 0
        for msg in try MboxReader(path: url.path) {
            let m = MIMEParser.parse(msg.bytes, mboxFromLineDate: msg.fromLineDate, fallbackDate: nil)
            count += 1
            if m.date != nil { dated += 1 }
            if !m.from.isEmpty { withFrom += 1 }
            if !m.textBody.isEmpty { withText += 1 }
        }
        XCTAssertEqual(count, 3_000)
        XCTAssertEqual(dated, 3_000)
        XCTAssertEqual(withFrom, 3_000)
        XCTAssertGreaterThan(withText, 2_950)
    }

    func testAtLeast99Point9PercentOfEnronMessagesGetADate() throws {
        let root = try corpus("enron-inbox/maildir")
        var all = files(under: root)
        #if DEBUG
        // Debug builds are slow: check every 4th message here; the release run covers all of them.
        all = stride(from: 0, to: all.count, by: 4).map { all[$0] }
        #endif
        var dated = 0
        for f in all {
            let m = MIMEParser.parse([UInt8](try Data(contentsOf: f)))
            if m.date != nil { dated += 1 }
        }
        XCTAssertGreaterThanOrEqual(Double(dated) / Double(all.count), 0.999, "\(dated) of \(all.count)")
    }
}
