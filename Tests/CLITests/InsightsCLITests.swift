import Foundation
import XCTest

/// `show tN --summary` and `show eN --replies`, text and --json, with the real model.
final class InsightsCLITests: CLITestCase {
    func testShowSummaryAndReplies() throws {
        let modelDir = try installedModel()
        var text = ""
        let mails = [
            ("Ann Lee <ann@example.com>", "Bob Stone <bob@example.com>", "Hi Bob,\n\nThe offsite options are Lisbon and Porto. The budget is 12,000 euros.\n\nThanks,\nAnn"),
            ("Bob Stone <bob@example.com>", "Ann Lee <ann@example.com>", "Lisbon is cheaper for most of us and the office has a big room."),
            ("Ann Lee <ann@example.com>", "Bob Stone <bob@example.com>", "Lisbon it is. Could you book the room for April 17 by Friday?"),
        ]
        for (i, m) in mails.enumerated() {
            text += "From x Mon Mar  4 14:11:14 2024\nMessage-ID: <o\(i)@x>\n"
            if i > 0 { text += "In-Reply-To: <o\(i - 1)@x>\nReferences: <o0@x>\n" }
            text += "From: \(m.0)\nTo: \(m.1)\nSubject: \(i > 0 ? "Re: " : "")Offsite\nDate: \(i + 1) Mar 2024 10:00:00 +0000\n\n\(m.2)\n\n"
        }
        let mbox = work.appendingPathComponent("offsite.mbox")
        try Data(text.utf8).write(to: mbox)
        XCTAssertEqual(try mailsearch(["import", mbox.path, "--quiet"], model: modelDir).status, 0)

        let summary = try mailsearch(["show", "t1", "--summary"], model: modelDir)
        XCTAssertEqual(summary.status, 0, summary.stderr)
        XCTAssertTrue(summary.stdout.contains("Thread t1: Offsite (3 messages)"), summary.stdout)
        XCTAssertTrue(summary.stdout.contains("• Waiting on Bob Stone: Could you book the room for April 17 by Friday?"), summary.stdout)
        let json = try mailsearch(["show", "t1", "--summary", "--json"], model: modelDir)
        let answer = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any]
        XCTAssertEqual(answer["status"] as? String, "summarized")
        let points = (answer["summary"] as! [String: Any])["points"] as! [[String: Any]]
        XCTAssertGreaterThanOrEqual(points.count, 3)
        XCTAssertNotNil((points.first?["source"] as? [String: Any])?["emailId"])

        let replies = try mailsearch(["show", "e3", "--replies", "--json"], model: modelDir)
        XCTAssertEqual(replies.status, 0, replies.stderr)
        let r = try JSONSerialization.jsonObject(with: Data(replies.stdout.utf8)) as! [String: Any]
        let inner = r["replies"] as! [String: Any]
        XCTAssertEqual(inner["triggered"] as? Bool, true)
        XCTAssertEqual((inner["suggestions"] as? [Any])?.count, 3)
        let text2 = try mailsearch(["show", "e2", "--replies"], model: modelDir)
        XCTAssertTrue(text2.stdout.contains("no reply suggested"), text2.stdout)

        // A local model: a missing file and a file that is not GGUF are refused before anything opens; a model
        // whose library is missing leaves the extractive summary, and the output says why.
        let missing = try mailsearch(["show", "t1", "--summary", "--llm-model", work.appendingPathComponent("none.gguf").path], model: modelDir)
        XCTAssertNotEqual(missing.status, 0)
        XCTAssertTrue(missing.stderr.contains("no such file"), missing.stderr)
        let text3 = work.appendingPathComponent("notes.txt")
        try Data("hello".utf8).write(to: text3)
        let notGGUF = try mailsearch(["show", "t1", "--summary", "--llm-model", text3.path], model: modelDir)
        XCTAssertNotEqual(notGGUF.status, 0)
        XCTAssertTrue(notGGUF.stderr.contains("is not a GGUF file"), notGGUF.stderr)
        let gguf = work.appendingPathComponent("model.gguf")
        try Data("GGUF".utf8 + [UInt8](repeating: 0, count: 32)).write(to: gguf)
        let fallback = try mailsearch(["show", "t1", "--summary", "--llm-model", gguf.path,
                                       "--llm-library", work.appendingPathComponent("none.so").path], model: modelDir)
        XCTAssertEqual(fallback.status, 0, fallback.stderr)
        XCTAssertTrue(fallback.stdout.contains("No summary from the local model (the local model library is not installed"), fallback.stdout)
        XCTAssertTrue(fallback.stdout.contains("• Waiting on Bob Stone: Could you book the room for April 17 by Friday?"), fallback.stdout)
        XCTAssertNotEqual(try mailsearch(["show", "e3", "--llm-model", gguf.path], model: modelDir).status, 0)

        // Misuse is refused by the argument parser; without the model, a sentence that says what to do.
        XCTAssertNotEqual(try mailsearch(["show", "e3", "--summary"], model: modelDir).status, 0)
        let noModel = try mailsearch(["show", "t1", "--summary"])
        XCTAssertNotEqual(noModel.status, 0)
        XCTAssertTrue(noModel.stderr.contains("mailsearch model install"), noModel.stderr)
    }
}
