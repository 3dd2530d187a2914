import Foundation
import OnTheMapModels
import SQLKit

/// What a class's moderator or teacher may ask to be told by email.
public enum NoticeKind: String, Sendable, CaseIterable, Codable {
    /// Posts wait for their approval.
    case waiting
    /// A post of the class was reported.
    case reported
}

/// A notice that has news to tell: its subscriber (still a moderator or teacher of the class,
/// or an administrator, and not disabled), what is new since the last notice, and what the
/// notice read (so that only one server records it).
public struct DueNotice: Sendable, Equatable {
    public var classId: String
    public var classSlug: String
    public var className: String
    public var accountKey: String
    public var email: String
    public var firstName: String
    /// The account's chosen language, if any.
    public var language: String?
    public var kind: NoticeKind
    public var stopToken: String
    /// Events since the last notice.
    public var fresh: Int
    /// Waiting: every post that waits now. Reported: the same as `fresh`.
    public var total: Int
    /// The newest event counted (a Parse date), what the next notice starts after.
    public var newest: String
    /// What the last notice counted through, as read.
    public var noticedThrough: String
}

/// A stopped notice, for the page that confirms it.
public struct StoppedNotice: Sendable, Equatable {
    public var className: String
    public var kind: NoticeKind
}

/// Teachers' notices (`class_notices`): who asked to be told of what, and what they were told.
public protocol ClassNoticeRepository: Sendable {
    /// The notices `accountKey` has asked for in the class.
    func notices(classId: String, accountKey: String) async throws -> Set<NoticeKind>
    /// Asks for (news from `now` on) or stops one notice. Asking again keeps what it had.
    func setNotice(_ kind: NoticeKind, on: Bool, classId: String, accountKey: String, now: Date) async throws
    /// Notices with news whose last one was written at or before `quietSince` (or never).
    func dueNotices(quietSince: Date, limit: Int) async throws -> [DueNotice]
    /// Records `notice` as told at `now` and writes its email, in one transaction; false (and
    /// nothing written) when it was told meanwhile (by another server).
    func recordNotice(_ notice: DueNotice, quietSince: Date, mail: NewOutboxMail, now: Date) async throws -> Bool
    /// Ends the notice whose stop link carries `token`; nil when there is none (already stopped).
    func stopNotice(token: String) async throws -> StoppedNotice?
}

extension SQLStore {
    public func notices(classId: String, accountKey: String) async throws -> Set<NoticeKind> {
        try await withDatabase { db in
            let rows = try await db.raw(
                "SELECT kind FROM class_notices WHERE class_id = \(bind: classId) AND account_key = \(bind: accountKey)"
            ).all()
            return Set(try rows.compactMap { NoticeKind(rawValue: try $0.decode(column: "kind", as: String.self)) })
        }
    }

    public func setNotice(_ kind: NoticeKind, on: Bool, classId: String, accountKey: String, now: Date) async throws {
        try await withDatabase { db in
            if on {
                try await db.raw(
                    """
                    INSERT INTO class_notices (class_id, account_key, kind, stop_token, noticed_through)
                    VALUES (\(bind: classId), \(bind: accountKey), \(bind: kind.rawValue), \(bind: Tokens.randomHex(bytes: 24)),
                            \(bind: ParseDate.string(from: now)))
                    ON CONFLICT (class_id, account_key, kind) DO NOTHING
                    """
                ).run()
            } else {
                try await db.raw(
                    """
                    DELETE FROM class_notices
                    WHERE class_id = \(bind: classId) AND account_key = \(bind: accountKey) AND kind = \(bind: kind.rawValue)
                    """
                ).run()
            }
        }
    }

    public func dueNotices(quietSince: Date, limit: Int) async throws -> [DueNotice] {
        // News: for `waiting`, posts of the class waiting now that started waiting after the
        // last notice; for `reported`, reports on the class's posts made after it.
        let waitingAfter = """
            FROM student_locations l WHERE l.class_id = n.class_id AND l.waiting = 1 AND l.hidden_at IS NULL
            AND l.owner_disabled = 0 AND l.updated_at > n.noticed_through
            """
        let reportedAfter = """
            FROM location_reports r JOIN student_locations l ON l.object_id = r.object_id
            WHERE l.class_id = n.class_id AND r.created_at > n.noticed_through
            """
        return try await withDatabase { db in
            let rows = try await db.raw(
                """
                SELECT * FROM (
                    SELECT n.class_id, n.account_key, n.kind, n.stop_token, n.noticed_through,
                           c.slug, c.name, a.email, a.first_name, a.language,
                           CASE n.kind WHEN 'waiting' THEN (SELECT COUNT(*) \(unsafeRaw: waitingAfter))
                                ELSE (SELECT COUNT(*) \(unsafeRaw: reportedAfter)) END AS fresh,
                           CASE n.kind WHEN 'waiting' THEN (SELECT MAX(l.updated_at) \(unsafeRaw: waitingAfter))
                                ELSE (SELECT MAX(r.created_at) \(unsafeRaw: reportedAfter)) END AS newest,
                           CASE n.kind WHEN 'waiting' THEN (
                               SELECT COUNT(*) FROM student_locations l WHERE l.class_id = n.class_id AND l.waiting = 1
                               AND l.hidden_at IS NULL AND l.owner_disabled = 0)
                                ELSE 0 END AS total
                    FROM class_notices n
                    JOIN classes c ON c.id = n.class_id
                    JOIN accounts a ON a.key = n.account_key
                    WHERE a.disabled_at IS NULL AND c.archived_at IS NULL
                      AND (n.sent_at IS NULL OR n.sent_at <= \(bind: ParseDate.string(from: quietSince)))
                      AND (a.is_admin = 1 OR EXISTS (
                          SELECT 1 FROM class_members m WHERE m.class_id = n.class_id AND m.account_key = n.account_key
                          AND m.role IN ('moderator', 'teacher')))
                ) due
                WHERE due.fresh > 0
                ORDER BY due.newest
                LIMIT \(bind: limit)
                """
            ).all()
            return try rows.compactMap { row in
                guard let kind = NoticeKind(rawValue: try row.decode(column: "kind", as: String.self)) else { return nil }
                let fresh = try row.decode(column: "fresh", as: Int.self)
                return DueNotice(
                    classId: try row.decode(column: "class_id", as: String.self),
                    classSlug: try row.decode(column: "slug", as: String.self),
                    className: try row.decode(column: "name", as: String.self),
                    accountKey: try row.decode(column: "account_key", as: String.self),
                    email: try row.decode(column: "email", as: String.self),
                    firstName: try row.decode(column: "first_name", as: String.self),
                    language: try row.decode(column: "language", as: String?.self),
                    kind: kind, stopToken: try row.decode(column: "stop_token", as: String.self),
                    fresh: fresh, total: kind == .waiting ? try row.decode(column: "total", as: Int.self) : fresh,
                    newest: try row.decode(column: "newest", as: String.self),
                    noticedThrough: try row.decode(column: "noticed_through", as: String.self))
            }
        }
    }

    public func recordNotice(_ notice: DueNotice, quietSince: Date, mail: NewOutboxMail, now: Date) async throws -> Bool {
        try await withTransaction { db in
            // Only the server that finds the notice as it read it records it.
            let told = try await db.raw(
                """
                UPDATE class_notices SET noticed_through = \(bind: notice.newest), sent_at = \(bind: ParseDate.string(from: now))
                WHERE class_id = \(bind: notice.classId) AND account_key = \(bind: notice.accountKey)
                  AND kind = \(bind: notice.kind.rawValue) AND noticed_through = \(bind: notice.noticedThrough)
                  AND (sent_at IS NULL OR sent_at <= \(bind: ParseDate.string(from: quietSince)))
                RETURNING class_id
                """
            ).all()
            guard !told.isEmpty else { return false }
            try await Self.insertMail(mail, now: now, on: db)
            return true
        }
    }

    public func stopNotice(token: String) async throws -> StoppedNotice? {
        try await withTransaction { db in
            guard
                let row = try await db.raw(
                    """
                    SELECT c.name, n.kind FROM class_notices n JOIN classes c ON c.id = n.class_id
                    WHERE n.stop_token = \(bind: token)
                    """
                ).first(),
                let kind = NoticeKind(rawValue: try row.decode(column: "kind", as: String.self))
            else { return nil }
            try await db.raw("DELETE FROM class_notices WHERE stop_token = \(bind: token)").run()
            return StoppedNotice(className: try row.decode(column: "name", as: String.self), kind: kind)
        }
    }
}
