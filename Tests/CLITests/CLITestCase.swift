import Foundation
import XCTest

/// Runs the built `mailsearch` binary, each test in its own data directory.
class CLITestCase: XCTestCase {
    var work: URL!

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    static var binary: URL {
        let env = ProcessInfo.processInfo.environment["MAILSEARCH_BINARY"]
        return env.map(URL.init(fileURLWithPath:)) ?? packageRoot.appendingPathComponent(".build/debug/mailsearch")
    }

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary.path) else {
            throw XCTSkip("no built binary at \(Self.binary.path); run `swift build` first")
        }
        work = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let work { try? FileManager.default.removeItem(at: work) }
    }

    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs the binary with `arguments` and waits.
    @discardableResult
    func mailsearch(_ arguments: [String], dataDir: String = "data", model: String? = nil) throws -> Outcome {
        let process = try start(arguments, dataDir: dataDir, model: model)
        let out = process.standardOutput as! Pipe
        let err = process.standardError as! Pipe
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                       stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Starts the binary; without `model`, it sees no embedding model (keyword-only).
    func start(_ arguments: [String], dataDir: String = "data", model: String? = nil) throws -> Process {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["MAILSEARCH_DATA_DIR"] = work.appendingPathComponent(dataDir).path
        env["MAILSEARCH_MODEL_DIR"] = model ?? work.appendingPathComponent("no-model").path
        process.environment = env
        process.standardOutput = Pipe()
        process.standardError = Pipe()
        try process.run()
        return process
    }

    /// The installed embedding model's folder; the test is skipped without one (a failure when
    /// `MAILSEARCH_REQUIRE_MODEL=1`, as in `make test`).
    func installedModel() throws -> String {
        let modelDir = ProcessInfo.processInfo.environment["MAILSEARCH_MODEL_DIR"]
            ?? (NSHomeDirectory() + "/.cache/mailsearch/models/all-MiniLM-L6-v2")
        guard FileManager.default.fileExists(atPath: modelDir + "/model.safetensors") else {
            if ProcessInfo.processInfo.environment["MAILSEARCH_REQUIRE_MODEL"] == "1" { XCTFail("no model at \(modelDir)") }
            throw XCTSkip("no model at \(modelDir)")
        }
        return modelDir
    }

    /// How many emails have an embedding, from `index status --json`.
    func embeddedEmails(model: String) throws -> Int {
        let status = try mailsearch(["index", "status", "--json"], model: model)
        XCTAssertEqual(status.status, 0, status.stderr)
        let json = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as! [String: Any]
        return try XCTUnwrap(json["embeddedEmails"] as? Int)
    }

    /// Writes an mbox of `count` messages: threads of up to five replies, a few without Message-ID.
    func writeMbox(count: Int, name: String = "mail.mbox") throws -> String {
        var text = ""
        for i in 0..<count {
            let thread = i / 5
            let pos = i % 5
            text += "From sender\(i)@example.com Mon Mar  4 14:11:14 2024\n"
            // A few replies carry no Message-ID (identified by content hash); roots always have one,
            // since a root without an id cannot be linked by its replies' References.
            if !(pos == 3 && thread % 7 == 0) { text += "Message-ID: <m\(i)@example.com>\n" }
            if pos > 0 {
                text += "In-Reply-To: <m\(i - 1)@example.com>\nReferences: <m\(thread * 5)@example.com> <m\(i - 1)@example.com>\n"
            }
            let day = 1 + (i % 28)
            text += "From: Person \(i % 13) <p\(i % 13)@example.com>\nTo: me@example.com\n"
            text += "Subject: \(pos > 0 ? "Re: " : "")Topic \(thread) budget\nDate: \(day) Mar 2024 10:00:00 +0000\n\n"
            text += "Body \(i) about the quarterly budget and thread \(thread).\n>From the archive line\n\n"
        }
        let path = work.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}
