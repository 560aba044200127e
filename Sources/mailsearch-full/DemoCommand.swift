import ArgumentParser
import DemoCorpus
import Foundation

/// `mailsearch demo`: writes a synthetic mailbox to try MailSearch on.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Write a synthetic demo mailbox to try MailSearch on.",
        discussion: """
            Generates realistic, made-up mail for Alex Morgan <alex.morgan@example.com>: conversations \
            with colleagues (John Smith, Sarah Chen, …), threads with replies and forwards, newsletters, \
            social notifications, receipts and invoices with attachments, and mailing lists, spread over \
            the year before --end-date. The same --seed, --count and --end-date always give the same bytes.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case mbox
        case maildir
    }

    @Option(name: .shortAndLong,
            help: ArgumentHelp("Where to write: a file for mbox, a folder for maildir.",
                               discussion: "Default: demo.mbox, or demo-maildir with --format maildir.",
                               valueName: "path"))
    var output: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("How many messages to generate.", valueName: "n"))
    var count: Int = 2_000

    @Option(help: ArgumentHelp("The random seed; the same seed gives the same mailbox.", valueName: "s"))
    var seed: UInt64 = 42

    @Option(help: "mbox (one Gmail Takeout-style file) or maildir (a Maildir++ folder).")
    var format: Format = .mbox

    @Option(name: .customLong("end-date"),
            help: ArgumentHelp("The day of the newest message, YYYY-MM-DD (UTC). Default: today.", valueName: "date"))
    var endDate: String?

    @Flag(help: "Replace an existing mbox file.")
    var force = false

    @Flag(help: ArgumentHelp("Write the labelled categorisation corpus instead: receipts, notices, offers, newsletters, social notifications, list posts and mail between people (mbox), with the truth in <output>.labels.tsv.",
                             discussion: "For judging categories: `scripts/eval/category_confusion.py labels DATA_DIR <output>.labels.tsv`."))
    var categories = false

    private var outputPath: String {
        output ?? (format == .mbox ? "demo.mbox" : "demo-maildir")
    }

    func validate() throws {
        guard (1...10_000_000).contains(count) else {
            throw ValidationError("--count must be between 1 and 10,000,000, not \(count).")
        }
        if let endDate, Self.parseDay(endDate) == nil {
            throw ValidationError("--end-date must be a date like 2025-06-30, not '\(endDate)'.")
        }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: outputPath, isDirectory: &isDirectory)
        switch format {
        case .mbox:
            if isDirectory.boolValue {
                throw ValidationError("\(outputPath) is a folder; give --output a file name for an mbox.")
            }
            if exists && !force {
                throw ValidationError("\(outputPath) already exists; pass --force to replace it, or choose another --output.")
            }
        case .maildir:
            if exists && !isDirectory.boolValue {
                throw ValidationError("\(outputPath) is a file; give --output a new folder for a Maildir.")
            }
            let contents = (try? FileManager.default.contentsOfDirectory(atPath: outputPath)) ?? []
            if exists && !contents.isEmpty {
                throw ValidationError("\(outputPath) is not empty; choose a new folder for the Maildir.")
            }
        }
    }

    func run() throws {
        if categories {
            let messages = CategoryCorpus.generate(count: count, seed: seed)
            try CategoryCorpus.write(messages, mbox: URL(fileURLWithPath: outputPath),
                                     labels: URL(fileURLWithPath: outputPath + ".labels.tsv"))
            print("Wrote \(messages.count) labelled messages to \(outputPath), their categories to \(outputPath).labels.tsv (seed \(seed)).")
            return
        }
        let end = endDate.flatMap(Self.parseDay) ?? Date()
        let configuration = DemoCorpusConfiguration(seed: seed, messageCount: count, endDate: end)
        let generator = DemoCorpusGenerator(configuration: configuration)
        let url = URL(fileURLWithPath: outputPath)
        let written: Int
        switch format {
        case .mbox:
            let total = count
            written = try generator.writeMbox(to: url) { done in
                if total >= 100_000 && done % 100_000 == 0 && done < total {
                    FileHandle.standardError.write(Data("\(done) of \(total) messages…\n".utf8))
                }
            }
        case .maildir:
            written = try generator.writeMaildir(to: url)
        }
        print("Wrote \(written) demo messages to \(outputPath) (\(format.rawValue), seed \(seed)).")
    }

    /// 23:59:59 UTC of a `YYYY-MM-DD` day, or nil when the text is no such date.
    static func parseDay(_ text: String) -> Date? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        let components = DateComponents(year: year, month: month, day: day, hour: 23, minute: 59, second: 59)
        guard calendar.dateComponents([.year, .month, .day], from: calendar.date(from: components) ?? .distantPast)
            == DateComponents(year: year, month: month, day: day),
            let date = calendar.date(from: components) else { return nil }
        return date
    }
}
