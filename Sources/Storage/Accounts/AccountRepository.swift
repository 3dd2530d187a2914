import Foundation

public protocol AccountRepository: Sendable {
    /// Throws `StorageError.emailTaken` when the (already normalized) email is in use.
    func createAccount(_ account: Account) async throws
    func account(email: String) async throws -> Account?
    func account(key: String) async throws -> Account?
    /// Replaces the password hash and spends every open reset link of the account (a link
    /// made before a password change never undoes it); returns whether the account exists.
    @discardableResult func updatePasswordHash(accountKey: String, to hash: String, now: Date) async throws -> Bool
    /// Records that a provider vouched for the account's email (its owner linked the provider
    /// while signed in, with that email verified).
    func markEmailVerified(accountKey: String) async throws
    /// Hands an unproven account to the person a provider vouches for, in one transaction:
    /// the password is removed, every session, known device, other provider link, app
    /// hand-off and pending link of the account ends, open reset links are spent, the names
    /// become the provider's, the email counts as proven and the vouching identity is linked.
    /// False (and nothing changed) when the account's email was proven meanwhile or it is gone.
    func claimAccount(_ claim: AccountClaim, now: Date) async throws -> Bool
    /// The language the account chose for the web app (a tag), or nil for the browser's.
    func accountLanguage(accountKey: String) async throws -> String?
    /// Keeps (or, with nil, forgets) the account's language; returns whether the account exists.
    @discardableResult func setAccountLanguage(_ language: String?, accountKey: String) async throws -> Bool
    /// Gives the account new names and every post of theirs in every class the same, with its
    /// search words, in one transaction (the change log tells every live map). The ids of the
    /// classes whose posts changed, or nil when there is no such account.
    func renameAccount(accountKey: String, firstName: String, lastName: String) async throws -> Set<String>?
}
