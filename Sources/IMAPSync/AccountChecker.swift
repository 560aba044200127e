import Foundation
import ClientSupport
import IMAPClient
import MailModel
import MailSearchKit
import SMTPClient

/// Tries an account's servers before it is saved (`account add`, `POST /api/accounts/test` and
/// `POST /api/accounts`): the IMAP login, then, when it sends, the SMTP login (nothing is sent).
/// Each failure comes back as an `AccountProblem` whose kind says what to fix: the password, the
/// host, the port, the certificate, the connection security.
public enum AccountChecker {
    /// - Parameter authentication: the login to try; nil reads it as a sync would (the account's
    ///   command, variable or stored secret).
    public static func check(accountName: String, settings: IMAPAccountSettings, authentication: IMAPAuthentication? = nil,
                             secrets: (any SecretVault)? = nil,
                             responseTimeout: Duration = .seconds(20)) async -> AccountCheck {
        let login: IMAPAuthentication
        let imapServer = "\(settings.host):\(settings.port)"
        do {
            if let authentication {
                login = authentication
            } else {
                login = try await CredentialSource.authentication(account: accountName, settings: settings, secrets: secrets)
            }
        } catch {
            let problem = AccountProblem(.credentials, service: "imap", message: (error as? SyncError)?.message ?? "\(error)",
                                         hint: (error as? SyncError)?.hint, field: "password")
            return AccountCheck(imap: .init(server: imapServer, problem: problem), smtp: nil)
        }
        let imap = await checkIMAP(settings: settings, authentication: login, responseTimeout: responseTimeout)
        guard imap == nil, let smtpHost = settings.smtpHost else {
            return AccountCheck(imap: .init(server: imapServer, problem: imap), smtp: nil)
        }
        let security = settings.smtpSecurity.flatMap(SMTPSecurity.init(rawValue:)) ?? .startTLS
        let port = settings.smtpPort ?? security.defaultPort
        let smtp = await checkSMTP(host: smtpHost, port: port, security: security, caFile: settings.caFile,
                                   authentication: login, responseTimeout: responseTimeout)
        return AccountCheck(imap: .init(server: imapServer, problem: nil), smtp: .init(server: "\(smtpHost):\(port)", problem: smtp))
    }

    static func checkIMAP(settings: IMAPAccountSettings, authentication: IMAPAuthentication, responseTimeout: Duration) async -> AccountProblem? {
        let server = "\(settings.host):\(settings.port)"
        guard let security = IMAPSecurity(rawValue: settings.security) else {
            return AccountProblem(.server, service: "imap", message: "unknown connection security \"\(settings.security)\"",
                                  hint: "use tls or startTLS", field: "imapSecurity")
        }
        do {
            let connection = try await IMAPConnection.connect(IMAPClientConfiguration(
                host: settings.host, port: settings.port, security: security, caFile: settings.caFile, responseTimeout: responseTimeout))
            do {
                try await connection.login(authentication)
                await connection.logout()
                return nil
            } catch {
                await connection.close()
                throw error
            }
        } catch let error as IMAPClientError {
            let wrongPassword = error.kind == .authenticationFailed
            var found = problem(service: "imap", server: server, kind: "\(error.kind)", message: error.message,
                                serverText: wrongPassword ? error.serverText : nil, user: authentication.user, startTLS: security == .startTLS)
            if found.kind == .certificate {
                await describeCertificate(&found, host: settings.host, port: settings.port, start: security == .startTLS ? .imapStartTLS : .implicit)
            }
            return found
        } catch {
            return AccountProblem(.server, service: "imap", message: "\(server): \(error)")
        }
    }

    static func checkSMTP(host: String, port: Int, security: SMTPSecurity, caFile: String?, authentication: IMAPAuthentication,
                          responseTimeout: Duration) async -> AccountProblem? {
        let server = "\(host):\(port)"
        let login: SMTPAuthentication
        switch authentication {
        case .password(let user, let password): login = .password(user: user, password: password)
        case .oauth(let user, let token, _): login = .oauth(user: user, accessToken: token)
        }
        do {
            var configuration = SMTPClientConfiguration(host: host, port: port, security: security, caFile: caFile)
            configuration.responseTimeout = responseTimeout
            let connection = try await SMTPConnection.connect(configuration)
            do {
                try await connection.authenticate(login)
            } catch {
                await connection.quit()
                throw error
            }
            await connection.quit()
            return nil
        } catch let error as SMTPClientError {
            var found = problem(service: "smtp", server: server, kind: "\(error.kind)", message: error.message,
                           serverText: error.kind == .authenticationFailed ? error.reply.map { "\($0.code) \($0.lines.joined(separator: " "))" } : nil,
                           user: authentication.user, startTLS: security == .startTLS)
            if found.kind == .certificate {
                await describeCertificate(&found, host: host, port: port, start: security == .startTLS ? .smtpStartTLS : .implicit)
            }
            return found
        } catch {
            return AccountProblem(.server, service: "smtp", message: "\(server): \(error)")
        }
    }

    /// Adds what the refused certificate says (its names, its issuer, its expiry) to the problem.
    static func describeCertificate(_ problem: inout AccountProblem, host: String, port: Int, start: CertificateProbe.Start) async {
        guard let certificate = await CertificateProbe.certificate(host: host, port: port, start: start) else { return }
        problem.message += ": \(certificate)"
        problem.certificate = certificate.description
    }

    /// A client error (its kind's name and message, as both clients word them) as a problem to act on.
    static func problem(service: String, server: String, kind: String, message: String, serverText: String?, user: String,
                        startTLS: Bool) -> AccountProblem {
        let name = service.uppercased()
        let prefix = service == "imap" ? "imap" : "smtp"
        switch kind {
        case "authenticationFailed":
            return AccountProblem(.wrongPassword, service: service,
                                  message: "the \(name) server \(server) refused the login of \(user)" + (serverText.map { ": \($0)" } ?? ""),
                                  hint: "check the user name and the password; many providers want an app password here, not the account's own",
                                  field: "password")
        case "certificateRejected":
            // The page's words (the client's carry the TLS library's error and the CLI's option).
            let words = message.contains("does not name") ? "presented a TLS certificate that is not for that host name"
                : "presented a TLS certificate that is not signed by an authority this computer trusts"
            return AccountProblem(.certificate, service: service, message: "the \(name) server \(server) \(words)",
                                  hint: "if the server uses its own certificate authority, give that CA's certificate (a PEM file)",
                                  field: "caFile")
        case "tlsFailed" where message.contains("STARTTLS"):
            return AccountProblem(.startTLSMissing, service: service, message: message,
                                  hint: "choose TLS from the start (\(service == "imap" ? "port 993" : "port 465")) if the server has it; MailSearch never logs in unencrypted",
                                  field: "\(prefix)Security")
        case "tlsFailed" where message.contains("CA file"):
            return AccountProblem(.tls, service: service, message: message,
                                  hint: "give the path of the CA's certificate as a PEM file", field: "caFile")
        case "tlsFailed", "connectionClosed" where message.contains("TLS handshake"):
            return AccountProblem(.tls, service: service, message: message,
                                  hint: startTLS ? "check the port and the connection security"
                                      : "this port may expect STARTTLS (\(service == "imap" ? "143" : "587")) rather than TLS from the start",
                                  field: "\(prefix)Security")
        case "timedOut":
            return AccountProblem(.timeout, service: service, message: message,
                                  hint: "check the host name and the port, and that no firewall drops the connection", field: "\(prefix)Host")
        case "connectionFailed" where message.contains("does not resolve") || message.contains("no address"):
            return AccountProblem(.hostUnknown, service: service, message: message,
                                  hint: "check the spelling of the server's name", field: "\(prefix)Host")
        case "connectionFailed" where message.lowercased().contains("refused"):
            return AccountProblem(.portClosed, service: service, message: message,
                                  hint: "nothing answers on that port: check the port (\(service == "imap" ? "993 for TLS, 143 for STARTTLS" : "465 for TLS, 587 for STARTTLS"))",
                                  field: "\(prefix)Port")
        case "protocolViolation":
            return AccountProblem(.server, service: service, message: message,
                                  hint: "something other than \(name) answers on that port: check the port", field: "\(prefix)Port")
        default:
            return AccountProblem(.server, service: service, message: message, hint: "check the host, the port and the network", field: "\(prefix)Host")
        }
    }
}
