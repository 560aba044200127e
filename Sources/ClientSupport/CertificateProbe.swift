import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// What a server's TLS certificate says, for an error about it: "the certificate of mail.example.com
/// names *.other.example, issued by Example CA". Read with a handshake that accepts any certificate,
/// used only to describe one that was refused (never to log in).
public struct CertificateSummary: Sendable, Equatable, CustomStringConvertible {
    /// The subject's common name and organization (`CN=…, O=…`).
    public var subject: String?
    /// The issuer's common name and organization.
    public var issuer: String?
    /// The DNS names and addresses it is valid for (subjectAltName).
    public var names: [String]
    public var notAfter: Date?
    /// Whether subject and issuer are the same (a self-signed certificate).
    public var selfSigned: Bool { subject != nil && subject == issuer }

    public var description: String {
        var parts: [String] = []
        let named = names.isEmpty ? subject.map { "\($0)" } : names.prefix(4).joined(separator: ", ") + (names.count > 4 ? " …" : "")
        if let named { parts.append("it names \(named)") }
        if selfSigned {
            parts.append("it is self-signed")
        } else if let issuer {
            parts.append("issued by \(issuer)")
        }
        if let notAfter, notAfter < Date() {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withFullDate]
            parts.append("it expired on \(formatter.string(from: notAfter))")
        }
        return parts.joined(separator: "; ")
    }
}

public enum CertificateProbe {
    /// How TLS starts on the port: at once, or after the protocol's STARTTLS.
    public enum Start: Sendable { case implicit, imapStartTLS, smtpStartTLS }

    /// The server's leaf certificate, or nil when it cannot be had within `timeout`.
    public static func certificate(host: String, port: Int, start: Start, timeout: TimeAmount = .seconds(10)) async -> CertificateSummary? {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .noHostnameVerification
        guard let context = try? NIOSSLContext(configuration: configuration) else { return nil }
        let group = MultiThreadedEventLoopGroup.singleton
        let promise = group.next().makePromise(of: [UInt8].self)
        let hostname = TLSClientContext.isIPAddress(host) ? nil : host
        let addTLS: @Sendable (Channel) -> EventLoopFuture<Void> = { channel in
            channel.eventLoop.makeCompletedFuture {
                let handler = try NIOSSLClientHandler(context: context, serverHostname: hostname) { chain, verified in
                    if let leaf = chain.first, let der = try? leaf.toDERBytes() { promise.succeed(der) }
                    // Described, not trusted: the handshake goes on only to be closed.
                    verified.succeed(NIOSSLVerificationResult.failed)
                }
                try channel.pipeline.syncOperations.addHandler(handler)
            }
        }
        let timer = group.next().scheduleTask(in: timeout) { promise.fail(ChannelError.connectTimeout(timeout)) }
        defer { timer.cancel() }
        var channel: Channel?
        do {
            switch start {
            case .implicit:
                channel = try await ClientBootstrap(group: group).connectTimeout(timeout)
                    .channelInitializer(addTLS).connect(host: host, port: port).get()
            case .imapStartTLS, .smtpStartTLS:
                let descriptor = try plainStartTLS(host: host, port: port, smtp: start == .smtpStartTLS,
                                                   seconds: Int(timeout.nanoseconds / 1_000_000_000))
                channel = try await ClientBootstrap(group: group).channelInitializer(addTLS).withConnectedSocket(descriptor).get()
            }
            let der = try await promise.futureResult.get()
            channel?.close(promise: nil)
            return summary(der: der)
        } catch {
            promise.fail(error)
            channel?.close(promise: nil)
            return nil
        }
    }

    /// Connects, and speaks the protocol up to its yes to STARTTLS, with blocking calls (a few lines each
    /// way); returns the socket, ready for the handshake.
    static func plainStartTLS(host: String, port: Int, smtp: Bool, seconds: Int) throws -> CInt {
        var hints = addrinfo()
        hints.ai_socktype = CInt(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else { throw ChannelError.connectPending }
        defer { freeaddrinfo(found) }
        let fd = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard fd >= 0 else { throw ChannelError.connectPending }
        var limit = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard connect(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            close(fd)
            throw ChannelError.connectPending
        }
        var pending = ""
        func line() -> String? {
            var byte: UInt8 = 0
            while !pending.hasSuffix("\r\n") {
                guard recv(fd, &byte, 1, 0) == 1, pending.utf8.count < 4096 else { return nil }
                pending.append(Character(UnicodeScalar(byte)))
            }
            defer { pending = "" }
            return String(pending.dropLast(2))
        }
        func say(_ text: String) { _ = Array(text.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) } }
        var agreed = false
        if smtp {
            while let reply = line(), reply.count >= 4 { if reply.dropFirst(3).first == " " { break } }  // the greeting
            say("EHLO mailsearch\r\n")
            while let reply = line(), reply.count >= 4 { if reply.dropFirst(3).first == " " { break } }
            say("STARTTLS\r\n")
            agreed = line()?.hasPrefix("220") == true
        } else {
            _ = line()  // the greeting
            say("P1 STARTTLS\r\n")
            while let reply = line() {
                if reply.hasPrefix("P1 ") { agreed = reply.hasPrefix("P1 OK"); break }
            }
        }
        guard agreed else {
            close(fd)
            throw ChannelError.connectPending
        }
        // Back to blocking-free for NIO.
        limit = timeval(tv_sec: 0, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    // MARK: DER

    /// The subject, issuer, names and expiry of a DER certificate (X.509: TBSCertificate's fields in order).
    public static func summary(der: [UInt8]) -> CertificateSummary? {
        guard let certificate = element(der[...]), certificate.tag == 0x30,
              let tbs = element(certificate.value), tbs.tag == 0x30 else { return nil }
        var fields: [(tag: UInt8, value: ArraySlice<UInt8>)] = []
        var rest = tbs.value
        while let field = element(rest) {
            fields.append((field.tag, field.value))
            rest = field.rest
        }
        if fields.first?.tag == 0xA0 { fields.removeFirst() }  // version
        // serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo, [3] extensions
        guard fields.count >= 6 else { return nil }
        let issuer = name(fields[2].value)
        let subject = name(fields[4].value)
        var notAfter: Date?
        if let from = element(fields[3].value), let to = element(from.rest) { notAfter = time(to.tag, to.value) }
        var names: [String] = []
        if let extensions = fields.first(where: { $0.tag == 0xA3 }), let list = element(extensions.value) {
            var items = list.value
            while let item = element(items) {
                items = item.rest
                guard let oid = element(item.value), Array(oid.value) == [0x55, 0x1D, 0x11] else { continue }  // subjectAltName
                var value = oid.rest
                if let critical = element(value), critical.tag == 0x01 { value = critical.rest }
                guard let octets = element(value), let sequence = element(octets.value) else { continue }
                var general = sequence.value
                while let entry = element(general) {
                    general = entry.rest
                    if entry.tag == 0x82 { names.append(String(decoding: entry.value, as: UTF8.self)) }
                    if entry.tag == 0x87, entry.value.count == 4 { names.append(entry.value.map(String.init).joined(separator: ".")) }
                }
            }
        }
        return CertificateSummary(subject: subject, issuer: issuer, names: names, notAfter: notAfter)
    }

    /// `CN=…, O=…` of a Name (only those two attributes).
    static func name(_ sequence: ArraySlice<UInt8>) -> String? {
        var parts: [String] = []
        var sets = sequence
        while let set = element(sets) {
            sets = set.rest
            guard let pair = element(set.value), let oid = element(pair.value), let value = element(oid.rest) else { continue }
            let text = String(decoding: value.value, as: UTF8.self)
            switch Array(oid.value) {
            case [0x55, 0x04, 0x03]: parts.insert("CN=\(text)", at: 0)
            case [0x55, 0x04, 0x0A]: parts.append("O=\(text)")
            default: break
            }
        }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    static func time(_ tag: UInt8, _ value: ArraySlice<UInt8>) -> Date? {
        let text = String(decoding: value, as: UTF8.self)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = tag == 0x17 ? "yyMMddHHmmss'Z'" : "yyyyMMddHHmmss'Z'"
        return formatter.date(from: text)
    }

    /// One DER element: its tag, its contents and what follows it.
    static func element(_ bytes: ArraySlice<UInt8>) -> (tag: UInt8, value: ArraySlice<UInt8>, rest: ArraySlice<UInt8>)? {
        guard bytes.count >= 2 else { return nil }
        let tag = bytes[bytes.startIndex]
        var index = bytes.startIndex + 1
        var length = Int(bytes[index])
        index += 1
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard count >= 1, count <= 4, bytes.endIndex - index >= count else { return nil }
            length = 0
            for _ in 0..<count {
                length = length << 8 | Int(bytes[index])
                index += 1
            }
        }
        guard length >= 0, bytes.endIndex - index >= length else { return nil }
        return (tag, bytes[index..<(index + length)], bytes[(index + length)...])
    }
}
