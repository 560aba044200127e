import NIOCore
import NIOPosix
import SMTPProtocol

extension SMTPConnection {
    /// One message in one session: connect, log in when `authentication` is given, send, QUIT. The
    /// connection is closed whatever happens.
    public static func send(
        _ configuration: SMTPClientConfiguration, authentication: SMTPAuthentication?,
        message: [UInt8], from sender: SMTPAddress, to recipients: [SMTPAddress], requiresSMTPUTF8: Bool = false,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws(SMTPClientError) -> SMTPSendResult {
        let connection = try await connect(configuration, eventLoopGroup: eventLoopGroup)
        do {
            if let authentication { try await connection.authenticate(authentication) }
            let result = try await connection.send(message: message, from: sender, to: recipients, requiresSMTPUTF8: requiresSMTPUTF8)
            await connection.quit()
            return result
        } catch {
            await connection.quit()
            throw error
        }
    }
}
