import Foundation
import Localization
import Storage

/// Which account a provider identity signs in to: the account-linking policy, apart from the
/// browser flow that carries it (`SignInController`).
///
/// - Linking from the account menu: the signed-in owner's account.
/// - An identity linked before: its account.
/// - An email the provider says is verified and an account holds:
///   - a proven account (a provider vouched for its email before) is linked and signed in to;
///   - an unproven one (made with a password by whoever typed the email; sign-up proves
///     nothing) is claimed: it goes to the person the provider vouches for, and every foothold
///     of whoever made it goes (`AccountRepository.claimAccount`). The person is told.
/// - Otherwise a new account, proven when the provider says the email is verified.
struct SignInPolicy: Sendable {
    let accounts: AccountsService
    /// Identity links and the accounts they sign in to.
    let store: any SignInRepository & AccountRepository

    struct ExternalIdentity {
        var provider: String
        var subject: String
        var email: String?
        var emailVerified: Bool
        var firstName: String?
        var lastName: String?

        /// The email, normalized, when it could be an account's.
        var usableEmail: String? {
            email.map(AccountController.normalizedEmail).flatMap { AccountController.isPlausibleEmail($0) ? $0 : nil }
        }

        var verifiedEmail: String? { emailVerified ? usableEmail : nil }

        func link(to accountKey: String, origin: IdentityLink.Origin, at now: Date) -> IdentityLink {
            IdentityLink(
                provider: provider, subject: subject, accountKey: accountKey, email: usableEmail ?? "", createdAt: now, origin: origin)
        }
    }

    enum Resolution {
        case signedIn(Account)
        /// An unproven account with this email became the provider's person's: say so.
        case claimed(Account)

        var account: Account {
            switch self {
            case .signedIn(let account), .claimed(let account): account
            }
        }
    }

    typealias Problem = SignInController.Problem

    private func now() -> Date { accounts.configuration.clock.now() }

    func resolve(_ identity: ExternalIdentity, linking: String?, session: Session?) async throws -> Resolution {
        if let linking { return .signedIn(try await link(identity, to: linking, session: session)) }
        if let link = try await store.identityLink(provider: identity.provider, subject: identity.subject),
            let account = try await store.account(key: link.accountKey)
        {
            // A link the old rule made by email to an account nobody proved: claimed now.
            if link.origin == .legacy, !account.emailVerified, !account.passwordHash.isEmpty, identity.verifiedEmail == account.email {
                return try await claim(try Self.checkEnabled(account), by: identity)
            }
            return .signedIn(try Self.checkEnabled(account))
        }
        if let email = identity.usableEmail, let existing = try await store.account(email: email) {
            guard identity.emailVerified else {
                throw Problem(.conflict, "emailUnverified")
            }
            _ = try Self.checkEnabled(existing)
            if !existing.emailVerified { return try await claim(existing, by: identity) }
            guard try await store.linkIdentity(identity.link(to: existing.key, origin: .verifiedEmail, at: now())) else {
                throw Problem(.conflict, "alreadyLinked")
            }
            return .signedIn(existing)
        }
        // A new account, named as the provider names the user.
        let email = identity.usableEmail ?? "\(identity.provider)-\(SessionToken.digest(identity.subject).prefix(16))@users.invalid"
        let account: Account
        do {
            account = try await accounts.createAccount(
                email: email, passwordHash: "", firstName: Self.cleanName(identity.firstName) ?? "Student",
                lastName: Self.cleanName(identity.lastName) ?? "", emailVerified: identity.verifiedEmail != nil)
        } catch StorageError.emailTaken {
            throw Problem(.conflict, "justCreated")
        }
        guard try await store.linkIdentity(identity.link(to: account.key, origin: .signUp, at: now())) else {
            throw Problem(.conflict, "raced")
        }
        return .signedIn(account)
    }

    /// Only the user who started linking, still signed in, may finish it.
    private func link(_ identity: ExternalIdentity, to accountKey: String, session: Session?) async throws -> Account {
        guard let session, session.accountKey == accountKey, let account = try await store.account(key: accountKey) else {
            throw Problem(.forbidden, "notSignedIn", ["provider": .text(identity.provider)])
        }
        if let linked = try await store.identityAccountKey(provider: identity.provider, subject: identity.subject) {
            guard linked == account.key else {
                throw Problem(.conflict, "linkedElsewhere")
            }
            return account
        }
        guard try await store.linkIdentity(identity.link(to: account.key, origin: .accountMenu, at: now())) else {
            throw Problem(.conflict, "unlinkFirst")
        }
        // The owner, who proved the password, and the provider agree on the email: proven.
        if identity.verifiedEmail == account.email, !account.emailVerified { try await store.markEmailVerified(accountKey: account.key) }
        return account
    }

    private func claim(_ account: Account, by identity: ExternalIdentity) async throws -> Resolution {
        let claim = AccountClaim(
            accountKey: account.key, link: identity.link(to: account.key, origin: .verifiedEmail, at: now()),
            firstName: Self.cleanName(identity.firstName), lastName: Self.cleanName(identity.lastName))
        let claimed = try await store.claimAccount(claim, now: now())
        guard let current = try await store.account(key: account.key) else {
            throw Problem(.conflict, "accountChanged")
        }
        if claimed { return .claimed(current) }
        // Another sign-in proved the email a moment ago: this one signs in as that one did.
        if try await store.identityAccountKey(provider: identity.provider, subject: identity.subject) != current.key {
            guard try await store.linkIdentity(identity.link(to: current.key, origin: .verifiedEmail, at: now())) else {
                throw Problem(.conflict, "alreadyLinked")
            }
        }
        return .signedIn(try Self.checkEnabled(current))
    }

    static func checkEnabled(_ account: Account) throws -> Account {
        guard account.disabledAt == nil else {
            throw Problem(.forbidden, "disabled")
        }
        return account
    }

    static func cleanName(_ name: String?) -> String? {
        guard let trimmed = name?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty,
            TextRules.isDisplaySafe(trimmed)
        else { return nil }
        return String(trimmed.prefix(AccountController.maximumNameLength))
    }
}
