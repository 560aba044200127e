import Foundation
import NIOCore
import NIOSSL

/// TLS for the mail clients (IMAP, SMTP): the client context and the name to verify.
public enum TLSClientContext {
    /// Why a context could not be made, in words for the user; each client wraps it in its own error.
    public struct Failure: Error, Sendable {
        public let message: String
    }

    /// A client context: the system's roots, plus the CA file's certificates when given;
    /// full verification (chain and host name or IP address).
    public static func make(caFile: String?, endpoint: String) throws(Failure) -> NIOSSLContext {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .fullVerification
        tls.trustRoots = .default
        if let caFile {
            let certificates: [NIOSSLCertificate]
            do {
                certificates = try NIOSSLCertificate.fromPEMFile(caFile)
            } catch {
                throw Failure(message: "cannot read the CA file \(caFile) (a PEM certificate is expected): \(error)")
            }
            guard !certificates.isEmpty else {
                throw Failure(message: "the CA file \(caFile) holds no PEM certificate")
            }
            tls.additionalTrustRoots = [.certificates(certificates)]
        }
        do {
            return try NIOSSLContext(configuration: tls)
        } catch {
            throw Failure(message: "cannot set up TLS for \(endpoint): \(error)")
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
}
