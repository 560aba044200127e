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

    /// "yyyy-MM-dd HH:mm" in the local time zone (`TZ`), through the C library: a `DateFormatter`
    /// would load ICU's calendar and locale data, most of a millisecond of a one-shot search.
    public static func date(_ d: Date?) -> String {
        guard let d else { return "—" }
        var seconds = time_t(d.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return "—" }
        func padded(_ n: Int32, _ width: Int) -> String {
            let digits = String(n)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(parts.tm_year + 1900, 4))-\(padded(parts.tm_mon + 1, 2))-\(padded(parts.tm_mday, 2)) "
            + "\(padded(parts.tm_hour, 2)):\(padded(parts.tm_min, 2))"
    }

    /// `value` with `digits` decimals, as `String(format: "%.Nf", value)` writes it (the C
    /// library's rounding), without Foundation's formatter: its first use sets up CoreFoundation,
    /// most of a millisecond of a one-shot search.
    public static func fixed(_ value: Double, digits: Int) -> String {
        #if canImport(Glibc)
        var buffer = [CChar](repeating: 0, count: 352)
        let format = "%.\(max(0, min(digits, 17)))f"
        let written = strfromd(&buffer, buffer.count, format, value)
        guard written >= 0, written < buffer.count else { return String(format: format, value) }
        return String(decoding: buffer[..<Int(written)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #else
        return String(format: "%.\(digits)f", value)
        #endif
    }

    public static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) != 0 }
    public static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }
}

#if canImport(Glibc)
/// glibc's `strfromd` (C23; <stdlib.h> declares it only under feature macros the Glibc module does not set).
@_silgen_name("strfromd")
private func strfromd(_ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ format: UnsafePointer<CChar>, _ value: Double) -> Int32
#endif
