import Foundation
import OnTheMapModels
import SQLKit

// (`SQLStore` conforms to `SessionRepository` through `OnTheMapStore`.)
extension SQLStore {
    public func createSession(_ session: Session) async throws {
        try await withDatabase { db in
            try await db.raw(
                """
                INSERT INTO sessions (id, account_key, created_at, expires_at)
                VALUES (\(bind: SessionToken.digest(session.id)), \(bind: session.accountKey),
                        \(bind: ParseDate.string(from: session.createdAt)), \(bind: ParseDate.string(from: session.expiresAt)))
                """
            ).run()
        }
    }

    public func session(id: String, now: Date) async throws -> Session? {
        let nowText = ParseDate.string(from: now)
        return try await withDatabase { db in
            // A disabled account's sessions are deleted when it is disabled; the join makes sure
            // one created by a login racing that moment is dead too.
            guard
                let row = try await db.raw(
                    """
                    SELECT sessions.* FROM sessions JOIN accounts ON accounts.key = sessions.account_key
                    WHERE sessions.id = \(bind: SessionToken.digest(id)) AND sessions.expires_at > \(bind: nowText)
                      AND accounts.disabled_at IS NULL
                    """
                ).first()
            else { return nil }
            return Session(
                id: id,
                accountKey: try row.decode(column: "account_key", as: String.self),
                createdAt: ParseDate.date(from: try row.decode(column: "created_at", as: String.self)) ?? .distantPast,
                expiresAt: ParseDate.date(from: try row.decode(column: "expires_at", as: String.self)) ?? .distantPast
            )
        }
    }

    public func signedIn(token: String, now: Date, classId: String) async throws -> SignedInRecord? {
        let nowText = ParseDate.string(from: now)
        return try await withDatabase { db in
            guard
                let row = try await db.raw(
                    """
                    SELECT accounts.*, sessions.created_at AS session_created_at, sessions.expires_at AS session_expires_at,
                           class_members.role AS class_role,
                           CASE WHEN EXISTS (SELECT 1 FROM student_locations AS w WHERE w.owner_key = accounts.key
                                             AND w.class_id = \(bind: classId) AND w.waiting = 1) THEN 1 ELSE 0 END AS has_waiting
                    FROM sessions JOIN accounts ON accounts.key = sessions.account_key
                    LEFT JOIN class_members ON class_members.class_id = \(bind: classId) AND class_members.account_key = accounts.key
                    WHERE sessions.id = \(bind: SessionToken.digest(token)) AND sessions.expires_at > \(bind: nowText)
                      AND accounts.disabled_at IS NULL
                    """
                ).first()
            else { return nil }
            let account = try Self.account(from: row)
            let session = Session(
                id: token, accountKey: account.key,
                createdAt: ParseDate.date(from: try row.decode(column: "session_created_at", as: String.self)) ?? .distantPast,
                expiresAt: ParseDate.date(from: try row.decode(column: "session_expires_at", as: String.self)) ?? .distantPast
            )
            let role = try row.decode(column: "class_role", as: String?.self).flatMap(ClassRole.init(rawValue:))
            let waiting = try row.decode(column: "has_waiting", as: Int.self) != 0
            return SignedInRecord(session: session, account: account, role: role, hasWaitingPost: waiting)
        }
    }

    @discardableResult
    public func deleteSession(id: String) async throws -> Bool {
        try await withDatabase { db in
            try await !db.raw("DELETE FROM sessions WHERE id = \(bind: SessionToken.digest(id)) RETURNING id").all().isEmpty
        }
    }

    @discardableResult
    public func deleteSessions(accountKey: String, keeping: String?) async throws -> Int {
        let kept = keeping.map(SessionToken.digest) ?? ""
        return try await withDatabase { db in
            try await db.raw(
                "DELETE FROM sessions WHERE account_key = \(bind: accountKey) AND id <> \(bind: kept) RETURNING id"
            ).all().count
        }
    }

    @discardableResult
    public func deleteExpiredSessions(now: Date) async throws -> Int {
        let nowText = ParseDate.string(from: now)
        return try await withDatabase { db in
            try await db.raw("DELETE FROM sessions WHERE expires_at <= \(bind: nowText) RETURNING id").all().count
        }
    }
}
