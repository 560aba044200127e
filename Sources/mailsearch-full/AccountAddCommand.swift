import ArgumentParser
import CLIOutput
import Foundation
import IMAPSync
import MailModel
import SMTPClient
import SearchCLI

struct AccountAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Add an IMAP account to sync (then: mailsearch sync NAME).",
        discussion: """
            The password is never stored: give a command that prints it (like mbsync's PassCmd) or the name of an environment variable that holds it. The login is tried before the account is saved (--no-check to skip).

              mailsearch account add work --imap imap.example.com --user me@example.com --password-command 'pass show mail/work'
              mailsearch account add home --imap mail.home.lan:143 --starttls --ca-file ~/home-ca.pem --user me --password-env HOME_IMAP_PASSWORD
              mailsearch account add gmail --imap imap.gmail.com --user me@gmail.com --oauth-token-command 'oauth2-token gmail' --sync-window 90
              mailsearch account add work --imap imap.example.com --smtp smtp.example.com:587 --user me@example.com --password-command 'pass show mail/work'

            With --smtp, the account also sends (mailsearch send --account NAME) through that server, with the same user and password.
            """)

    @Argument(help: "A name for the account (how searches, folders and `sync` name it).")
    var name: String

    @Option(help: ArgumentHelp("The IMAP server: HOST or HOST:PORT (port 993, or 143 with --starttls).", valueName: "host[:port]"))
    var imap: String

    @Option(help: ArgumentHelp("The user name to log in with.", valueName: "user"))
    var user: String

    @Option(help: ArgumentHelp("A shell command whose first line of output is the password.", valueName: "command"))
    var passwordCommand: String?

    @Option(name: .customLong("password-env"), help: ArgumentHelp("An environment variable that holds the password when a sync runs.", valueName: "name"))
    var passwordEnvironment: String?

    @Option(help: ArgumentHelp("A shell command whose first line of output is an OAuth 2 access token (XOAUTH2, e.g. Gmail).", valueName: "command"))
    var oauthTokenCommand: String?

    @Flag(help: "Connect in clear on port 143 and upgrade with STARTTLS before logging in (default: TLS from the start, port 993).")
    var starttls = false

    @Option(help: ArgumentHelp("A PEM file with the CA certificate to trust for this server (a self-signed server).", valueName: "file"))
    var caFile: String?

    @Option(help: ArgumentHelp("Sync the mail of the last 7, 14, 30, 60 or 90 days, or all of it.", valueName: "days|all"))
    var syncWindow = "30"

    @Option(help: ArgumentHelp("The account's own address (default: the user name when it is an address).", valueName: "address"))
    var email: String?

    @Option(help: ArgumentHelp("The SMTP server that sends this account's mail: HOST or HOST:PORT (port 587 with STARTTLS, or 465 with --smtp-tls implicit).",
                               valueName: "host[:port]"))
    var smtp: String?

    @Option(help: ArgumentHelp("implicit (TLS from the start), starttls or none. Default: implicit on port 465, else starttls.",
                               valueName: "implicit|starttls|none"))
    var smtpTls: String?

    @Flag(help: "Save the account without trying to log in first.")
    var noCheck = false

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        let sources = [passwordCommand, passwordEnvironment, oauthTokenCommand].compactMap { $0 }
        guard sources.count == 1 else {
            throw ValidationError("give exactly one of --password-command, --password-env and --oauth-token-command")
        }
        guard (try? Self.endpoint(imap, starttls: starttls)) != nil else {
            throw ValidationError("--imap must be HOST or HOST:PORT with a port from 1 to 65535, not \"\(imap)\"")
        }
        guard syncWindow == "all" || [7, 14, 30, 60, 90].contains(Int(syncWindow) ?? 0) else {
            throw ValidationError("--sync-window must be 7, 14, 30, 60, 90 or all")
        }
        if let smtp, (try? Self.endpoint(smtp, starttls: true)) == nil {
            throw ValidationError("--smtp must be HOST or HOST:PORT with a port from 1 to 65535, not \"\(smtp)\"")
        }
        if let smtpTls, SendCommand.security(smtpTls) == nil {
            throw ValidationError("--smtp-tls must be implicit, starttls or none, not \"\(smtpTls)\"")
        }
        if smtpTls != nil && smtp == nil {
            throw ValidationError("--smtp-tls needs --smtp")
        }
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw ValidationError("cannot read the CA file \(caFile)")
        }
    }

    static func endpoint(_ text: String, starttls: Bool) throws -> (host: String, port: Int) {
        let defaultPort = starttls ? 143 : 993
        var host = text
        var port = defaultPort
        if text.hasPrefix("[") {  // [::1]:993
            guard let close = text.firstIndex(of: "]") else { throw ValidationError("bad host") }
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if rest.hasPrefix(":") { guard let p = Int(rest.dropFirst()) else { throw ValidationError("bad port") }; port = p }
        } else if let colon = text.lastIndex(of: ":"), text.firstIndex(of: ":") == colon {
            host = String(text[..<colon])
            guard let p = Int(text[text.index(after: colon)...]) else { throw ValidationError("bad port") }
            port = p
        }
        guard !host.isEmpty, (1...65_535).contains(port) else { throw ValidationError("bad endpoint") }
        return (host, port)
    }

    func run() async throws {
        let (host, port) = try Self.endpoint(imap, starttls: starttls)
        var smtpServer: (host: String, port: Int, security: SMTPSecurity)?
        if let smtp {
            let given = smtpTls.flatMap(SendCommand.security)
            let (smtpHost, parsedPort) = try Self.endpoint(smtp, starttls: true)
            let hasPort = smtp.hasSuffix(":\(parsedPort)")
            let security = given ?? (hasPort && parsedPort == 465 ? .tls : .startTLS)
            smtpServer = (smtpHost, hasPort ? parsedPort : security.defaultPort, security)
        }
        let settings = IMAPAccountSettings(
            host: host, port: port, security: starttls ? "startTLS" : "tls", username: user,
            passwordCommand: passwordCommand, passwordEnvironment: passwordEnvironment, oauthTokenCommand: oauthTokenCommand,
            caFile: caFile.map { URL(fileURLWithPath: $0).standardizedFileURL.path },
            syncWindowDays: syncWindow == "all" ? nil : Int(syncWindow),
            smtpHost: smtpServer?.host, smtpPort: smtpServer?.port, smtpSecurity: smtpServer?.security.rawValue)
        let service = try global.openService()
        defer { service.shutdown() }
        if try await service.mailbox.account(named: name) != nil {
            throw CLIError("an account named \"\(name)\" exists already; `mailsearch account list` shows the accounts")
        }
        if !noCheck {
            let check = await AccountChecker.check(accountName: name, settings: settings)
            if let problem = check.problem {
                throw CLIError("\(problem.service == "smtp" ? "SMTP: " : "")\(problem); the account was not saved (--no-check saves it anyway)")
            }
        }
        let address = email ?? (user.contains("@") ? user : nil)
        let account: Account
        do {
            account = try await service.mailbox.addIMAPAccount(named: name, email: address, settings: settings)
        } catch {
            throw CLIError("\(error)")
        }
        if global.json { return try Output.printJSON(AccountListCommand.Line(account: account, settings: settings, emails: 0)) }
        let window = settings.syncWindowDays.map { "the last \($0) days" } ?? "all mail"
        print("Added account \"\(name)\": \(user) on \(host):\(port) (\(starttls ? "STARTTLS" : "TLS")), syncing \(window).")
        if let smtpServer {
            print("It sends through \(smtpServer.host):\(smtpServer.port) (\(Self.wording(smtpServer.security))): mailsearch send --account \(name) --to …")
        }
        print("Sync it now with: mailsearch sync \(name)   (or keep it in sync: mailsearch sync \(name) --watch, or mailsearch serve)")
    }

    static func wording(_ security: SMTPSecurity) -> String {
        switch security {
        case .tls: return "TLS"
        case .startTLS: return "STARTTLS"
        case .plaintext: return "no TLS"
        }
    }
}

struct AccountListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List accounts: IMAP accounts with their server and last sync, and imported ones.")

    @OptionGroup var global: GlobalOptions

    struct Line: Encodable {
        var id: Int64
        var name: String
        var email: String?
        var kind: String
        var emails: Int
        var lastSync: Date?
        var imap: IMAPAccountSettings?

        init(account: Account, settings: IMAPAccountSettings?, emails: Int) {
            id = account.id
            name = account.name
            email = account.email
            kind = settings == nil ? "imported" : "imap"
            self.emails = emails
            lastSync = account.lastSyncDate
            imap = settings
        }
    }

    func run() async throws {
        let service = try global.openService(readOnly: true)
        defer { service.shutdown() }
        let imap = Dictionary(uniqueKeysWithValues: try await service.mailbox.imapAccounts().map { ($0.account.id, $0.settings) })
        var lines: [Line] = []
        for account in try await service.mailbox.accounts() {
            lines.append(Line(account: account, settings: imap[account.id], emails: try await service.mailbox.emailCount(accountId: account.id)))
        }
        if global.json { return try Output.printJSON(lines) }
        if lines.isEmpty {
            print("No accounts yet. Add an IMAP account with `mailsearch account add`, or import mail with `mailsearch import PATH --account NAME`.")
        }
        for line in lines {
            var text = "\(line.name)\t\(line.emails) emails"
            if let s = line.imap {
                let window = s.syncWindowDays.map { "last \($0) days" } ?? "all mail"
                text += "\timap \(s.username)@\(s.host):\(s.port) (\(s.security == "startTLS" ? "STARTTLS" : "TLS"), \(window))"
                if let smtpHost = s.smtpHost, let smtpPort = s.smtpPort {
                    text += "\tsmtp \(smtpHost):\(smtpPort)"
                }
                text += "\tlast sync \(line.lastSync.map { Output.date($0) } ?? "never")"
            } else {
                text += "\timported"
            }
            print(text)
        }
    }
}
