import Foundation

/// Where `mailsearch serve` listens and who may talk to it.
public struct ServerConfiguration: Sendable {
    /// The default address: loopback only.
    public static let defaultHost = "127.0.0.1"
    public static let defaultPort = 8025

    /// The address to bind (an IPv4/IPv6 literal or a name; `[::1]` and `::1` alike).
    public var host: String
    /// The port to bind; 0 lets the system choose.
    public var port: Int
    /// When set, every request needs `Authorization: Bearer <token>`. Required off loopback.
    public var token: String?
    /// Host names besides the bound host and the loopback names that the `Host` header may name
    /// (for a server bound to 0.0.0.0 and reached by the machine's name or LAN address).
    public var allowedHosts: [String]
    /// Serve the search page's files from this folder instead of the copies in the binary.
    public var webDirectory: String?
    /// Opening a conversation through the API marks it read (as a mail client does).
    public var markReadOnOpen: Bool

    public init(host: String = ServerConfiguration.defaultHost, port: Int = ServerConfiguration.defaultPort,
                token: String? = nil, allowedHosts: [String] = [], webDirectory: String? = nil, markReadOnOpen: Bool = true) {
        self.markReadOnOpen = markReadOnOpen
        self.host = host
        self.port = port
        self.token = token
        self.allowedHosts = allowedHosts
        self.webDirectory = webDirectory
    }

    /// The bound host without IPv6 brackets, lowercased.
    public var bareHost: String { Self.bare(host) }

    /// Whether the server is reachable from this machine only.
    public var isLoopback: Bool { Self.isLoopback(host) }

    /// `http://host:port`, IPv6 literals in brackets.
    public func url(port actualPort: Int? = nil) -> String {
        let name = bareHost.contains(":") ? "[\(bareHost)]" : bareHost
        return "http://\(name):\(actualPort ?? port)"
    }

    /// Refuses a configuration that would expose mail: a non-loopback address without a token,
    /// an empty or malformed token, a port out of range.
    public func validate() throws {
        guard !bareHost.isEmpty else { throw ServerConfigurationError("--host is empty") }
        guard (0...65_535).contains(port) else {
            throw ServerConfigurationError("--port \(port) is not a TCP port (0–65535)")
        }
        if let token {
            guard !token.isEmpty else {
                throw ServerConfigurationError("the token is empty", hint: "pass a long random string, e.g. `--token $(openssl rand -hex 32)`")
            }
            guard token.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
                throw ServerConfigurationError("the token must be printable ASCII without spaces",
                                               hint: "use e.g. `--token $(openssl rand -hex 32)`")
            }
        }
        if let webDirectory {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: webDirectory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ServerConfigurationError("--web-dir \(webDirectory) is not a folder")
            }
        }
        if !isLoopback && token == nil {
            throw ServerConfigurationError(
                "refusing to serve on \(host), which other machines can reach, without a token",
                hint: "keep the default --host 127.0.0.1, or pass --token (or set MAILSEARCH_TOKEN) so every request must carry it")
        }
    }

    /// Whether `host` names this machine's loopback interface only (127.0.0.0/8, ::1, localhost).
    public static func isLoopback(_ host: String) -> Bool {
        let name = bare(host)
        if name == "localhost" || name == "::1" || name == "0:0:0:0:0:0:0:1" { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4, parts[0] == "127", parts.allSatisfy({ p in p.count <= 3 && !p.isEmpty && p.allSatisfy(\.isASCII) && UInt8(p) != nil }) {
            return true
        }
        return false
    }

    /// `[::1]` → `::1`; lowercased; surrounding white space removed.
    static func bare(_ host: String) -> String {
        var name = host.trimmingCharacters(in: .whitespaces).lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        return name
    }
}

/// A configuration `mailsearch serve` refuses to start with.
public struct ServerConfigurationError: Error, CustomStringConvertible, Equatable {
    public var message: String
    public var hint: String?

    public init(_ message: String, hint: String? = nil) {
        self.message = message
        self.hint = hint
    }

    public var description: String { hint.map { "\(message) (\($0))" } ?? message }
}
