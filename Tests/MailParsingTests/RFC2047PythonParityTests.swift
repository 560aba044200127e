import XCTest
@testable import MailParsing

/// Our RFC 2047 decoding of real usrp-users Subject and From headers equals Python's
/// `email.policy.default`. The expected values are generated at test time by
/// `scripts/check-rfc2047.py` from the unpacked corpus (corpus text is never committed).
final class RFC2047PythonParityTests: XCTestCase {
    struct Case: Decodable {
        var messageId: String
        var field: String
        var raw: String
        var expected: String
    }

    private static let generated = Result { try generate() }

    private func cases() throws -> [Case] { try Self.generated.get() }

    private static func generate() throws -> [Case] {
        let root = CorpusTests.packageRoot
        guard FileManager.default.fileExists(atPath: CorpusTests.corpora.appendingPathComponent("usrp-users.mbox").path) else {
            throw XCTSkip("corpus not unpacked (make corpora)")
        }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("rfc2047-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: out) }
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "scripts/check-rfc2047.py", "--out", out.path]
        python.currentDirectoryURL = root
        do { try python.run() } catch { throw XCTSkip("python3 is not available to generate the expected decodings") }
        python.waitUntilExit()
        guard python.terminationStatus == 0 else {
            throw NSError(domain: "RFC2047PythonParityTests", code: Int(python.terminationStatus),
                          userInfo: [NSLocalizedDescriptionKey: "scripts/check-rfc2047.py failed"])
        }
        return try JSONDecoder().decode([Case].self, from: Data(contentsOf: out))
    }

    func testRawHeadersDecodeLikePython() throws {
        let all = try cases()
        XCTAssertGreaterThanOrEqual(all.count, 20)
        for c in all {
            let unfolded = c.raw.replacingOccurrences(of: "\r\n", with: "").replacingOccurrences(of: "\n", with: "")
            switch c.field {
            case "subject":
                XCTAssertEqual(TextNormalizer.collapseWhitespace(EncodedWordDecoder.decode(unfolded)), c.expected, c.raw)
            default:
                XCTAssertEqual(AddressParser.parseList(unfolded).first?.name ?? "", c.expected, c.raw)
            }
        }
    }

    func testWholeMessagesFromTheMboxDecodeLikePython() throws {
        let url = CorpusTests.corpora.appendingPathComponent("usrp-users.mbox")
        guard FileManager.default.fileExists(atPath: url.path) else { throw XCTSkip("corpus not unpacked") }
        var byId: [String: [Case]] = [:]
        for c in try cases() { byId[c.messageId, default: []].append(c) }
        var checked = 0
        for msg in try MboxReader(path: url.path) {
            let m = MIMEParser.parse(msg.bytes)
            guard let id = m.messageId, let expected = byId[id] else { continue }
            for c in expected {
                if c.field == "subject" { XCTAssertEqual(m.subject, c.expected, id) } else { XCTAssertEqual(m.from.first?.name ?? "", c.expected, id) }
                checked += 1
            }
            byId[id] = nil
        }
        XCTAssertEqual(checked, try cases().count)
    }
}
