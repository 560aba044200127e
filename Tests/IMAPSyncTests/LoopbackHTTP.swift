import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One HTTP/1.1 request to 127.0.0.1:port over a plain socket (no Origin header, `Connection: close`),
/// as a script would send it: the tests' way to `serve` and to the OAuth test server.
enum LoopbackHTTP {
    struct Answer {
        var status: Int
        /// The status line and the header fields.
        var head: String
        /// The body, de-chunked.
        var body: String
    }

    /// The whole answer as it came (status line, headers, body as sent).
    static func exchange(port: Int, method: String = "GET", path: String, contentType: String? = nil, body: Data = Data(),
                     timeout: Int = 90) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if let contentType { head += "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n" }
        let bytes = Array((head + "\r\n").utf8) + Array(body)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var answer = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            answer += buffer[0..<n]
        }
        return String(decoding: answer, as: UTF8.self)
    }

    /// `exchange`, its answer split into status, head and (de-chunked) body.
    static func request(port: Int, method: String = "GET", path: String, contentType: String? = nil, body: Data = Data()) throws -> Answer {
        let text = try exchange(port: port, method: method, path: path, contentType: contentType, body: body)
        guard let split = text.range(of: "\r\n\r\n"), let status = Int(text.split(separator: " ").dropFirst().first ?? "") else {
            throw NSError(domain: "LoopbackHTTP", code: 1, userInfo: [NSLocalizedDescriptionKey: "no HTTP answer: \(text.prefix(300))"])
        }
        let head = String(text[..<split.lowerBound])
        var content = String(text[split.upperBound...])
        if head.lowercased().contains("transfer-encoding: chunked") { content = dechunk(content) }
        return Answer(status: status, head: head, body: content)
    }

    static func dechunk(_ body: String) -> String {
        var bytes = Array(body.utf8)[...]
        var out: [UInt8] = []
        while let lineEnd = bytes.firstIndex(of: 13) {
            let size = Int(String(decoding: bytes[bytes.startIndex..<lineEnd], as: UTF8.self), radix: 16) ?? 0
            if size == 0 { break }
            let start = lineEnd + 2
            out += bytes[start..<min(start + size, bytes.endIndex)]
            bytes = bytes[min(start + size + 2, bytes.endIndex)...]
        }
        return String(decoding: out, as: UTF8.self)
    }
}
