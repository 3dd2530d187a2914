import Foundation
import Hummingbird
import HummingbirdBcrypt
import NIOPosix
import OnTheMapModels
import Storage

/// Sign-up: `POST /api/users` with `{"email","password","first_name","last_name"}`.
struct AccountController: Sendable {
    let store: any OnTheMapStore
    let configuration: Configuration

    static let minimumPasswordLength = 8
    /// bcrypt reads at most 72 bytes; a longer password would be silently truncated.
    static let maximumPasswordBytes = 72
    static let maximumNameLength = 100

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("users", use: signUp)
    }

    @Sendable func signUp(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.collectBody(limit: configuration.maxBodySize) { APIError.tooLarge }
        guard let form = try? JSONDecoder().decode(SignUpRequest.self, from: body) else {
            throw APIError(.badRequest, "invalid_body", "Send a JSON object with email, password, first_name and last_name (all strings).")
        }
        let email = Self.normalizedEmail(form.email)
        guard Self.isPlausibleEmail(email) else {
            throw APIError(.badRequest, "invalid_email", "Enter a valid email address, like name@example.com.")
        }
        guard form.password.count >= Self.minimumPasswordLength else {
            throw APIError(.badRequest, "weak_password", "Choose a password of at least \(Self.minimumPasswordLength) characters.")
        }
        guard form.password.utf8.count <= Self.maximumPasswordBytes else {
            throw APIError(.badRequest, "password_too_long", "Choose a password of at most \(Self.maximumPasswordBytes) bytes.")
        }
        let firstName = form.firstName.trimmingCharacters(in: .whitespacesAndNewlines)
        let lastName = form.lastName.trimmingCharacters(in: .whitespacesAndNewlines)
        for (field, value) in [("first_name", firstName), ("last_name", lastName)] {
            guard !value.isEmpty, value.count <= Self.maximumNameLength, !value.contains(where: \.isNewline) else {
                throw APIError(.badRequest, "invalid_name", "\(field) must be 1 to \(Self.maximumNameLength) characters on one line.")
            }
        }
        if try await store.account(email: email) != nil {
            throw APIError(.conflict, "email_taken", "An account with this email already exists. Log in instead.")
        }
        let password = form.password, cost = configuration.bcryptCost
        let hash = try await PasswordHashing.run { Bcrypt.hash(password, cost: cost) }
        var account = Account(key: Identifiers.accountKey(), email: email, passwordHash: hash,
                              firstName: firstName, lastName: lastName, createdAt: Date())
        // Keys are random; on the rare collision draw again.
        while try await store.account(key: account.key) != nil { account.key = Identifiers.accountKey() }
        do {
            try await store.createAccount(account)
        } catch StorageError.emailTaken {
            throw APIError(.conflict, "email_taken", "An account with this email already exists. Log in instead.")
        }
        context.logger.info("sign-up", metadata: ["account": "\(account.key)"])
        var headers = HTTPFields()
        headers[.location] = "/api/users/\(account.key)"
        return try JSONResponse.make(SignUpResponse(key: account.key), status: .created, headers: headers)
    }

    /// Emails compare case-insensitively and without surrounding spaces.
    static func normalizedEmail(_ email: String) -> String {
        email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    static func isPlausibleEmail(_ email: String) -> Bool {
        guard email.count <= 254, !email.contains(where: { $0.isWhitespace }) else { return false }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty else { return false }
        let domain = parts[1]
        return domain.contains(".") && !domain.hasPrefix(".") && !domain.hasSuffix(".")
    }
}
