import ArgumentParser
import Foundation
import MailStore

/// Options every data command takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The data directory holding mail.sqlite and search.sqlite.",
                                            discussion: "Default: $MAILSEARCH_DATA_DIR, else $XDG_DATA_HOME/mailsearch, else ~/.local/share/mailsearch.",
                                            valueName: "path"))
    var dataDir: String?

    @Flag(name: .long, help: "Print machine-readable JSON instead of text.")
    var json = false

    var dataDirectory: DataDirectory { DataDirectory.resolve(explicit: dataDir) }

    /// Opens the store; `readOnly` for commands that only read (mail.sqlite stays byte-identical).
    func openStore(readOnly: Bool = false) throws -> MailStore {
        do {
            return try MailStore(directory: dataDirectory, readOnly: readOnly)
        } catch {
            throw CLIError("\(error)")
        }
    }
}

/// An error shown to the user as `error: MESSAGE` with exit code 1.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}

enum Output {
    /// Encodes `value` as pretty, key-sorted JSON with ISO-8601 dates and prints it.
    static func printJSON<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(value)
        FileHandle.standardOutput.write(data)
        FileHandle.standardOutput.write(Data("\n".utf8))
    }

    static func compactJSON<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func bytes(_ n: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: n, countStyle: .file)
    }

    /// One formatter for every line (making one costs more than formatting).
    private static let dateFormatter: DateFormatter = {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyy-MM-dd HH:mm"
        return f
    }()

    static func date(_ d: Date?) -> String {
        guard let d else { return "—" }
        return dateFormatter.string(from: d)
    }

    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) != 0 }
    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }
}
