import Foundation
import Hummingbird

/// `/api/lock`: the app lock's state, unlocking, setting and removing the passcode (`AppLock`).
extension MailSearchAPI {
    struct PasscodeBody: Decodable {
        var passcode: String
    }

    struct LockState: Encodable {
        var enabled: Bool
        /// Whether the request's session is open (always true without a lock).
        var unlocked: Bool
        /// A new session (after unlocking or setting the passcode): send it as `X-MailSearch-Session`.
        var session: String?
    }

    func registerAppLock(on api: RouterGroup<BasicRequestContext>) {
        api.get("lock") { request, _ in
            let lock = try requireLock()
            return JSON.response(LockState(enabled: lock.isEnabled, unlocked: lock.allows(session: Self.session(request)), session: nil))
        }
        api.post("lock/unlock") { request, _ in
            let body = try await Self.jsonBody(PasscodeBody.self, request, example: #"{"passcode": "…"}"#, limit: 4096)
            let session = try await requireLock().unlock(passcode: body.passcode)
            return JSON.response(LockState(enabled: true, unlocked: true, session: session))
        }
        // Setting or changing it needs an open session when a lock is set (SecurityMiddleware).
        api.post("lock") { request, _ in
            let body = try await Self.jsonBody(PasscodeBody.self, request, example: #"{"passcode": "…"}"#, limit: 4096)
            let session = try requireLock().set(passcode: body.passcode)
            return JSON.response(LockState(enabled: true, unlocked: true, session: session))
        }
        api.delete("lock") { _, _ in
            try requireLock().remove()
            return JSON.response(LockState(enabled: false, unlocked: true, session: nil))
        }
    }

    func requireLock() throws -> AppLock {
        guard let appLock else { throw APIError(.serviceUnavailable, "the mailbox is open read-only: no app lock") }
        return appLock
    }

    static func session(_ request: Request) -> String? {
        request.headers[FieldName(AppLock.header)!]
    }
}
