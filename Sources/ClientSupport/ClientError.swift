import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// The failures the shared plumbing finds. Each is a kind of both clients' errors by the same name
/// (`IMAPClientError.Kind`, `SMTPClientError.Kind`), which is how a client turns one into its own.
public enum ClientFailureKind: String, Sendable, CaseIterable {
    /// TCP could not connect (refused, unreachable, unknown host).
    case connectionFailed
    /// TLS could not be set up (handshake, TLS library, CA file).
    case tlsFailed
    /// The server's certificate is not signed by a trusted root or does not name the host.
    case certificateRejected
    /// No connection within the connect timeout, or the server silent for longer than the response timeout.
    case timedOut
    /// The connection ended (reset, closed by either side).
    case connectionClosed
    /// The server's bytes broke the protocol's grammar, or it answered out of turn.
    case protocolViolation
    /// The task was cancelled.
    case cancelled
}

/// A client's own error type (`IMAPClientError`, `SMTPClientError`), made by the shared plumbing.
public protocol ClientError: Error, Sendable {
    /// An error of the client's kind named like `kind`, with `message` (for the user; no secrets).
    init(_ kind: ClientFailureKind, message: String)
}

/// A connection failure from NIO or NIOSSL, in words for the user (the messages of both carry no
/// secrets); each client turns it into its own error.
public struct ConnectionFailure: Sendable, Equatable {
    public var kind: ClientFailureKind
    public var message: String

    /// A failure of an open connection (a read, a write, TLS).
    /// - Parameter tlsHint: added to handshake and TLS library failures (what to check, e.g. the port).
    public init(_ error: any Error, endpoint: String, tlsHint: String? = nil) {
        let hint = tlsHint.map { "; " + $0 } ?? ""
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            self.init(kind: .certificateRejected, message: "the TLS certificate of \(endpoint) does not name that host (\(error))")
        } else if let error = error as? NIOSSLError {
            switch error {
            case .handshakeFailed(let inner):
                let text = String(describing: inner)
                if text.contains("EOF during handshake") {
                    // The server closed the connection mid-handshake (it stopped, or restarted): a cut
                    // connection, worth another attempt, not a TLS setting to change.
                    self.init(kind: .connectionClosed, message: "the connection to \(endpoint) was closed during the TLS handshake (\(text))")
                } else if text.contains("CERTIFICATE_VERIFY_FAILED") {
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

    public init(kind: ClientFailureKind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// A failed connection attempt (TCP, and TLS at once for implicit TLS): the connect timeout,
    /// TLS and certificate failures as they are, anything else as `.connectionFailed` with the reason in words.
    /// - Parameter hint: added to the timeout and to the reason (what to check, e.g. the host name and port).
    public init(connecting error: any Error, endpoint: String, connectTimeout: TimeAmount, tlsHint: String? = nil, hint: String? = nil) {
        let suffix = hint.map { "; " + $0 } ?? ""
        if let error = error as? ChannelError {
            if case .connectTimeout = error {
                self.init(kind: .timedOut, message: "cannot connect to \(endpoint) within \(Self.seconds(connectTimeout))\(suffix)")
            } else {
                self.init(kind: .connectionFailed, message: "cannot connect to \(endpoint): \(error)")
            }
            return
        }
        let failure = ConnectionFailure(error, endpoint: endpoint, tlsHint: tlsHint)
        if failure.kind == .tlsFailed || failure.kind == .certificateRejected {
            self = failure
        } else {
            self.init(kind: .connectionFailed, message: "cannot connect to \(endpoint): \(Self.reason(error))\(suffix)")
        }
    }

    /// The client's own error.
    public func error<Failure: ClientError>(as _: Failure.Type = Failure.self) -> Failure {
        Failure(kind, message: message)
    }

    /// An error from NIO or NIOSSL as the client's error; the client's own errors as they are.
    public static func classify<Failure: ClientError>(_ error: any Error, endpoint: String, tlsHint: String? = nil) -> Failure {
        if let error = error as? Failure { return error }
        return ConnectionFailure(error, endpoint: endpoint, tlsHint: tlsHint).error()
    }

    /// Why a connection attempt failed, in words: "Connection refused", "the host name does not
    /// resolve", rather than NIO's description of its attempts.
    public static func reason(_ error: any Error) -> String {
        if let failure = error as? NIOConnectionError {
            if let first = failure.connectionErrors.first { return reason(first.error) }
            if failure.dnsAError != nil || failure.dnsAAAAError != nil { return "the host name \(failure.host) does not resolve" }
            return "no address to connect to for \(failure.host)"
        }
        if let io = error as? IOError { return String(cString: strerror(io.errnoCode)) }
        return "\(error)"
    }

    /// A duration for messages: `5 s`, `0.5 s`.
    public static func seconds(_ amount: TimeAmount) -> String {
        let seconds = Double(amount.nanoseconds) / 1e9
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }
}
