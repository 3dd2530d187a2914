import Foundation
import Storage

/// Growing delays and lockouts for credential guessing, counted in the database so every
/// server shares them. Each attempt counts against two subjects: the account (one attacker,
/// many addresses) and the client address (one address, many accounts). A few failures are
/// free; each one after that locks the subject for twice as long as the last (1 s, 2 s,
/// 4 s … up to `maximumLock`), and while locked every attempt is refused before bcrypt runs,
/// the right password included.
///
/// The owner is never locked out by someone else's guesses: a browser or app that has logged
/// in to the account before holds an `onthemap_device` cookie, and its attempts count against
/// that device instead of the account, so they are not refused by the account's lock.
struct LoginThrottle: Sendable {
    struct Policy: Sendable {
        /// Failures allowed before the first lock.
        var freeFailures: Int
        var firstLock: TimeInterval = 1
        var maximumLock: TimeInterval = 15 * 60

        /// The lock after the `failures`-th failure in a row, if any.
        func lock(afterFailures failures: Int) -> TimeInterval? {
            guard failures > freeFailures else { return nil }
            let doublings = min(failures - freeFailures - 1, 30)
            return min(firstLock * pow(2, Double(doublings)), maximumLock)
        }
    }

    struct Settings: Sendable {
        /// The main protection: a few guesses, then up to 15 minutes between guesses.
        var account = Policy(freeFailures: 5)
        /// Lenient: a whole class behind one school address shares it and makes typos, and
        /// each account it guesses at is protected by its own lock anyway.
        var address = Policy(freeFailures: 50, maximumLock: 60)
        var device = Policy(freeFailures: 5)
        /// Sign-ups from one address (every attempt counts, not only failures): room for a
        /// class signing up in its first lesson, not for a script making thousands.
        var signUp = Policy(freeFailures: 200, maximumLock: 60)
        /// Wrong passwords given to delete an account: as strict as logins, counted apart.
        var deletion = Policy(freeFailures: 5)
        /// A count with no failure for this long starts again.
        var resetAfter: TimeInterval = 3600

        func policy(for kind: ThrottleSubject.Kind) -> Policy {
            switch kind {
            case .account: account
            case .address: address
            case .device: device
            case .signUp: signUp
            case .deletion: deletion
            }
        }
    }

    let store: any LoginThrottleRepository
    let settings: Settings
    var clock = WallClock.system

    /// Seconds until every subject's lock has lifted, or nil when none is locked.
    func retryAfter(_ subjects: [ThrottleSubject], now: Date? = nil) async throws -> Int? {
        let now = now ?? clock.now()
        let counters = try await store.loginFailures(subjects)
        let until = counters.values.compactMap(\.lockedUntil).filter { $0 > now }.max()
        return until.map { max(1, Int($0.timeIntervalSince(now).rounded(.up))) }
    }

    func recordFailure(_ subjects: [ThrottleSubject], now: Date? = nil) async throws {
        let now = now ?? clock.now()
        for subject in subjects {
            let failures = try await store.recordLoginFailure(subject, now: now, resetBefore: now.addingTimeInterval(-settings.resetAfter))
            if let lock = settings.policy(for: subject.kind).lock(afterFailures: failures) {
                try await store.setLoginLock(subject, until: now.addingTimeInterval(lock))
            }
        }
    }

    /// A right password clears the account's and the device's count; never the address's,
    /// or one valid account would let an address guess at every other without limit.
    func recordSuccess(_ subjects: [ThrottleSubject]) async throws {
        for subject in subjects where subject.kind != .address {
            try await store.clearLoginFailures(subject)
        }
    }

    static func message(retryAfter seconds: Int) -> String {
        let wait = seconds < 90 ? "\(seconds) seconds" : "\(Int((Double(seconds) / 60).rounded(.up))) minutes"
        return "Too many failed logins. For your security, try again in \(wait)."
    }
}
