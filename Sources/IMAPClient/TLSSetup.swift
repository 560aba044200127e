import ClientSupport
import NIOSSL

enum TLSSetup {
    /// `TLSClientContext.make` for `configuration` (the tests of the channel handler; `connect` makes its own).
    static func makeContext(_ configuration: IMAPClientConfiguration) throws(IMAPClientError) -> NIOSSLContext {
        try TLSClientContext.make(caFile: configuration.caFile, endpoint: configuration.endpoint, as: IMAPClientError.self)
    }
}
