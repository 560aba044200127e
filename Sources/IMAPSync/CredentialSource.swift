import Foundation
import IMAPClient
import MailModel
import MailSearchKit

/// Reads an account's password or OAuth token when a sync starts: from a command's output (like
/// mbsync's PassCmd: `pass show mail/work`, `secret-tool lookup …`, a token refresher) or an
/// environment variable. Nothing is stored; nothing read is ever put in an error or a log.
enum CredentialSource {
    static let commandTimeout: TimeInterval = 60

    /// `authentication(account:settings:)` on a thread of its own: a password command may take
    /// up to `commandTimeout`, which no cooperative thread may spend waiting.
    static func authentication(account: String, settings: IMAPAccountSettings, secrets: (any SecretVault)?,
                               refusedToken: String? = nil) async throws -> IMAPAuthentication {
        if let oauth = settings.oauth {
            do {
                let token = try await OAuthSessions.shared.accessToken(account: account, settings: oauth, secrets: secrets, refused: refusedToken)
                return .oauth(user: settings.username, accessToken: token)
            } catch let error as OAuthError {
                switch error.kind {
                case .signInAgain:
                    throw SyncError(.authentication, "account \"\(account)\" must sign in again: \(error.message)",
                                    hint: "open Accounts on the page and choose Sign in again")
                case .provider, .network:
                    throw SyncError(.credentials, "cannot get an access token for account \"\(account)\": \(error.message)",
                                    hint: "the sync tries again")
                }
            }
        }
        guard settings.oauthTokenCommand != nil || settings.passwordCommand != nil || settings.passwordStored else {
            return try authentication(account: account, settings: settings, environment: ProcessInfo.processInfo.environment, secrets: secrets)
        }
        return try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result {
                    try authentication(account: account, settings: settings, environment: ProcessInfo.processInfo.environment, secrets: secrets)
                })
            }
            thread.name = "mailsearch.credentials"
            thread.start()
        }
    }

    static func authentication(account: String, settings: IMAPAccountSettings,
                               environment: [String: String], secrets: (any SecretVault)? = nil) throws -> IMAPAuthentication {
        if settings.passwordStored {
            guard let secrets else {
                throw SyncError(.credentials, "the password of account \"\(account)\" is in the secret store, which this process has not opened",
                                hint: "run `mailsearch serve` and unlock the store from the page, or set MAILSEARCH_SECRET_PASSPHRASE")
            }
            guard secrets.isUnlocked else {
                throw SyncError(.credentials, "the secret store (\(secrets.summary)) is locked, so the password of account \"\(account)\" cannot be read",
                                hint: "unlock it with your passphrase on the page")
            }
            let password: String?
            do {
                password = try secrets.password(account: account)
            } catch {
                throw SyncError(.credentials, "cannot read the password of account \"\(account)\" from \(secrets.summary): \(error)")
            }
            guard let password, !password.isEmpty else {
                throw SyncError(.credentials, "\(secrets.summary) holds no password for account \"\(account)\"",
                                hint: "enter the password again in the account's settings")
            }
            return .password(user: settings.username, password: password)
        }
        if let command = settings.oauthTokenCommand {
            let token = try firstLine(ofCommand: command, account: account, what: "OAuth token")
            return .oauth(user: settings.username, accessToken: token)
        }
        if let command = settings.passwordCommand {
            let password = try firstLine(ofCommand: command, account: account, what: "password")
            return .password(user: settings.username, password: password)
        }
        if let variable = settings.passwordEnvironment {
            guard let password = environment[variable], !password.isEmpty else {
                throw SyncError(.credentials, "the environment variable \(variable), which holds the password of account \"\(account)\", is not set",
                                hint: "set it in the environment of this process, or change the account to --password-command")
            }
            return .password(user: settings.username, password: password)
        }
        throw SyncError(.credentials, "account \"\(account)\" has no way to get its password",
                        hint: "remove it and add it again with --password-command or --password-env")
    }

    /// Runs `command` with /bin/sh and returns the first line it prints (without the line end).
    static func firstLine(ofCommand command: String, account: String, what: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        // Its standard error goes where ours goes: a password manager may ask or explain there.
        do {
            try process.run()
        } catch {
            throw SyncError(.credentials, "cannot run the \(what) command of account \"\(account)\": \(error)")
        }
        let reader = output.fileHandleForReading
        let finished = DispatchSemaphore(value: 0)
        let collected = CollectedData()
        DispatchQueue.global().async {
            collected.data = reader.readDataToEndOfFile()
            finished.signal()
        }
        if finished.wait(timeout: .now() + commandTimeout) == .timedOut {
            process.terminate()
            throw SyncError(.credentials, "the \(what) command of account \"\(account)\" gave no answer in \(Int(commandTimeout)) s",
                            hint: "run it by hand to see whether it waits for input")
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SyncError(.credentials, "the \(what) command of account \"\(account)\" failed (exit status \(process.terminationStatus))",
                            hint: "run it by hand to see why")
        }
        let text = String(decoding: collected.data, as: UTF8.self)
        let line = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let value = line.hasSuffix("\r") ? String(line.dropLast()) : line
        guard !value.isEmpty else {
            throw SyncError(.credentials, "the \(what) command of account \"\(account)\" printed nothing",
                            hint: "it must print the \(what) on its first line")
        }
        return value
    }

    private final class CollectedData: @unchecked Sendable {
        var data = Data()
    }
}

extension IMAPSyncEngine {
    /// The account's password or token, read now from its command or environment variable (for
    /// sending through the account's SMTP server with the same login). Never stored.
    public static func credentials(accountName: String, settings: IMAPAccountSettings,
                                   secrets: (any SecretVault)? = nil) async throws -> IMAPAuthentication {
        try await CredentialSource.authentication(account: accountName, settings: settings, secrets: secrets)
    }
}
