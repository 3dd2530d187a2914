import Foundation
import OnTheMapModels

/// A registered person. `key` is the public account id ("3903878747"), used as `uniqueKey`.
public struct Account: Sendable, Equatable {
    public var key: String
    public var email: String
    public var passwordHash: String
    public var firstName: String
    public var lastName: String
    public var createdAt: Date
    /// May moderate posts and accounts (the first account, or one the host promotes).
    public var isAdmin: Bool
    /// Set while an administrator has disabled the account: it cannot log in, its posts are hidden.
    public var disabledAt: Date?
    /// Whether a sign-in provider has vouched that this email belongs to the account's owner.
    /// A password sign-up proves nothing about its email, so such an account stays unproven
    /// until a provider vouches for it, and then belongs to the person the provider vouched for
    /// (see `AccountRepository.claimAccount`).
    public var emailVerified: Bool

    public init(
        key: String, email: String, passwordHash: String, firstName: String, lastName: String, createdAt: Date,
        isAdmin: Bool = false, disabledAt: Date? = nil, emailVerified: Bool = false
    ) {
        self.key = key
        self.email = email
        self.passwordHash = passwordHash
        self.firstName = firstName
        self.lastName = lastName
        self.createdAt = createdAt
        self.isAdmin = isAdmin
        self.disabledAt = disabledAt
        self.emailVerified = emailVerified
    }
}

/// What changing an account's state (disabled, administrator) came to.
public enum AccountChange: Sendable, Equatable {
    /// Done; `endedSessions` sessions ended with it (disabling).
    case done(endedSessions: Int)
    case notFound
    /// Refused: it would leave no enabled administrator.
    case lastAdministrator
}

/// A provider vouched for the email of an account whose own email was never proven (made
/// with a password, by whoever typed the email): the account goes to the person the provider
/// vouched for, and every foothold of whoever made it goes (see `AccountRepository.claimAccount`).
public struct AccountClaim: Sendable, Equatable {
    public var accountKey: String
    /// The provider identity that vouched; linked (or kept) with origin `.email`.
    public var link: IdentityLink
    /// The names the provider gives, replacing the ones the account was made with; nil keeps them.
    public var firstName: String?
    public var lastName: String?

    public init(accountKey: String, link: IdentityLink, firstName: String?, lastName: String?) {
        self.accountKey = accountKey
        self.link = link
        self.firstName = firstName
        self.lastName = lastName
    }
}

/// A server-side login session; `id` is the token the cookie and `X-Parse-Session-Token`
/// carry (the database keeps only its digest).
public struct Session: Sendable, Equatable {
    public var id: String
    public var accountKey: String
    public var createdAt: Date
    public var expiresAt: Date

    public init(id: String, accountKey: String, createdAt: Date, expiresAt: Date) {
        self.id = id
        self.accountKey = accountKey
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
