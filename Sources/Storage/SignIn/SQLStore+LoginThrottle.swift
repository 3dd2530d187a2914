import Foundation
import OnTheMapModels
import SQLKit

/// Login-failure counters and known devices (migration 5), in the shared database so several
/// servers throttle together. Times are stored as Parse date strings, which sort as text.
extension SQLStore {
    public func loginFailures(_ subjects: [ThrottleSubject]) async throws -> [ThrottleSubject: LoginFailures] {
        guard !subjects.isEmpty else { return [:] }
        let conditions = subjects.map { subject -> SQLQueryString in
            "(kind = \(bind: subject.kind.rawValue) AND subject = \(bind: subject.subject))"
        }
        let statement: SQLQueryString = "SELECT * FROM login_failures WHERE " + conditions.joined(separator: " OR ")
        return try await withDatabase { db in
            var found: [ThrottleSubject: LoginFailures] = [:]
            for row in try await db.raw(statement).all() {
                guard let kind = ThrottleSubject.Kind(rawValue: try row.decode(column: "kind", as: String.self)) else { continue }
                let subject = ThrottleSubject(kind, try row.decode(column: "subject", as: String.self))
                found[subject] = LoginFailures(
                    failures: try row.decode(column: "failures", as: Int.self),
                    lastFailureAt: ParseDate.date(from: try row.decode(column: "last_failure_at", as: String.self)) ?? .distantPast,
                    lockedUntil: try row.decode(column: "locked_until", as: String?.self).flatMap(ParseDate.date(from:))
                )
            }
            return found
        }
    }

    public func recordLoginFailure(_ subject: ThrottleSubject, now: Date, resetBefore: Date) async throws -> Int {
        let nowText = ParseDate.string(from: now)
        let resetText = ParseDate.string(from: resetBefore)
        // One atomic upsert, so failures counted by several servers at once all count.
        return try await withDatabase { db in
            try await db.raw(
                """
                INSERT INTO login_failures (kind, subject, failures, last_failure_at, locked_until)
                VALUES (\(bind: subject.kind.rawValue), \(bind: subject.subject), 1, \(bind: nowText), NULL)
                ON CONFLICT (kind, subject) DO UPDATE SET
                    failures = CASE WHEN login_failures.last_failure_at < \(bind: resetText) THEN 1 ELSE login_failures.failures + 1 END,
                    last_failure_at = \(bind: nowText)
                RETURNING failures
                """
            ).first()?.decode(column: "failures", as: Int.self) ?? 1
        }
    }

    public func setLoginLock(_ subject: ThrottleSubject, until: Date) async throws {
        let untilText = ParseDate.string(from: until)
        try await withDatabase { db in
            try await db.raw(
                """
                UPDATE login_failures SET locked_until = \(bind: untilText)
                WHERE kind = \(bind: subject.kind.rawValue) AND subject = \(bind: subject.subject)
                """
            ).run()
        }
    }

    public func clearLoginFailures(_ subject: ThrottleSubject) async throws {
        try await withDatabase { db in
            try await db.raw(
                """
                DELETE FROM login_failures WHERE kind = \(bind: subject.kind.rawValue) AND subject = \(bind: subject.subject)
                """
            ).run()
        }
    }

    public func rememberDevice(digest: String, accountKey: String, now: Date) async throws {
        let nowText = ParseDate.string(from: now)
        try await withDatabase { db in
            try await db.raw(
                """
                INSERT INTO login_devices (digest, account_key, last_login_at) VALUES (\(bind: digest), \(bind: accountKey), \(bind: nowText))
                ON CONFLICT (digest) DO UPDATE SET account_key = \(bind: accountKey), last_login_at = \(bind: nowText)
                """
            ).run()
        }
    }

    public func isKnownDevice(digest: String, accountKey: String) async throws -> Bool {
        try await withDatabase { db in
            try await !db.raw(
                """
                SELECT digest FROM login_devices WHERE digest = \(bind: digest) AND account_key = \(bind: accountKey)
                """
            ).all().isEmpty
        }
    }

    @discardableResult
    public func deleteStaleLoginFailures(before: Date) async throws -> Int {
        let text = ParseDate.string(from: before)
        return try await withDatabase { db in
            try await db.raw(
                """
                DELETE FROM login_failures
                WHERE last_failure_at < \(bind: text) AND (locked_until IS NULL OR locked_until < \(bind: text))
                RETURNING kind
                """
            ).all().count
        }
    }
}
