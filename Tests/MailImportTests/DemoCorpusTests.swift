import DemoCorpus
import Foundation
import MailParsing
import XCTest

final class DemoCorpusTests: XCTestCase {
    private func corpus(seed: UInt64 = 42, count: Int) -> [GeneratedMessage] {
        Array(DemoCorpusGenerator(configuration: DemoCorpusConfiguration(seed: seed, messageCount: count)).messages())
    }

    /// The header block of a message, unfolded: (lower-cased name, value) pairs.
    private func headers(of raw: [UInt8]) -> [(name: String, value: String)] {
        var result: [(String, String)] = []
        var lines: [String] = []
        var start = 0
        for i in 0..<raw.count where raw[i] == 10 {
            if i == start { break }
            let line = String(decoding: raw[start..<i], as: UTF8.self)
            if line.hasPrefix(" ") || line.hasPrefix("\t"), !lines.isEmpty {
                lines[lines.count - 1] += line
            } else {
                lines.append(line)
            }
            start = i + 1
        }
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            result.append((line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        return result
    }

    private func header(_ name: String, in raw: [UInt8]) -> String? {
        headers(of: raw).first { $0.name == name }?.value
    }

    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("DemoCorpusTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    // MARK: Determinism and counts

    func testSameSeedAndConfigurationGiveIdenticalMessages() {
        let first = corpus(count: 600)
        let second = corpus(count: 600)
        XCTAssertEqual(first, second)
    }

    func testDifferentSeedsGiveDifferentMessages() {
        let first = corpus(seed: 1, count: 200)
        let second = corpus(seed: 2, count: 200)
        XCTAssertNotEqual(first.map(\.raw), second.map(\.raw))
    }

    func testMboxBytesAreIdenticalAcrossRuns() throws {
        let directory = try temporaryDirectory()
        let generator = DemoCorpusGenerator(configuration: DemoCorpusConfiguration(seed: 7, messageCount: 300))
        try generator.writeMbox(to: directory.appendingPathComponent("a.mbox"))
        try generator.writeMbox(to: directory.appendingPathComponent("b.mbox"))
        let a = try Data(contentsOf: directory.appendingPathComponent("a.mbox"))
        let b = try Data(contentsOf: directory.appendingPathComponent("b.mbox"))
        XCTAssertEqual(a, b)
        XCTAssertGreaterThan(a.count, 100_000)
    }

    func testGeneratesExactlyMessageCount() {
        for count in [0, 1, 7, 1_000] {
            XCTAssertEqual(corpus(count: count).count, count, "messageCount \(count)")
        }
    }

    // MARK: Headers and structure

    func testEveryMessageHasTheHeadersAParserNeeds() {
        var ids = Set<String>()
        for message in corpus(count: 1_500) {
            let fields = headers(of: message.raw)
            let names = Set(fields.map(\.name))
            for required in ["message-id", "date", "from", "to", "subject", "mime-version", "content-type"] {
                XCTAssertTrue(names.contains(required), "message \(message.index) lacks \(required)")
            }
            XCTAssertEqual(header("message-id", in: message.raw), "<\(message.messageId)>")
            XCTAssertTrue(ids.insert(message.messageId).inserted, "duplicate Message-ID \(message.messageId)")
            XCTAssertTrue(header("from", in: message.raw)?.contains("<\(message.fromAddress)>") ?? false)
            XCTAssertNotNil(header("date", in: message.raw)?.range(
                of: #"^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d [+-]\d{4}$"#,
                options: .regularExpression), "bad Date in message \(message.index)")
        }
    }

    func testHeadersAreASCIIAndLinesEndWithLF() {
        for message in corpus(count: 1_000) {
            XCTAssertFalse(message.raw.contains(13), "CR in message \(message.index)")
            XCTAssertEqual(message.raw.last, 10)
            let headerEnd = message.raw.indices.first { i in
                i > 0 && message.raw[i] == 10 && message.raw[i - 1] == 10
            } ?? message.raw.count
            XCTAssertTrue(message.raw[..<headerEnd].allSatisfy { $0 < 0x80 }, "8-bit header in message \(message.index)")
        }
    }

    func testNonASCIINamesAndSubjectsAreRFC2047Encoded() {
        let messages = corpus(count: 3_000)
        let froms = messages.compactMap { header("from", in: $0.raw) }
        XCTAssertTrue(froms.contains { $0.hasPrefix("=?UTF-8?Q?Jos=C3=A9_M=C3=BCller?=") })
        XCTAssertTrue(messages.contains { header("subject", in: $0.raw)?.hasPrefix("=?UTF-8?B?") ?? false })
    }

    func testDatesAreOrderedAndWithinTheSpan() {
        let configuration = DemoCorpusConfiguration(messageCount: 1_000)
        let messages = Array(DemoCorpusGenerator(configuration: configuration).messages())
        let start = configuration.endDate.addingTimeInterval(-configuration.span)
        XCTAssertEqual(zip(messages, messages.dropFirst()).first { $0.date > $1.date }?.0.index, nil)
        XCTAssertTrue(messages.allSatisfy { $0.date >= start && $0.date <= configuration.endDate })
        // More recent is denser: the newer half of the span holds more than half of the mail.
        let middle = configuration.endDate.addingTimeInterval(-configuration.span / 2)
        XCTAssertGreaterThan(messages.filter { $0.date > middle }.count, 550)
    }

    // MARK: Threads

    func testRepliesReferenceEarlierMessagesOfTheirThread() {
        let messages = corpus(count: 3_000)
        var seen: [String: GeneratedMessage] = [:]
        var replies = 0
        var quoted = 0
        var forwards = 0
        for message in messages {
            if let parentId = message.inReplyTo {
                replies += 1
                guard let parent = seen[parentId] else {
                    XCTFail("message \(message.index) replies to unknown \(parentId)")
                    continue
                }
                XCTAssertEqual(parent.threadKey, message.threadKey)
                XCTAssertLessThanOrEqual(parent.date, message.date)
                XCTAssertEqual(header("in-reply-to", in: message.raw), "<\(parentId)>")
                let references = (header("references", in: message.raw) ?? "")
                    .split(separator: " ").map { String($0.dropFirst().dropLast()) }
                XCTAssertEqual(references.last, parentId)
                XCTAssertTrue(references.allSatisfy { seen[$0]?.threadKey == message.threadKey })
                let subject = header("subject", in: message.raw) ?? ""
                XCTAssertTrue(subject.hasPrefix("Re: ") || subject.hasPrefix("Fwd: "), subject)
                if subject.hasPrefix("Fwd: ") { forwards += 1 }
                if String(decoding: message.raw, as: UTF8.self).contains("\n> ") { quoted += 1 }
            } else {
                XCTAssertEqual(message.threadKey, message.index)
            }
            seen[message.messageId] = message
        }
        XCTAssertGreaterThan(replies, 600)
        XCTAssertGreaterThan(quoted, replies / 3)
        XCTAssertGreaterThan(forwards, 5)
    }

    func testThreadsHaveTwoToTwelveMessages() {
        var sizes: [Int: Int] = [:]
        for message in corpus(count: 5_000) { sizes[message.threadKey, default: 0] += 1 }
        let threadSizes = sizes.values.filter { $0 > 1 }
        XCTAssertGreaterThan(threadSizes.count, 300)
        XCTAssertLessThanOrEqual(threadSizes.max() ?? 0, 12)
        XCTAssertGreaterThan(threadSizes.filter { $0 >= 6 }.count, 10)
    }

    // MARK: Shares of content

    func testAttachmentShareIsInRangeAndPDFsAreReal() throws {
        let messages = corpus(count: 2_000)
        let withAttachment = messages.filter(\.hasAttachment)
        let share = Double(withAttachment.count) / Double(messages.count)
        XCTAssertTrue((0.05...0.10).contains(share), "attachment share \(share)")
        var pdfs = 0
        for message in withAttachment {
            let text = String(decoding: message.raw, as: UTF8.self)
            XCTAssertTrue(text.contains("Content-Type: multipart/mixed;"))
            XCTAssertTrue(text.contains("Content-Disposition: attachment;"))
            guard text.contains("Content-Type: application/pdf") else { continue }
            let part = text.components(separatedBy: "Content-Type: application/pdf")[1]
            let body = part.components(separatedBy: "\n\n")[1].components(separatedBy: "\n--")[0]
            let data = try XCTUnwrap(Data(base64Encoded: body, options: .ignoreUnknownCharacters))
            XCTAssertTrue(data.starts(with: Array("%PDF-1.4".utf8)))
            pdfs += 1
        }
        XCTAssertGreaterThan(pdfs, 20)
        XCTAssertTrue(withAttachment.contains { String(decoding: $0.raw, as: UTF8.self).contains("filename*=UTF-8''") })
    }

    /// The demo's Word and Excel files are real ZIP archives whose text member `unzip` reads and
    /// `AttachmentText` turns into the file's name: `make run` shows no unreadable attachment.
    func testOfficeAttachmentsAreReadableZipArchives() throws {
        let types = ["application/vnd.openxmlformats-officedocument.wordprocessingml.document": "word/document.xml",
                     "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xl/sharedStrings.xml"]
        var checked = 0
        for message in corpus(count: 2_000) where message.hasAttachment {
            let text = String(decoding: message.raw, as: UTF8.self)
            for (type, member) in types where text.contains("Content-Type: " + type) {
                let part = text.components(separatedBy: "Content-Type: " + type)[1]
                let body = part.components(separatedBy: "\n\n")[1].components(separatedBy: "\n--")[0]
                let data = try XCTUnwrap(Data(base64Encoded: body, options: .ignoreUnknownCharacters))
                let file = FileManager.default.temporaryDirectory.appendingPathComponent("demo-\(UUID().uuidString).zip")
                try data.write(to: file)
                defer { try? FileManager.default.removeItem(at: file) }
                let unzip = Process()
                unzip.executableURL = URL(fileURLWithPath: "/usr/bin/unzip")
                unzip.arguments = ["-p", file.path, member]
                let pipe = Pipe()
                unzip.standardOutput = pipe
                try unzip.run()
                let xml = pipe.fileHandleForReading.readDataToEndOfFile()
                unzip.waitUntilExit()
                XCTAssertEqual(unzip.terminationStatus, 0, "unzip -p of a demo \(member)")
                let read = try AttachmentText.officeXMLText(Array(xml))
                XCTAssertTrue(read.contains("Reference "), read)
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 5)
    }

    func testHTMLAndCategoryShares() {
        let messages = corpus(count: 2_000)
        let html = Double(messages.filter(\.hasHTML).count) / 2_000
        XCTAssertTrue((0.25...0.40).contains(html), "HTML share \(html)")
        for message in messages where message.hasHTML {
            XCTAssertTrue(String(decoding: message.raw, as: UTF8.self).contains("Content-Type: multipart/alternative;"))
        }
        for category in DemoMailCategory.allCases {
            let share = Double(messages.filter { $0.category == category }.count) / 2_000
            XCTAssertGreaterThan(share, 0.05, "\(category) share \(share)")
        }
        let forums = messages.filter { $0.category == .forum }
        XCTAssertTrue(forums.allSatisfy { header("list-id", in: $0.raw) != nil })
    }

    func testLabelsFollowGmailConventions() {
        let configuration = DemoCorpusConfiguration(messageCount: 2_000)
        let owner = configuration.ownerAddress
        let messages = Array(DemoCorpusGenerator(configuration: configuration).messages())
        for message in messages {
            XCTAssertTrue(["Inbox", "Sent", "Archived"].contains(message.labels.first ?? ""), "\(message.labels)")
            XCTAssertEqual(message.labels.first == "Sent", message.fromAddress == owner)
            XCTAssertEqual(message.isRead, !message.labels.contains("Unread"))
        }
        let unread = Double(messages.filter { !$0.isRead }.count) / 2_000
        XCTAssertTrue((0.01...0.12).contains(unread), "unread share \(unread)")
        for label in ["Starred", "Important", "Projects", "Receipts", "Category Promotions", "Category Social",
                      "Category Updates", "Category Forums"] {
            XCTAssertTrue(messages.contains { $0.labels.contains(label) }, "no message labelled \(label)")
        }
        XCTAssertTrue(messages.contains { $0.labels.contains("Inbox") && $0.labels.contains("Projects") })
        XCTAssertTrue(messages.contains { $0.fromAddress == "john@example.com" })
        XCTAssertTrue(messages.contains { $0.fromAddress == "sarah.chen@example.com" })
    }

    // MARK: Files

    /// Splits an mbox on lines that start with `From ` (the separator), as a reader would.
    private func splitMbox(_ bytes: [UInt8]) -> [[UInt8]] {
        var messages: [[UInt8]] = []
        var current: [UInt8] = []
        var lineStart = 0
        while lineStart < bytes.count {
            var end = lineStart
            while end < bytes.count && bytes[end] != 10 { end += 1 }
            let line = bytes[lineStart..<min(end + 1, bytes.count)]
            if line.starts(with: Array("From ".utf8)) {
                if lineStart > 0 { messages.append(current) }
                current = []
            } else {
                current.append(contentsOf: line)
            }
            lineStart = end + 1
        }
        if !bytes.isEmpty { messages.append(current) }
        return messages
    }

    func testMboxSplitsBackIntoTheSameMessages() throws {
        let directory = try temporaryDirectory()
        let url = directory.appendingPathComponent("demo.mbox")
        let generator = DemoCorpusGenerator(configuration: DemoCorpusConfiguration(seed: 3, messageCount: 1_200))
        var reported: [Int] = []
        let written = try generator.writeMbox(to: url) { reported.append($0) }
        XCTAssertEqual(written, 1_200)
        XCTAssertEqual(reported.last, 1_200)
        let chunks = splitMbox(Array(try Data(contentsOf: url)))
        XCTAssertEqual(chunks.count, 1_200)
        var escaped = 0
        for (chunk, message) in zip(chunks, generator.messages()) {
            var text = String(decoding: chunk, as: UTF8.self)
            XCTAssertTrue(text.hasPrefix("X-GM-THRID: "))
            let labelLine = text.split(separator: "\n")[1]
            XCTAssertEqual(labelLine, "X-Gmail-Labels: " + message.labels.joined(separator: ","))
            // Undo the Gmail headers, the separating blank line and the mboxrd quoting.
            text = text.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)[2].description
            XCTAssertTrue(text.hasSuffix("\n\n"))
            text.removeLast()
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
                let body = line.drop { $0 == ">" }
                if body.hasPrefix("From "), line.hasPrefix(">") {
                    escaped += 1
                    return line.dropFirst()
                }
                return line
            }
            XCTAssertEqual(Array(lines.joined(separator: "\n").utf8), message.raw, "message \(message.index)")
        }
        XCTAssertGreaterThan(escaped, 0, "no body line needed mboxrd quoting")
    }

    func testMaildirLayout() throws {
        let directory = try temporaryDirectory()
        let root = directory.appendingPathComponent("Maildir")
        let configuration = DemoCorpusConfiguration(messageCount: 800)
        let written = try DemoCorpusGenerator(configuration: configuration).writeMaildir(to: root)
        XCTAssertEqual(written, 800)
        let manager = FileManager.default
        var total = 0
        for folder in ["", ".Sent", ".Archive", ".Projects", ".Receipts"] {
            let base = folder.isEmpty ? root : root.appendingPathComponent(folder)
            for sub in ["cur", "new", "tmp"] {
                var isDirectory: ObjCBool = false
                XCTAssertTrue(manager.fileExists(atPath: base.appendingPathComponent(sub).path, isDirectory: &isDirectory))
                XCTAssertTrue(isDirectory.boolValue)
            }
            XCTAssertEqual(manager.fileExists(atPath: base.appendingPathComponent("maildirfolder").path), !folder.isEmpty)
            let cur = try manager.contentsOfDirectory(atPath: base.appendingPathComponent("cur").path)
            let new = try manager.contentsOfDirectory(atPath: base.appendingPathComponent("new").path)
            XCTAssertTrue(try manager.contentsOfDirectory(atPath: base.appendingPathComponent("tmp").path).isEmpty)
            for name in cur {
                let flags = try XCTUnwrap(name.components(separatedBy: ":2,").last)
                XCTAssertTrue(name.contains(":2,"), name)
                XCTAssertEqual(String(flags.sorted()), flags)
                XCTAssertTrue(flags.allSatisfy { "FS".contains($0) }, name)
            }
            XCTAssertTrue(new.allSatisfy { !$0.contains(":") })
            if folder == ".Sent" {
                XCTAssertFalse(cur.isEmpty)
                for name in cur.prefix(20) {
                    let raw = Array(try Data(contentsOf: base.appendingPathComponent("cur").appendingPathComponent(name)))
                    XCTAssertTrue(header("from", in: raw)?.contains(configuration.ownerAddress) ?? false)
                }
            } else {
                XCTAssertFalse(cur.isEmpty && new.isEmpty, "\(folder) is empty")
            }
            total += cur.count + new.count
        }
        XCTAssertEqual(total, 800)
    }
}
