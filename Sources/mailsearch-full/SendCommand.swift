import ArgumentParser
import CLIOutput
import Foundation
import IMAPClient
import IMAPSync
import MailComposition
import MailModel
import MailSearchKit
import SMTPClient
import SMTPProtocol
import SearchCLI

struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send", abstract: "Send a message through an SMTP server.",
        discussion: """
            Builds the message (RFC 5322 + MIME: UTF-8 text, an optional HTML alternative, attachments; Bcc never appears in the headers) and sends it: EHLO, STARTTLS or TLS from the start, AUTH, MAIL FROM, RCPT TO for each recipient, DATA. A message larger than the server's SIZE is refused before anything is sent. When the server refuses some recipients, the message still goes to the others, each refusal is printed with the server's reply, and the exit status is 3.

              mailsearch send --smtp smtp.example.com --user me@example.com --password-file ~/.smtp-pw --from me@example.com --to bob@example.org --subject "Lunch?" --body-file note.txt
              echo "See attached." | mailsearch send --smtp mail.home.lan:465 --tls implicit --ca-file home-ca.pem --user me --password-env SMTP_PW --from me@home.lan --to a@b.c --cc d@e.f --attach report.pdf --body-file -
              mailsearch send --account work --to bob@example.org --subject "Re: Budget" --in-reply-to '<id@example.org>' --body-file reply.txt
              mailsearch send --from a@b.c --to d@e.f --subject Test --dry-run      # print the message, send nothing

            Exit status: 0 sent to every recipient; 3 sent, but some recipients were refused; 1 not sent.
            """)

    @Option(help: ArgumentHelp("The SMTP server: HOST or HOST:PORT (default port 587, or 465 with --tls implicit).", valueName: "host[:port]"))
    var smtp: String?

    @Option(help: ArgumentHelp("implicit (TLS from the start, port 465), starttls (port 587) or none (clear text: local relays only). Default: implicit on port 465, else starttls.",
                               valueName: "implicit|starttls|none"))
    var tls: String?

    @Option(help: ArgumentHelp("A PEM file with the CA certificate to trust for this server (a self-signed server).", valueName: "file"))
    var caFile: String?

    @Option(help: ArgumentHelp("The user name to log in with (no login without it).", valueName: "user"))
    var user: String?

    @Option(help: ArgumentHelp("A file whose first line is the password.", valueName: "file"))
    var passwordFile: String?

    @Option(name: .customLong("password-env"), help: ArgumentHelp("An environment variable that holds the password.", valueName: "name"))
    var passwordEnvironment: String?

    @Option(help: ArgumentHelp("Send through this IMAP account's SMTP server (account add --smtp) with its login; --smtp, --user and a password option override it.",
                               valueName: "name"))
    var account: String?

    @Option(help: ArgumentHelp("The sender: ADDRESS or \"Name <ADDRESS>\" (default with --account: the account's address).", valueName: "address"))
    var from: String?

    @Option(help: ArgumentHelp("A recipient: ADDRESS or \"Name <ADDRESS>\" (repeatable).", valueName: "address"))
    var to: [String] = []

    @Option(help: ArgumentHelp("A copy recipient (repeatable).", valueName: "address"))
    var cc: [String] = []

    @Option(help: ArgumentHelp("A blind copy recipient: gets the message, appears in no header (repeatable).", valueName: "address"))
    var bcc: [String] = []

    @Option(help: ArgumentHelp("The subject (any language: encoded as RFC 2047 when it is not ASCII).", valueName: "text"))
    var subject = ""

    @Option(help: ArgumentHelp("The text of the message, UTF-8, from a file or - for standard input (default: empty).", valueName: "file|-"))
    var bodyFile: String?

    @Option(help: ArgumentHelp("An HTML version of the text, from a file (sent as multipart/alternative).", valueName: "file"))
    var htmlFile: String?

    @Option(help: ArgumentHelp("A file to attach (repeatable).", valueName: "file"))
    var attach: [String] = []

    @Option(help: ArgumentHelp("The Message-ID this message answers (sets In-Reply-To; add the thread with --references).", valueName: "id"))
    var inReplyTo: String?

    @Option(help: ArgumentHelp("A Message-ID of the thread, oldest first (repeatable; the --in-reply-to one is added last when missing).", valueName: "id"))
    var references: [String] = []

    @Flag(help: "Send UTF-8 text as it is (8bit, needs the server's 8BITMIME) instead of quoted-printable.")
    var eightBit = false

    @Option(help: ArgumentHelp("Seconds to wait for each reply of the server (default 60).", valueName: "seconds"))
    var timeout: Int = 60

    @Flag(help: "Print the message that would be sent, and send nothing.")
    var dryRun = false

    @Flag(help: "With --account: keep no copy in the account's Sent folder (by default one is appended there, except on Gmail, which keeps its own).")
    var noSentCopy = false

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let tls, Self.security(tls) == nil {
            throw ValidationError("--tls must be implicit, starttls or none, not \"\(tls)\"")
        }
        if let smtp, (try? AccountAddCommand.endpoint(smtp, starttls: true)) == nil {
            throw ValidationError("--smtp must be HOST or HOST:PORT with a port from 1 to 65535, not \"\(smtp)\"")
        }
        if passwordFile != nil && passwordEnvironment != nil {
            throw ValidationError("give at most one of --password-file and --password-env")
        }
        if (passwordFile != nil || passwordEnvironment != nil) && user == nil && account == nil {
            throw ValidationError("a password needs --user")
        }
        if to.isEmpty && cc.isEmpty && bcc.isEmpty {
            throw ValidationError("give at least one recipient with --to, --cc or --bcc")
        }
        if smtp == nil && account == nil && !dryRun {
            throw ValidationError("give the SMTP server with --smtp HOST[:PORT] (or --account NAME, or --dry-run to only print the message)")
        }
        guard (1...3600).contains(timeout) else { throw ValidationError("--timeout must be 1 to 3600 seconds") }
    }

    static func security(_ text: String) -> SMTPSecurity? {
        switch text.lowercased() {
        case "implicit", "tls", "ssl": return .tls
        case "starttls": return .startTLS
        case "none", "plain", "plaintext": return .plaintext
        default: return nil
        }
    }

    func run() async throws {
        var settings: IMAPAccountSettings?
        var accountAddress: String?
        var imapAccount: Account?
        if let account {
            let service = try global.openService(readOnly: true)
            defer { service.shutdown() }
            guard let found = try await service.mailbox.imapAccounts().first(where: { $0.account.name == account }) else {
                throw CLIError("no IMAP account named \"\(account)\"; `mailsearch account list` shows the accounts")
            }
            settings = found.settings
            imapAccount = found.account
            accountAddress = found.account.email ?? (found.settings.username.contains("@") ? found.settings.username : nil)
            if smtp == nil && found.settings.smtpHost == nil && !dryRun {
                throw CLIError("account \"\(account)\" has no SMTP server: give --smtp HOST[:PORT], or add the account again with --smtp")
            }
        }
        let message = try buildMessage(defaultFrom: accountAddress)
        if dryRun {
            FileHandle.standardOutput.write(Data(message.bytes))
            return
        }
        let configuration = try serverConfiguration(settings)
        let authentication = try await readAuthentication(settings)
        let result: SMTPSendResult
        do {
            result = try await SMTPConnection.send(configuration, authentication: authentication, message: message.bytes,
                                                   from: message.sender, to: message.recipients,
                                                   requiresSMTPUTF8: message.requiresSMTPUTF8)
        } catch {
            throw CLIError("\(error)")
        }
        try report(result, message: message, server: configuration.endpoint)
        // A copy in the account's Sent folder, as a mail client keeps one (Gmail files its own).
        if noSentCopy {
            // asked for none
        } else if let imapAccount, let settings, !MessageSender.isGmail(settings) {
            do {
                let service = try global.openService()
                try await MessageSender.appendToSent(bytes: message.bytes, messageId: message.messageID, account: imapAccount,
                                                     settings: settings, service: service)
                if !global.json { print("Copied to the Sent folder of \"\(imapAccount.name)\"") }
            } catch {
                FileHandle.standardError.write(Data("warning: sent, but not copied to the Sent folder of \"\(imapAccount.name)\": \(error)\n".utf8))
            }
        }
        if !result.rejected.isEmpty { throw ExitCode(3) }
    }

    // MARK: The message

    private func buildMessage(defaultFrom: String?) throws -> BuiltMessage {
        guard let fromText = from ?? defaultFrom else {
            throw CLIError("give the sender with --from ADDRESS")
        }
        func mailboxes(_ list: [String], _ option: String) throws -> [MailboxAddress] {
            try list.map { text in
                do {
                    return try MailboxAddress(parsing: text)
                } catch {
                    throw CLIError("\(option): \(error)")
                }
            }
        }
        let sender = try mailboxes([fromText], "--from")[0]
        var text = ""
        if let bodyFile {
            let data = bodyFile == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try read(bodyFile, "--body-file")
            guard let decoded = String(data: data, encoding: .utf8) else { throw CLIError("--body-file \(bodyFile) is not UTF-8 text") }
            text = decoded
        }
        var html: String?
        if let htmlFile {
            guard let decoded = String(data: try read(htmlFile, "--html-file"), encoding: .utf8) else {
                throw CLIError("--html-file \(htmlFile) is not UTF-8 text")
            }
            html = decoded
        }
        let attachments = try attach.map { path in
            OutgoingAttachment(filename: URL(fileURLWithPath: path).lastPathComponent, mimeType: Self.mimeType(path),
                               content: [UInt8](try read(path, "--attach")))
        }
        var references = self.references
        if let inReplyTo, !references.contains(inReplyTo) { references.append(inReplyTo) }
        let outgoing = OutgoingMessage(
            from: sender, to: try mailboxes(to, "--to"), cc: try mailboxes(cc, "--cc"), bcc: try mailboxes(bcc, "--bcc"),
            subject: subject, inReplyTo: inReplyTo, references: references, textBody: text, htmlBody: html,
            attachments: attachments, textEncoding: eightBit ? .eightBit : .quotedPrintable)
        do {
            return try MessageBuilder().build(outgoing)
        } catch {
            throw CLIError("\(error)")
        }
    }

    private func read(_ path: String, _ option: String) throws -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CLIError("\(option): cannot read \(path): \((error as NSError).localizedDescription)")
        }
    }

    /// The MIME type of a file to attach, from its extension.
    static func mimeType(_ path: String) -> String {
        let types = [
            "pdf": "application/pdf", "txt": "text/plain", "csv": "text/csv", "html": "text/html", "htm": "text/html",
            "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
            "zip": "application/zip", "json": "application/json", "ics": "text/calendar", "md": "text/markdown",
            "doc": "application/msword", "xls": "application/vnd.ms-excel",
            "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        ]
        return types[URL(fileURLWithPath: path).pathExtension.lowercased()] ?? "application/octet-stream"
    }

    // MARK: The server

    private func serverConfiguration(_ settings: IMAPAccountSettings?) throws -> SMTPClientConfiguration {
        let text: String
        var security = tls.flatMap(Self.security)
        if let smtp {
            text = smtp
        } else if let settings, let host = settings.smtpHost {
            text = settings.smtpPort.map { "\(host.contains(":") ? "[\(host)]" : host):\($0)" } ?? host
            if security == nil { security = settings.smtpSecurity.flatMap(SMTPSecurity.init(rawValue:)) }
        } else {
            throw CLIError("give the SMTP server with --smtp HOST[:PORT]")
        }
        let (host, port) = try AccountAddCommand.endpoint(text, starttls: security != .tls)
        let resolved = security ?? (port == 465 ? .tls : .startTLS)
        let explicitPort = text.hasSuffix(":\(port)") ? port : resolved.defaultPort
        return SMTPClientConfiguration(host: host, port: explicitPort, security: resolved, caFile: caFile ?? settings?.caFile,
                                       responseTimeout: .seconds(timeout))
    }

    private func readAuthentication(_ settings: IMAPAccountSettings?) async throws -> SMTPAuthentication? {
        if let passwordFile {
            let data = try read(passwordFile, "--password-file")
            let line = String(decoding: data, as: UTF8.self).split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let password = line.hasSuffix("\r") ? String(line.dropLast()) : String(line)
            guard !password.isEmpty else { throw CLIError("--password-file \(passwordFile): the first line is empty") }
            return .password(user: user ?? settings?.username ?? "", password: password)
        }
        if let passwordEnvironment {
            guard let password = ProcessInfo.processInfo.environment[passwordEnvironment], !password.isEmpty else {
                throw CLIError("--password-env: the environment variable \(passwordEnvironment) is not set")
            }
            return .password(user: user ?? settings?.username ?? "", password: password)
        }
        if let settings, let account, user == nil {
            do {
                // An account added from the page keeps its password or tokens in the secret store.
                let secrets = settings.passwordStored || settings.oauth != nil
                    ? try StoreVault.openForCommand(dataDirectory: global.dataDirectory.url) : nil
                switch try await IMAPSyncEngine.credentials(accountName: account, settings: settings, secrets: secrets) {
                case .password(let user, let password): return .password(user: user, password: password)
                case .oauth(let user, let token, _): return .oauth(user: user, accessToken: token)
                }
            } catch {
                throw CLIError("\(error)")
            }
        }
        if user != nil {
            throw CLIError("--user needs a password: --password-file FILE or --password-env NAME")
        }
        return nil
    }

    // MARK: Output

    struct Report: Encodable {
        struct Refusal: Encodable {
            var recipient: String
            var code: Int
            var enhancedCode: String?
            var reply: String
        }

        var messageId: String
        var server: String
        var size: Int
        var accepted: [String]
        var rejected: [Refusal]
        var reply: String
    }

    private func report(_ result: SMTPSendResult, message: BuiltMessage, server: String) throws {
        let report = Report(
            messageId: message.messageID, server: server, size: message.bytes.count, accepted: result.accepted.map(\.address),
            rejected: result.rejected.map { Report.Refusal(recipient: $0.recipient.address, code: $0.reply.code,
                                                           enhancedCode: $0.reply.enhancedCode?.description, reply: $0.reply.description) },
            reply: result.finalReply.description)
        if global.json { return try Output.printJSON(report) }
        print("Sent <\(message.messageID)> to \(report.accepted.joined(separator: ", ")) through \(server) (\(report.reply))")
        for refusal in report.rejected {
            print("Not sent to \(refusal.recipient): the server refused it (\(refusal.reply))")
        }
    }
}
