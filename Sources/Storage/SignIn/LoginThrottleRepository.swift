import Foundation

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
