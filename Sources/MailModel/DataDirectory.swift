import Foundation

/// Where MailSearch keeps `mail.sqlite` and `search.sqlite`.
///
/// Resolution order: an explicit path (`--data-dir`), `MAILSEARCH_DATA_DIR`,
/// `$XDG_DATA_HOME/mailsearch`, `~/.local/share/mailsearch` (Application Support on macOS).
public struct DataDirectory: Sendable, Hashable {
    public let url: URL

    public init(url: URL) { self.url = url }

    public static func resolve(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> DataDirectory {
        if let explicit, !explicit.isEmpty { return DataDirectory(url: URL(fileURLWithPath: explicit)) }
        if let env = environment["MAILSEARCH_DATA_DIR"], !env.isEmpty { return DataDirectory(url: URL(fileURLWithPath: env)) }
        #if os(macOS)
        let base = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent("Library/Application Support")
        return DataDirectory(url: base.appendingPathComponent("MailSearch"))
        #else
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            return DataDirectory(url: URL(fileURLWithPath: xdg).appendingPathComponent("mailsearch"))
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return DataDirectory(url: URL(fileURLWithPath: home).appendingPathComponent(".local/share/mailsearch"))
        #endif
    }

    #if !os(macOS)
    /// The path `resolve` picks, as a string, read from `variable` (the environment); nil when
    /// `HOME` is missing or empty (`resolve` then asks the user database, or resolves a relative
    /// path). No URL and no copy of the environment, for a one-shot search.
    public static func path(explicit: String?, variable: (String) -> String?) -> String? {
        if let explicit, !explicit.isEmpty { return explicit }
        if let env = variable("MAILSEARCH_DATA_DIR"), !env.isEmpty { return env }
        if let xdg = variable("XDG_DATA_HOME"), !xdg.isEmpty { return xdg + "/mailsearch" }
        guard let home = variable("HOME"), !home.isEmpty else { return nil }
        return home + "/.local/share/mailsearch"
    }
    #endif

    public var mailDatabaseURL: URL { url.appendingPathComponent("mail.sqlite") }
    public var searchDatabaseURL: URL { url.appendingPathComponent("search.sqlite") }

    /// Creates the directory when missing.
    public func create() throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
}
