import Foundation

/// A sign-in through another provider that has left for the provider's page and not come
/// back yet. The `state` sent to the provider is stored only as its digest; the browser
/// that started it holds a cookie whose digest must match, so a callback URL forwarded to
/// someone else (or forged) finishes nothing.
public struct PendingSignIn: Sendable, Equatable {
    public var stateDigest: String
    public var provider: String
    public var nonce: String
    /// PKCE (RFC 7636): the secret whose S256 challenge went to the provider.
    public var codeVerifier: String
    /// A path on this server to land on afterwards (checked before it is stored).
    public var returnPath: String
    public var browserDigest: String
    /// Set when a signed-in user is linking this provider to their account.
    public var linkAccountKey: String?
    /// A native app's loopback address (RFC 8252) and its PKCE challenge, when the app (not
    /// this browser) is to get the session.
    public var clientRedirect: String?
    public var clientChallenge: String?
    public var createdAt: Date
    public var expiresAt: Date

    public init(
        stateDigest: String, provider: String, nonce: String, codeVerifier: String, returnPath: String,
        browserDigest: String, linkAccountKey: String?, clientRedirect: String? = nil, clientChallenge: String? = nil,
        createdAt: Date, expiresAt: Date
    ) {
        self.stateDigest = stateDigest
        self.provider = provider
        self.nonce = nonce
        self.codeVerifier = codeVerifier
        self.returnPath = returnPath
        self.browserDigest = browserDigest
        self.linkAccountKey = linkAccountKey
        self.clientRedirect = clientRedirect
        self.clientChallenge = clientChallenge
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// One provider identity (`provider` + its stable subject id) belonging to one account.
public struct IdentityLink: Sendable, Equatable {
    public var provider: String
    public var subject: String
    public var accountKey: String
    /// The email the provider gave when the link was made (shown in the account menu).
    public var email: String
    public var createdAt: Date
    /// How the link was made.
    public var origin: Origin

    public enum Origin: String, Sendable {
        /// Made before links recorded their origin: the old rule linked a verified email to any
        /// account holding it, proven or not, so such a link to an unproven account with a
        /// password is treated as a claim at its next sign-in (see `SignInPolicy`).
        case legacy
        /// The provider sign-in created the account.
        case signUp = "signup"
        /// The account's owner, signed in, linked the provider from the account menu.
        case accountMenu = "menu"
        /// The provider vouched for the email of an existing account (proven, or claimed).
        case verifiedEmail = "email"
    }

    public init(provider: String, subject: String, accountKey: String, email: String, createdAt: Date, origin: Origin) {
        self.provider = provider
        self.subject = subject
        self.accountKey = accountKey
        self.email = email
        self.createdAt = createdAt
        self.origin = origin
    }
}

/// What a session signed in through a provider needs at logout: the ID token (the
/// `id_token_hint` of RP-initiated logout) or the Facebook access token to revoke.
public struct SessionSignIn: Sendable, Equatable {
    public var provider: String
    public var idToken: String?
    public var accessToken: String?

    public init(provider: String, idToken: String?, accessToken: String?) {
        self.provider = provider
        self.idToken = idToken
        self.accessToken = accessToken
    }
}

public protocol SignInRepository: Sendable {
    func savePendingSignIn(_ pending: PendingSignIn) async throws
    /// Removes and returns the sign-in with this state digest, expired or not (the caller
    /// says which); nil when there is none. Two callbacks racing cannot both get it.
    func takePendingSignIn(stateDigest: String) async throws -> PendingSignIn?
    @discardableResult func deleteExpiredPendingSignIns(now: Date) async throws -> Int

    func identityAccountKey(provider: String, subject: String) async throws -> String?
    /// The link of this provider identity, if any.
    func identityLink(provider: String, subject: String) async throws -> IdentityLink?
    /// False when the identity is already linked, or the account already has one of this provider.
    func linkIdentity(_ link: IdentityLink) async throws -> Bool
    @discardableResult func unlinkIdentity(provider: String, accountKey: String) async throws -> Bool
    func identities(accountKey: String) async throws -> [IdentityLink]

    /// A one-time code for a native app (stored as its digest), good until `expiresAt`.
    func saveSignInHandoff(code: String, accountKey: String, provider: String, challenge: String, expiresAt: Date) async throws
    /// Spends the code: its account, provider and PKCE challenge, or nil when unknown, used or expired.
    func takeSignInHandoff(code: String, now: Date) async throws -> (accountKey: String, provider: String, challenge: String)?

    func saveSessionSignIn(sessionID: String, _ signIn: SessionSignIn) async throws
    func sessionSignIn(sessionID: String) async throws -> SessionSignIn?
}
