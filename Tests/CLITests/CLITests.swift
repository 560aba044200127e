import Foundation
import GRDB
import MailModel
import MailStore
import XCTest

final class CLITests: CLITestCase {
    func testHelpListsTheCommands() throws {
        let r = try mailsearch(["--help"])
        XCTAssertEqual(r.status, 0)
        for command in ["import", "search", "stats", "export", "show", "accounts", "folders", "index", "recent", "suggest", "parse"] {
            XCTAssertTrue(r.stdout.contains(command), "--help mentions \(command)")
        }
    }

    func testImportStatsSearchShowExport() throws {
        let mbox = try writeMbox(count: 100)
        let imported = try mailsearch(["import", mbox, "--account", "demo", "--json"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let summary = try JSONSerialization.jsonObject(with: Data(imported.stdout.utf8)) as! [String: Any]
        XCTAssertEqual(summary["imported"] as? Int, 100)
        XCTAssertEqual(summary["duplicates"] as? Int, 0)
        XCTAssertEqual(summary["failed"] as? Int, 0)
        XCTAssertNotNil(summary["seconds"] as? Double)

        let stats = try JSONSerialization.jsonObject(with: Data(try mailsearch(["stats", "--json"]).stdout.utf8)) as! [String: Any]
        XCTAssertEqual(stats["emails"] as? Int, 100)
        XCTAssertEqual(stats["threads"] as? Int, 20)

        let search = try mailsearch(["search", "topic 7 budget", "--json"])
        XCTAssertEqual(search.status, 0, search.stderr)
        let json = try JSONSerialization.jsonObject(with: Data(search.stdout.utf8)) as! [String: Any]
        let results = json["results"] as! [[String: Any]]
        XCTAssertEqual(json["conversationCount"] as? Int, results.count)
        XCTAssertGreaterThan(results.count, 0)
        XCTAssertEqual(results.first?["subject"] as? String, "Topic 7 budget")
        // AC-S-08 / AC-S-13: no model here — keyword results, no error, and the reason is reported.
        let semantic = json["semantic"] as! [String: Any]
        XCTAssertEqual(semantic["status"] as? String, "skipped")
        XCTAssertEqual(semantic["reason"] as? String, "modelNotInstalled")
        let threadId = results.first?["threadId"] as! Int

        let show = try mailsearch(["show", "t\(threadId)"])
        XCTAssertEqual(show.status, 0)
        XCTAssertTrue(show.stdout.contains("5 messages"))

        let export = try mailsearch(["export", "--format", "jsonl"])
        let lines = export.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 100)
        let first = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as! [String: Any]
        for key in ["emailId", "messageId", "threadId", "accountId", "folders", "date", "from", "subject", "hasAttachment", "isRead", "category"] {
            XCTAssertNotNil(first[key], "export has \(key)")
        }
        XCTAssertEqual(try mailsearch(["recent"]).stdout, "topic 7 budget\n")
    }

    /// `export --format mbox --account`: the account's messages as received; imported into a fresh data
    /// directory they are the same emails (Message-IDs, content-hash ids of those without one included).
    func testMboxExportImportsBackWithTheSameMessageIds() throws {
        XCTAssertEqual(try mailsearch(["import", try writeMbox(count: 40), "--account", "demo"]).status, 0)
        XCTAssertEqual(try mailsearch(["import", try writeMbox(count: 5, name: "other.mbox"), "--account", "other"]).status, 0)
        let exported = work.appendingPathComponent("demo-export.mbox").path
        let export = try mailsearch(["export", "--format", "mbox", "--account", "demo", "-o", exported])
        XCTAssertEqual(export.status, 0, export.stderr)
        XCTAssertEqual(export.stderr, "")
        let imported = try mailsearch(["import", exported, "--account", "demo", "--json"], dataDir: "copy")
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let summary = try JSONSerialization.jsonObject(with: Data(imported.stdout.utf8)) as! [String: Any]
        XCTAssertEqual(summary["imported"] as? Int, 40)
        XCTAssertEqual(summary["failed"] as? Int, 0)

        func lines(_ dataDir: String) throws -> [[String: Any]] {
            try mailsearch(["export"], dataDir: dataDir).stdout.split(separator: "\n").map {
                try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
            }
        }
        let original = try lines("data")
        let demoId = try XCTUnwrap(original.first { ($0["messageId"] as? String) == "m0@example.com" }?["accountId"] as? Int)
        let originalIds = Set(original.filter { $0["accountId"] as? Int == demoId }.compactMap { $0["messageId"] as? String })
        let copied = try lines("copy")
        XCTAssertEqual(copied.count, 40)
        XCTAssertEqual(originalIds.count, 40)
        XCTAssertEqual(Set(copied.compactMap { $0["messageId"] as? String }), originalIds)
        XCTAssertTrue(originalIds.contains { $0.hasSuffix("@content.mailsearch") }, "the mailbox has mail without a Message-ID")

        let unknown = try mailsearch(["export", "--account", "nobody"])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stderr.contains("no account named \"nobody\""), unknown.stderr)
    }

    func testEmptyResultsSayWhatToDo() throws {
        _ = try mailsearch(["import", try writeMbox(count: 5)])
        let r = try mailsearch(["search", "xyznonexistent12345"])
        XCTAssertEqual(r.status, 0)
        XCTAssertTrue(r.stdout.contains("No results for \"xyznonexistent12345\" — try fewer words or remove a filter"))
    }

    /// A keyword search of plain words, which the lean binary answers itself once an earlier search
    /// stored the index's copies, prints what `mailsearch-full` prints (but for the time it took).
    func testLeanKeywordSearchPrintsWhatTheFullCommandPrints() throws {
        _ = try mailsearch(["import", try writeMbox(count: 60)])
        let full = Self.binary.deletingLastPathComponent().appendingPathComponent("mailsearch-full")
        func withoutTime(_ text: String) -> String {
            text.replacingOccurrences(of: #"  \([0-9.]+ ms\)"#, with: "", options: .regularExpression)
        }
        for query in ["budget", "topic 7 budget", "\"quarterly budget\"", "archive line", "nothingmatchesthis"] {
            for extra in [[], ["--why"], ["--limit", "3"]] {
                let arguments = ["search", query, "--mode", "keyword", "--no-history"] + extra
                let first = try mailsearch(arguments)   // stores the copies the next process reads
                let lean = try mailsearch(arguments)
                XCTAssertEqual(lean.status, 0, lean.stderr)
                let process = Process()
                process.executableURL = full
                process.arguments = arguments + ["--data-dir", work.appendingPathComponent("data").path]
                let out = Pipe()
                process.standardOutput = out
                process.standardError = Pipe()
                try process.run()
                let expected = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                XCTAssertEqual(withoutTime(lean.stdout), withoutTime(expected), "\(arguments)")
                XCTAssertEqual(withoutTime(first.stdout), withoutTime(expected), "\(arguments)")
            }
        }
    }

    /// A result line's date is the local time of the user's time zone (TZ), zero-padded.
    func testResultDatesAreLocalTime() throws {
        _ = try mailsearch(["import", try writeMbox(count: 5)])
        setenv("TZ", "America/Chicago", 1)
        defer { unsetenv("TZ") }
        let r = try mailsearch(["search", "topic 0 budget", "--mode", "keyword", "--no-history"])
        XCTAssertEqual(r.status, 0, r.stderr)
        // Every message of thread 0 is dated 10:00 UTC on 1–5 March 2024: 04:00 in Chicago (UTC−6).
        let lines = r.stdout.split(separator: "\n").filter { $0.hasPrefix("t") }
        XCTAssertFalse(lines.isEmpty, r.stdout)
        for line in lines {
            XCTAssertNotNil(line.range(of: #"^t[0-9]+  2024-03-0[1-5] 04:00  "#, options: .regularExpression), String(line))
        }
    }

    func testErrorsNameTheInput() throws {
        let r = try mailsearch(["import", "/nonexistent/path.mbox"])
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(r.stderr.contains("/nonexistent/path.mbox"), r.stderr)
        let bad = try mailsearch(["show", "zzz"])
        XCTAssertNotEqual(bad.status, 0)
    }

    func testParsePrintsTheSearchQuery() throws {
        let r = try mailsearch(["parse", "unread promotions from john", "--now", "2024-06-15T10:00:00Z", "--time-zone", "UTC"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        let filters = json["filters"] as! [String: Any]
        XCTAssertEqual(filters["sender"] as? String, "john")
        XCTAssertEqual(filters["category"] as? String, "promotions")
        XCTAssertEqual(filters["isRead"] as? Bool, false)
        XCTAssertEqual(json["text"] as? String, "")
    }

    func testCorruptSearchIndexIsRebuiltWithANotice() throws {
        _ = try mailsearch(["import", try writeMbox(count: 40)])
        let data = work.appendingPathComponent("data")
        let mailBefore = try Data(contentsOf: data.appendingPathComponent("mail.sqlite"))
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(at: data.appendingPathComponent("search.sqlite" + suffix)) }
        try Data(repeating: 0x5A, count: 40_000).write(to: data.appendingPathComponent("search.sqlite"))
        let r = try mailsearch(["search", "budget", "--json", "--limit", "100", "--no-history"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("note:"), r.stderr)
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        XCTAssertEqual(json["conversationCount"] as? Int, 8)
        XCTAssertEqual(try Data(contentsOf: data.appendingPathComponent("mail.sqlite")), mailBefore)
    }
}

/// Import is resumable: kill -9 at any point, run again, and the store ends exactly as after one clean run.
final class ResumableImportTests: CLITestCase {
    func testKillNineMidImportThenRerunEqualsACleanRun() throws {
        let mbox = try writeMbox(count: 3000)
        let clean = try mailsearch(["import", mbox, "--account", "a", "--batch-size", "50", "--quiet"], dataDir: "clean")
        XCTAssertEqual(clean.status, 0, clean.stderr)
        let expected = try mailsearch(["export"], dataDir: "clean").stdout
        XCTAssertEqual(expected.split(separator: "\n").count, 3000)

        var killedMidway = 0
        for delay in [0.4, 1.2, 2.5] {
            let process = try start(["import", mbox, "--account", "a", "--batch-size", "50", "--quiet"], dataDir: "killed")
            Thread.sleep(forTimeInterval: delay)
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                killedMidway += 1
            }
            process.waitUntilExit()
        }
        XCTAssertGreaterThan(killedMidway, 0, "at least one import was killed before it finished")
        let rerun = try mailsearch(["import", mbox, "--account", "a", "--batch-size", "50", "--quiet", "--json"], dataDir: "killed")
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        let resumed = try mailsearch(["export"], dataDir: "killed").stdout
        XCTAssertEqual(resumed, expected)
        let status = try mailsearch(["index", "status", "--json"], dataDir: "killed")
        let json = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as! [String: Any]
        let keywordIndex = json["keywordIndex"] as! [String: Any]
        XCTAssertEqual(keywordIndex["healthy"] as? Bool, true)
        XCTAssertEqual(keywordIndex["indexedEmails"] as? Int, 3000)
        // A first import builds the emails' date and sender indexes at its end: a killed one left
        // them missing, and the next command that opened the store built them again.
        func indexes(_ dataDir: String) throws -> [String] {
            let store = try MailStore(directory: DataDirectory(url: work.appendingPathComponent(dataDir)), readOnly: true)
            return try store.database.read { try String.fetchAll($0, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'emails' AND sql IS NOT NULL ORDER BY name") }
        }
        XCTAssertEqual(try indexes("clean").count, 10)
        XCTAssertEqual(try indexes("killed"), try indexes("clean"))
    }
}

/// Semantic search through the binary with the real model (installed by `make test`).
final class SemanticCLITests: CLITestCase {
    func test_AC_S_06_embedThenHybridSearchFindsMeaningNotJustWords() throws {
        let modelDir = try installedModel()
        var text = ""
        let mails = [
            ("Quarterly budget review", "We go through the spending plan and forecast for next quarter on Thursday."),
            ("Team lunch", "Pizza on Friday at noon in the kitchen."),
            ("Server migration", "The database moves to the new cluster this weekend."),
            ("Planning meeting", "Agenda for the meeting is attached."),
        ]
        for (i, m) in mails.enumerated() {
            text += "From x Mon Mar  4 14:11:14 2024\nMessage-ID: <s\(i)@x>\nFrom: a\(i)@example.com\nSubject: \(m.0)\n"
            text += "Date: \(i + 1) Mar 2024 10:00:00 +0000\n\n\(m.1)\n\n"
        }
        let mbox = work.appendingPathComponent("semantic.mbox")
        try Data(text.utf8).write(to: mbox)
        XCTAssertEqual(try mailsearch(["import", mbox.path, "--quiet"], model: modelDir).status, 0)
        let embed = try mailsearch(["index", "embed", "--quiet", "--json"], model: modelDir)
        XCTAssertEqual(embed.status, 0, embed.stderr)
        let status = try JSONSerialization.jsonObject(with: Data(embed.stdout.utf8)) as! [String: Any]
        XCTAssertEqual(status["embeddingCoverage"] as? Double, 1.0)

        // Four one-line emails are less similar to any query than real mail is: the floor is lowered
        // from its default (calibrated on real mail, README), which is what `--min-similarity` is for.
        let r = try mailsearch(["search", "financial planning meeting", "--json", "--no-history", "--min-similarity", "0.3"],
                               model: modelDir)
        XCTAssertEqual(r.status, 0, r.stderr)
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        XCTAssertEqual((json["semantic"] as! [String: Any])["status"] as? String, "ran")
        let results = json["results"] as! [[String: Any]]
        let budget = results.first { $0["subject"] as? String == "Quarterly budget review" }
        XCTAssertEqual(budget?["match"] as? String, "semantic", "found by meaning: no keyword of the query is in it")
        let both = try mailsearch(["search", "planning meeting", "--json", "--no-history", "--min-similarity", "0.3"],
                                  model: modelDir)
        let bothJSON = try JSONSerialization.jsonObject(with: Data(both.stdout.utf8)) as! [String: Any]
        let first = (bothJSON["results"] as! [[String: Any]]).first
        XCTAssertEqual(first?["subject"] as? String, "Planning meeting")
        XCTAssertEqual(first?["match"] as? String, "both", "keyword and semantic agree")
        // AC-S-02 with the model and the default floor: nonsense is the empty state, not neighbours.
        let nonsense = try mailsearch(["search", "xyznonexistent12345", "--json", "--no-history"], model: modelDir)
        let nonsenseJSON = try JSONSerialization.jsonObject(with: Data(nonsense.stdout.utf8)) as! [String: Any]
        XCTAssertEqual((nonsenseJSON["results"] as! [[String: Any]]).count, 0)
        XCTAssertEqual((nonsenseJSON["semantic"] as! [String: Any])["reason"] as? String, "notWords",
                       "letters that are no word: no search by meaning at all")
        // Words the model knows, unrelated to the mail: searched by meaning, and the floor keeps them empty.
        let words = try mailsearch(["search", "zebra tango quartz", "--json", "--no-history"], model: modelDir)
        let wordsJSON = try JSONSerialization.jsonObject(with: Data(words.stdout.utf8)) as! [String: Any]
        XCTAssertEqual((wordsJSON["results"] as! [[String: Any]]).count, 0)
        XCTAssertEqual((wordsJSON["semantic"] as! [String: Any])["status"] as? String, "ran")
    }
}

/// Embedding is resumable: kill -9 mid-way, run again, and every email has exactly one vector,
/// none embedded twice.
final class ResumableEmbeddingTests: CLITestCase {
    func testKillNineDuringEmbeddingThenRerunCompletesWithoutRepeating() throws {
        let modelDir = try installedModel()
        let count = 1500
        XCTAssertEqual(try mailsearch(["import", try writeMbox(count: count), "--quiet"], model: modelDir).status, 0)
        func embedded() throws -> Int { try embeddedEmails(model: modelDir) }
        let process = try start(["index", "embed", "--quiet", "--batch-size", "16"], model: modelDir)
        var before = 0
        while process.isRunning && before == 0 {
            Thread.sleep(forTimeInterval: 0.2)
            before = try embedded()
        }
        XCTAssertTrue(process.isRunning, "the embedding was still running when some batches were stored")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let partial = try embedded()
        XCTAssertGreaterThan(partial, 0)
        XCTAssertLessThan(partial, count, "killed before the end")

        let rerun = try mailsearch(["index", "embed", "--quiet"], model: modelDir)
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        XCTAssertTrue(rerun.stdout.hasPrefix("Embedded \(count - partial) emails"), "only the rest is embedded: \(rerun.stdout)")
        XCTAssertEqual(try embedded(), count, "one vector per email, none missing")
        let again = try mailsearch(["index", "embed", "--quiet"], model: modelDir)
        XCTAssertTrue(again.stdout.hasPrefix("Embedded 0 emails"), again.stdout)
    }

    /// The same with the background queue of `mailsearch serve`: kill -9 while it embeds, start it
    /// again, and it carries on to full coverage without repeating a stored batch.
    func testKillNineDuringBackgroundEmbeddingInServeThenRestartCompletes() throws {
        let modelDir = try installedModel()
        let count = 1500
        XCTAssertEqual(try mailsearch(["import", try writeMbox(count: count), "--quiet"], model: modelDir).status, 0)
        func embedded() throws -> Int { try embeddedEmails(model: modelDir) }
        let first = try start(["serve", "--port", "0", "--log-level", "error"], model: modelDir)
        var partial = 0
        let deadline = Date().addingTimeInterval(120)
        while first.isRunning && partial == 0 && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.2)
            partial = try embedded()
        }
        XCTAssertTrue(first.isRunning, "serve was still embedding when the first batches were stored")
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        partial = try embedded()
        XCTAssertGreaterThan(partial, 0)
        XCTAssertLessThan(partial, count, "killed before the end")

        let second = try start(["serve", "--port", "0", "--log-level", "error"], model: modelDir)
        var done = partial
        while second.isRunning && done < count && Date() < deadline.addingTimeInterval(120) {
            Thread.sleep(forTimeInterval: 0.3)
            done = try embedded()
        }
        XCTAssertEqual(done, count, "the restarted server embeds the rest")
        kill(second.processIdentifier, SIGTERM)
        second.waitUntilExit()
        XCTAssertEqual(second.terminationStatus, 0)
        let rest = try mailsearch(["index", "embed", "--quiet"], model: modelDir)
        XCTAssertTrue(rest.stdout.hasPrefix("Embedded 0 emails"), "one vector per email, none missing: \(rest.stdout)")
    }
}
