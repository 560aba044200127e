import ClientSupport
import Foundation
import MailModel
import NIOCore
import NIOPosix
import NIOSSL
import SMTPProtocol

/// One SMTP session on SwiftNIO: connect (implicit TLS or STARTTLS), EHLO, AUTH, then any number
/// of messages, then QUIT. Commands go one at a time (no pipelining: each reply is read before
/// the next command, which every server accepts). May be used from any task: logins, messages and
/// QUIT wait for one another, in the order they asked. Every error is an `SMTPClientError`.
public final class SMTPConnection: Sendable {
    public let configuration: SMTPClientConfiguration
    /// The channel, its reply queue, the gate, the session's state machine (`ClientSupport`).
    let session: ClientConnection<SMTPDialect>
    private let state: LockedBox<State>

    private struct State {
        var capabilities = SMTPCapabilities()
        var greeting: SMTPReply?
    }

    package init(configuration: SMTPClientConfiguration, session: ClientConnection<SMTPDialect>) {
        self.configuration = configuration
        self.session = session
        self.state = LockedBox(State())
    }

    private var endpoint: String { configuration.endpoint }
    private var responseTimeout: TimeAmount { TimeAmount(configuration.responseTimeout) }

    /// What the server offered in its latest EHLO (after STARTTLS: the one over TLS).
    public var capabilities: SMTPCapabilities { state.withLockedValue { $0.capabilities } }

    /// The last commands sent, as names only (`EHLO`, `AUTH PLAIN`, `RCPT TO`): safe to log.
    public var sentCommands: [String] { session.sentCommands }

    // MARK: Connecting

    /// Connects within `connectTimeout` (TCP, and TLS at once for `.tls`), reads the 220 greeting,
    /// sends EHLO, and for `.startTLS` upgrades before anything else (`.tlsFailed` when the server
    /// does not offer STARTTLS: never goes on in clear), then EHLO again over TLS.
    public static func connect(
        _ configuration: SMTPClientConfiguration,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws(SMTPClientError) -> SMTPConnection {
        try await open(configuration, eventLoopGroup: eventLoopGroup)
    }

    /// The greeting (its silence timer armed since the channel became active), EHLO, then STARTTLS.
    package func start() async throws(SMTPClientError) {
        let greeting = try await session.next(waitingFor: "the greeting")
        session.disarm()
        guard greeting.code == 220 else {
            if greeting.code == 554 || greeting.code == 421 {
                throw SMTPClientError(kind: .connectionClosed, message: "the server \(endpoint) refused the connection", reply: greeting)
            }
            throw await violation("the server \(endpoint) did not greet with 220 (is it an SMTP server? check the port)", reply: greeting)
        }
        session.transition { $0.greeted(preauthenticated: false) }
        state.withLockedValue { $0.greeting = greeting }
        try await hello()

        guard configuration.security == .startTLS else { return }
        guard capabilities.supportsStartTLS else {
            throw SMTPClientError(kind: .tlsFailed, message: "the server \(endpoint) does not offer STARTTLS; refusing to go on without TLS "
                                  + "(use --tls implicit on the TLS port, usually 465)")
        }
        try await session.requestStartTLS(key: ())
        let reply = try await command(.startTLS)
        guard reply.code == 220 else {
            throw SMTPClientError(kind: .tlsFailed, message: "the server \(endpoint) refused STARTTLS; refusing to go on without TLS", reply: reply)
        }
        session.transition { $0.tlsStarted() }
        // What the server said in clear may have been forged: forget it, ask again over TLS.
        state.withLockedValue { $0.capabilities = SMTPCapabilities() }
        try await hello()
    }

    /// EHLO; HELO when the server does not know EHLO (then no extension is used).
    private func hello() async throws(SMTPClientError) {
        let reply = try await command(.ehlo(domain: configuration.clientName))
        if reply.isPositiveCompletion {
            state.withLockedValue { $0.capabilities = SMTPCapabilities(ehloReply: reply) }
            return
        }
        let helo = try await command(.helo(domain: configuration.clientName))
        guard helo.isPositiveCompletion else {
            throw SMTPClientError(kind: .commandFailed, message: "the server \(endpoint) refused EHLO and HELO", reply: helo)
        }
        state.withLockedValue { $0.capabilities = SMTPCapabilities() }
    }

    // MARK: Authentication

    /// AUTH: for a password PLAIN when offered, else LOGIN; for a token OAUTHBEARER (RFC 7628) when
    /// offered, else XOAUTH2 (or the one `mechanism` names). A refusal is `.authenticationFailed` with
    /// the server's reply, and for a token the JSON error it sent first (`oauth`, `oauthStatus`); a
    /// server offering no mechanism for the credentials is `.authenticationFailed` before AUTH is sent.
    public func authenticate(_ authentication: SMTPAuthentication) async throws(SMTPClientError) {
        try await session.withGate { () async throws(SMTPClientError) in try await self.login(authentication) }
    }

    private func login(_ authentication: SMTPAuthentication) async throws(SMTPClientError) {
        guard !session.isAuthenticated else { return }
        let offered = capabilities.authMechanisms
        let user = authentication.user
        guard !offered.isEmpty else {
            throw SMTPClientError(kind: .authenticationFailed,
                                  message: "the server \(endpoint) offers no login (no AUTH in its EHLO reply)"
                                      + (configuration.security == .plaintext ? "; many servers offer AUTH only over TLS: try --tls starttls" : "")
                                      + "; leave out --user to send without logging in")
        }
        let reply: SMTPReply
        var oauthError: SMTPClientError.OAuthError?
        do {
            switch authentication {
            case .password(let user, let password):
                if offered.contains("PLAIN") {
                    reply = try await command(.auth(mechanism: "PLAIN", initialResponse: try SMTPSASL.plain(username: user, password: password)))
                } else if offered.contains("LOGIN") {
                    let encoded = try SMTPSASL.login(username: user, password: password)
                    var step = try await command(.auth(mechanism: "LOGIN", initialResponse: nil))
                    if step.code == 334 { step = try await command(.authResponse(encoded.username)) }
                    if step.code == 334 { step = try await command(.authResponse(encoded.password)) }
                    reply = step
                } else {
                    throw SMTPClientError(kind: .authenticationFailed,
                                          message: "the server \(endpoint) offers no password login this client knows "
                                              + "(it offers \(offered.sorted().joined(separator: " ")); PLAIN or LOGIN is needed)")
                }
            case .oauth(let user, let accessToken, let mechanism):
                let chosen: SMTPAuthentication.OAuthMechanism
                switch mechanism {
                case .oauthBearer where offered.contains("OAUTHBEARER"), .automatic where offered.contains("OAUTHBEARER"):
                    chosen = .oauthBearer
                case .xoauth2 where offered.contains("XOAUTH2"), .automatic where offered.contains("XOAUTH2"):
                    chosen = .xoauth2
                default:
                    let missing = mechanism == .automatic ? "offers neither OAUTHBEARER nor XOAUTH2" : "does not offer \(mechanism.rawValue)"
                    throw SMTPClientError(kind: .authenticationFailed,
                                          message: "the server \(endpoint) \(missing), so \(user) cannot log in with an OAuth access token "
                                              + "(it offers \(offered.sorted().joined(separator: " ")))")
                }
                let initial = chosen == .oauthBearer
                    ? try SMTPSASL.oauthBearer(username: user, accessToken: accessToken, host: configuration.host, port: configuration.port)
                    : try SMTPSASL.xoauth2(username: user, accessToken: accessToken)
                var step = try await command(.auth(mechanism: chosen.rawValue, initialResponse: initial))
                // A refused token comes as a 334 with a JSON error (RFC 7628 §3.2.2): the answer that ends
                // the exchange (empty for XOAUTH2, a lone ^A for OAUTHBEARER) gets the final reply; should
                // the server ask again, `*` cancels (RFC 4954 §4).
                if step.code == 334 {
                    oauthError = SMTPClientError.OAuthError(challenge: step, hiding: accessToken)
                    step = try await command(.authResponse(chosen == .oauthBearer ? SMTPSASL.oauthBearerErrorResponse : ""))
                    if step.code == 334 { step = try await command(.authResponse("*")) }
                    if step.code == 334 {
                        throw await violation("the server \(endpoint) went on asking after AUTH \(chosen.rawValue) was cancelled", reply: step)
                    }
                }
                reply = step
            }
        } catch let error as SMTPEncodingError {
            throw SMTPClientError(kind: .invalidArgument, message: "cannot log in to \(endpoint) as \(user): \(error.description)")
        } catch let error as SMTPClientError {
            throw error
        } catch {
            throw SMTPClientError(kind: .authenticationFailed, message: "cannot log in to \(endpoint) as \(user): \(error)")
        }
        guard reply.code == 235 else {
            if case .oauth = authentication {
                let reason = oauthError?.status.map { " (\($0.prefix(40)))" } ?? ""
                throw SMTPClientError(kind: .authenticationFailed,
                                      message: "the server \(endpoint) refused the OAuth access token for \(user)\(reason): "
                                          + "it may have expired or been revoked; get a new one (refresh it or sign in again)",
                                      reply: reply, oauth: oauthError)
            }
            throw SMTPClientError(kind: .authenticationFailed,
                                  message: "the server \(endpoint) refused the login of \(user); check the user name and password", reply: reply)
        }
        session.transition { $0.authenticated() }
    }

    // MARK: Sending

    /// One message: MAIL FROM (SIZE= when offered, BODY=8BITMIME and SMTPUTF8 when the message needs
    /// them), RCPT TO for each recipient, DATA and the dot-stuffed message. Recipients the server
    /// refuses are listed in the result and the message goes to the others; when it refuses every
    /// one, nothing is sent (`.recipientsRejected`). A message over the server's SIZE is refused
    /// before anything is sent (`.messageTooLarge`).
    ///
    /// `beforeData` runs after the server's 354, just before the message and its final dot are
    /// written: until then the server discards the transaction if the connection ends; after it,
    /// the message may have been accepted even when no reply arrives. A send queue records that
    /// moment there (an error thrown by it closes the connection: nothing is sent).
    public func send(message: [UInt8], from sender: SMTPAddress, to recipients: [SMTPAddress],
                     requiresSMTPUTF8: Bool = false,
                     beforeData: (@Sendable () async throws -> Void)? = nil) async throws(SMTPClientError) -> SMTPSendResult {
        try await session.withGate { () async throws(SMTPClientError) in
            try await self.transaction(message: message, from: sender, to: recipients, requiresSMTPUTF8: requiresSMTPUTF8,
                                       beforeData: beforeData)
        }
    }

    private func transaction(message: [UInt8], from sender: SMTPAddress, to recipients: [SMTPAddress],
                             requiresSMTPUTF8: Bool, beforeData: (@Sendable () async throws -> Void)?) async throws(SMTPClientError) -> SMTPSendResult {
        guard !recipients.isEmpty else {
            throw SMTPClientError(kind: .invalidArgument, message: "a message needs at least one recipient")
        }
        let capabilities = self.capabilities
        let size = SMTPDataEncoder.wireSize(message)
        if let limit = capabilities.maximumSize, size > limit {
            throw SMTPClientError(kind: .messageTooLarge,
                                  message: "the message is \(Self.bytes(size)) and \(endpoint) accepts at most \(Self.bytes(limit)) (its SIZE); "
                                      + "nothing was sent: make the attachments smaller or share them another way")
        }
        let eightBit = SMTPDataEncoder.requires8Bit(message)
        let utf8 = requiresSMTPUTF8 || sender.requiresSMTPUTF8 || recipients.contains { $0.requiresSMTPUTF8 }
        if utf8 && !capabilities.supportsSMTPUTF8 {
            throw SMTPClientError(kind: .unsupported, message: "an address is not ASCII and \(endpoint) does not offer SMTPUTF8; nothing was sent")
        }
        if eightBit && !utf8 && !capabilities.supports8BitMIME {
            throw SMTPClientError(kind: .unsupported, message: "the message has 8-bit text and \(endpoint) does not offer 8BITMIME; "
                                  + "nothing was sent: send it quoted-printable")
        }
        if SMTPDataEncoder.longestLine(message) > 998 {
            throw SMTPClientError(kind: .invalidArgument, message: "the message has a line longer than 998 bytes, which SMTP cannot carry; nothing was sent")
        }

        let mail = try await command(.mailFrom(sender, size: capabilities.supportsSize ? size : nil,
                                               body: eightBit && capabilities.supports8BitMIME ? .eightBitMIME : nil,
                                               smtpUTF8: utf8))
        guard mail.isPositiveCompletion else {
            await reset()
            throw SMTPClientError(kind: .senderRejected,
                                  message: "the server \(endpoint) refused the sender \(sender.address); nothing was sent"
                                      + (mail.code == 530 ? " (it wants a login: give --user and --password-file)" : Self.later(mail)),
                                  reply: mail)
        }
        var accepted: [SMTPAddress] = []
        var rejected: [(recipient: SMTPAddress, reply: SMTPReply)] = []
        for recipient in recipients {
            let reply = try await command(.rcptTo(recipient))
            if reply.isPositiveCompletion {
                accepted.append(recipient)
            } else {
                rejected.append((recipient, reply))
            }
        }
        guard !accepted.isEmpty else {
            await reset()
            let list = rejected.map { "\($0.recipient.address): \($0.reply)" }.joined(separator: "; ")
            throw SMTPClientError(kind: .recipientsRejected,
                                  message: "the server \(endpoint) refused every recipient, so nothing was sent: \(list)", rejected: rejected)
        }
        let data = try await command(.data)
        guard data.code == 354 else {
            await reset()
            throw SMTPClientError(kind: .messageRejected, message: "the server \(endpoint) refused DATA; nothing was sent" + Self.later(data),
                                  reply: data)
        }
        if let beforeData {
            do {
                try await beforeData()
            } catch {
                await close()
                throw SMTPClientError(kind: .cancelled, message: "the message's data was not sent to \(endpoint): \(error)")
            }
        }
        let final = try await exchange(SMTPDataEncoder.encode(message), name: "the message's data",
                                       timeout: TimeAmount(configuration.dataTimeout))
        guard final.isPositiveCompletion else {
            throw SMTPClientError(kind: .messageRejected,
                                  message: "the server \(endpoint) refused the message after receiving it; it was not sent" + Self.later(final),
                                  reply: final)
        }
        return SMTPSendResult(accepted: accepted, rejected: rejected, finalReply: final)
    }

    /// QUIT (best effort, a few seconds at most), then close. Never throws. When another operation
    /// is under way, closes at once (that operation then fails with `.connectionClosed`).
    public func quit() async {
        await session.finish {
            _ = try? await exchange(try SMTPCommand.quit.encoded(), name: "QUIT", timeout: min(responseTimeout, .seconds(5)))
        }
    }

    /// Closes the connection now. Idempotent.
    public func close() async {
        await session.close()
    }

    // MARK: Internals

    /// RSET after a refused transaction, best effort: the session stays usable for another message.
    private func reset() async {
        _ = try? await command(.rset)
    }

    private func command(_ command: SMTPCommand) async throws(SMTPClientError) -> SMTPReply {
        let bytes: [UInt8]
        do {
            bytes = try command.encoded()
        } catch {
            throw SMTPClientError(kind: .invalidArgument, message: "cannot send \(command) to \(endpoint): \(error.description)")
        }
        return try await exchange(bytes, name: command.description, timeout: responseTimeout)
    }

    private func exchange(_ bytes: [UInt8], name: String, timeout: TimeAmount) async throws(SMTPClientError) -> SMTPReply {
        try session.checkOpen()
        session.record(name)
        try await session.send(bytes, responseTimeout: timeout, waitingFor: "waiting for the reply to \(name)")
        let reply = try await session.next(waitingFor: "the reply to \(name)")
        session.disarm()
        if reply.code == 421 {
            // The server is closing the session (RFC 5321 §3.8).
            await close()
            throw SMTPClientError(kind: .connectionClosed, message: "the server \(endpoint) is closing the connection (421) after \(name); try again later",
                                  reply: reply)
        }
        return reply
    }

    private func violation(_ message: String, reply: SMTPReply? = nil) async -> SMTPClientError {
        await session.abandon(SMTPClientError(kind: .protocolViolation, message: message, reply: reply))
    }

    /// For a 4xx reply: the server's failure is temporary.
    static func later(_ reply: SMTPReply) -> String {
        reply.isTransientFailure ? " (a temporary refusal: try again later)" : ""
    }

    static func bytes(_ count: Int) -> String {
        if count >= 1_048_576 { return String(format: "%.1f MB (%d bytes)", Double(count) / 1_048_576, count) }
        if count >= 1024 { return String(format: "%.1f KB (%d bytes)", Double(count) / 1024, count) }
        return "\(count) bytes"
    }
}

extension SMTPConnection: MailClientConnection {}
