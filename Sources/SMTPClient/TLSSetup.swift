import ClientSupport
import NIOSSL

enum TLSSetup {
    /// `TLSClientContext.make`, its failure as a `.tlsFailed` SMTPClientError.
    static func makeContext(_ configuration: SMTPClientConfiguration) throws(SMTPClientError) -> NIOSSLContext {
        do {
            return try TLSClientContext.make(caFile: configuration.caFile, endpoint: configuration.endpoint)
        } catch {
            throw SMTPClientError(kind: .tlsFailed, message: error.message)
        }
    }

    static func serverHostname(for host: String) -> String? { TLSClientContext.serverHostname(for: host) }
}
