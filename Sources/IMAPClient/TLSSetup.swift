import ClientSupport
import NIOSSL

enum TLSSetup {
    /// `TLSClientContext.make`, its failure as a `.tlsFailed` IMAPClientError.
    static func makeContext(_ configuration: IMAPClientConfiguration) throws(IMAPClientError) -> NIOSSLContext {
        do {
            return try TLSClientContext.make(caFile: configuration.caFile, endpoint: configuration.endpoint)
        } catch {
            throw IMAPClientError(kind: .tlsFailed, message: error.message)
        }
    }

    static func serverHostname(for host: String) -> String? { TLSClientContext.serverHostname(for: host) }
}
