import Foundation
import Hummingbird
import OnTheMapModels
import Storage

/// One-time, expiring links an administrator hands a student who forgot their password.
/// The token (256 random bits) travels in the link's fragment, so it reaches neither server
/// logs nor `Referer` headers; the database keeps only its digest, as for sessions.
public enum PasswordResetLinks {
    public static let lifetime: TimeInterval = 24 * 3600

    /// Creates a link for the account; `origin` is where students reach the server
    /// ("https://map.example.org").
    public static func create(
        for accountKey: String, store: any ModerationRepository, origin: String, now: Date = Date()
    ) async throws -> (url: String, expiresAt: Date) {
        let token = Tokens.randomHex(bytes: 32)
        let expiresAt = now.addingTimeInterval(lifetime)
        try await store.createPasswordReset(token: token, accountKey: accountKey, now: now, expiresAt: expiresAt)
        let base = origin.hasSuffix("/") ? String(origin.dropLast()) : origin
        return ("\(base)/reset.html#token=\(token)", expiresAt)
    }
}

/// `POST /api/password-reset` `{"token","new_password"}`: sets the password a link allows
/// and ends every session of the account (whoever had the old password is logged out).
struct PasswordResetController: Sendable {
    let accounts: AccountsService
    /// Reset links (its only storage).
    let store: any ModerationRepository
    var configuration: Configuration { accounts.configuration }

    static let invalidLink = APIError(
        .badRequest, "invalid_reset_link",
        "This reset link is unknown, already used or expired; ask your administrator for a new one.")

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("password-reset", use: reset)
    }

    @Sendable func reset(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.collectBody(limit: configuration.maxBodySize) { APIError.tooLarge }
        guard let form = try? JSONDecoder().decode(ResetRequest.self, from: body) else {
            throw APIError(.badRequest, "invalid_body", "Send a JSON object with token and new_password (strings).")
        }
        try AccountController.checkNewPassword(form.newPassword)
        guard form.token.count <= 128, try await store.passwordResetAccount(token: form.token, now: configuration.clock.now()) != nil else {
            throw Self.invalidLink
        }
        let hash = try await accounts.hashPassword(form.newPassword)
        // Spent only now, so a busy hashing pool (503) does not waste the link.
        guard let accountKey = try await store.consumePasswordReset(token: form.token, now: configuration.clock.now()) else {
            throw Self.invalidLink
        }
        // Every other open link of the account is spent with it.
        let ended = try await accounts.setPassword(accountKey: accountKey, hash: hash, keeping: nil)
        context.logger.notice("password reset with a link", metadata: ["account": "\(accountKey)", "sessions_ended": "\(ended)"])
        return try JSONResponse.make(PasswordChangeResponse(endedSessions: ended))
    }

    struct ResetRequest: Decodable {
        let token: String
        let newPassword: String
        enum CodingKeys: String, CodingKey {
            case token
            case newPassword = "new_password"
        }
    }
}
