/// Why an account's server could not be used, in a kind the page can act on (which field to point
/// at) and words for the person (what happened, what to do). Never holds a password or a token.
public struct AccountProblem: Error, Sendable, Codable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// The server refused the user name and password (or token).
        case wrongPassword
        /// The server's TLS certificate is not trusted, or does not name the host.
        case certificate
        /// TLS could not be set up (the port may speak plain text, or another protocol).
        case tls
        /// The host name does not resolve.
        case hostUnknown
        /// Nothing listens on that port (connection refused).
        case portClosed
        /// No answer in time (a firewall that drops, a wrong host).
        case timeout
        /// The server does not offer STARTTLS: the connection would not be encrypted.
        case startTLSMissing
        /// The password or token could not be had (the command failed, the variable is unset, the store is locked).
        case credentials
        /// Anything else the server or the connection did.
        case server
    }

    public var kind: Kind
    /// `imap` or `smtp`.
    public var service: String
    public var message: String
    public var hint: String?
    /// The form field to look at: `password`, `imapHost`, `imapPort`, `imapSecurity`, `smtpHost`, `smtpPort`, `smtpSecurity`, `caFile`.
    public var field: String?
    /// For a refused certificate: what it says (the names it is for, its issuer, its expiry).
    public var certificate: String?

    public init(_ kind: Kind, service: String, message: String, hint: String? = nil, field: String? = nil) {
        self.kind = kind
        self.service = service
        self.message = message
        self.hint = hint
        self.field = field
    }

    public var description: String { hint.map { "\(message) (\($0))" } ?? message }
}

/// What trying an account's servers found: the IMAP login, then the SMTP login when it sends.
public struct AccountCheck: Sendable, Codable, Hashable {
    public struct Step: Sendable, Codable, Hashable {
        /// `host:port`.
        public var server: String
        public var ok: Bool
        public var problem: AccountProblem?

        public init(server: String, problem: AccountProblem?) {
            self.server = server
            self.ok = problem == nil
            self.problem = problem
        }
    }

    public var ok: Bool
    public var imap: Step
    public var smtp: Step?

    public init(imap: Step, smtp: Step?) {
        self.imap = imap
        self.smtp = smtp
        ok = imap.ok && (smtp?.ok ?? true)
    }

    /// The first problem, IMAP's before SMTP's.
    public var problem: AccountProblem? { imap.problem ?? smtp?.problem }
}
