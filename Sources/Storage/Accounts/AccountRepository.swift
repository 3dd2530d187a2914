import Foundation
import OnTheMapModels

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
}

/// Sessions are looked up by the token a client holds, but only a SHA-256 digest of it is
/// stored (`SessionToken.digest`), so a copy of the database logs nobody in.
public protocol SessionRepository: Sendable {
    func createSession(_ session: Session) async throws
    /// The session with this token, if it exists and has not expired at `now`.
    func session(id: String, now: Date) async throws -> Session?
    /// The live session with this token, its (enabled) account and the account's role in the
    /// class `classId`, in one query: who is asking.
    func signedIn(token: String, now: Date, classId: String) async throws -> SignedInRecord?
    /// Ends a session; returns whether one existed.
    @discardableResult func deleteSession(id: String) async throws -> Bool
    /// Ends every session of an account except `keeping` (a token, or nil for all);
    /// returns how many ended.
    @discardableResult func deleteSessions(accountKey: String, keeping: String?) async throws -> Int
    /// Removes sessions that expired before `now`; returns how many.
    @discardableResult func deleteExpiredSessions(now: Date) async throws -> Int
}

/// A session, its account, and the account's recorded role in the class asked about.
public struct SignedInRecord: Sendable {
    public var session: Session
    public var account: Account
    public var role: ClassRole?
    /// The account has a post waiting for approval in the class asked about.
    public var hasWaitingPost: Bool

    public init(session: Session, account: Account, role: ClassRole?, hasWaitingPost: Bool = false) {
        self.session = session
        self.account = account
        self.role = role
        self.hasWaitingPost = hasWaitingPost
    }
}

/// Every read and write names its class (`MapClass.id`): a record of another class is not
/// found, whatever its objectId.
///
/// A post waiting for approval is read only by its author: the calls taking `author` include
/// that account's waiting posts with the visible ones.
public protocol StudentLocationRepository: Sendable {
    func locations(_ query: LocationQuery, in classId: String, author: String?) async throws -> [StudentInformation]
    func countLocations(_ filter: LocationFilter, in classId: String, author: String?) async throws -> Int
    func location(objectId: String, in classId: String, author: String?) async throws -> StoredLocation?
    func insertLocation(_ location: StoredLocation) async throws
    /// Applies `patch` and stamps `updatedAt` (a waiting post too); returns the updated record,
    /// nil if it does not exist or a moderator hid it.
    func updateLocation(objectId: String, in classId: String, patch: LocationPatch, updatedAt: Date) async throws -> StudentInformation?
    /// Returns whether a record was deleted.
    @discardableResult func deleteLocation(objectId: String, in classId: String) async throws -> Bool
}

/// Failed credential attempts, counted in the database so every server shares them.
/// A subject is what is counted: an account's email, a client address, a known device.
public protocol LoginThrottleRepository: Sendable {
    /// The counters of these subjects (absent ones are left out).
    func loginFailures(_ subjects: [ThrottleSubject]) async throws -> [ThrottleSubject: LoginFailures]
    /// Counts one failure; a count whose last failure is older than `resetBefore` starts
    /// again at one. Returns the new count.
    func recordLoginFailure(_ subject: ThrottleSubject, now: Date, resetBefore: Date) async throws -> Int
    func setLoginLock(_ subject: ThrottleSubject, until: Date) async throws
    func clearLoginFailures(_ subject: ThrottleSubject) async throws
    /// Devices that have logged in to an account (by token digest), so the owner is not
    /// locked out by someone else's guesses.
    func rememberDevice(digest: String, accountKey: String, now: Date) async throws
    func isKnownDevice(digest: String, accountKey: String) async throws -> Bool
    /// Forgets counters whose last failure was before `before` and that hold no lock after
    /// it; returns how many.
    @discardableResult func deleteStaleLoginFailures(before: Date) async throws -> Int
}

/// Everything the server stores, behind one value it can pass around.
public typealias OnTheMapStore = AccountRepository & SessionRepository & StudentLocationRepository & TravelRepository
    & LoginThrottleRepository & ModerationRepository & SignInRepository & LocationChangeRepository & ClassRepository
    & PersonalDataRepository & LTIRepository
