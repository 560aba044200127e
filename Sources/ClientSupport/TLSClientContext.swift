import Foundation
import NIOCore
import NIOSSL

/// TLS for the mail clients (IMAP, SMTP): the client context, the name to verify, and the handler
/// that starts TLS on a channel (at once for implicit TLS, after the server's yes for STARTTLS).
public enum TLSClientContext {
    /// A client context: the system's roots, plus the CA file's certificates when given;
    /// full verification (chain and host name or IP address). A failure is the client's `.tlsFailed`.
    public static func make<Failure: ClientError>(caFile: String?, endpoint: String, as _: Failure.Type) throws(Failure) -> NIOSSLContext {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .fullVerification
        tls.trustRoots = .default
        if let caFile {
            let certificates: [NIOSSLCertificate]
            do {
                certificates = try NIOSSLCertificate.fromPEMFile(caFile)
            } catch {
                throw Failure(.tlsFailed, message: "cannot read the CA file \(caFile) (a PEM certificate is expected): \(error)")
            }
            guard !certificates.isEmpty else {
                throw Failure(.tlsFailed, message: "the CA file \(caFile) holds no PEM certificate")
            }
            tls.additionalTrustRoots = [.certificates(certificates)]
        }
        do {
            return try NIOSSLContext(configuration: tls)
        } catch {
            throw Failure(.tlsFailed, message: "cannot set up TLS for \(endpoint): \(error)")
        }
    }

    /// The name to send (SNI) and verify: nil for an IP address, whose certificate must then
    /// name that address (NIOSSL checks the IP SANs against the peer's address).
    public static func serverHostname(for host: String) -> String? {
        isIPAddress(host) ? nil : host
    }

    public static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return host.withCString { inet_pton(AF_INET, $0, &v4) == 1 || inet_pton(AF_INET6, $0, &v6) == 1 }
    }

    /// Starts TLS on a channel: a `NIOSSLClientHandler` at the front of the pipeline, so that every
    /// byte read or written from now on goes through it. Its ClientHello goes out at once on an
    /// active channel (STARTTLS), or when the channel becomes active (implicit TLS).
    public static func addHandler(
        to pipeline: ChannelPipeline.SynchronousOperations, context: NIOSSLContext, serverHostname: String?
    ) throws {
        try pipeline.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverHostname), position: .first)
    }
}

/// What a client asks of STARTTLS: which answer is the one (`key`: IMAP's command tag; SMTP has
/// none, its next reply is the answer), and the TLS to start when that answer says yes.
public struct StartTLSRequest<Key: Sendable>: Sendable {
    public var key: Key
    public var context: NIOSSLContext
    public var serverHostname: String?

    public init(key: Key, context: NIOSSLContext, serverHostname: String?) {
        self.key = key
        self.context = context
        self.serverHostname = serverHostname
    }
}
