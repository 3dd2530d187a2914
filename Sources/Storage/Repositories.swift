import Foundation
import OnTheMapModels

public protocol AccountRepository: Sendable {
    /// Throws `StorageError.emailTaken` when the (already normalized) email is in use.
    func createAccount(_ account: Account) async throws
    func account(email: String) async throws -> Account?
    func account(key: String) async throws -> Account?
    /// Replaces the password hash; returns whether the account exists.
    @discardableResult func updatePasswordHash(accountKey: String, to hash: String) async throws -> Bool
}

/// Sessions are looked up by the token a client holds, but only a SHA-256 digest of it is
/// stored (`SessionToken.digest`), so a copy of the database logs nobody in.
public protocol SessionRepository: Sendable {
    func createSession(_ session: Session) async throws
    /// The session with this token, if it exists and has not expired at `now`.
    func session(id: String, now: Date) async throws -> Session?
    /// Ends a session; returns whether one existed.
    @discardableResult func deleteSession(id: String) async throws -> Bool
    /// Ends every session of an account except `keeping` (a token, or nil for all);
    /// returns how many ended.
    @discardableResult func deleteSessions(accountKey: String, keeping: String?) async throws -> Int
    /// Removes sessions that expired before `now`; returns how many.
    @discardableResult func deleteExpiredSessions(now: Date) async throws -> Int
}

public protocol StudentLocationRepository: Sendable {
    func locations(_ query: LocationQuery) async throws -> [StudentInformation]
    func countLocations(_ filter: LocationFilter) async throws -> Int
    func location(objectId: String) async throws -> StoredLocation?
    func insertLocation(_ location: StoredLocation) async throws
    /// Applies `patch` and stamps `updatedAt`; returns the updated record, nil if it does not exist.
    func updateLocation(objectId: String, patch: LocationPatch, updatedAt: Date) async throws -> StudentInformation?
    /// Returns whether a record was deleted.
    @discardableResult func deleteLocation(objectId: String) async throws -> Bool
}

/// Everything the server stores, behind one value it can pass around.
public typealias OnTheMapStore = AccountRepository & SessionRepository & StudentLocationRepository & TravelRepository
