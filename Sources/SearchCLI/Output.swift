import Foundation

/// An error shown to the user as `Error: MESSAGE` with exit code 1.
public struct CLIError: Error, CustomStringConvertible {
    public let description: String
    public init(_ message: String) { description = message }
}

public enum Output {
    /// Encodes `value` as pretty, key-sorted JSON with ISO-8601 dates and prints it.
    public static func printJSON<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(value)
        FileHandle.standardOutput.write(data)
        FileHandle.standardOutput.write(Data("\n".utf8))
    }

    public static func compactJSON<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    public static func bytes(_ n: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: n, countStyle: .file)
    }

    /// One formatter for every line (making one costs more than formatting).
    private static let dateFormatter: DateFormatter = {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyy-MM-dd HH:mm"
        return f
    }()

    public static func date(_ d: Date?) -> String {
        guard let d else { return "—" }
        return dateFormatter.string(from: d)
    }

    public static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) != 0 }
    public static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }
}
