import ClientSupport
import IMAPProtocol
import MailModel
import NIOCore
import NIOPosix
import NIOSSL

/// One IMAP connection: TCP (and TLS) on SwiftNIO, commands sent one at a time.
///
/// Every method may be called from any task; commands wait for one another (one in flight at a
/// time, in the order they asked). Untagged responses the server sends between commands
/// (EXISTS, EXPUNGE, FETCH, VANISHED…) are kept and handed out first with the next command's.
/// Every error is an `IMAPClientError`.
public final class IMAPConnection: Sendable {
    public let configuration: IMAPClientConfiguration
    /// The channel, its response queue, the gate, the session's state machine (`ClientSupport`).
    let session: ClientConnection<IMAPDialect>
    private let state: LockedBox<State>

    private struct State {
        var encoder = IMAPCommandEncoder()
        var capabilities: Set<IMAPCapability> = []
        /// Capabilities the client acts as if the server did not offer (tests: LOGIN, synchronising literals).
        var hidden: Set<IMAPCapability> = []

        /// What the client may use: the server's capabilities but the hidden ones.
        var usable: Set<IMAPCapability> { capabilities.subtracting(hidden) }

        mutating func setCapabilities(_ list: [IMAPCapability]) {
            capabilities = Set(list)
            encoder.capabilities = usable
        }
    }

    package init(configuration: IMAPClientConfiguration, session: ClientConnection<IMAPDialect>) {
        self.configuration = configuration
        self.session = session
        self.state = LockedBox(State())
    }

    private var endpoint: String { configuration.endpoint }
    private var queue: ResponseQueue { session.queue }
    private var eventLoop: any EventLoop { session.channel.eventLoop }
    private var responseTimeout: TimeAmount { TimeAmount(configuration.responseTimeout) }
    /// For LOGOUT and for DONE after a cancelled IDLE: what is left is a courtesy, not worth a long wait.
    private var shortTimeout: TimeAmount { min(responseTimeout, .seconds(5)) }

    // MARK: Connecting

    /// Connects (TCP, and TLS at once for `.tls`) within `connectTimeout`, reads the greeting
    /// (BYE → `.connectionClosed`; PREAUTH is accepted), asks CAPABILITY when the greeting named
    /// none, and for `.startTLS` upgrades before anything else (`.tlsFailed` when the server does
    /// not offer STARTTLS: never goes on in clear), then asks CAPABILITY again.
    public static func connect(
        _ configuration: IMAPClientConfiguration,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> IMAPConnection {
        try await open(configuration, eventLoopGroup: eventLoopGroup)
    }

    /// The greeting (its silence timer armed since the channel became active), then STARTTLS.
    package func start() async throws(IMAPClientError) {
        let greeting = try await session.next(waitingFor: "the greeting")
        session.disarm()
        guard case .untagged(.status(let status)) = greeting else {
            throw await violation("the server \(endpoint) did not start with a greeting")
        }
        switch status.status {
        case .ok, .preauth:
            break
        case .bye:
            throw IMAPClientError(kind: .connectionClosed, message: "the server \(endpoint) refused the connection (BYE)",
                                  serverText: status.text, code: status.code)
        case .no, .bad:
            throw await violation("the server \(endpoint) greeted with \(status.status.rawValue), which is not a greeting")
        }
        let preauthenticated = status.status == .preauth
        session.transition { $0.greeted(preauthenticated: preauthenticated) }
        if case .capability(let list)? = status.code {
            state.withLockedValue { $0.setCapabilities(list) }
        } else {
            try await refreshCapabilities()
        }

        guard configuration.security == .startTLS else { return }
        guard !preauthenticated else {
            throw IMAPClientError(kind: .tlsFailed, message: "the server \(endpoint) authenticated the connection in clear (PREAUTH), "
                                  + "which leaves no way to start TLS; refusing to go on without TLS")
        }
        guard capabilities.contains(.startTLS) else {
            throw IMAPClientError(kind: .tlsFailed, message: "the server \(endpoint) does not offer STARTTLS; refusing to go on without TLS "
                                  + "(use implicit TLS on the TLS port, usually 993)")
        }
        let encoded = try encode(.startTLS)
        try await session.requestStartTLS(key: encoded.tag)
        let response = try await execute(encoded)
        guard response.status.status == .ok else {
            throw IMAPClientError(kind: .tlsFailed, message: "the server \(endpoint) refused STARTTLS; refusing to go on without TLS",
                                  serverText: response.status.text, code: response.status.code)
        }
        session.transition { $0.tlsStarted() }
        // What the server said in clear may have been forged: forget it, ask again over TLS.
        state.withLockedValue { $0.setCapabilities([]) }
        try await refreshCapabilities()
    }

    // MARK: State

    /// The latest capabilities the server announced (refreshed after STARTTLS and after login).
    public var capabilities: Set<IMAPCapability> {
        state.withLockedValue { $0.capabilities }
    }

    /// False once the connection is closed, by either side, or failed.
    public var isOpen: Bool { session.isOpen }

    /// Tests: act as if the server did not offer these (e.g. `AUTH=PLAIN` to log in with LOGIN,
    /// `LITERAL+` to send synchronising literals, `SASL-IR`).
    func hideCapabilities(_ hidden: Set<IMAPCapability>) {
        state.withLockedValue { state in
            state.hidden = hidden
            state.encoder.capabilities = state.usable
        }
    }

    // MARK: Login

    /// Logs in: for a password AUTHENTICATE PLAIN when the server offers AUTH=PLAIN, else LOGIN;
    /// for a token AUTHENTICATE OAUTHBEARER (RFC 7628) when offered, else XOAUTH2 (or the one
    /// `mechanism` names). A refusal is `.authenticationFailed` with the server's text and code, and
    /// for a token the JSON error it sent first (`oauth`, `oauthStatus`); a server offering neither
    /// token mechanism is `.authenticationFailed` before anything is sent. Then the capabilities are
    /// refreshed, and ID is sent when the server offers it and `clientID` is set (its failure is
    /// ignored). Does nothing after a PREAUTH greeting.
    public func login(_ authentication: IMAPAuthentication) async throws {
        try await session.withGate { () async throws(IMAPClientError) in try await self.authenticate(authentication) }
    }

    private func authenticate(_ authentication: IMAPAuthentication) async throws(IMAPClientError) {
        guard !session.isAuthenticated else { return }
        let usable = state.withLockedValue { $0.usable }
        let command: IMAPCommand
        // The answer to a challenge after the credentials (a refused token's error): it ends the exchange.
        var errorAnswer = IMAPCommandEncoder.emptyResponse
        var secret = ""
        switch authentication {
        case .password(let user, let password):
            command = usable.contains(.authPlain) ? .authenticatePlain(username: user, password: password)
                : .login(username: user, password: password)
        case .oauth(let user, let accessToken, let mechanism):
            secret = accessToken
            let bearer = usable.contains(.authOAuthBearer), xoauth2 = usable.contains(.authXOAuth2)
            switch mechanism {
            case .oauthBearer where bearer, .automatic where bearer:
                command = .authenticateOAuthBearer(username: user, accessToken: accessToken,
                                                   host: configuration.host, port: configuration.port)
                errorAnswer = IMAPCommandEncoder.oauthBearerErrorResponse
            case .xoauth2 where xoauth2, .automatic where xoauth2:
                command = .authenticateXOAuth2(username: user, accessToken: accessToken)
            default:
                let missing = mechanism == .automatic ? "offers neither OAUTHBEARER nor XOAUTH2" : "does not offer \(mechanism.rawValue)"
                let offered = usable.compactMap(\.authenticationMechanism).sorted()
                throw IMAPClientError(kind: .authenticationFailed,
                                      message: "the server \(endpoint) \(missing), so \(user) cannot log in with an OAuth access token "
                                          + "(it offers \(offered.isEmpty ? "no AUTHENTICATE mechanism" : offered.joined(separator: " ")))")
            }
        }
        let encoded: IMAPEncodedCommand
        do {
            encoded = try state.withLockedValue { state throws(IMAPEncodingError) in try state.encoder.encode(command) }
        } catch {
            throw IMAPClientError(kind: .authenticationFailed, message: "cannot log in to \(endpoint) as \(authentication.user): \(error.description)")
        }
        let (response, challenges) = try await exchange(encoded, responseTimeout: nil, saslErrorAnswer: errorAnswer)
        guard response.status.status == .ok else {
            if case .oauth = authentication {
                let oauth = challenges.first.flatMap { IMAPClientError.OAuthError(challenge: $0, hiding: secret) }
                let reason = oauth?.status.map { " (\($0.prefix(40)))" } ?? ""
                throw IMAPClientError(kind: .authenticationFailed,
                                      message: "the server \(endpoint) refused the OAuth access token for \(authentication.user)\(reason): "
                                          + "it may have expired or been revoked; get a new one (refresh it or sign in again)",
                                      serverText: response.status.text, code: response.status.code, oauth: oauth)
            }
            throw IMAPClientError(kind: .authenticationFailed,
                                  message: "the server \(endpoint) refused the user name or password for \(authentication.user)",
                                  serverText: response.status.text, code: response.status.code)
        }
        session.transition { $0.authenticated() }
        if case .capability(let list)? = response.status.code {
            state.withLockedValue { $0.setCapabilities(list) }
        } else if !noteCapabilities(response.untagged) {
            try await refreshCapabilities()
        }
        if let clientID = configuration.clientID, capabilities.contains(.id) {
            // Identification is a courtesy: a NO or BAD changes nothing (execute throws only for the connection).
            let id: IMAPEncodedCommand
            do {
                id = try encode(.id(clientID))
            } catch {
                return  // a field ID cannot carry (a NUL byte): no identification, as for a refusal
            }
            _ = try await execute(id)
        }
    }

    // MARK: Commands

    /// Sends `command` and collects every untagged response up to its tagged one (unsolicited
    /// ones received since the previous command first). NO or BAD → `.commandFailed` with the
    /// server's text and code; the connection dropping (after a BYE or not) → `.connectionClosed`;
    /// cancellation → `.cancelled`, and the connection is closed when the command was under way.
    /// STARTTLS and IDLE have their own methods (`connect`, `idle`).
    public func run(_ command: IMAPCommand) async throws -> IMAPCommandResponse {
        try await session.withGate { () async throws(IMAPClientError) in
            switch command {
            case .startTLS, .idle:
                throw IMAPClientError(kind: .commandFailed, message: "STARTTLS and IDLE are not sent with run: use connect(security: .startTLS) and idle(for:until:)")
            default:
                break
            }
            let encoded = try self.encode(command)
            let response = try await self.execute(encoded)
            self.noteCapabilities(response.untagged, code: response.status.code)
            try self.check(response, encoded)
            return response
        }
    }

    /// IDLE (RFC 2177): waits for `+`, then collects untagged responses until `stop` returns
    /// true for one, `duration` passes or the task is cancelled; then sends DONE and waits for
    /// the tagged OK. Returns everything collected, unsolicited responses received before too.
    /// A cancelled IDLE returns normally (what came so far); the connection stays usable. No
    /// response timeout applies while idling; the connection dropping → `.connectionClosed`.
    /// Re-issue before 29 minutes (RFC 2177).
    public func idle(for duration: Duration, until stop: @escaping @Sendable (IMAPUntaggedResponse) -> Bool) async throws -> [IMAPUntaggedResponse] {
        try await session.withGate { () async throws(IMAPClientError) in try await self.runIdle(for: duration, until: stop) }
    }

    private func runIdle(for duration: Duration, until stop: @Sendable (IMAPUntaggedResponse) -> Bool) async throws(IMAPClientError) -> [IMAPUntaggedResponse] {
        guard capabilities.contains(.idle) else {
            throw IMAPClientError(kind: .commandFailed, message: "the server \(endpoint) does not offer IDLE")
        }
        try session.checkOpen()
        let encoded = try encode(.idle)
        try await send(encoded.parts[0], responseTimeout: responseTimeout, waitingFor: "waiting for the answer to \(encoded)")
        var collected: [IMAPUntaggedResponse] = []
        var done = false
        var cancelled = false

        // Until the server agrees to idle.
        waitForContinuation: while true {
            let wait = try await queue.next(on: eventLoop, cancellable: !cancelled)
            switch wait {
            case .cancelled, .deadline:
                // `+` must still come before DONE can be sent; the response timeout bounds the wait.
                cancelled = true
                done = true
            case .response(.untagged(let response)):
                collected.append(response)
                if stop(response) { done = true }
            case .response(.continuation):
                break waitForContinuation
            case .response(.tagged(let tag, let status)) where tag == encoded.tag:
                session.disarm()
                try check(IMAPCommandResponse(untagged: collected, status: status), encoded)
                return collected
            case .response(.tagged):
                throw await violation("the server \(endpoint) answered a command that was not sent (waiting for \(encoded))")
            }
        }

        // Idling: no timeout, the server may be silent for the whole duration.
        session.disarm()
        let deadline = eventLoop.now + TimeAmount(duration)
        while !done {
            switch try await queue.next(deadline: deadline, on: eventLoop, cancellable: true) {
            case .deadline:
                done = true
            case .cancelled:
                cancelled = true
                done = true
            case .response(.untagged(let response)):
                collected.append(response)
                if stop(response) { done = true }
            case .response(.tagged(let tag, let status)) where tag == encoded.tag:
                // The server ended IDLE on its own.
                try check(IMAPCommandResponse(untagged: collected, status: status), encoded)
                return collected
            case .response(.tagged), .response(.continuation):
                throw await violation("the server \(endpoint) sent a response out of turn while idling")
            }
        }

        try await send(IMAPCommandEncoder.idleDone, responseTimeout: cancelled ? shortTimeout : responseTimeout,
                       waitingFor: "waiting for the end of \(encoded)")
        while true {
            switch try await queue.next(on: eventLoop, cancellable: false) {
            case .response(.untagged(let response)):
                collected.append(response)
            case .response(.tagged(let tag, let status)) where tag == encoded.tag:
                session.disarm()
                try check(IMAPCommandResponse(untagged: collected, status: status), encoded)
                return collected
            case .response(.tagged), .response(.continuation):
                throw await violation("the server \(endpoint) sent a response out of turn after DONE")
            case .cancelled, .deadline:
                continue  // not asked for: the response timeout bounds this wait
            }
        }
    }

    /// LOGOUT (best effort, a few seconds at most), then close. Never throws. When another
    /// command is under way, closes at once (that command then fails with `.connectionClosed`).
    public func logout() async {
        await session.finish {
            do {
                let encoded = try encode(.logout)
                _ = try await execute(encoded, responseTimeout: shortTimeout)
            } catch {
                // Best effort by design: the connection is closed next whatever happened.
            }
        }
    }

    /// Closes the connection now. Idempotent; a command under way fails with `.connectionClosed`.
    public func close() async {
        await session.close()
    }

    // MARK: Internals

    private func encode(_ command: IMAPCommand) throws(IMAPClientError) -> IMAPEncodedCommand {
        do {
            return try state.withLockedValue { state throws(IMAPEncodingError) in try state.encoder.encode(command) }
        } catch {
            throw IMAPClientError(kind: .commandFailed, message: error.description)
        }
    }

    /// The last commands sent (at most 50), as `A3 APPEND (2 parts)`: tags and names only, safe to log.
    var sentCommands: [String] { session.sentCommands }

    /// Sends a command's parts, waiting for `+` between them, and collects responses up to its
    /// tagged answer, whatever its status.
    func execute(_ encoded: IMAPEncodedCommand, responseTimeout timeout: TimeAmount? = nil) async throws(IMAPClientError) -> IMAPCommandResponse {
        try await exchange(encoded, responseTimeout: timeout, saslErrorAnswer: nil).response
    }

    /// `execute`, and for AUTHENTICATE (`saslErrorAnswer` set) the challenges the server sent after
    /// the credentials: the first (a refused token's JSON error, RFC 7628 §3.2.2) is answered with
    /// `saslErrorAnswer` to get the tagged NO, a second with `*` (the client cancels, RFC 3501
    /// §6.2.2); a third is a protocol violation. The challenges' texts come back, still base64.
    private func exchange(_ encoded: IMAPEncodedCommand, responseTimeout timeout: TimeAmount?,
                          saslErrorAnswer: [UInt8]?) async throws(IMAPClientError) -> (response: IMAPCommandResponse, challenges: [String]) {
        try session.checkOpen()
        session.record("\(encoded) (\(encoded.parts.count) part\(encoded.parts.count == 1 ? "" : "s"))")
        let waitingFor = "waiting for the answer to \(encoded)"
        let timeout = timeout ?? responseTimeout
        try await send(encoded.parts[0], responseTimeout: timeout, waitingFor: waitingFor)
        var nextPart = 1
        var untagged: [IMAPUntaggedResponse] = []
        var challenges: [String] = []
        while true {
            switch try await session.next(waitingFor: "\(encoded)") {
            case .untagged(let response):
                untagged.append(response)
            case .continuation(let text):
                if nextPart < encoded.parts.count {
                    try await send(encoded.parts[nextPart], responseTimeout: timeout, waitingFor: waitingFor)
                    nextPart += 1
                } else if let saslErrorAnswer, challenges.count < 2 {
                    challenges.append(text)
                    let answer = challenges.count == 1 ? saslErrorAnswer : Self.cancelAuthentication
                    try await send(answer, responseTimeout: timeout, waitingFor: waitingFor)
                } else {
                    throw await violation("the server \(endpoint) asked for more of \(encoded) than there is")
                }
            case .tagged(let tag, let status):
                guard tag == encoded.tag else {
                    throw await violation("the server \(endpoint) answered a command that was not sent (tag \(tag.prefix(20)) while waiting for \(encoded))")
                }
                session.disarm()
                return (IMAPCommandResponse(untagged: untagged, status: status), challenges)
            }
        }
    }

    /// Ends an AUTHENTICATE exchange from the client's side (RFC 3501 §6.2.2): the server answers BAD.
    private static let cancelAuthentication: [UInt8] = Array("*\r\n".utf8)

    private func check(_ response: IMAPCommandResponse, _ encoded: IMAPEncodedCommand) throws(IMAPClientError) {
        guard response.status.status != .ok else { return }
        throw IMAPClientError(kind: .commandFailed,
                              message: "the server \(endpoint) refused \(encoded) (\(response.status.status.rawValue))",
                              serverText: response.status.text, code: response.status.code)
    }

    private func send(_ bytes: [UInt8], responseTimeout: TimeAmount?, waitingFor: String) async throws(IMAPClientError) {
        try await session.send(bytes, responseTimeout: responseTimeout, waitingFor: waitingFor)
    }

    /// A server that broke the protocol: the connection closes, the error says why.
    private func violation(_ message: String) async -> IMAPClientError {
        await session.abandon(IMAPClientError(kind: .protocolViolation, message: message))
    }

    private func refreshCapabilities() async throws(IMAPClientError) {
        let encoded = try encode(.capability)
        let response = try await execute(encoded)
        try check(response, encoded)
        if !noteCapabilities(response.untagged, code: response.status.code) {
            throw await violation("the server \(endpoint) answered CAPABILITY without a capability list")
        }
    }

    /// Takes the capabilities from a `* CAPABILITY` or a `[CAPABILITY …]` code; true if there was one.
    @discardableResult
    private func noteCapabilities(_ untagged: [IMAPUntaggedResponse], code: IMAPResponseCode? = nil) -> Bool {
        var list: [IMAPCapability]?
        for case .capability(let found) in untagged { list = found }
        if case .capability(let found)? = code { list = found }
        guard let list else { return false }
        state.withLockedValue { $0.setCapabilities(list) }
        return true
    }
}

extension IMAPConnection: MailClientConnection {}
