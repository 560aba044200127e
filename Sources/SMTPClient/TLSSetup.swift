import Foundation
import NIOCore
import NIOSSL

enum TLSSetup {
    /// A client context: the system's roots, plus the CA file's certificates when given;
    /// full verification (chain and host name or IP address).
    static func makeContext(_ configuration: SMTPClientConfiguration) throws(SMTPClientError) -> NIOSSLContext {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .fullVerification
        tls.trustRoots = .default
        if let caFile = configuration.caFile {
            let certificates: [NIOSSLCertificate]
            do {
                certificates = try NIOSSLCertificate.fromPEMFile(caFile)
            } catch {
                throw SMTPClientError(kind: .tlsFailed, message: "cannot read the CA file \(caFile) (a PEM certificate is expected): \(error)")
            }
            guard !certificates.isEmpty else {
                throw SMTPClientError(kind: .tlsFailed, message: "the CA file \(caFile) holds no PEM certificate")
            }
            tls.additionalTrustRoots = [.certificates(certificates)]
        }
        do {
            return try NIOSSLContext(configuration: tls)
        } catch {
            throw SMTPClientError(kind: .tlsFailed, message: "cannot set up TLS for \(configuration.endpoint): \(error)")
        }
    }

    /// The name to send (SNI) and verify: nil for an IP address, whose certificate must then
    /// name that address (NIOSSL checks the IP SANs against the peer's address).
    static func serverHostname(for host: String) -> String? {
        isIPAddress(host) ? nil : host
    }

    static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return host.withCString { inet_pton(AF_INET, $0, &v4) == 1 || inet_pton(AF_INET6, $0, &v6) == 1 }
    }
}
