import Foundation
import IMAPClient
import MailModel
import MailSearchKit

/// `serve`'s syncs: one task per IMAP account, watching its server (`IMAPSyncEngine.watch`), started
/// for every account when it runs and for an account the page adds, started again when its settings
/// change, and stopped before an account is removed. Also what the accounts API tries servers with
/// (`AccountConnector`).
public actor SyncSupervisor: AccountConnector {
    public nonisolated let service: MailSearchService
    public nonisolated let options: SyncOptions
    /// Whether accounts are synced at all (`serve --no-sync` only tries servers and saves accounts).
    public nonisolated let syncing: Bool
    private let board = SyncStatusBoard()
    private var tasks: [String: Task<Void, Never>] = [:]
    private var running = false
    /// Sign-ins waiting for the provider's redirect, by `state`.
    private var signIns: [String: (request: OAuthSignIn, pkce: PKCE, started: Date)] = [:]
    /// How long a sign-in may take in the browser.
    static let signInLifetime: TimeInterval = 600

    public init(service: MailSearchService, options: SyncOptions = SyncOptions(), syncing: Bool = true) {
        self.service = service
        self.options = options
        self.syncing = syncing
        service.register(syncStatus: board)
    }

    /// Syncs every IMAP account until the task is cancelled; then stops them all and returns.
    public func run() async {
        running = true
        if syncing, let accounts = try? await service.mailbox.imapAccounts() {
            for (account, settings) in accounts { start(account, settings) }
        }
        // Sleeps until cancelled (the ServiceGroup's graceful shutdown); the syncs run in their own tasks.
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3600))
        }
        running = false
        let all = tasks
        tasks = [:]
        for task in all.values { task.cancel() }
        for task in all.values { await task.value }
    }

    /// The names of the accounts syncing now.
    public var syncingAccounts: [String] { tasks.keys.sorted() }

    private func start(_ account: Account, _ settings: IMAPAccountSettings) {
        guard tasks[account.name] == nil else { return }
        let engine = IMAPSyncEngine(service: service, account: account, settings: settings, options: options, board: board)
        tasks[account.name] = Task { await engine.watch() }
    }

    private func stop(_ name: String) async {
        guard let task = tasks.removeValue(forKey: name) else { return }
        task.cancel()
        await task.value
        board.remove(name)
    }

    // MARK: AccountConnector

    public nonisolated func check(accountName: String, settings: IMAPAccountSettings, password: String?) async -> AccountCheck {
        let authentication = password.map { IMAPAuthentication.password(user: settings.username, password: $0) }
        return await AccountChecker.check(accountName: accountName, settings: settings, authentication: authentication,
                                          secrets: service.secrets)
    }

    public func accountChanged(named name: String) async {
        await stop(name)
        guard running, syncing,
              let found = try? await service.mailbox.imapAccounts().first(where: { $0.account.name == name }) else { return }
        start(found.account, found.settings)
    }

    public func accountRemoved(named name: String) async {
        await stop(name)
    }

    // MARK: OAuth 2.0

    public func beginOAuth(_ request: OAuthSignIn) async throws -> String {
        guard let oauth = request.settings.oauth, var components = URLComponents(string: oauth.authorizeURL) else {
            throw OAuthError(kind: .provider, message: "the provider's authorization address is not valid")
        }
        signIns = signIns.filter { Date().timeIntervalSince($0.value.started) < Self.signInLifetime }
        let pkce = PKCE()
        let state = PKCE.randomState()
        signIns[state] = (request, pkce, Date())
        components.queryItems = (components.queryItems ?? []) + [
            URLQueryItem(name: "response_type", value: "code"),
            URLQueryItem(name: "client_id", value: oauth.clientId),
            URLQueryItem(name: "redirect_uri", value: request.redirectURI),
            URLQueryItem(name: "scope", value: oauth.scope),
            URLQueryItem(name: "state", value: state),
            URLQueryItem(name: "code_challenge", value: pkce.challenge),
            URLQueryItem(name: "code_challenge_method", value: "S256"),
            URLQueryItem(name: "login_hint", value: request.settings.username),
            // Google: a refresh token, and the consent screen again when signing in again.
            URLQueryItem(name: "access_type", value: "offline"),
            URLQueryItem(name: "prompt", value: "consent"),
        ]
        // "+" would be read as a space by some servers in a query: spell it out.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let url = components.url else { throw OAuthError(kind: .provider, message: "cannot build the authorization address") }
        return url.absoluteString
    }

    public func completeOAuth(state: String, code: String?, error: String?, errorDescription: String?) async -> OAuthOutcome {
        guard let pending = signIns.removeValue(forKey: state),
              Date().timeIntervalSince(pending.started) < Self.signInLifetime else {
            return OAuthOutcome(ok: false, account: nil, message: "This sign-in is unknown or took longer than 10 minutes. Start it again from MailSearch.")
        }
        let request = pending.request
        if let error {
            let words = error == "access_denied" ? "access was not allowed" : (errorDescription.map { "\(error): \($0)" } ?? error)
            return OAuthOutcome(ok: false, account: request.name, message: "The provider says \(words). Nothing was saved.")
        }
        guard let code, let oauth = request.settings.oauth else {
            return OAuthOutcome(ok: false, account: request.name, message: "The provider sent no code back. Nothing was saved.")
        }
        guard let secrets = service.secrets, secrets.isUnlocked else {
            return OAuthOutcome(ok: false, account: request.name, message: "The password store is locked: unlock it, then sign in again.")
        }
        let tokens: OAuthTokens
        // Signing in again without a new client secret: the one kept with the account.
        let clientSecret = request.clientSecret
            ?? (oauth.hasClientSecret ? try? secrets.secret(account: request.name, purpose: OAuthSessions.clientSecretPurpose) : nil)
        do {
            tokens = try await OAuthTokenEndpoint.exchange(code: code, verifier: pending.pkce.verifier, redirectURI: request.redirectURI,
                                                           settings: oauth, clientSecret: clientSecret)
        } catch {
            return OAuthOutcome(ok: false, account: request.name, message: "The sign-in could not be finished: \(error). Nothing was saved.")
        }
        let check = await AccountChecker.check(accountName: request.name, settings: request.settings,
                                               authentication: .oauth(user: request.settings.username, accessToken: tokens.accessToken))
        guard check.ok else {
            return OAuthOutcome(ok: false, account: request.name,
                                message: "Signed in, but the mail server refused the token: \(check.problem?.description ?? ""). Nothing was saved.",
                                check: check)
        }
        do {
            try secrets.store(try OAuthSessions.encode(tokens), account: request.name, purpose: OAuthSessions.purpose)
            if let clientSecret = request.clientSecret {
                try secrets.store(clientSecret, account: request.name, purpose: OAuthSessions.clientSecretPurpose)
            }
            if request.again, let existing = try await service.mailbox.imapAccounts().first(where: { $0.account.name == request.name }) {
                try await service.mailbox.updateIMAPAccount(id: existing.account.id, email: existing.account.email,
                                                            displayName: existing.account.displayName, settings: request.settings)
            } else {
                _ = try await service.mailbox.addIMAPAccount(named: request.name, email: request.address, displayName: request.displayName,
                                                             settings: request.settings)
            }
        } catch {
            if !request.again { try? secrets.deleteAll(account: request.name) }
            return OAuthOutcome(ok: false, account: request.name, message: "The account could not be saved: \(error)")
        }
        await accountChanged(named: request.name)
        return OAuthOutcome(ok: true, account: request.name,
                            message: request.again ? "Signed in again: \(request.name) syncs." : "Signed in: \(request.name) was added and its mail is being synced.",
                            check: check)
    }
}
