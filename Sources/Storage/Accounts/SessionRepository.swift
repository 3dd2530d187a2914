import Foundation

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
