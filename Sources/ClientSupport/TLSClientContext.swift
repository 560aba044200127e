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

/// A connection failure from NIO or NIOSSL, in words for the user (the messages of both carry no
/// secrets); each client turns it into its own error.
public struct ConnectionFailure: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case certificateRejected, tlsFailed, connectionClosed
    }

    public var kind: Kind
    public var message: String

    /// - Parameter tlsHint: added to handshake and TLS library failures (what to check, e.g. the port).
    public init(_ error: any Error, endpoint: String, tlsHint: String? = nil) {
        let hint = tlsHint.map { "; " + $0 } ?? ""
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            self.init(kind: .certificateRejected, message: "the TLS certificate of \(endpoint) does not name that host (\(error))")
        } else if let error = error as? NIOSSLError {
            switch error {
            case .handshakeFailed(let inner):
                let text = String(describing: inner)
                if text.contains("CERTIFICATE_VERIFY_FAILED") {
                    self.init(kind: .certificateRejected,
                              message: "the TLS certificate of \(endpoint) is not signed by a trusted authority; "
                                  + "if the server uses its own certificate authority, pass that CA's certificate with --ca-file (\(text))")
                } else {
                    self.init(kind: .tlsFailed, message: "the TLS handshake with \(endpoint) failed: \(text)\(hint)")
                }
            case .uncleanShutdown:
                self.init(kind: .connectionClosed, message: "the connection to \(endpoint) was cut (TLS ended without its close)")
            default:
                self.init(kind: .tlsFailed, message: "TLS with \(endpoint) failed: \(error)")
            }
        } else if error is BoringSSLError {
            self.init(kind: .tlsFailed, message: "TLS with \(endpoint) failed: \(error)\(hint)")
        } else {
            self.init(kind: .connectionClosed, message: "the connection to \(endpoint) failed: \(error)")
        }
    }

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }
}
