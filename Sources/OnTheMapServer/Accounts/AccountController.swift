import Foundation
import Hummingbird
import NIOPosix
import OnTheMapModels
import Storage

/// Sign-up: `POST /api/users` with `{"email","password","first_name","last_name"}`;
/// password change: `POST /api/account/password` with `{"current_password","new_password"}`.
struct AccountController: Sendable {
    let accounts: AccountsService
    /// Accounts, and the sign-up throttle's counters.
    let store: any AccountRepository & LoginThrottleRepository
    var configuration: Configuration { accounts.configuration }

    static let minimumPasswordLength = 8
    static let maximumNameLength = 100

    private var throttle: LoginThrottle { LoginThrottle(store: store, settings: configuration.loginThrottle, clock: configuration.clock) }

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("users", use: signUp)
        group.post("account/password", use: changePassword)
        group.put("account/language", use: setLanguage)
    }

    @Sendable func signUp(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.collectBody(limit: configuration.maxBodySize) { APIError.tooLarge }
        guard let form = try? JSONDecoder().decode(SignUpRequest.self, from: body) else {
            throw APIError(.badRequest, "invalid_body", "Send a JSON object with email, password, first_name and last_name (all strings).")
        }
        // Every sign-up counts against its address: each one costs a bcrypt hash, and "email
        // taken" answers would otherwise let one address list who has an account.
        let signUps = [ThrottleSubject(.signUp, context.clientAddress)]
        if let seconds = try await throttle.retryAfter(signUps) {
            throw RetryLater(
                APIError(.tooManyRequests, "rate_limited", "Too many sign-ups from your network; try again in \(seconds) s."),
                after: seconds)
        }
        try await throttle.recordFailure(signUps)
        let email = Self.normalizedEmail(form.email)
        guard Self.isPlausibleEmail(email) else {
            throw APIError(.badRequest, "invalid_email", "Enter a valid email address, like name@example.com.")
        }
        try Self.checkNewPassword(form.password)
        let (firstName, lastName) = try Self.checkNames(first: form.firstName, last: form.lastName)
        if try await store.account(email: email) != nil {
            throw APIError(.conflict, "email_taken", "An account with this email already exists. Log in instead.")
        }
        let hash = try await accounts.hashPassword(form.password)
        // A password sign-up proves nothing about the email: the account stays unproven until a
        // provider vouches for it (see `SignInPolicy`).
        let account: Account
        do {
            account = try await accounts.createAccount(
                email: email, passwordHash: hash, firstName: firstName, lastName: lastName,
                emailVerified: false)
        } catch StorageError.emailTaken {
            throw APIError(.conflict, "email_taken", "An account with this email already exists. Log in instead.")
        }
        context.logger.info("sign-up", metadata: ["account": "\(account.key)"])
        var headers = HTTPFields()
        headers[.location] = "/api/users/\(account.key)"
        return try JSONResponse.make(SignUpResponse(key: account.key), status: .created, headers: headers)
    }

    // MARK: POST /api/account/password

    /// Needs the session and the current password; every other session of the account ends,
    /// so whoever learnt the old password is logged out everywhere but here.
    @Sendable func changePassword(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.requireSignedIn(.api("Log in to change your password."))
        let body = try await request.collectBody(limit: configuration.maxBodySize) { APIError.tooLarge }
        guard let form = try? JSONDecoder().decode(PasswordChangeRequest.self, from: body) else {
            throw APIError(.badRequest, "invalid_body", "Send a JSON object with current_password and new_password (strings).")
        }
        try Self.checkNewPassword(form.newPassword)
        let account = caller.account
        // A stolen session must not become a way around login throttling.
        let subjects = [ThrottleSubject(.account, account.email), ThrottleSubject(.address, context.clientAddress)]
        if let seconds = try await throttle.retryAfter(subjects) {
            throw RetryLater(APIError(.tooManyRequests, "rate_limited", LoginThrottle.message(retryAfter: seconds)), after: seconds)
        }
        let current = form.currentPassword
        let stored = account.passwordHash
        // An account made by signing in with another provider sets its first password with
        // the session alone (current_password ""): it has no current one to give.
        var currentMatches = stored.isEmpty
        if !currentMatches, current.utf8.count <= Passwords.maximumBytes {
            currentMatches = try await accounts.verifyPassword(current, hash: stored)
        }
        guard currentMatches else {
            try await throttle.recordFailure(subjects)
            throw APIError(.forbidden, "wrong_password", "The current password is not right.")
        }
        let hash = try await accounts.hashPassword(form.newPassword)
        let ended = try await accounts.setPassword(accountKey: account.key, hash: hash, keeping: caller.session.id)
        context.logger.info("password changed", metadata: ["account": "\(account.key)", "sessions_ended": "\(ended)"])
        return try JSONResponse.make(PasswordChangeResponse(endedSessions: ended))
    }

    /// A person's names as sign-up and a change of name take them: trimmed, each 1 to
    /// `maximumNameLength` characters on one line, without control or text-direction characters.
    static func checkNames(first: String, last: String) throws -> (first: String, last: String) {
        let firstName = first.trimmingCharacters(in: .whitespacesAndNewlines)
        let lastName = last.trimmingCharacters(in: .whitespacesAndNewlines)
        for (field, value) in [("first_name", firstName), ("last_name", lastName)] {
            guard !value.isEmpty, value.count <= Self.maximumNameLength, TextRules.isDisplaySafe(value) else {
                throw APIError(
                    .badRequest, "invalid_name",
                    "\(field) must be 1 to \(Self.maximumNameLength) characters on one line, without control or text-direction characters.")
            }
        }
        return (firstName, lastName)
    }

    /// Length rules for a password being set. Pass phrases count in full (see `Passwords`).
    static func checkNewPassword(_ password: String) throws {
        guard password.count >= Self.minimumPasswordLength else {
            throw APIError(.badRequest, "weak_password", "Choose a password of at least \(Self.minimumPasswordLength) characters.")
        }
        guard password.utf8.count <= Passwords.maximumBytes else {
            throw APIError(.badRequest, "password_too_long", "Choose a password of at most \(Passwords.maximumBytes) bytes.")
        }
    }

    /// Emails compare case-insensitively and without surrounding spaces.
    static func normalizedEmail(_ email: String) -> String {
        email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    static func isPlausibleEmail(_ email: String) -> Bool {
        guard email.count <= 254, !email.contains(where: { $0.isWhitespace }), TextRules.isDisplaySafe(email) else { return false }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty else { return false }
        let domain = parts[1]
        return domain.contains(".") && !domain.hasPrefix(".") && !domain.hasSuffix(".")
    }
}
